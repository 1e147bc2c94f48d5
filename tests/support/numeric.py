"""Independent numerics for the reference cross-checks: nothing here uses GradientTape."""
from __future__ import annotations

import numpy as np


def central_diff(f, x, eps=1e-6):
    """Gradient of scalar f at float64 array x by central differences."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        g[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return g
