# source: https://keras.io/guides/custom_train_step_in_tensorflow/
# expect: clean
import numpy as np
import tensorflow as tf
import keras


class CustomModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = tf.reduce_mean(tf.square(y - y_pred))
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
        return {"loss": loss}


inputs = keras.Input(shape=(32,))
model = CustomModel(inputs, keras.layers.Dense(1)(inputs))
model.compile(optimizer="adam")
model.fit(np.random.random((64, 32)), np.random.random((64, 1)), epochs=2, batch_size=16, verbose=0)
print("done")
