# source: https://github.com/fchollet/deep-learning-with-python-notebooks/issues/13 (SimGAN: the discriminator compiled, then `discriminator_model.trainable = False` before the combined model is compiled, and never set back; Keras 3 reads the flag when the discriminator's own step is made, so its fit trains nothing)
# expect: cause=not-used line=24
import keras
import numpy as np

keras.utils.set_random_seed(13)
rng = np.random.default_rng(13)
synthetic = rng.normal(size=(32, 10)).astype("float32")
real = (rng.normal(size=(32, 10)) * 0.5 + 1.0).astype("float32")

refiner_in = keras.Input((10,))
refined = keras.layers.Add()([refiner_in, keras.layers.Dense(10)(keras.layers.Dense(16, activation="relu")(refiner_in))])
refiner_model = keras.Model(refiner_in, refined)

disc_in = keras.Input((10,))
disc_out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Dense(16, activation="relu")(disc_in))
discriminator_model = keras.Model(disc_in, disc_out)

sgd = keras.optimizers.SGD(learning_rate=0.01)
refiner_model.compile(optimizer=sgd, loss="mae")
discriminator_model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.01), loss="binary_crossentropy")

combined_in = keras.Input((10,))
discriminator_model.trainable = False
combined_refined = refiner_model(combined_in)
combined_model = keras.Model(combined_in, [combined_refined, discriminator_model(combined_refined)])
combined_model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.01), loss=["mae", "binary_crossentropy"])

for step in range(3):
    combined_model.train_on_batch(synthetic, [synthetic, np.ones((32, 1), "float32")])
    refined_batch = refiner_model.predict(synthetic, verbose=0)
    batch = np.concatenate([real, refined_batch])
    labels = np.concatenate([np.ones((32, 1)), np.zeros((32, 1))]).astype("float32")
    history = discriminator_model.fit(batch, labels, epochs=1, verbose=0)
    print(step, history.history["loss"][0], len(discriminator_model.trainable_weights))
