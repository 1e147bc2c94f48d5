# source: https://github.com/tensorflow/tensorflow/issues/56968
# expect: cause=unwatched line=11
import tensorflow as tf

ones = tf.ones([1, 16, 16, 1], tf.float32)


@tf.function
def saliency(image):
    with tf.GradientTape() as tape:
        score = tf.reduce_sum(tf.nn.avg_pool2d(image, 2, 2, "VALID") * 4.43)
    return tape.gradient(score, image)


print(saliency(ones))
