"""The central-difference cross-check of a repaired gradient (gradtutor.explain.fix.central), on pure numbers.

A patch's gradient is often exactly zero where the target is flat (the double where at a norm's or a sinc's 0):
it has no size to measure an error relative to, so the check asks the central difference itself to be zero
within the rounding of the target's values. Drawn here: targets whose slope along the direction is truly zero
(a cone or a bowl at the point, plus a constant) and targets with a slope (the same plus a linear term), each
evaluated in float64 or float32 as the replay would be; the check passes the first with a zero gradient and
fails the second, and still fails a wrong nonzero gradient.
"""
from __future__ import annotations

import numpy as np
import pytest

from gradtutor.explain.fix import central, verify
from gradtutor.explain.fix import plan as plans

pytestmark = pytest.mark.unit

SEEDS = range(8)


def _target(rng, dtype, slope: float):
    """t -> (f(x + t d), the magnitudes it sums, eps) for f a cone, a bowl and a cubic at x (zero slope, not even in
    t: rounding differs at ±h) plus `slope` · t."""
    size = int(rng.integers(1, 12))
    cone, bowl, cubic = rng.uniform(0.1, 5.0, size), rng.uniform(0.1, 5.0, size), rng.uniform(-5.0, 5.0, size)
    offset = float(rng.uniform(-100.0, 100.0))
    d = rng.choice([-1.0, 1.0], size=size)

    at = rng.uniform(-3.0, 3.0, size).astype(dtype)  # where the sources sit: x ± h rounds there, as in a replay

    def evaluate(t):
        moved = (at + t * d).astype(dtype) - at
        terms = np.concatenate([cone * np.abs(moved), bowl * moved ** 2, cubic * moved ** 3,
                                [offset, slope * t]]).astype(dtype)
        return float(np.sum(terms, dtype=dtype)), float(np.sum(np.abs(terms))), float(np.finfo(dtype).eps)

    return evaluate


def _error(evaluate, along: float, size: float, scale: float) -> float:
    centrals, noise = central.slopes(evaluate, scale)
    return central.judged(centrals, noise, along, size)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_zero_gradient_passes_where_the_target_is_flat_and_fails_where_it_is_not(seed):
    rng = np.random.default_rng(seed)
    dtype = str(rng.choice(["float64", "float32"]))
    scale = float(rng.uniform(1.0, 10.0))
    flat = _target(rng, dtype, 0.0)
    assert _error(flat, 0.0, 0.0, scale) <= central.TOLERANCE
    slope = float(rng.uniform(2.0, 10.0)) * rng.choice([-1.0, 1.0])  # above a float32 replay's rounding of f
    sloped = _target(rng, dtype, slope)
    assert _error(sloped, 0.0, 0.0, scale) > central.TOLERANCE  # a zero where the target moves: rejected


@pytest.mark.parametrize("seed", SEEDS)
def test_a_nonzero_gradient_is_still_judged_relative_to_its_size(seed):
    rng = np.random.default_rng(seed)
    scale = float(rng.uniform(1.0, 10.0))
    slope = float(rng.uniform(0.5, 5.0)) * rng.choice([-1.0, 1.0])
    sloped = _target(rng, "float64", slope)
    size = abs(slope) * float(rng.uniform(1.0, 3.0))  # ‖g‖ is at least its projection's size
    assert _error(sloped, slope, size, scale) <= central.TOLERANCE
    wrong = slope * float(rng.uniform(1.2, 3.0))
    assert _error(sloped, wrong, size, scale) > central.TOLERANCE


def test_a_target_that_cannot_be_evaluated_gives_no_number():
    assert central.slopes(lambda t: None, 1.0) is None


@pytest.mark.parametrize("seed", SEEDS)
def test_an_all_zero_gradient_is_verified_only_when_its_measured_central_difference_says_zero(tmp_path, seed):
    """The verifier (fix/verify.py): a re-run whose gradients are all zero is verified only on a measured error
    within TOLERANCE; an error beyond it, or none measured, leaves the patch a suggestion ("zero")."""
    rng = np.random.default_rng(seed)
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nx = tf.constant(1.0)\nwith tf.GradientTape() as t:\n"
                      "    y = x * x\nprint(t.gradient(y, x))\n")
    calls = [["zero"] * int(rng.integers(1, 4))]
    for error, verified in ((float(rng.uniform(0.0, 1.0)) * central.TOLERANCE, True),
                            (float(rng.uniform(2.0, 1e6)) * central.TOLERANCE, False), (None, False)):
        plan = plans.make(str(script), [{"file": str(script), "line": 5, "call": "gradient", "cause": "unwatched",
                                         "broke_at": {"file": str(script), "line": 3, "code": ""}}])
        line = plan.moved(plan.items[0].line)
        verify.judge(plan, {"script_exit": 0, "findings": [], "gradients": {str(line): calls},
                            "central": {str(line): error}}, str(script))
        assert (plan.items[0].verified, plan.items[0].why) == (verified, "" if verified else "zero")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_compiled_gradient_checked_all_zero_is_verified_only_by_an_eager_run_that_measures_zero(tmp_path, seed):
    """The in-graph checks see a traced gradient all zero but no values: the copy runs once more with its functions
    run eagerly, and only a measured zero slope there verifies it (verify._zero_when_compiled)."""
    from gradtutor.explain.fix import show

    rng = np.random.default_rng(seed)
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nx = tf.constant(1.0)\nwith tf.GradientTape() as t:\n"
                      "    y = x * x\nprint(t.gradient(y, x))\n")
    steps, width = int(rng.integers(1, 9)), int(rng.integers(1, 4))
    cases = [(["zero"] * width, float(rng.uniform(0.0, 1.0)) * central.TOLERANCE, True),
             (["zero"] * width, float(rng.uniform(2.0, 1e6)) * central.TOLERANCE, False),
             (["zero"] * (width - 1) + ["ok"], 0.0, False),  # eagerly not all zero: the compiled zero is not explained
             (["zero"] * width, None, False)]
    for eager_call, error, verified in cases:
        plan = plans.make(str(script), [{"file": str(script), "line": 5, "call": "gradient", "cause": "unwatched",
                                         "broke_at": {"file": str(script), "line": 3, "code": ""}}])
        line = str(plan.moved(plan.items[0].line))
        asked = []

        def run(text, lines, eager=False):
            asked.append(eager)
            if eager:
                return {"script_exit": 0, "findings": [], "gradients": {line: [eager_call]}, "central": {line: error}}
            return {"script_exit": 0, "findings": [], "gradients": {line: [["traced"] * width]},
                    "compiled": {line: {"steps": steps, "codes": [[2] * width]}}}

        verify.rounds(plan, str(script), run)
        item = plan.items[0]
        assert asked == [False, True]
        assert (item.verified, item.why, item.zero) == (verified, "" if verified else "zero", verified)
        assert item.compiled_steps == (steps if verified else 0)
        assert show.verification(item).startswith("verified:") is verified
