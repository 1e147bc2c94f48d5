# source: https://github.com/hereismari/tensorflow-maml/issues/3 (an inner training step taken with the optimizer inside the outer tape: the meta-gradient through it does not exist; here a learned weight-decay strength)
# expect: cause=state-breaks-path line=21
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(12, activation="relu"), keras.layers.Dense(1)])
inner_optimizer = keras.optimizers.SGD(0.05)
log_decay = tf.Variable(-4.0)  # the hyperparameter tuned on the validation loss
x_train, y_train = tf.random.normal((64, 5)), tf.random.normal((64, 1))
x_val, y_val = tf.random.normal((32, 5)), tf.random.normal((32, 1))


def squared_weights():
    return tf.add_n([tf.reduce_sum(tf.square(w)) for w in model.trainable_variables])


with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        train_loss = tf.reduce_mean(tf.square(model(x_train) - y_train)) + tf.exp(log_decay) * squared_weights()
    grads = inner.gradient(train_loss, model.trainable_variables)
    inner_optimizer.apply_gradients(zip(grads, model.trainable_variables))
    val_loss = tf.reduce_mean(tf.square(model(x_val) - y_val))
hypergradient = outer.gradient(val_loss, log_decay)
print(hypergradient)
