# runtime: a loop that never ends
import tensorflow as tf


def grad_of_cube(x):
    n = 0
    while True:
        n += 1
