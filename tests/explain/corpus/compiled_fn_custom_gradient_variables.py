# source: https://github.com/google/qhbm-library/issues/78 (cause_custom_gradient_variables.py: adding @tf.function raises "grad_fn must accept keyword argument 'variables'")
# expect: cause=custom-gradient-signature line=12
import tensorflow as tf

weight = tf.Variable([0.5, -0.5])


@tf.custom_gradient
def energy(x):
    e = tf.reduce_sum(weight * x)

    def grad(de):
        return de * weight

    return e, grad


@tf.function
def loss_and_grad(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = energy(x)
    return tape.gradient(loss, [x, weight])


print(loss_and_grad(tf.constant([1.0, 2.0])))
