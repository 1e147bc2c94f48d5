# runtime: one allocation far above the memory cap (64 GiB)
import numpy as np
import tensorflow as tf


def grads_with_frozen_weight(w, b, x):
    block = np.ones((1 << 33,), dtype=np.float64)
    return block, block
