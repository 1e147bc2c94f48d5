# source: https://github.com/tensorflow/tensorflow/issues/41528 (stop_custom_loss_target.py as a custom train_step under fit)
# expect: cause=stop-gradient line=18
import keras
import numpy as np
import tensorflow as tf


class Regressor(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = self.loss_of(y, self(x, training=True))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}

    def loss_of(self, y_true, y_pred):
        y_pred = tf.stop_gradient(y_pred)
        return tf.reduce_mean(tf.abs(y_true - y_pred))


inputs = keras.Input((3,))
model = Regressor(inputs, keras.layers.Dense(1)(inputs))
model.compile(optimizer="sgd")
try:
    model.fit(np.random.rand(32, 3), np.random.rand(32, 1), epochs=2, batch_size=8, verbose=0)
except ValueError as error:
    print("fit failed:", str(error)[:60])
