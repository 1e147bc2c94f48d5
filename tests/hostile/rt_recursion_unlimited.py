# runtime: unbounded recursion with the recursion limit lifted, so the C stack overflows
import sys
import tensorflow as tf


def _deeper(n):
    return _deeper(n + 1) + 1


def first_class_gradient(model, inp):
    sys.setrecursionlimit(10**8)
    return _deeper(0)
