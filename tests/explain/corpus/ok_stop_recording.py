# source: https://www.tensorflow.org/api_docs/python/tf/GradientTape#stop_recording
# expect: clean
import tensorflow as tf

x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    y = x ** 3
    with tape.stop_recording():
        print("logged", float(y))
    z = y * 2.0
print(tape.gradient(z, x))
