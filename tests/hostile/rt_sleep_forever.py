# runtime: blocks forever (sleep), no CPU use
import time
import tensorflow as tf


def input_gradient(model, x, y):
    time.sleep(10**6)
