# source: https://github.com/keras-team/keras/issues/4784 (a linear output layer with binary_crossentropy; accuracy never changes)
# expect: cause=saturation line=16
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(1)
pixels = np.random.randint(0, 256, size=(32, 64)).astype("float32")  # raw pixel values, never scaled
labels = np.zeros((32, 1), "float32")
model = keras.Sequential([keras.Input((64,)),
                          keras.layers.Dense(1, kernel_initializer=keras.initializers.Constant(0.01))])
loss_fn = keras.losses.BinaryCrossentropy()  # from_logits=False: the outputs are read as probabilities
optimizer = keras.optimizers.SGD(0.01)
for epoch in range(2):
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(pixels))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    print("epoch", epoch, "loss", float(loss))
