# source: https://github.com/tensorflow/tensorflow/issues/42984
# expect: cause=outside-tape line=13
import keras
import numpy as np
import tensorflow as tf


class Regressor(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
        loss = tf.reduce_mean(tf.square(y - y_pred))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


inputs = keras.Input((4,))
model = Regressor(inputs, keras.layers.Dense(1)(inputs))
model.compile(optimizer="adam")
try:
    model.fit(np.random.rand(32, 4), np.random.rand(32, 1), epochs=1, batch_size=16, verbose=0)
except ValueError as error:
    print("fit failed:", str(error)[:60])
