# runtime: unbounded recursion (Python's limit stops it)
import tensorflow as tf


def grad_from_numpy(x):
    return grad_from_numpy(x)
