# source: https://www.tensorflow.org/guide/function#executing_python_side_effects (a global step counter advanced by Python code inside a tf.function: it moves only when the function is traced, so a term switched on after a warm-up never joins)
# expect: cause=frozen-python-state line=27
import keras
import tensorflow as tf

keras.utils.set_random_seed(10)
body = keras.layers.Dense(6, activation="tanh")
head = keras.layers.Dense(1)
aux_head = keras.layers.Dense(1)
for layer, width in ((body, 4), (head, 6), (aux_head, 6)):
    layer.build((None, width))
optimizer = keras.optimizers.SGD(0.05)
x = tf.random.normal((32, 4))
y = tf.random.normal((32, 1))
step = 0


@tf.function
def train_step(x, y):
    global step
    aux_weight = 0.0 if step < 3 else 0.5  # the auxiliary term joins after three steps
    with tf.GradientTape() as tape:
        h = body(x)
        loss = tf.reduce_mean(tf.square(head(h) - y)) + aux_weight * tf.reduce_mean(tf.square(aux_head(h) + y))
    variables = body.trainable_variables + head.trainable_variables + aux_head.trainable_variables
    grads = tape.gradient(loss, variables)
    step += 1
    optimizer.apply_gradients(zip(grads, variables))
    return grads


for _ in range(6):
    grads = train_step(x, y)
print("step counter:", step, "aux head gradient max:", float(tf.reduce_max(tf.abs(grads[-2]))))
