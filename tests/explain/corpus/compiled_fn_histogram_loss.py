# source: https://github.com/deepfakes/faceswap-model/issues/27 (nograd_histogram_match.py's kind: "tf.histogram_fixed_width is not differentiable to use in loss func": an image histogram loss; here in a @tf.function step)
# expect: cause=no-gradient-op line=18
import keras
import tensorflow as tf

keras.utils.set_random_seed(9)
model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(3, 3, padding="same", activation="sigmoid")])
images = tf.random.uniform((2, 8, 8, 3))
y_true = tf.random.uniform((2, 8, 8, 3))
optimizer = keras.optimizers.Adam(0.001)


@tf.function
def step():
    with tf.GradientTape() as tape:
        y_pred = model(images)
        true_hist = tf.histogram_fixed_width(y_true, [0.0, 1.0], nbins=16)
        pred_hist = tf.histogram_fixed_width(y_pred, [0.0, 1.0], nbins=16)
        loss = tf.reduce_mean(tf.square(tf.cast(true_hist - pred_hist, tf.float32) / 65536.0))
    grads = tape.gradient(loss, model.trainable_variables)
    return grads


print([g is None for g in step()])
