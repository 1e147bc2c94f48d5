# source: https://github.com/keras-team/keras/issues/19479 (mixed_float16_unscaled_loss.py compiled: fit under the 'mixed_float16' policy with a train_step override that leaves out self.optimizer.scale_loss: the small float16 gradients underflow to exactly 0)
# expect: cause=underflow line=16
import keras
import tensorflow as tf

keras.utils.set_random_seed(4)
keras.mixed_precision.set_global_policy("mixed_float16")


class Regressor(keras.Sequential):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            prediction = self(x, training=True)  # float16, as the policy computes
            # a loss term weighted far down (a KL weight), in float16: each example's slope is below float16's smallest step
            loss = 1e-6 * tf.reduce_mean(tf.square(prediction - tf.cast(y, prediction.dtype)))
        # no self.optimizer.scale_loss(loss): the float16 backward pass flushes every slope to 0
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        return {"loss": loss}


model = Regressor([keras.Input((8,)), keras.layers.Dense(16), keras.layers.Dense(4)])
keras.mixed_precision.set_global_policy("float32")
model.compile(optimizer=keras.optimizers.SGD(0.1))
x = tf.random.normal((64, 8))
y = tf.random.normal((64, 4))
model.fit(x, y, batch_size=32, epochs=1, verbose=0)
print(model.layers[0].kernel.numpy()[0, :3])
