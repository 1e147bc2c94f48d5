# source: https://github.com/keras-team/keras/issues/5733 (a custom policy-gradient loss written as loss(y_pred, y_true): Keras passes the labels first, so the log is taken of the one-hot labels, whose zeros give -inf and NaN weights)
# expect: cause=non-finite line=11
import keras
import numpy as np

keras.utils.set_random_seed(12)
states = np.random.rand(48, 5).astype("float32")
actions = keras.utils.to_categorical(np.random.randint(0, 3, size=48), 3)


def policy_gradient_loss(y_pred, y_true):
    return -keras.ops.sum(keras.ops.log(y_pred) * y_true, axis=-1)


policy = keras.Sequential([keras.Input((5,)), keras.layers.Dense(16, activation="tanh"),
                           keras.layers.Dense(3, activation="softmax")])
policy.compile(optimizer=keras.optimizers.Adam(1e-3), loss=policy_gradient_loss)
history = policy.fit(states, actions, epochs=2, batch_size=16, verbose=0)
print("losses:", history.history["loss"])
