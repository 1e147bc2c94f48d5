# source: https://e-learn.cn/tag/tape (unwatched_access_false.py in a @tf.function; tf.GradientTape详解: "也可以设置不自动监控可训练变量，完全由自己指定" — only the input watched, the weights' gradient asked for too)
# expect: cause=unwatched line=12
import keras
import tensorflow as tf

keras.utils.set_random_seed(4)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(1)])


@tf.function
def input_and_weight_gradients(x):
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)  # only x: the layers' variables are read but no longer watched
        y = model(x)
    dx = tape.gradient(y, x)
    dw = tape.gradient(y, model.trainable_variables)
    return dx, dw


dx, dw = input_and_weight_gradients(tf.random.normal((2, 3)))
print(dx.shape, [g is None for g in dw])
