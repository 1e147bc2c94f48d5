# source: https://github.com/ankurtaly/Integrated-Gradients/issues/15 (integer_embedding_token_ids.py in a @tf.function: "the network is only differentiable up to the embedding tensor", the gradient taken for the token ids)
# expect: cause=integer-path line=15
import keras
import tensorflow as tf

keras.utils.set_random_seed(5)
embedding = keras.layers.Embedding(30, 8)
classifier = keras.layers.Dense(2)


@tf.function
def saliency(token_ids):
    with tf.GradientTape() as tape:
        tape.watch(token_ids)
        vectors = embedding(token_ids)  # the lookup turns the ids into integers: no slope back to them
        logits = classifier(tf.reduce_mean(vectors, axis=1))
        score = logits[:, 1]
    return tape.gradient(score, token_ids)


print(saliency(tf.constant([[4.0, 9.0, 2.0, 11.0]])))
