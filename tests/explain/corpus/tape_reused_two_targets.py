# source: https://insights.willogy.io/tensorflow-part-3-automatic-differentiation/
# expect: cause=tape-reused line=6
import tensorflow as tf

tensor_x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    tensor_y1 = tensor_x ** 2
    tensor_y2 = tensor_x ** 3
tensor_dy1_dx = tape.gradient(tensor_y1, tensor_x)
try:
    tensor_dy2_dx = tape.gradient(tensor_y2, tensor_x)
except RuntimeError as error:
    print("RuntimeError:", error)
