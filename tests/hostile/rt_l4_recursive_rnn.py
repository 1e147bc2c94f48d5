# runtime: calls itself instead of the RNN, with Python's recursion limit lifted a little
import sys
import tensorflow as tf


def all_steps_jvp(rnn, x, h0, v):
    sys.setrecursionlimit(5000)
    return all_steps_jvp(rnn, x, h0, v) + 1
