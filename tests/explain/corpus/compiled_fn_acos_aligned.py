# source: https://github.com/tensorflow/tensorflow/issues/57786 (nonfinite_acos_aligned.py in a @tf.function step)
# expect: cause=non-finite line=21
# how: edge
import keras
import tensorflow as tf

keras.utils.set_random_seed(4)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, use_bias=False)])
opt = keras.optimizers.SGD(0.01)
x = tf.random.normal((8, 6))
target = tf.concat([model(x[:4]), tf.random.normal((4, 3))], axis=0)


@tf.function
def train_step(x, target):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        a = tf.math.l2_normalize(pred, axis=1)
        b = tf.math.l2_normalize(target, axis=1)
        cos = tf.reduce_sum(a * b, axis=1)
        loss = tf.reduce_mean(tf.acos(cos))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss, grads


for step in range(2):
    loss, grads = train_step(x, target)
    print(step, float(loss), "nan in grad:", bool(tf.reduce_any(tf.math.is_nan(grads[0]))))
