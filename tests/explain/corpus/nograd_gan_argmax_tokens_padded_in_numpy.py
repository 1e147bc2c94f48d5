# source: https://github.com/dbpedia/RDF2text-GAN/issues/1 (a text GAN's generator: the tokens its argmax picks are padded by keras.utils.pad_sequences, in NumPy, before the discriminator reads them)
# expect: cause=no-gradient-op line=18
import numpy as np
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)
VOCABULARY, LENGTH = 12, 6
generator = keras.Sequential([keras.Input((LENGTH,), dtype="int32"), keras.layers.Embedding(VOCABULARY, 8),
                              keras.layers.Dense(VOCABULARY)])
discriminator = keras.Sequential([keras.Input((LENGTH,), dtype="int32"), keras.layers.Embedding(VOCABULARY, 8),
                                  keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
cross_entropy = keras.losses.BinaryCrossentropy(from_logits=True)
prompts = np.random.randint(1, VOCABULARY, (3, LENGTH)).astype("int32")

with tf.GradientTape() as tape:
    logits = generator(prompts, training=True)
    tokens = tf.argmax(logits, axis=-1)
    padded = keras.utils.pad_sequences(tokens, maxlen=LENGTH, padding="post")
    fake_scores = discriminator(padded, training=True)
    generator_loss = cross_entropy(tf.ones_like(fake_scores), fake_scores)
print([g is None for g in tape.gradient(generator_loss, generator.trainable_weights)])
