# runtime: raises KeyboardInterrupt, as if Ctrl-C were pressed
import tensorflow as tf


def grad_of_cube(x):
    raise KeyboardInterrupt
