# source: https://github.com/eriklindernoren/Keras-GAN/issues/73 (pix2pix: the discriminator compiled, then set trainable = False for the combined model, then trained with train_on_batch; "set discriminator.trainable = False will disable both combined model and real D model trainable")
# expect: cause=not-used line=19
import keras
import numpy as np

keras.utils.set_random_seed(7)
img_shape = (8, 8, 1)
img_A, img_B = keras.Input(img_shape), keras.Input(img_shape)
fake_from_B = keras.layers.Conv2D(1, 3, padding="same", activation="tanh")(img_B)
generator = keras.Model(img_B, fake_from_B)
d_in = keras.layers.Concatenate()([img_A, img_B])
validity = keras.layers.Conv2D(1, 4, strides=2, padding="same")(keras.layers.Conv2D(8, 4, strides=2, padding="same")(d_in))
discriminator = keras.Model([img_A, img_B], validity)
optimizer = keras.optimizers.Adam(0.0002, 0.5)
discriminator.compile(loss="mse", optimizer=optimizer, metrics=["accuracy"])

fake_A = generator(img_B)
# For the combined model we will only train the generator
discriminator.trainable = False
valid = discriminator([fake_A, img_B])
combined = keras.Model(inputs=[img_A, img_B], outputs=[valid, fake_A])
combined.compile(loss=["mse", "mae"], loss_weights=[1, 100], optimizer=keras.optimizers.Adam(0.0002, 0.5))

rng = np.random.default_rng(7)
imgs_A = rng.uniform(-1, 1, (4, *img_shape)).astype("float32")
imgs_B = rng.uniform(-1, 1, (4, *img_shape)).astype("float32")
valid_label, fake_label = np.ones((4, 2, 2, 1), "float32"), np.zeros((4, 2, 2, 1), "float32")
for batch in range(2):
    fake = generator.predict(imgs_B, verbose=0)
    d_loss_real = discriminator.train_on_batch([imgs_A, imgs_B], valid_label)
    d_loss_fake = discriminator.train_on_batch([fake, imgs_B], fake_label)
    g_loss = combined.train_on_batch([imgs_A, imgs_B], [valid_label, imgs_A])
    print(batch, d_loss_real, g_loss)
