# source: http://stackoverflow.com.mevn.net/questions/52800582/why-do-i-fail-to-predict-y-x4-with-keras-y-x3-works (saturation_sigmoid_unscaled_inputs.py trained with fit, as asked: inputs in [-100, 100] fed to a sigmoid layer saturate it, and most of its weights' gradients are exactly 0)
# expect: cause=saturation line=13
import keras
import numpy as np

keras.utils.set_random_seed(5)
x = np.linspace(-100, 100, 256, dtype="float32")[:, None]
y = x ** 4 / 1e8  # the targets scaled, the inputs not

model = keras.Sequential([
    keras.Input((1,)),
    # the inputs reach ±100: with these weights most units sit at exactly 0 or 1
    keras.layers.Dense(10, activation="sigmoid", kernel_initializer=keras.initializers.RandomNormal(stddev=3.0)),
    keras.layers.Dense(10, activation="elu"),
    keras.layers.Dense(1),
])
model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="mse")
model.fit(x, y, epochs=3, batch_size=32, shuffle=False, verbose=0)  # in order: each batch one range of x
print("first layer's outputs at exactly 0 or 1:", float(np.mean(np.isin(model.layers[0](x).numpy(), [0.0, 1.0]))))
