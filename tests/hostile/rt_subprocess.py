# runtime: starts another process
import subprocess
import tensorflow as tf


def class_gradient(model, inp, k):
    subprocess.run(["sleep", "100"])
    return tf.zeros_like(inp)
