# source: https://github.com/tensorflow/tensorflow/issues/30234 (state_accumulated_loss_variable.py as a meta-learning loss summed over tasks with assign_add in a @tf.function step: "operations on tf.variables are not differentiable")
# expect: cause=state-breaks-path line=18
import keras
import tensorflow as tf

keras.utils.set_random_seed(12)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
meta_loss = tf.Variable(0.0, trainable=False)


@tf.function
def meta_step(tasks_x, tasks_y):
    with tf.GradientTape() as tape:
        meta_loss.assign(0.0)
        for task in range(3):
            task_loss = tf.reduce_mean(tf.square(model(tasks_x[task]) - tasks_y[task]))
            meta_loss.assign_add(task_loss)  # the sum lives in a variable: its value has no path back to the model
    grads = tape.gradient(meta_loss, model.trainable_variables)
    return grads


grads = meta_step(tf.random.normal((3, 5, 4)), tf.random.normal((3, 5, 1)))
print([g is None for g in grads])
