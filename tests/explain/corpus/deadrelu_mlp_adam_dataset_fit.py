# source: https://github.com/Keyird/DeepLearning-TensorFlow2/issues/2 (zh: a six-layer ReLU MLP trained with Adam at 0.01 on MNIST; its loss and accuracy freeze after the first epoch: the last hidden ReLU layers died)
# expect: cause=dead-relu line=22
import numpy as np
import tensorflow as tf
from tensorflow.keras import layers, optimizers, Sequential

tf.random.set_seed(0)
np.random.seed(0)
# synthetic MNIST-like data (no download): 28x28 images in [0,1], 10 classes
x = np.random.rand(6000, 28, 28).astype("float32")
W = np.random.randn(784, 10).astype("float32")
y = tf.one_hot(np.argmax((x.reshape(-1, 784) - 0.5) @ W, axis=1), depth=10)
train_dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(6000, seed=0).batch(128)

network = Sequential([
    layers.Input(shape=(28, 28)),
    layers.Reshape(target_shape=(28 * 28,)),
    layers.Dense(512, activation=tf.nn.relu),
    layers.Dense(256, activation=tf.nn.relu),
    layers.Dense(128, activation=tf.nn.relu),
    layers.Dense(64, activation=tf.nn.relu),
    layers.Dense(32, activation=tf.nn.relu),
    layers.Dense(10)
])

network.compile(optimizer=optimizers.Adam(learning_rate=0.01),
                loss=tf.losses.CategoricalCrossentropy(from_logits=True),
                metrics=['accuracy'])

history = network.fit(train_dataset, epochs=8, verbose=2)
h = x[:512]
for layer in network.layers[:-1]:
    h = layer(h)
print("fraction of last hidden ReLU units dead on 512 samples:",
      float(np.mean(np.all(h.numpy() == 0, axis=0))))
