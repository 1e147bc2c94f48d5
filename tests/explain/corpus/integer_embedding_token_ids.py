# source: https://github.com/hiranumn/IntegratedGradients/issues/5 (attributions for a text model: the gradient with respect to the word ids, which an Embedding turns into integers, is None)
# expect: cause=integer-path line=16
import keras
import tensorflow as tf

keras.utils.set_random_seed(2)
model = keras.Sequential([keras.Input((6,)), keras.layers.Embedding(20, 4),
                          keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
token_ids = tf.constant([[3, 7, 1, 0, 0, 0]], tf.float32)
baseline = tf.zeros_like(token_ids)
path = [baseline + alpha * (token_ids - baseline) for alpha in (0.25, 0.5, 1.0)]
attributions = []
for scaled in path:
    with tf.GradientTape() as tape:
        tape.watch(scaled)  # ids, not vectors: the Embedding casts them to integers to look rows up
        score = model(scaled)[:, 0]
    attributions.append(tape.gradient(score, scaled))
print([a is None for a in attributions])
