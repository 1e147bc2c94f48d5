# source: https://www.tensorflow.org/guide/keras/transfer_learning (fine-tuning with a custom training loop: the @tf.function step asks for model.trainable_variables, which it read when it was traced, before base.trainable = True)
# expect: cause=frozen-python-state line=29
import keras
import tensorflow as tf

keras.utils.set_random_seed(4)
base = keras.Sequential([keras.Input((10,)), keras.layers.Dense(12, activation="relu")], name="base")
model = keras.Sequential([base, keras.layers.Dense(3)])
base.trainable = False
optimizer = keras.optimizers.SGD(0.05)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
x = tf.random.normal((64, 10))
y = tf.random.uniform((64,), maxval=3, dtype=tf.int32)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for step in range(3):  # phase one: the head alone
    train_step(x, y)

before = base.layers[0].kernel.numpy().copy()
base.trainable = True  # phase two: fine-tune everything, with the same traced step
for step in range(3):
    print("loss", float(train_step(x, y)))
print("base moved:", float(abs(base.layers[0].kernel.numpy() - before).max()))
