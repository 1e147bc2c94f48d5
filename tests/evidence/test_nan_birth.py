"""Which op made a NaN or inf on a gradient's path (gradtutor.evidence.reading.values.birth): an op that was handed one and
passed it on is not where it was born, unless the weights themselves were already NaN or inf.

No TensorFlow: an op is its type and kept (inputs, outputs), each anything with `_numpy()`; a variable has a
dtype and a value; the values are drawn from a seeded generator.
"""
from __future__ import annotations

import types

import numpy as np
import pytest

from gradtutor.evidence.reading.values import birth, given_nonfinite

pytestmark = pytest.mark.unit

SEEDS = range(6)
FLOAT = types.SimpleNamespace(is_floating=True, is_complex=False)


class Kept:
    def __init__(self, value):
        self.value = np.asarray(value, dtype="float32")

    def _numpy(self):
        return self.value


class Variable:
    dtype = FLOAT

    def __init__(self, value):
        self.kept = Kept(value)

    def value(self):
        return self.kept

    def assign(self, value):  # what makes it a variable to the reading
        self.kept = Kept(value)


def _op(op_type, inputs, output):
    return types.SimpleNamespace(type=op_type, frame=("f.py", 1), values=(tuple(map(Kept, inputs)), (Kept(output),)))


def _tape(*variables):
    return types.SimpleNamespace(watched_variables=lambda: variables)


def _graph():
    return types.SimpleNamespace(paused=0)


def _spoil(rng, value: np.ndarray) -> np.ndarray:
    spoiled = value.copy()
    spoiled[int(rng.integers(0, value.size))] = rng.choice([np.inf, -np.inf, np.nan])
    return spoiled


def _finite(rng) -> np.ndarray:
    return rng.uniform(0.5, 3.0, size=int(rng.integers(2, 9))).astype("float32")


@pytest.mark.parametrize("seed", SEEDS)
def test_an_op_given_a_nan_or_inf_says_so_and_one_given_finite_values_does_not(seed):
    rng = np.random.default_rng(seed)
    finite = _finite(rng)
    assert not given_nonfinite(_op("Relu", [finite], finite))
    assert given_nonfinite(_op("Relu", [_spoil(rng, finite)], finite))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_sqrt_at_zero_made_its_nan_whatever_the_weights_hold(seed):
    rng = np.random.default_rng(seed)
    x = _finite(rng)
    x[int(rng.integers(0, x.size))] = 0.0
    sqrt = _op("Sqrt", [x], np.sqrt(x))
    weights = Variable(_spoil(rng, _finite(rng)))  # even broken weights do not matter: it made it from finite values
    assert birth(_graph(), [sqrt], _tape(weights), None) is sqrt


@pytest.mark.parametrize("seed", SEEDS)
def test_an_inf_passed_on_by_a_relu_or_a_sigmoid_is_not_their_making(seed):
    rng = np.random.default_rng(seed)
    given = _spoil(rng, _finite(rng))
    with np.errstate(all="ignore"):
        ops = [_op("Relu", [given], np.maximum(given, 0)), _op("Sigmoid", [given], 1 / (1 + np.exp(-given)))]
    broken = Variable(_spoil(rng, _finite(rng)))
    assert birth(_graph(), ops, _tape(broken), broken) is None


@pytest.mark.parametrize("seed", SEEDS)
def test_a_nan_prone_op_handed_an_inf_is_blamed_only_when_the_weights_were_already_broken(seed):
    rng = np.random.default_rng(seed)
    given = _spoil(rng, _finite(rng))
    with np.errstate(all="ignore"):
        ops = [_op("Relu", [given], np.maximum(given, 0)), _op("Log", [given], np.log(given))]
    fine = Variable(_finite(rng) * float(rng.uniform(1e3, 1e30)))  # large, still finite: the forward pass overflowed
    assert birth(_graph(), ops, _tape(fine), fine) is None
    broken = Variable(_spoil(rng, _finite(rng)))  # a step not seen (compiled) had already broken them
    assert birth(_graph(), ops, _tape(fine, broken), fine) is ops[1]
    assert birth(_graph(), ops, None, broken) is ops[1]  # the tape gone: the source itself says so


class Half(Kept):
    def __init__(self, value):
        self.value = np.asarray(value, dtype="float16")


@pytest.mark.parametrize("seed", SEEDS)
def test_an_inf_made_beside_the_path_is_born_where_it_was_made_not_where_it_entered(seed):
    """An attention mask's 1e10 cast to float16 is inf; times the mask's 0 it is NaN, and that NaN enters the path
    at the subtraction from the scores: the cast made it, from a finite value (gpt-2's fp16 mask)."""
    rng = np.random.default_rng(seed)
    scores = _finite(rng)
    keep = (rng.random(scores.size) < 0.5).astype("float32")
    with np.errstate(all="ignore"):
        cast = types.SimpleNamespace(type="Cast", frame=("f.py", 3), inputs=(), values=(
            (Kept(float(rng.uniform(1e5, 1e12))),), (Half(np.inf),)))
        masked = np.float16(np.inf) * (1 - keep).astype("float16")
        product = types.SimpleNamespace(type="Mul", frame=("f.py", 4), values=((Half(np.inf), Half(1 - keep)),
                                        (Half(masked),)), inputs=(types.SimpleNamespace(op=cast),))
        entered = types.SimpleNamespace(type="Sub", frame=("f.py", 5), values=((Kept(scores), Half(masked)),
                                        (Kept(scores - masked),)), inputs=(types.SimpleNamespace(op=product),))
    made = birth(_graph(), [entered], _tape(), None)
    assert made is cast and made.frame == ("f.py", 3)
    cast.values = ((Half(np.inf),), (Half(np.inf),))  # given an inf itself: not where it was born, nor is anything
    assert birth(_graph(), [entered], _tape(), None) is None
    cast.type, cast.values = "MatMul", ((Kept(3e38),), (Kept(np.inf),))  # float32 grown to inf: no rule's birth
    assert birth(_graph(), [entered], _tape(), None) is None


@pytest.mark.parametrize("seed", SEEDS)
def test_a_python_number_beyond_float16_is_born_where_it_met_the_float16_tensor(seed):
    """`(1.0 - mask) * -1e9` under mixed precision: no op makes the -inf, the number becomes it as it is converted
    to the mask's float16; the multiplication it meets is where it was born (its 0 × -inf is NaN)."""
    rng = np.random.default_rng(seed)
    scores = _finite(rng)
    keep = (rng.random(scores.size) < 0.5).astype("float16")
    with np.errstate(all="ignore"):
        adder = (1 - keep) * np.float16(-np.inf)
        constant = types.SimpleNamespace(op=None)
        mask = types.SimpleNamespace(op=types.SimpleNamespace(type="Sub", values=None))
        multiply = types.SimpleNamespace(type="Mul", frame=("f.py", 7), inputs=(mask, constant), seq=2,
                                         values=((Half(1 - keep), Half(-np.inf)), (Half(adder),)))
        entered = types.SimpleNamespace(type="AddV2", frame=("f.py", 8), values=(
            (Kept(scores), Half(adder)), (Kept(scores + adder),)), inputs=(types.SimpleNamespace(op=multiply),))
    assert birth(_graph(), [entered], _tape(), None) is multiply
    constant.op = types.SimpleNamespace(type="Cast", values=None)  # made by an op (unkept): not a constant
    assert birth(_graph(), [entered], _tape(), None) is None


class Condition(Kept):
    def __init__(self, value):
        self.value = np.asarray(value, dtype=bool)


def _where(condition, then, other):
    kept = np.where(condition, then, other)
    return types.SimpleNamespace(type="SelectV2", frame=("f.py", 2),
                                 values=((Condition(condition), Kept(then), Kept(other)), (Kept(kept),)))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_where_is_to_blame_for_a_nan_it_drops_not_for_one_its_broken_weights_handed_it(seed):
    """`tf.where(x > 0, tf.sqrt(x), 0)` keeps a finite value where sqrt's NaN is dropped: the unsafe where. A focal
    loss's `tf.where(y == 1, y_pred, 1)` replayed after the step that made the weights NaN drops y_pred's NaN too,
    but was handed it: the first NaN-prone op the weights reach (the log after it) is the evidence left."""
    rng = np.random.default_rng(seed)
    x = _finite(rng) * rng.choice([-1.0, 1.0], size=1)
    x[0], x[-1] = -abs(x[0]), abs(x[-1])  # both branches taken somewhere
    with np.errstate(all="ignore"):
        unsafe = _where(x > 0, np.sqrt(x), np.zeros_like(x))
    fine = Variable(_finite(rng))
    assert birth(_graph(), [unsafe], _tape(fine), fine) is unsafe
    labels = (rng.random(x.size) < 0.5).astype("float32")
    labels[0], labels[-1] = 0.0, 1.0
    predicted = np.full(x.size, np.nan, dtype="float32")  # the weights were NaN: so is every prediction
    handed = _where(labels == 1, predicted, np.ones_like(predicted))
    with np.errstate(all="ignore"):
        log = _op("Log", [handed.values[1][0].value], np.log(handed.values[1][0].value))
    broken = Variable(_spoil(rng, _finite(rng)))
    assert birth(_graph(), [handed, log], _tape(broken), broken) is log
    kept_nan = _where(np.ones(x.size, bool), predicted, np.ones_like(predicted))  # keeps the NaN: passes it on
    assert birth(_graph(), [kept_nan], _tape(fine), fine) is None


@pytest.mark.parametrize("seed", SEEDS)
def test_a_nan_handed_to_the_path_by_a_value_no_op_made_came_with_the_data(seed):
    """A discount made in NumPy as 0/0 and passed into a step: no op on the path made the NaN, and the value that
    brought it was made by no recorded op (a leaf: an argument, a NumPy array). With finite weights, the op it first
    met is where it entered, said as 'data'; a NaN brought by a value an op made (not kept) is not known."""
    from gradtutor.evidence.reading.values import how_made

    rng = np.random.default_rng(seed)
    data = _spoil(rng, _finite(rng))
    other = _finite(rng)[:1]
    with np.errstate(all="ignore"):
        leaf = types.SimpleNamespace(op=None)
        made = types.SimpleNamespace(op=types.SimpleNamespace(type="Relu", values=None))
        entered = types.SimpleNamespace(type="Mul", frame=("f.py", 9), inputs=(leaf, made), seq=3,
                                        values=((Kept(data), Kept(other)), (Kept(data * other),)))
        log = _op("Log", [data * other], np.log(data * other))
    fine = Variable(_finite(rng))
    found = birth(_graph(), [entered, log], _tape(fine), fine)
    assert found is entered and how_made(found) == "data"
    entered.inputs = (made, leaf)  # the NaN now in the value an op made; the leaf's value is the finite one
    entered.values = ((Kept(data), Kept(other)), (Kept(data * other),))
    assert birth(_graph(), [entered, log], _tape(fine), fine) is None
