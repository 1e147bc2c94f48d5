"""Does the first line name the cause the evidence shows, and a lesson's rule only word it?"""
from __future__ import annotations

import secrets
import tomllib

import numpy as np
import pytest

from gradtutor.checking.compare import ElementReport, compare
from gradtutor.course import manifest as course
from gradtutor.course.manifest import Diagnosis, Exercise
from gradtutor.checking.diagnose import explain_error, explain_failure
from gradtutor.protocol import Cause

pytestmark = pytest.mark.unit

RULES = (
    Diagnosis(when="none", cause="unwatched", source_lacks=r"\.watch\(", say="x is a tf.constant — call tape.watch(x)"),
    Diagnosis(when="none", cause="unwatched", fact="watched_late", say="tape.watch(x) ran after y"),
    Diagnosis(when="none", cause="outside-tape", say="the slice ran after the with block"),
    Diagnosis(when="error", cause="tape-reused", error_has="RuntimeError", say="use persistent=True"),
)
EXERCISE = Exercise("watch_constant", "grad_of_cube", 1, ("h",), RULES)
NONE = ElementReport(0, None, "none", "is None")
SOURCE = "def grad_of_cube(x):\n    with tf.GradientTape() as tape:\n        y = x\n    return tape.gradient(y, x)"


def test_does_a_rule_fire_only_when_the_evidence_names_its_cause():
    cause, line = explain_failure(EXERCISE, NONE, SOURCE, facts={"gradient_calls": 1, "source_unwatched": True})
    assert cause is Cause.UNWATCHED and line.endswith("call tape.watch(x)")
    # the same source, but the facts say the target was made after the with block: no word of the source decides
    cause, line = explain_failure(EXERCISE, NONE, SOURCE, facts={"gradient_calls": 1, "target_outside": True})
    assert cause is Cause.OUTSIDE_TAPE and line.endswith("ran after the with block")


def test_does_a_fact_condition_pick_the_wording():
    facts = {"gradient_calls": 1, "watched_late": True}
    cause, line = explain_failure(EXERCISE, NONE, SOURCE.replace("y = x", "y = x\n        tape.watch(x)"), facts=facts)
    assert cause is Cause.UNWATCHED and line.endswith("tape.watch(x) ran after y")


def test_is_a_missing_return_told_apart():
    cause, line = explain_failure(EXERCISE, NONE, "def grad_of_cube(x):\n    g = 1")
    assert "forget to return" in line and cause is Cause.NO_RETURN


@pytest.mark.parametrize("factor, cause, words", [("1/4", Cause.SCALE, "1/4"), ("3", Cause.SCALE, "times 3"),
                                                   ("1.39", Cause.WRONG_FUNCTION, "the cause is not known")])
def test_is_an_exact_count_ratio_a_scale_and_any_other_ratio_another_function(factor, cause, words):
    report = ElementReport(0, None, "values", "differs", pattern="scale", factor=factor)
    found, line = explain_failure(EXERCISE, report, SOURCE, facts={"gradient_calls": 1})
    assert found is cause and words in line


def test_are_sign_and_transposition_named():
    for pattern, cause in (("sign", Cause.SIGN), ("transposed", Cause.TRANSPOSED)):
        report = ElementReport(0, None, "values", "differs", pattern=pattern)
        assert explain_failure(EXERCISE, report, SOURCE)[0] is cause


def test_does_generic_advice_cover_types_without_rules():
    report = ElementReport(0, 1, "type", "is a numpy array, expected a tf.Tensor", learner_type="ndarray")
    cause, line = explain_failure(EXERCISE, report, "def grad_of_cube(x): return 1")
    assert "element 1" in line and ".numpy()" in line and cause is Cause.WRONG_TYPE


def test_does_an_error_show_the_learners_line_and_a_matching_rule():
    error = {"type": "RuntimeError", "message": "A non-persistent GradientTape can only be used once",
             "where": "lesson2.ipynb, code cell 9, line 5", "line": "  g2 = tape.gradient(b, x)"}
    cause, line = explain_error(EXERCISE, error, "def grad_of_cube(x): pass")
    assert "raised RuntimeError" in line and "cell 9, line 5" in line and line.endswith("use persistent=True")
    assert "\n" not in line and cause is Cause.TAPE_REUSED


@pytest.mark.parametrize("kind, message, cause", [
    ("AttributeError", "'NoneType' object has no attribute '_tape'", Cause.OUTSIDE_TAPE),
    ("RuntimeError", "GradientTape.gradient can only be called once on non-persistent tapes.", Cause.TAPE_REUSED),
    ("RuntimeError", "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead.",
     Cause.TF_GRADIENTS_EAGER),
    ("ValueError", "Passed in object [1. 2.] of type 'ndarray', not tf.Tensor or tf.Variable or ExtensionType.",
     Cause.CANNOT_WATCH),
    ("LookupError", "No gradient defined for operation 'IteratorGetNext'", Cause.NO_GRADIENT_OP),
    ("NameError", "name 'helper' is not defined", Cause.UNDEFINED_NAME),
    ("ZeroDivisionError", "division by zero", Cause.RAISED),
])
def test_does_every_raw_exception_get_a_cause_and_a_fix(kind, message, cause):
    bare = Exercise("e", "f", 1, ("h",), ())
    found, line = explain_error(bare, {"type": kind, "message": message}, "def f(x): pass")
    assert found is cause and " — " in line


def test_does_a_statement_that_failed_to_load_get_reported_with_its_cell():
    error = {"type": "ValueError", "message": "bad", "where": "nb.ipynb, code cell 3, line 2", "line": "h = make()",
             "unloaded": "h", "defines": ["h"]}
    cause, line = explain_error(EXERCISE, error, "")
    assert cause is Cause.LOAD_FAILED and "needs h" in line and "code cell 3, line 2" in line


def test_does_every_rule_of_the_course_name_a_cause_and_keep_source_words_behind_evidence():
    for lesson in course.load().lessons:
        for exercise in tomllib.loads(lesson.manifest.read_text())["exercises"]:
            for rule in exercise.get("diagnoses", ()):
                assert Cause(rule["cause"]), rule["say"]
                assert set(rule) <= {"id", "when", "cause", "fact", "element", "source_has", "source_lacks", "error_has",
                                     "say"}, rule


@pytest.mark.parametrize("facts, cause", [
    # the op that cut the path names the cause, ahead of the broader "an op of that kind ran" facts
    ({"gradient_calls": 1, "path_break": "no-gradient-op", "integer_op": "Round"}, Cause.NO_GRADIENT_OP),
    ({"gradient_calls": 1, "path_break": "stop-gradient", "integer_op": "Round", "stop_gradient": True},
     Cause.STOP_GRADIENT),
    ({"gradient_calls": 1, "path_break": "integer-path"}, Cause.INTEGER_PATH),
    ({"gradient_calls": 1, "numpy_function": True}, Cause.LEAVES_TENSORFLOW),
    ({"gradient_calls": 2, "variable_replaced": True, "source_unwatched": True}, Cause.VARIABLE_REPLACED),
    ({"gradient_calls": 1, "source_unwatched": True, "path_break": "no-gradient-op"}, Cause.UNWATCHED),
])
def test_does_a_none_name_the_op_that_cut_the_path(facts, cause):
    assert explain_failure(EXERCISE, NONE, SOURCE, facts=facts)[0] is cause


def test_does_a_zero_gradient_name_the_cut_a_connected_path_still_had():
    zeros = ElementReport(0, None, "zeros", "is zero everywhere")
    facts = {"gradient_calls": 1, "path_cut": "stop-gradient", "integer_op": "Round", "stop_gradient": True}
    assert explain_failure(EXERCISE, zeros, SOURCE, facts=facts)[0] is Cause.STOP_GRADIENT
    assert explain_failure(EXERCISE, zeros, SOURCE, facts={"gradient_calls": 1, "saturated": True})[0] \
        is Cause.SATURATION


def test_is_a_gradient_zero_only_where_a_sigmoid_saturated_saturation():
    partial = ElementReport(0, None, "values", "differs", pattern="partial", factor="3/12", zero_there=True)
    assert explain_failure(EXERCISE, partial, SOURCE, facts={"gradient_calls": 1, "saturated": True})[0] \
        is Cause.SATURATION
    # the same pattern with nothing saturated, or wrong entries that are not zero: another function
    assert explain_failure(EXERCISE, partial, SOURCE, facts={"gradient_calls": 1})[0] is Cause.WRONG_FUNCTION
    elsewhere = ElementReport(0, None, "values", "differs", pattern="partial", factor="3 of 12")
    assert explain_failure(EXERCISE, elsewhere, SOURCE, facts={"saturated": True})[0] is Cause.WRONG_FUNCTION


def test_is_an_empty_variables_list_told_apart_from_frozen_weights():
    error = {"type": "ValueError", "message": "not enough values to unpack (expected 2, got 0)"}
    assert explain_error(EXERCISE, error, SOURCE, facts={"no_sources": True})[0] is Cause.NOT_USED
    assert explain_error(EXERCISE, error, SOURCE, facts={"no_sources": True, "frozen_variable": True})[0] \
        is Cause.UNWATCHED


def test_does_the_line_name_where_the_path_broke_when_that_op_is_the_cause():
    facts = {"gradient_calls": 1, "path_break": "no-gradient-op",
             "broke_at": {"no-gradient-op": "code cell 2 (In [3]), line 3: q = tf.round(w)"}}
    cause, line = explain_failure(EXERCISE, NONE, SOURCE, facts=facts)
    assert cause is Cause.NO_GRADIENT_OP and line.endswith("(the path broke at code cell 2 (In [3]), line 3: q = tf.round(w))")
    # a cause the cut did not name quotes no line
    _, unwatched = explain_failure(EXERCISE, NONE, SOURCE, facts={**facts, "source_unwatched": True})
    assert "the path broke" not in unwatched


def test_does_a_nan_name_the_first_step_whose_gradient_is_not_finite():
    nan = ElementReport(0, None, "nonfinite", "has NaN at [0, 0]")
    facts = {"gradient_calls": 1, "nonfinite_at": "code cell 4 (In [7]), line 4: n = tf.sqrt(s)"}
    cause, line = explain_failure(EXERCISE, nan, SOURCE, facts=facts)
    assert cause is Cause.NON_FINITE and line.endswith("(the first step whose gradient is inf or NaN: "
                                                       "code cell 4 (In [7]), line 4: n = tf.sqrt(s))")


# What an exercise's text rules out (course.toml `requires`), read from the run's facts alone.
REQUIREMENT_CASES = [
    ("tape", {"gradient_calls": 0}, Cause.NO_TAPE),  # the derivative by hand
    ("tape", {"gradient_calls": 1}, None),
    ("numpy", {"gradient_calls": 1}, Cause.NOT_NUMPY),  # TensorFlow's own softplus
    ("numpy", {"gradient_calls": 1, "numpy_function": True}, None),
    ("numpy", {"gradient_calls": 1, "left_tensorflow": True}, None),
    ("custom-gradient", {"gradient_calls": 1, "numpy_function": True}, Cause.NO_CUSTOM_GRADIENT),  # straight-through
    ("custom-gradient", {"gradient_calls": 1, "custom_gradient": True}, None),
    ("one-jacobian", {"learner_calls": {"tapes": 1, "jacobian": 1}}, None),
    ("one-jacobian", {"learner_calls": {"jvp": 4}}, None),  # forward mode, one jvp per unit of h0
    ("one-jacobian", {"learner_calls": {"tapes": 1, "jacobian": 5}}, Cause.NOT_ONE_JACOBIAN),  # a loop over t
    ("one-jacobian", {"learner_calls": {"tapes": 5, "jacobian": 5}}, Cause.NOT_ONE_JACOBIAN),  # a tape per step
    ("one-jacobian", {"learner_calls": {"tapes": 2, "jacobian": 1}}, Cause.NOT_ONE_JACOBIAN),  # two tapes
    ("one-jacobian", {"learner_calls": {"tapes": 1, "jacobian": 1, "gradient": 1}}, Cause.NOT_ONE_JACOBIAN),
    ("one-jacobian", {}, Cause.NOT_ONE_JACOBIAN),  # by hand, no tape
    ("forward-mode", {"learner_calls": {"jvp": 1}}, None),
    ("forward-mode", {"learner_calls": {"tapes": 1, "jvp": 1}}, None),  # a tape that differentiates nothing
    ("forward-mode", {"learner_calls": {"tapes": 1, "jacobian": 1}}, Cause.NOT_FORWARD_MODE),  # J, then J v
    ("forward-mode", {"learner_calls": {"tapes": 2, "gradient": 2}}, Cause.NOT_FORWARD_MODE),  # double backward
    ("forward-mode", {"learner_calls": {"jvp": 1, "jacobian": 1}}, Cause.NOT_FORWARD_MODE),
]


@pytest.mark.parametrize("need, facts, cause", REQUIREMENT_CASES)
def test_is_a_way_the_exercise_rules_out_named_from_the_facts(need, facts, cause):
    from gradtutor.checking.requirements import unmet_requirement

    exercise = Exercise("an_exercise", "answer", 1, (), (), requires=(need,))
    found = unmet_requirement(exercise, facts)
    assert (found[0] if found else None) is cause
    if found:
        assert found[1].startswith("answer() returns the right values, but ")
    assert unmet_requirement(Exercise("free", "answer", 1, (), ()), facts) is None  # nothing required, nothing unmet


def test_does_a_rule_read_the_code_and_not_its_docstring_or_comments():
    rules = (Diagnosis(when="none", cause="leaves-tensorflow", source_has=r"\.numpy\(\)", say="drop the .numpy()"),
             Diagnosis(when="none", cause="leaves-tensorflow", say="the path left TensorFlow"))
    exercise = Exercise("e", "grad_of_cube", 1, ("h",), rules)
    facts = {"gradient_calls": 1, "left_tensorflow": True}
    worded = SOURCE.replace("):\n", '):\n    """Never call x.numpy() here."""\n', 1) + "  # no .numpy()"
    assert explain_failure(exercise, NONE, worded, facts=facts)[1].endswith("the path left TensorFlow")
    called = SOURCE.replace("y = x", "y = tf.constant(x.numpy())")
    assert explain_failure(exercise, NONE, called, facts=facts)[1].endswith("drop the .numpy()")


@pytest.mark.parametrize("kind, message, facts, cause", [
    # raised computing the target, before any gradient call: the forward pass's shapes, not a gradient's
    ("InvalidArgumentError", "Matrix size-incompatible: In[0]: [4,4], In[1]: [5,4] [Op:MatMul]", {}, Cause.FORWARD_SHAPE),
    ("ValueError", "Exception encountered when calling Sequential.call().\n\n\x1b[1mInput 0 of layer 'dense' is "
     "incompatible with the layer: expected axis -1 of input shape to have value 4\x1b[0m", {}, Cause.FORWARD_SHAPE),
    # the same reshape error after a gradient call: the gradient's shape
    ("InvalidArgumentError", "Input to reshape is a tensor with 864 values, but the requested shape has 7840",
     {"gradient_calls": 1}, Cause.SHAPE),
])
def test_is_a_forward_pass_shape_error_told_apart_from_a_gradients_shape(kind, message, facts, cause):
    bare = Exercise("e", "f", 1, ("h",), ())
    found, line = explain_error(bare, {"type": kind, "message": message, "where": "a.py, line 3", "line": "y = x @ w"},
                                "def f(x): pass", facts)
    assert found is cause and "a.py, line 3: y = x @ w" in line
    if cause is Cause.FORWARD_SHAPE:
        assert "before any gradient" in line and "Exception encountered" not in line
        assert "a gradient has the shape" not in line


@pytest.mark.parametrize("factor, shapes, words", [
    # a factor that is a count the inputs have names the reading, with the count and what has it
    ("1/8", {"x": [8]}, ["times 1/8", "x has 8 elements", "a mean where the sum is asked"]),
    ("4", {"model": None, "x": [4, 3]}, ["times 4", "x has 4 rows", "a sum where the mean is asked"]),
    ("5", {"logits": [3, 5]}, ["the last axis of logits has 5 entries", "a sum where the mean is asked"]),
    # a count nothing has: the factor's direction is told, no count is claimed
    ("7", {"x": [4, 3]}, ["times 7", "a sum where the mean is asked, or a constant the formula does not have"]),
    ("1/7", {"x": [4, 3]}, ["times 1/7", "a mean where the sum is asked, or a constant the formula does not have"]),
    # 2 is as often a constant of the formula as a count: one input alone does not name it
    ("2", {"x": [2, 3]}, ["times 2", "a sum where the mean is asked, or a constant"]),
])
def test_is_a_constant_factor_read_as_a_count_of_the_inputs(factor, shapes, words):
    bare = Exercise("e", "f", 1, ("h",), ())
    report = ElementReport(0, None, "values", "differs", pattern="scale", factor=factor)
    cause, line = explain_failure(bare, report, "def f(x): pass", facts={"gradient_calls": 1}, shapes=shapes)
    assert cause is Cause.SCALE
    for word in words:
        assert word in line, line
    blind = explain_failure(bare, report, "def f(x): pass", blind=True, facts={"gradient_calls": 1}, shapes=shapes)[1]
    assert "elements" not in blind and "rows" not in blind  # a hidden input's shape is never told
    assert factor not in blind  # nor the factor: with the learner's own values it gives the reference away
    if factor == "2":
        assert "x has" not in line


def test_does_a_declared_variant_say_what_was_computed_instead():
    class_gradient = Exercise("class_gradient", "class_gradient", 1, ("h",), ())
    report = ElementReport(0, None, "values", "differs")
    cause, line = explain_failure(class_gradient, report, "def class_gradient(m, i, k): pass",
                                  facts={"gradient_calls": 1}, variant="next_class")
    assert cause is Cause.WRONG_FUNCTION and "d p_(k+1) / d inp" in line
    # an id the catalogue does not word names nothing: the cause's own sentence stays
    assert "p_(k+1)" not in explain_failure(class_gradient, report, "", facts={"gradient_calls": 1}, variant="nope")[1]


# --------------------------------------------------------------------------- factors, drawn
# Each test draws its own seed, printed (shown on a failure) so it can be replayed.
DRAWS = 12
BARE = Exercise("e", "f", 1, ("h",), ())


@pytest.fixture
def rng():
    seed = secrets.randbits(32)
    print(f"drawn seed: {seed} (np.random.default_rng({seed}))")
    return np.random.default_rng(seed)


def _report(expected: np.ndarray, actual: np.ndarray, seed: int = 0) -> ElementReport:
    ref = {"type": "Tensor", "dtype": "float32", "shape": list(expected.shape), "key": "r"}
    return compare(ref, {"r": expected}, dict(ref, key="g"), {"g": actual.astype(np.float32)}, seed, 1e-5, 1e-6)[0]


def _drawn_rows(rng) -> np.ndarray:
    return rng.normal(size=(int(rng.integers(2, 7)), int(rng.integers(2, 8)))).astype(np.float32)


def _apart(draw) -> np.ndarray:
    """Factors drawn until they differ by 5% or more: closer ones are one factor within the comparison's tolerance."""
    while True:
        factors = draw()
        if factors.max() > 1.05 * factors.min():
            return factors


def _ragged(rng, rows: int) -> np.ndarray:
    while True:
        counts = rng.integers(1, 10, size=rows)
        if len(set(counts.tolist())) > 1:
            return counts


def test_is_a_mean_over_each_rows_own_count_a_scale_that_names_the_counts(rng):
    for _ in range(DRAWS):
        expected = _drawn_rows(rng)
        counts = _ragged(rng, expected.shape[0])
        report = _report(expected, expected / counts[:, None])
        cause, line = explain_failure(BARE, report, "def f(x): pass", facts={"gradient_calls": 1})
        listed = ", ".join(str(c) for c in counts[:6])
        assert cause is Cause.SCALE and report.pattern == "row_scale", (counts, line)
        assert f"a count of its own ({listed}" in line and "a mean over each row's own entries" in line, line
        assert f"1/{counts[0]}" in line or counts[0] == 1, line  # each row's factor is shown on a visible input
        summed = explain_failure(BARE, _report(expected, expected * counts[:, None]), "", facts={"gradient_calls": 1})
        assert summed[0] is Cause.SCALE and "a sum over each row's own entries" in summed[1], summed
        cause, blind = explain_failure(BARE, report, "def f(x): pass", blind=True, facts={"gradient_calls": 1})
        assert cause is Cause.SCALE and "a count of its own" in blind and listed not in blind and "1/" not in blind, blind


def test_is_a_per_example_mean_over_a_ragged_mask_a_scale_in_the_counts_proportions(rng):
    for _ in range(DRAWS):
        expected = rng.normal(size=(int(rng.integers(4, 8)), int(rng.integers(2, 8)))).astype(np.float32)
        counts = _ragged(rng, expected.shape[0])  # each example's unmasked entries
        report = _report(expected, expected * (counts.sum() / (len(counts) * counts))[:, None])
        cause, line = explain_failure(BARE, report, "", facts={"gradient_calls": 1})
        inverse = np.lcm.reduce(counts) // counts  # the factors, 1/count_i, in whole-number proportions
        shown = [", ".join(str(c) for c in whole[:6]) for whole in (counts // np.gcd.reduce(counts),
                                                                    inverse // np.gcd.reduce(inverse))]
        assert cause is Cause.SCALE and any(f"a count of its own ({s}" in line for s in shown), (counts, line)
        assert "its own count" in line and "the count of every entry" in line, line


def test_is_each_row_scaled_by_no_count_another_function(rng):
    # each row divided by its own norm, or a log of each row's value (d log p = dp / p): factors no count makes
    for _ in range(DRAWS):
        expected = _drawn_rows(rng)
        for factors in (1 / _apart(lambda: np.linalg.norm(rng.normal(size=(expected.shape[0], 4)), axis=1)),
                        1 / _apart(lambda: rng.uniform(0.05, 0.95, size=expected.shape[0]))):
            report = _report(expected, expected * factors[:, None])
            cause, line = explain_failure(BARE, report, "", facts={"gradient_calls": 1})
            assert report.pattern == "row_scale" and cause is Cause.WRONG_FUNCTION, line
            assert "a factor of its own" in line and "the cause is not known" in line and "count of its own" not in line, line


def test_is_another_function_not_a_row_scale_nor_a_scale(rng):
    for _ in range(DRAWS):
        expected = _drawn_rows(rng)
        columns = _apart(lambda: rng.uniform(0.3, 3.0, size=expected.shape[1]))
        for actual in (expected * columns, np.tanh(expected), expected + rng.normal(size=expected.shape)):
            report = _report(expected, actual)
            cause, line = explain_failure(BARE, report, "", facts={"gradient_calls": 1})
            assert report.pattern not in ("row_scale", "scale") and cause is not Cause.SCALE, line


def _two_seeds(rng, factor_of):
    """One exercise's failure on two drawn inputs of different sizes: x is (n, d) on each, every count of it
    changed; factor_of(n, d) the learner's factor there. Returns the first seed's report and shapes, and the
    second's (factor, shapes)."""
    while True:
        (n0, n1), (d0, d1) = (rng.integers(2, 9, size=2).tolist() for _ in range(2))
        if n0 != n1 and d0 != d1 and n0 * d0 != n1 * d1:
            break
    sizes = ((n0, d0), (n1, d1))
    shapes = [{"model": None, "x": [n, d]} for n, d in sizes]
    reports = []
    for seed, (n, d) in enumerate(sizes):
        expected = rng.normal(size=(n, d)).astype(np.float32)
        reports.append(_report(expected, expected * factor_of(n, d), seed))
    assert all(r.pattern == "scale" for r in reports), [(r.pattern, r.factor) for r in reports]
    return reports[0], shapes[0], [(reports[1].factor, shapes[1])]


def test_is_a_factor_that_follows_the_batch_named_as_its_count_even_when_it_is_two(rng):
    for _ in range(DRAWS):
        report, shapes, elsewhere = _two_seeds(rng, lambda n, d: float(n))  # a sum over the batch, the mean asked
        n = shapes["x"][0]
        cause, line = explain_failure(BARE, report, "", facts={"gradient_calls": 1}, shapes=shapes, elsewhere=elsewhere)
        assert cause is Cause.SCALE and f"x has {n} rows" in line and "a sum where the mean is asked" in line, line
        alone = explain_failure(BARE, report, "", facts={"gradient_calls": 1}, shapes=shapes)[1]
        assert (f"x has {n} rows" in alone) == (n >= 3), alone  # one seed alone: a 2 is as often a constant


def test_is_a_factor_that_stays_put_while_the_sizes_change_a_constant_not_a_count(rng):
    for _ in range(DRAWS):
        constant = int(rng.integers(2, 9))
        report, shapes, elsewhere = _two_seeds(rng, lambda n, d: 1.0 / constant)
        cause, line = explain_failure(BARE, report, "", facts={"gradient_calls": 1}, shapes=shapes, elsewhere=elsewhere)
        assert cause is Cause.SCALE and f"times 1/{constant}" in line, line
        # a count that only coincides is never named, and the other sizes decide: no hedge between readings
        assert "x has" not in line and "the last axis" not in line and "no count of the inputs" in line, line
        assert "a mean where the sum is asked" not in line, line


def test_is_a_factor_that_follows_the_sizes_but_no_input_a_count_of_something_they_make(rng):
    for _ in range(DRAWS):
        # a mean over x @ w, of shape (n, d + 1): a count no input has (no w among the shapes here)
        report, shapes, elsewhere = _two_seeds(rng, lambda n, d: 1.0 / (n * (d + 1)))
        if elsewhere[0][0] == report.factor:
            continue  # the two draws' products coincide: nothing tells this factor from a constant
        cause, line = explain_failure(BARE, report, "", facts={"gradient_calls": 1}, shapes=shapes, elsewhere=elsewhere)
        assert cause is Cause.SCALE and "changes with the inputs' sizes" in line, line
        assert "a mean where the sum is asked" in line and "x has" not in line and "or a constant" not in line, line


def test_does_a_hidden_inputs_constant_factor_name_no_factor_count_or_shape(rng):
    for _ in range(DRAWS):
        report, shapes, elsewhere = _two_seeds(rng, lambda n, d: float(n))
        cause, line = explain_failure(BARE, report, "", blind=True, facts={"gradient_calls": 1}, shapes=shapes,
                                      elsewhere=elsewhere)
        assert cause is Cause.SCALE and "constant multiple" in line, line
        assert report.factor not in line and "rows" not in line and "elements" not in line, line


# --------------------------------------------------------------------------- where an exception was raised


def _reshape_error(rng, phase: str | None) -> dict:
    """TensorFlow's eager reshape error for drawn sizes, raised at a learner's line in `phase` (None: an older
    description without it)."""
    size, cols = int(rng.integers(3, 40)), int(rng.integers(2, 9))
    error = {"type": "InvalidArgumentError", "where": "lesson2.ipynb, code cell 4, line 5",
             "line": f"    flat = tf.reshape(x, (-1, {cols}))",
             "message": f"{{{{function_node __wrapped__Reshape_device_/job:localhost/replica:0/task:0/device:CPU:0}}}} "
                        f"Input to reshape is a tensor with {size} values, but the requested shape requires a multiple "
                        f"of {cols} [Op:Reshape]"}
    return dict(error, phase=phase, op="Reshape") if phase else error


def test_is_a_forward_shape_error_after_a_gradient_call_the_forward_computations(rng):
    for _ in range(DRAWS):
        error = _reshape_error(rng, "forward")
        cause, line = explain_error(BARE, error, "def f(x): pass", facts={"gradient_calls": int(rng.integers(1, 4))})
        assert cause is Cause.FORWARD_SHAPE, line
        assert "the forward computation raised" in line and "the Reshape op on that line" in line, line
        assert f"code cell 4, line 5: {error['line'].strip()}" in line and "a gradient has the shape" not in line, line
        before = explain_error(BARE, error, "def f(x): pass", facts={})[1]
        assert "before any gradient was asked for" in before and "the Reshape op" in before, before


def test_is_a_shape_error_inside_a_gradient_computation_the_gradients(rng):
    for _ in range(DRAWS):
        error = _reshape_error(rng, "gradient")
        cause, line = explain_error(BARE, error, "def f(x): pass", facts={"gradient_calls": 1})
        assert cause is Cause.SHAPE and "a gradient has the shape" in line and "forward" not in line, line
        assert error["line"].strip() in line, line


def test_is_the_phase_of_a_description_without_it_still_guessed_from_the_gradient_calls(rng):
    error = _reshape_error(rng, None)
    assert explain_error(BARE, error, "", facts={"gradient_calls": 1})[0] is Cause.SHAPE
    cause, line = explain_error(BARE, error, "", facts={})
    assert cause is Cause.FORWARD_SHAPE and "the op on that line" in line, line


def _raised(filename: str, message: str) -> BaseException:
    """An exception raised inside a function compiled as if it were `filename` (a TensorFlow module, or not)."""
    scope: dict = {}
    exec(compile("def gradient(fail):\n    return fail()\n", filename, "exec"), scope)

    def fail():
        raise ValueError(message)

    try:
        scope["gradient"](fail)
    except ValueError as exc:
        return exc
    raise AssertionError("nothing raised")


@pytest.mark.parametrize("module, phase", [
    ("tensorflow/python/eager/backprop.py", "gradient"), ("tensorflow/python/eager/imperative_grad.py", "gradient"),
    ("tensorflow/python/eager/forwardprop.py", "gradient"), ("tensorflow/python/ops/gradients_util.py", "gradient"),
    ("tensorflow/python/ops/array_ops.py", "forward"), ("keras/src/layers/core/dense.py", "forward")])
def test_is_the_phase_read_from_the_frames_of_the_traceback(module, phase, rng):
    from gradtutor.isolation.describe import describe_error

    size = int(rng.integers(3, 50))
    exc = _raised(f"/venv/lib/python3.12/site-packages/{module}",
                  f"Input to reshape is a tensor with {size} values, but the requested shape has {size + 1} [Op:Reshape]")
    described = describe_error(exc, 0)
    assert (described["phase"], described["op"]) == (phase, "Reshape"), described


@pytest.mark.parametrize("message, phase, op", [
    ("{{function_node __wrapped____MklMatMul_device_/job:localhost}} Matrix size-incompatible: In[0]: [4,3], "
     "In[1]: [4,3] [Op:MatMul] name: ", "forward", "MatMul"),
    # a graph's node, and its inputs: a gradient's node (its frames gone inside a tf.function or a traced jvp)
    ("Shapes must be equal rank, but are 1 and 2 for '{{node AddN}} = AddN[N=2, T=DT_FLOAT]"
     "(gradient_tape/gradient_tape/Mul, gradient_tape/gradient_tape/Mul_2)'", "gradient", "AddN"),
    ("Incompatible shapes: [3] vs. [4]\n\t [[{{node gradient_tape/model/dense/BiasAdd_1}}]]", "gradient", "BiasAdd"),
    ("Input to reshape is a tensor with 12 values\n\t [[{{node model/flatten/Reshape}}]]", "forward", "Reshape"),
    ("list index out of range", "forward", None),
])
def test_are_the_phase_and_the_op_read_from_tensorflows_message(message, phase, op):
    from gradtutor.isolation.describe import describe_error

    described = describe_error(_raised("/home/learner/notes.py", message), 0)
    assert (described["phase"], described["op"]) == (phase, op), described


# --- issue 36: no sentence that names no cause; a fix within the exercise's rules; each line once ------------------

def _name(rng) -> str:
    return "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), size=int(rng.integers(1, 6))))


def test_is_a_rule_with_no_evidence_of_its_own_worded_as_a_cause_not_known(rng):
    asked = f"the exercise asks for y = tf.reduce_sum(x ** {int(rng.integers(2, 9))})"
    rules = (Diagnosis(when="values", cause="wrong-function", say=asked),)
    report = ElementReport(0, None, "values", "differs")
    cause, line = explain_failure(Exercise("e", "f", 1, (), rules), report, SOURCE, facts={"gradient_calls": 1})
    assert cause is Cause.WRONG_FUNCTION and "the cause is not known" in line and line.endswith(asked)
    # a rule that fires on the code's own words names that cause: nothing is added to it
    sourced = (Diagnosis(when="values", cause="wrong-function", source_has="y = x", say=asked),)
    _, line = explain_failure(Exercise("e", "f", 1, (), sourced), report, SOURCE, facts={"gradient_calls": 1})
    assert "the cause is not known" not in line and line.endswith(asked)


def test_is_a_value_that_left_tensorflow_never_told_to_stay_in_tensorflow_where_numpy_is_required():
    facts = {"gradient_calls": 1, "left_tensorflow": True}
    required = Exercise("numpy_gradient", "f", 1, (), (), requires=("numpy",))
    free = Exercise("numpy_gradient", "f", 1, (), ())
    _, within = explain_failure(required, NONE, SOURCE, facts=facts)
    _, generic = explain_failure(free, NONE, SOURCE, facts=facts)
    assert "keep every step a TensorFlow" in generic
    assert "keep every step a TensorFlow" not in within and "tf.custom_gradient" in within


@pytest.mark.parametrize("restarted, words", [(True, "made again"), (False, "rebound")])
def test_does_a_replaced_variable_name_the_variables_the_run_saw(rng, restarted, words):
    names = sorted({f"var_{_name(rng)}" for _ in range(int(rng.integers(1, 4)))})
    site = f"a.py, line {int(rng.integers(2, 40))}: {names[0]} = {names[0]} - lr * g"
    facts = {"gradient_calls": 2, "variable_replaced": True,
             "findings": [{"cause": "variable-replaced", "symptom": "none", "site": site, "sources": names,
                           "restarted": restarted}]}
    cause, line = explain_failure(EXERCISE, NONE, SOURCE, facts=facts)
    assert cause is Cause.VARIABLE_REPLACED and line.count(site) == 1 and words in line
    assert all(name in line for name in names)


def test_is_the_line_that_raised_quoted_once_when_the_path_broke_there(rng):
    code = f"{_name(rng)} = w - lr * dw"
    error = {"type": "TypeError", "message": "unsupported operand type(s) for *: 'float' and 'NoneType'",
             "where": f"a.py, line {int(rng.integers(2, 40))}", "line": code}
    facts = {"gradient_calls": 2, "path_break": "stop-gradient", "broke_at": {"stop-gradient": f"{error['where']}: {code}"}}
    _, line = explain_error(EXERCISE, error, SOURCE, facts=facts)
    assert line.count(code) == 1


def test_is_the_unwatched_source_and_the_widening_cast_quoted_as_what_they_are(rng):
    site = f"a.py, line {int(rng.integers(2, 40))}: t = tf.constant(x)"
    _, unwatched = explain_failure(Exercise("e", "f", 1, (), ()), NONE, SOURCE,
                                   facts={"gradient_calls": 1, "source_unwatched": True,
                                          "findings": [{"cause": "unwatched", "symptom": "none", "site": site}]})
    assert unwatched.endswith(f"(the source the tape did not watch: {site})") and "path broke" not in unwatched
    cast = f"a.py, line {int(rng.integers(2, 40))}: x64 = tf.cast(x, tf.float64)"
    dtype = ElementReport(0, None, "dtype", "has dtype float64, expected float32")
    _, line = explain_failure(Exercise("e", "f", 1, (), ()), dtype, SOURCE,
                              facts={"gradient_calls": 1, "broke_at": {"dtype": cast}})
    assert line.endswith(f"(the first step that made float64 of a float32 value: {cast})")
    assert "does not show which step" not in line and "numpy" not in line.lower()


def test_is_an_accumulator_never_entered_worded_for_forward_mode_not_for_a_tape():
    facts = {"gradient_calls": 1, "accumulator_unentered": True,
             "findings": [{"cause": "outside-tape", "symptom": "none", "site": None}]}
    cause, line = explain_failure(Exercise("e", "f", 1, (), ()), NONE, SOURCE, facts=facts)
    assert cause is Cause.OUTSIDE_TAPE and "ForwardAccumulator" in line and "GradientTape" not in line
    assert "tape.watch" not in line
