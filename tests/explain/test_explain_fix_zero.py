"""`explain --fix` for a NaN gradient at 0 with no tf.where on the line: the double where (gradtutor/explain/fix/zero.py).

Source in, patched source out, on drawn names and aliases; then, with TensorFlow, the patched
expression evaluated beside the original on drawn values holding zeros: every value the same,
the gradient finite.
"""
from __future__ import annotations

import random
import textwrap

import pytest

from gradtutor.explain.fix import plan as plans

NAMES = ("w", "x", "v", "emb", "dist", "pred", "signal", "gain", "delta", "theta")


def drawn():
    """(seed, tensorflow's alias, three distinct variable names)."""
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    return seed, rng.choice(("tf", "tensorflow", "T")), *rng.sample(NAMES, 3)


def plan_for(tmp_path, code: str, line: int):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(code).lstrip())
    finding = {"file": str(script), "line": line, "call": "gradient", "sources": ["w"], "cause": "non-finite",
               "broke_at": {"file": str(script), "line": line, "code": ""}, "facts": {}}
    return plans.make(str(script), [finding])


def patched_line(tmp_path, statement: str, tf: str, before: str = "") -> list[str]:
    """The lines the tape block holds after the repair of `statement` (its break line)."""
    code = f"import tensorflow as {tf}\n{before}with {tf}.GradientTape() as tape:\n    {statement}\n"
    line = code.count("\n")
    plan = plan_for(tmp_path, code, line)
    assert not plan.manual, [(m.cause, m.reason) for m in plan.manual]
    compile(plan.patched, "patched", "exec")
    return plan.patched.splitlines()[line - 1:]


def refused(tmp_path, tf: str, statement: str) -> str:
    """The reason the repair of `statement` was refused (the script left as it was)."""
    code = f"import tensorflow as {tf}\nwith {tf}.GradientTape() as tape:\n    {statement}\n"
    plan = plan_for(tmp_path, code, 3)
    assert plan.patched == code
    return ",".join(m.reason for m in plan.manual)


@pytest.mark.unit
def test_a_sqrt_of_a_sum_of_squares_is_computed_once_and_guarded_twice(tmp_path):
    seed, tf, out, a, _ = drawn()
    got = patched_line(tmp_path, f"{out} = {tf}.sqrt({tf}.reduce_sum({tf}.square({a})))", tf)
    s = "squared"
    assert got == [f"    {s} = {tf}.reduce_sum({tf}.square({a}))",
                   f"    {out} = {tf}.where({s} > 0, {tf}.sqrt({tf}.where({s} > 0, {s}, {tf}.ones_like({s}))), "
                   f"{tf}.zeros_like({s}))"], seed


@pytest.mark.unit
def test_a_norm_becomes_its_sum_of_squares_with_the_callers_axis_and_keepdims(tmp_path):
    seed, tf, out, a, _ = drawn()
    axis = random.Random(seed).choice(("1", "-1", "0"))
    got = patched_line(tmp_path, f"{out} = {tf}.norm({a}, axis={axis}, keepdims=True)", tf)
    assert got[0] == f"    squared = {tf}.reduce_sum({tf}.square({a}), axis={axis}, keepdims=True)", seed
    assert got[1].startswith(f"    {out} = {tf}.where(squared > 0, {tf}.sqrt("), seed


@pytest.mark.unit
@pytest.mark.parametrize("ord_", ["1", "2", "'fro'"])
def test_a_matrix_norm_or_an_ord_1_norm_is_not_rewritten(tmp_path, ord_):
    seed, tf, out, a, _ = drawn()
    axis = "[0, 1]" if ord_ != "1" else "1"
    code = f"import tensorflow as {tf}\nwith {tf}.GradientTape() as tape:\n    {out} = {tf}.norm({a}, ord={ord_}, axis={axis})\n"
    plan = plan_for(tmp_path, code, 3)
    if ord_ == "'fro'":  # the Frobenius norm is the euclidean one over both axes
        assert "reduce_sum" in plan.patched, seed
    else:
        assert [m.reason for m in plan.manual] == ["non_finite"] and plan.patched == code, seed


@pytest.mark.unit
def test_a_fractional_power_named_before_is_guarded_when_its_base_is_clipped_at_zero(tmp_path):
    seed, tf, out, base, p = drawn()
    before = f"{p} = {tf}.constant(1.0 / 2.4)\n{base} = {tf}.clip_by_value(2.0 * {out}, 0.0, 1.0)\n"
    got = patched_line(tmp_path, f"{out} = {tf}.pow({base}, {p})", tf, before)
    assert got == [f"    {out} = {tf}.where({base} > 0, {tf}.pow({tf}.where({base} > 0, {base}, {tf}.ones_like({base})), "
                   f"{p}), {tf}.zeros_like({base}))"], seed
    got = patched_line(tmp_path, f"{out} = {base} ** 0.5", tf, before)
    assert got == [f"    {out} = {tf}.where({base} > 0, {tf}.where({base} > 0, {base}, {tf}.ones_like({base})) ** 0.5, "
                   f"{tf}.zeros_like({base}))"], seed


@pytest.mark.unit
def test_a_power_of_one_or_more_is_left_alone(tmp_path):
    seed, tf, out, base, _ = drawn()
    power = random.Random(seed).choice(("1.0", "2", "3.5"))
    assert refused(tmp_path, tf, f"{out} = {tf}.square({base}) ** {power}") == "non_finite", seed


@pytest.mark.unit
def test_a_sqrt_whose_input_can_grow_from_zero_is_refused_with_its_reason(tmp_path):
    seed, tf, out, a, b = drawn()
    assert refused(tmp_path, tf, f"{out} = {tf}.sqrt({a} * {b})") == "slope_infinite", seed


@pytest.mark.unit
def test_an_angle_is_guarded_by_its_modulus_and_each_operand_gets_its_own_name(tmp_path):
    seed, tf, out, a, b = drawn()
    got = patched_line(tmp_path, f"{out} = {tf}.math.angle({tf}.complex({a}, 0.0)) - {tf}.math.angle({b})", tf)
    assert got[0] == f"    z = {tf}.complex({a}, 0.0)", seed
    assert got[1] == (f"    {out} = {tf}.where({tf}.abs(z) > 0, {tf}.math.angle({tf}.where({tf}.abs(z) > 0, z, "
                      f"{tf}.ones_like(z))), {tf}.zeros_like({tf}.abs(z))) - {tf}.where({tf}.abs({b}) > 0, "
                      f"{tf}.math.angle({tf}.where({tf}.abs({b}) > 0, {b}, {tf}.ones_like({b}))), "
                      f"{tf}.zeros_like({tf}.abs({b})))"), seed


@pytest.mark.unit
def test_sin_over_its_own_argument_gets_its_limit_and_a_sinc_its_value_at_zero(tmp_path):
    seed, tf, out, a, _ = drawn()
    got = patched_line(tmp_path, f"{out} = {tf}.sin({a}) / {a}", tf)
    assert got == [f"    {out} = {tf}.where({a} != 0, {tf}.sin({a}) / {tf}.where({a} != 0, {a}, {tf}.ones_like({a})), "
                   f"{tf}.ones_like({a}))"], seed
    got = patched_line(tmp_path, f"{out} = {tf}.experimental.numpy.sinc({a})", tf)
    assert got[0].startswith(f"    {out} = {tf}.where({a} != 0, {tf}.experimental.numpy.sinc({tf}.where("), seed


@pytest.mark.unit
def test_an_op_already_in_a_where_and_expm1_over_x_get_no_double_where(tmp_path):
    seed, tf, out, a, _ = drawn()
    code = f"import tensorflow as {tf}\nwith {tf}.GradientTape() as tape:\n    {out} = {tf}.math.expm1({a}) / {a}\n"
    plan = plan_for(tmp_path, code, 3)  # expm1(x)/x has slope 1/2 at 0: a gradient of 0 there would be wrong
    assert [m.reason for m in plan.manual] == ["non_finite"], seed
    code = (f"import tensorflow as {tf}\nwith {tf}.GradientTape() as tape:\n"
            f"    {out} = {tf}.where({a} > 1, {tf}.sqrt({tf}.square({a})), {a})\n")
    plan = plan_for(tmp_path, code, 3)
    assert "zeros_like" not in plan.patched, seed


@pytest.mark.unit
def test_an_operand_inside_a_lambda_is_repeated_not_hoisted(tmp_path):
    seed, tf, out, a, _ = drawn()
    twice = f"{tf}.square({a}) + {tf}.square({a})"
    got = patched_line(tmp_path, f"{out} = lambda {a}: {tf}.sqrt({twice})", tf)
    assert got == [f"    {out} = lambda {a}: {tf}.where(({twice}) > 0, {tf}.sqrt({tf}.where(({twice}) > 0, {twice}, "
                   f"{tf}.ones_like({twice}))), {tf}.zeros_like({twice}))"], seed


@pytest.mark.tf
def test_the_patched_expressions_keep_every_value_and_give_a_finite_gradient(tmp_path):
    import numpy as np
    import tensorflow as tf

    seed = random.randrange(2**32)
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(5, 4)).astype("float32")
    values[rng.integers(5)] = 0.0  # a zero row
    values[values < -1.0] = 0.0  # and scattered zeros
    cases = ["y = tf.norm(x, axis=1)", "y = tf.norm(x)", "y = tf.sqrt(tf.reduce_sum(tf.square(x), axis=0))",
             "y = tf.pow(tf.clip_by_value(x, 0.0, 1.0), 1.0 / 2.4)", "y = tf.sin(x) / x",
             "y = tf.math.angle(tf.complex(x, 0.0))"]
    for statement in cases:
        code = f"import tensorflow as tf\nwith tf.GradientTape() as tape:\n    {statement}\n"
        plan = plan_for(tmp_path, code, 3)
        assert not plan.manual, (statement, seed)
        results = []
        for text in (code, plan.patched):
            space = {"tf": tf, "x": tf.Variable(values)}
            exec(compile(text + "g = tape.gradient(y, x)\n", "train.py", "exec"), space)  # noqa: S102 - the test's own code
            results.append((space["y"].numpy(), space["g"].numpy()))
        (before, _), (after, gradient) = results
        finite = np.isfinite(before)
        assert np.array_equal(before[finite], after[finite]), (statement, seed)
        assert np.isfinite(gradient).all(), (statement, seed)


KERAS_MATH = (("from keras import ops\n", "ops"), ("import keras\n", "keras.ops"),
              ("from keras import backend as K\n", "K"), ("import keras.ops as kops\n", "kops"))


@pytest.mark.unit
def test_a_sqrt_spelled_by_keras_ops_or_its_backend_is_guarded_too(tmp_path):
    """A siamese network's distance, written with keras.ops (or Keras 2's K): sum, square and maximum are read in
    Keras's spelling to know the sqrt's input is at its minimum at 0."""
    seed, tf, out, a, b = drawn()
    imported, k = random.Random(seed).choice(KERAS_MATH)
    got = patched_line(tmp_path, f"{out} = {k}.sqrt({k}.sum({k}.square({a} - {b}), axis=1, keepdims=True))", tf,
                       before=imported)
    s = "squared"
    assert got == [f"    {s} = {k}.sum({k}.square({a} - {b}), axis=1, keepdims=True)",
                   f"    {out} = {tf}.where({s} > 0, {k}.sqrt({tf}.where({s} > 0, {s}, {tf}.ones_like({s}))), "
                   f"{tf}.zeros_like({s}))"], seed


@pytest.mark.unit
def test_a_keras_name_not_bound_to_its_math_module_is_not_read_as_it(tmp_path):
    """`ops` bound to something else (a list of the user's ops) is not keras.ops: its sqrt is not the op."""
    seed, tf, out, a, _ = drawn()
    code = (f"import tensorflow as {tf}\nfrom myproject import ops\nwith {tf}.GradientTape() as tape:\n"
            f"    {out} = ops.sqrt(ops.sum(ops.square({a})))\n")
    plan = plan_for(tmp_path, code, 4)
    assert plan.patched == code and [m.reason for m in plan.manual] == ["non_finite"], seed
