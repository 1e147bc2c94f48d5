# source: https://github.com/keras-team/keras/issues/19150 (state_metric_mean_as_loss.py under fit: a keras.metrics.SparseCategoricalCrossentropy object called inside the custom loss, "No gradients provided for any variable")
# expect: cause=state-breaks-path line=13
import keras
import numpy as np

keras.utils.set_random_seed(7)
inputs = keras.Input((6,))
model = keras.Model(inputs, keras.layers.Dense(3, activation="softmax")(inputs))
sparse_cc = keras.metrics.SparseCategoricalCrossentropy(from_logits=False)


def custom_loss(y_true, y_pred):
    loss = sparse_cc(y_true, y_pred)  # a metric: it adds into its running totals and returns their ratio
    return loss


model.compile(optimizer="adam", loss=custom_loss)
try:
    model.fit(np.random.rand(32, 6).astype("float32"), np.random.randint(0, 3, 32), epochs=1, batch_size=16, verbose=0)
except ValueError as error:
    print("fit failed:", str(error)[:60])
