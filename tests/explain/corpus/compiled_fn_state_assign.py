# source: https://github.com/tensorflow/tensorflow/issues/38622 (state_assign.py in a @tf.function step)
# expect: cause=state-breaks-path line=12
import tensorflow as tf

x = tf.Variable(2.0)
buffer = tf.Variable(0.0)


@tf.function
def step():
    with tf.GradientTape() as tape:
        buffer.assign(x * 3.0)
        y = buffer * buffer
    return tape.gradient(y, x)


for _ in range(3):
    print(step())
