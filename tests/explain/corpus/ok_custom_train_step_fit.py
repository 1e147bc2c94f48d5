# source: https://keras.io/guides/custom_train_step_in_tensorflow/
# expect: clean
import keras
import numpy as np
import tensorflow as tf

loss_tracker = keras.metrics.Mean(name="loss")


class CustomModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = keras.losses.mean_squared_error(y, y_pred)
        trainable_vars = self.trainable_variables
        self.optimizer.apply_gradients(zip(tape.gradient(loss, trainable_vars), trainable_vars))
        loss_tracker.update_state(loss)
        return {"loss": loss_tracker.result()}

    @property
    def metrics(self):
        return [loss_tracker]


inputs = keras.Input(shape=(32,))
model = CustomModel(inputs, keras.layers.Dense(1)(inputs))
model.compile(optimizer="adam")
model.fit(np.random.random((64, 32)), np.random.random((64, 1)), epochs=2, batch_size=16, verbose=0)
print("done")
