# source: https://github.com/keras-team/keras/pull/6223 (the siamese example's distance, fixed to keep the sqrt's operand above epsilon: the twin's last bias is added to both embeddings and cancels in their difference, so its gradient is exactly 0, its true value, while the model trains)
# expect: clean
import keras
import numpy as np

keras.utils.set_random_seed(3)


def distance(pair):
    left, right = pair
    squared = keras.ops.sum(keras.ops.square(left - right), axis=1, keepdims=True)
    return keras.ops.sqrt(keras.ops.maximum(squared, keras.config.epsilon()))


def contrastive(same, dist):
    return keras.ops.mean(same * keras.ops.square(dist) + (1 - same) * keras.ops.square(keras.ops.maximum(1.0 - dist, 0)))


twin = keras.Sequential([keras.Input((10,)), keras.layers.Dense(12, activation="relu"), keras.layers.Dense(6)])
first, second = keras.Input((10,)), keras.Input((10,))
model = keras.Model([first, second], keras.layers.Lambda(distance)([twin(first), twin(second)]))
model.compile(optimizer=keras.optimizers.RMSprop(1e-3), loss=contrastive)
rng = np.random.default_rng(3)
left, right = rng.random((64, 10)).astype("float32"), rng.random((64, 10)).astype("float32")
right[:8] = left[:8]  # identical pairs: their distance sits at the clip
same = np.zeros((64, 1), "float32")
same[:24] = 1.0
history = model.fit([left, right], same, epochs=3, batch_size=32, verbose=0)
print("losses:", [round(v, 4) for v in history.history["loss"]])
