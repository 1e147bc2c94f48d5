# files: an unbalanced bracket in the exercise cell
import tensorflow as tf


def grad_across_chunks(rnn, x1, x2, h0):
    with tf.GradientTape() as tape:
        tape.watch(h0
        out = rnn(x1, initial_state=h0)
    return tape.gradient(out, h0)
