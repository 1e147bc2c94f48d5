# source: https://github.com/keras-team/keras/issues/9742 (an XOR net with a hidden Dense(3, relu) that sometimes stops learning: two of its three units output 0 for all four inputs, and their weights never change)
# expect: cause=dead-relu line=35
import numpy as np
import keras
from keras import ops
from keras.layers import Layer, Input, Dense
from keras.models import Model


class MyLayer(Layer):
    def __init__(self, output_dim, **kwargs):
        self.output_dim = output_dim
        super(MyLayer, self).__init__(**kwargs)

    def build(self, input_shape):
        self.kernel = self.add_weight(name='kernel', shape=(input_shape[1], self.output_dim),
                                      initializer='glorot_uniform', trainable=True)
        self.bias = self.add_weight(name='bias', shape=(self.output_dim, 1),
                                    initializer='zeros', trainable=True)
        super(MyLayer, self).build(input_shape)

    def call(self, x):
        return ops.sigmoid(ops.dot(x, self.kernel) + self.bias)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.output_dim)


x_train = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], dtype="float32")
y_train = np.array([[0], [1], [1], [0]], dtype="float32")

SEED = 8
keras.utils.set_random_seed(SEED)
x = Input(shape=(2,))
Hidden = Dense(3, activation='relu')(x)
y = MyLayer(output_dim=1)(Hidden)
model = Model(inputs=x, outputs=y)
model.compile(optimizer='adam', loss='binary_crossentropy', metrics=['accuracy'])
w0 = [w.copy() for w in model.get_weights()]
model.fit(x_train, y_train, epochs=200, verbose=0)
print("hidden activations:\n", model.layers[1](x_train).numpy())
k0, k1 = w0[0], model.get_weights()[0]
print("hidden kernel columns changed:", [not np.allclose(k0[:, j], k1[:, j]) for j in range(3)])
print("predictions:", model.predict(x_train, verbose=0).ravel())
