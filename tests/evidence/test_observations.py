"""What the recording observes of each gradient call site, and what the reading concludes from that alone.

No TensorFlow: a gradient here is anything with `_numpy()` and a `dtype` (what an eager tensor offers),
drawn from a seeded generator as a course draws its inputs; the record is the few fields
gradtutor.evidence.reading.unexplained reads.
"""
from __future__ import annotations

import random
import types

import numpy as np
import pytest

from gradtutor.evidence import observations as seen
from gradtutor.evidence import root_causes
from gradtutor.evidence.reading import unexplained

pytestmark = pytest.mark.unit

SEEDS = range(6)


class Gradient:
    def __init__(self, value: np.ndarray):
        self.value, self.dtype = value, types.SimpleNamespace(name=str(value.dtype))

    def _numpy(self):
        return self.value


def _record(**fields):
    return types.SimpleNamespace(**{"findings": [], "observations": seen.Observations(), "excused": {},
                                    "script_error": None, "gradient_calls": 1, "zero_probes": {}, "underflows": {},
                                    "python_state": {}, **fields})


def _draw(rng, dtype="float32") -> np.ndarray:
    return (rng.normal(size=rng.integers(1, 9)) + 3.0).astype(dtype)  # never exactly zero, always finite


@pytest.mark.parametrize("seed", SEEDS)
def test_a_site_keeps_the_worst_status_of_each_gradient_over_its_calls(seed):
    rng = np.random.default_rng(seed)
    observations = seen.Observations()
    frame = ("train.py", int(rng.integers(1, 200)))
    broken = int(rng.integers(0, 3))  # which of three gradients goes NaN on some call
    bad_call = int(rng.integers(0, 5))
    for call in range(5):
        grads = [Gradient(_draw(rng)) for _ in range(3)]
        if call == bad_call:
            grads[broken].value[0] = np.nan
        site = observations.called("gradient", frame)
        observations.gradients(site, grads, observations.reads_values(site))
    assert site.calls == 5 and site.read == 5
    assert site.bad() == [(broken, seen.NONFINITE)]
    assert observations.unobserved() == []


@pytest.mark.parametrize("seed", SEEDS)
def test_a_traced_call_is_unobserved_until_its_compiled_check_reports(seed):
    rng = np.random.default_rng(seed)
    observations = seen.Observations()
    frame = ("step.py", int(rng.integers(1, 200)))
    site = observations.called("compiled", frame)
    observations.gradients(site, [object(), object()], False)  # symbolic: no values to read
    assert observations.unobserved() == [site]
    code = int(rng.integers(0, 4))
    observations.codes(observations.site("compiled", frame), [0, code])
    assert observations.unobserved() == []
    assert site.statuses[1] == {0: seen.FINITE, 1: seen.TINY, 2: seen.ZEROS, 3: seen.NONFINITE}[code]


@pytest.mark.parametrize("seed", SEEDS)
def test_an_unexplained_none_or_nan_is_a_finding_and_a_fine_run_has_none(seed):
    rng = np.random.default_rng(seed)
    record = _record()
    observations = record.observations
    line = int(rng.integers(1, 200))
    fine = observations.called("gradient", ("a.py", line))
    observations.gradients(fine, [Gradient(_draw(rng)) for _ in range(2)], True)
    assert unexplained.findings(record) == [] and unexplained.unobserved(record) == []
    wrong = observations.called("gradient", ("a.py", line + 1))
    value = _draw(rng)
    value[int(rng.integers(0, value.size))] = np.inf
    observations.gradients(wrong, [None, Gradient(value)], True)
    [finding] = unexplained.findings(record)
    assert (finding["cause"], finding["line"], finding["symptom"]) == ("not-known", line + 1, "none")
    assert "cause is not known" in finding["message"] and finding["fix"]
    record.findings.append({"file": "a.py", "line": line + 1, "symptom": "none"})  # a cause rule spoke there
    assert unexplained.findings(record) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_all_zeros_are_a_finding_in_every_dtype_and_say_what_moving_the_source_did(seed):
    """The all-clear is only for gradients that are not all zero; the finding says whether zero is the exact slope
    (the target stayed flat when the source moved), is not (it moved), or was not probed."""
    rng = np.random.default_rng(seed)
    record = _record()
    observations = record.observations
    dtypes = [str(rng.choice(["float32", "float64", "float16", "bfloat16"])) for _ in range(3)]
    probes = [False, True, None]
    order = rng.permutation(3)
    for line, index in enumerate(order, start=1):
        site = observations.called("gradient", ("z.py", line))
        dtype = "float32" if dtypes[index] == "bfloat16" else dtypes[index]  # numpy has no bfloat16: read as float32
        observations.gradients(site, [Gradient(np.zeros(int(rng.integers(1, 9)), dtype))], True)
        site.dtypes[0] = dtypes[index]
        record.zero_probes[(("z.py", line), 0)] = probes[index]
    found = unexplained.findings(record)
    assert [(f["line"], f["cause"], f["symptom"]) for f in found] == [(n, "not-known", "zeros") for n in (1, 2, 3)]
    said = {int(index): found[line].get("facts", {}).get("probe") for line, index in enumerate(order)}
    assert said == {0: "flat", 1: "moves", 2: "not run"}
    flat, moves, unprobed = (found[list(order).index(index)] for index in range(3))
    assert "zero is the exact gradient here" in flat["message"] and "not known" in flat["message"]
    assert "zero is not its true slope" in moves["message"] and "not known" in moves["message"]
    assert "the cause is not known" in unprobed["message"] and "exact" not in unprobed["message"]
    assert all(dtypes[index] in found[line]["message"] for line, index in enumerate(order))


@pytest.mark.parametrize("seed", SEEDS)
def test_zeros_asked_for_where_there_is_no_path_are_no_finding(seed):
    """unconnected_gradients=ZERO: the program said a missing path is meant (checks.py excuses it)."""
    rng = np.random.default_rng(seed)
    record, line = _excused(rng, "u.py", [Gradient(_draw(rng)), Gradient(np.zeros(int(rng.integers(1, 9))))], 1,
                            "not-used", 0, "extra")
    assert unexplained.findings(record) == []


def _excused(rng, file: str, gradients: list, index: int, cause: str, back: int, why: str):
    """A record with one gradient call at a drawn line of `file` whose gradient `index` the reading excused."""
    record = _record()
    line = int(rng.integers(2, 200))
    site = record.observations.called("gradient", (file, line))
    record.observations.gradients(site, gradients, True)
    record.excused[((file, line), index)] = ((cause, (file, line - back), {}), why)
    return record, line


@pytest.mark.parametrize("seed", SEEDS)
def test_an_intended_none_is_a_finding_only_when_the_program_then_broke(seed):
    rng = np.random.default_rng(seed)
    record, line = _excused(rng, "s.py", [None, Gradient(_draw(rng))], 0, "stop-gradient", 1, "embedding")
    assert unexplained.findings(record) == []
    record.script_error = ValueError("in user code:\n\n    ValueError: None values not supported.")
    trace = record.observations.called("trace", ("s.py", line + 3))
    record.observations.raised(trace, record.script_error, ("s.py", line + 2))
    [finding] = unexplained.findings(record)  # one root cause: the None, with the exception it led to
    assert (finding["cause"], finding["sources"]) == ("stop-gradient", ["embedding"])
    assert finding["broke_at"]["line"] == line - 1 and "None values not supported" in finding["message"]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_call_that_raised_is_a_finding_with_its_exception(seed):
    rng = np.random.default_rng(seed)
    record = _record(gradient_calls=0)
    line = int(rng.integers(1, 200))
    error = TypeError(f"grad_fn must accept keyword argument 'variables' ({line})")
    site = record.observations.called(str(rng.choice(["custom_gradient", "trace", "gradient"])), ("c.py", line))
    record.observations.raised(site, error, ("c.py", line))
    [finding] = unexplained.findings(record)
    assert finding["symptom"] == "error" and f"TypeError: grad_fn must accept keyword argument 'variables' ({line})" \
        in finding["message"]
    assert unexplained.unobserved(record) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_the_optimizer_given_a_reported_none_joins_that_finding(seed):
    rng = np.random.default_rng(seed)
    asked, broke, applied = (int(n) for n in rng.choice(np.arange(1, 300), 3, replace=False))

    def finding(call, line, cause="stop-gradient", broke_line=broke):
        return {"file": "g.py", "line": line, "call": call, "cause": cause, "message": f"{call} went wrong",
                "broke_at": {"file": "g.py", "line": broke_line, "code": "x"}, "facts": {"keras": "Gradients do not exist"}}

    tape, optimizer = finding("gradient", asked), finding("apply_gradients", applied)
    [one] = root_causes.one_per_root_cause([tape, optimizer])
    assert one["facts"]["optimizer_at"] == f"g.py:{applied}" and f"line {applied}" in one["message"]
    other = finding("apply_gradients", applied, "not-used")  # another cause: its own finding
    assert len(root_causes.one_per_root_cause([finding("gradient", asked), other])) == 2


@pytest.mark.parametrize("seed", SEEDS)
def test_a_source_that_held_a_nan_at_a_later_call_comes_after_the_finding_that_saw_a_nan_made(seed):
    """Run again at the call after the bad step, a gradient penalty's interpolation is NaN because the step before
    made the generator's weights NaN: the sqrt that made the first NaN is what the reader needs first."""
    rng = np.random.default_rng(seed)
    source_line, made_line, other_line = (int(n) for n in rng.choice(np.arange(1, 300), 3, replace=False))

    def finding(line, how, rerun="next", cause="non-finite"):
        return {"file": "g.py", "line": line, "call": "gradient", "cause": cause, "message": f"at {line}", "count": 1,
                "broke_at": {"file": "g.py", "line": line + 1, "code": "x"}, "facts": {"how": how, "rerun": rerun}}

    kept = root_causes.one_per_root_cause([finding(source_line, "source"), finding(made_line, "given"),
                                           finding(other_line, None, cause="not-known")])
    assert [f["line"] for f in kept] == [made_line, other_line, source_line]
    same_call = root_causes.one_per_root_cause([finding(source_line, "source", rerun="same"), finding(made_line, "zero")])
    assert [f["line"] for f in same_call] == [source_line, made_line]  # the very step run again: seen in order


@pytest.mark.parametrize("seed", SEEDS)
def test_a_cause_that_lives_at_one_place_is_one_finding_for_every_gradient_call_it_reached(seed):
    rng = np.random.default_rng(seed)
    first, second, other, broke = (int(n) for n in rng.choice(np.arange(1, 300), 4, replace=False))
    place = str(rng.choice(sorted(root_causes.AT_THE_PLACE)))

    def finding(line, cause=place, broke_line=broke, count=1):
        return {"file": "g.py", "line": line, "call": "gradient", "cause": cause, "message": f"at {line}",
                "count": count, "broke_at": {"file": "g.py", "line": broke_line, "code": "x"}, "facts": {}}

    # fit's step (two symptoms at one call), then a later tape over the same model: one finding, said at the first
    kept = root_causes.one_per_root_cause([finding(first, count=2), finding(first), finding(second), finding(second)])
    [one] = kept
    assert (one["line"], one["count"], one["facts"]["also_at"]) == (first, 3, str(second))
    assert one["message"].startswith(f"at {first}") and f"line {second}" in one["message"]
    # a cause repaired once per tape (a missing tape.watch) stays one finding per call; another place is its own
    apart = root_causes.one_per_root_cause([finding(first, "unwatched"), finding(second, "unwatched")])
    assert [f["line"] for f in apart] == [first, second]
    assert len(root_causes.one_per_root_cause([finding(first), finding(second, broke_line=other)])) == 2
    # a weight made and never read lives at the line that made it: the eager tape that checks it and fit's step too
    made = [dict(finding(line, "not-used"), facts={"how": "made"}) for line in (first, second)]
    assert [f["line"] for f in root_causes.one_per_root_cause(made)] == [first]
    assert len(root_causes.one_per_root_cause([finding(first, "not-used"), finding(second, "not-used")])) == 2


@pytest.mark.parametrize("seed", SEEDS)
def test_a_nan_of_unknown_making_after_an_explosion_of_the_same_models_gradients_is_that_explosion(seed):
    """train_on_batch's gradients grew into inf, the update made the weights NaN, and a later tape over the model sees
    NaN that no op made: the explosion, also at that line. Another model's (another count of gradients) stays apart."""
    rng = np.random.default_rng(seed)
    step, later, count = int(rng.integers(1, 100)), int(rng.integers(100, 200)), int(rng.integers(2, 9))

    def finding(line, cause, how=None, gradients=count):
        return {"file": "g.py", "line": line, "call": "gradient", "cause": cause, "symptom": "nonfinite",
                "message": f"at {line}", "count": gradients, "broke_at": {"file": "g.py", "line": line, "code": "x"},
                "facts": {"statuses": ",".join(["nonfinite"] * gradients), **({"how": how} if how else {})}}

    [one] = root_causes.one_per_root_cause([finding(step, "non-finite", "grew"), finding(later, "not-known")])
    assert (one["line"], one["facts"]["also_at"]) == (step, str(later))
    apart = root_causes.one_per_root_cause([finding(step, "non-finite", "grew"),
                                            finding(later, "not-known", gradients=count + 1)])
    assert [f["line"] for f in apart] == [step, later]
    assert len(root_causes.one_per_root_cause([finding(step, "non-finite", "given"), finding(later, "not-known")])) == 2


@pytest.mark.parametrize("seed", SEEDS)
def test_gradients_that_grew_before_they_overflowed_are_said_to_have_exploded(seed):
    rng = np.random.default_rng(seed)
    observations = seen.Observations()
    frame = ("train.py", int(rng.integers(1, 200)))
    growth = float(rng.uniform(10.0, 100.0))  # each call's gradients this many times the last's
    calls = int(rng.integers(4, 9))
    for call in range(calls):
        grads = [Gradient(_draw(rng) * growth ** call) for _ in range(2)]
        if call == calls - 1:
            grads[0].value[0] = np.inf
        site = observations.called("gradient", frame)
        observations.gradients(site, grads, observations.reads_values(site))
    [found] = unexplained.findings(_record(observations=observations))
    # the overflow that made the NaN was seen (non-finite); why they grew is said to be not known
    assert found["cause"] == "non-finite" and found["symptom"] == "nonfinite" and found["facts"]["how"] == "grew"
    assert "not known" in found["message"]
    assert site.first_peak[0] == 1 and site.peak[0] == calls
    assert float(found["facts"]["grew_to"]) / float(found["facts"]["grew_from"]) >= seen.GROWTH
    assert "exploded" in found["message"] and "learning rate" in found["fix"]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_nan_without_growth_before_it_is_not_called_an_explosion(seed):
    rng = np.random.default_rng(seed)
    observations = seen.Observations()
    frame = ("train.py", int(rng.integers(1, 200)))
    calls = int(rng.integers(2, 9))
    for call in range(calls):
        grads = [Gradient(_draw(rng)) for _ in range(2)]  # the same scale on every call
        if call == calls - 1:
            grads[1].value[-1] = np.nan
        site = observations.called("gradient", frame)
        observations.gradients(site, grads, observations.reads_values(site))
    [found] = unexplained.findings(_record(observations=observations))
    assert found["symptom"] == "nonfinite" and "grew_from" not in found["facts"]
    assert "exploded" not in found["message"]


@pytest.mark.parametrize("seed", SEEDS)
def test_gradients_already_beyond_the_root_of_their_dtypes_largest_on_one_call_are_said_to_have_exploded(seed):
    rng = np.random.default_rng(seed)
    dtype = str(rng.choice(["float32", "float64"]))
    root = float(np.sqrt(np.finfo(dtype).max))
    for scale, exploded in ((root * float(rng.uniform(2.0, 1e3)), True), (root * float(rng.uniform(1e-6, 0.5)), False)):
        observations = seen.Observations()
        frame = ("train.py", int(rng.integers(1, 200)))
        for call in range(2):  # one call of finite gradients (all read) whose largest is `scale`, then all NaN
            drawn = [_draw(rng, dtype) for _ in range(2)]
            largest = max(float(np.abs(d).max()) for d in drawn)
            grads = [Gradient((d / largest * scale).astype(dtype) if call == 0 else np.full_like(d, np.nan))
                     for d in drawn]
            site = observations.called("gradient", frame)
            observations.gradients(site, grads, observations.reads_values(site))
        [found] = unexplained.findings(_record(observations=observations))
        assert found["cause"] == ("non-finite" if exploded else "not-known") and found["symptom"] == "nonfinite"
        assert ("exploded" in found["message"]) is exploded and ("grew_to" in found["facts"]) is exploded
        assert ("learning rate" in found["fix"]) is exploded


def _growth_reads(rng, sums: np.ndarray):
    """A compiled step's per-step sums handed to monitors.Growth the way Monitor.read hands them: in order, in reads
    of drawn lengths, with the function's calls a drawn shift ahead of the graph's count: (growth, shift)."""
    from gradtutor.evidence.recording.compiled import monitors

    growth, step, shift = monitors.Growth(), 0, int(rng.integers(0, 3))
    while step < len(sums):
        size = int(rng.integers(1, 5))
        steps = np.arange(step + 1, min(step + size, len(sums)) + 1)
        growth.add(steps + shift, sums[steps - 1])
        step = int(steps[-1])
    return growth, shift


@pytest.mark.parametrize("seed", SEEDS)
def test_a_compiled_steps_sums_that_grew_then_overflowed_make_its_replayed_nan_non_finite(seed):
    rng = np.random.default_rng(seed)
    steps, columns = int(rng.integers(4, 12)), int(rng.integers(1, 4))
    factor = float(rng.uniform(8.0, 60.0))  # each step's gradients this many times the last's
    sums = np.abs(rng.normal(size=(steps, columns))) * factor ** np.arange(steps)[:, None] + 1.0
    broke = int(rng.integers(4, steps + 1))  # the first step (1-based) whose sums are NaN or inf
    sums[broke - 1:, int(rng.integers(columns))] = rng.choice([np.nan, np.inf])
    growth, shift = _growth_reads(rng, sums)
    assert growth.broke == broke + shift and growth.first[0] == 1 + shift
    finite = np.where(np.isfinite(sums[broke - 1]), sums[broke - 1], -np.inf)  # the broken step's finite sums count
    peak = max((float(sums[broke - 2].max()), broke - 1), (float(finite.max()), broke))
    assert growth.peak == (peak[1] + shift, peak[0])
    observations = seen.Observations()
    frame = ("train.py", int(rng.integers(1, 200)))
    compiled = observations.site("compiled", frame)
    observations.codes(compiled, [3] * columns)
    observations.grown(compiled, growth)
    replay = observations.called("gradient", frame)  # the step after, run eagerly from weights already NaN
    observations.gradients(replay, [Gradient(np.full(3, np.nan, np.float32)) for _ in range(columns)], True)
    [found] = unexplained.findings(_record(observations=observations))
    grew = growth.peak[1] >= seen.GROWTH * growth.first[1]
    assert found["cause"] == ("non-finite" if grew else "not-known"), (growth.first, growth.peak)
    assert ("exploded" in found["message"]) is grew and (found["facts"].get("how") == "grew") is grew


@pytest.mark.parametrize("seed", SEEDS)
def test_a_compiled_nan_on_steady_steps_is_not_called_an_explosion(seed):
    rng = np.random.default_rng(seed)
    steps, columns = int(rng.integers(3, 12)), int(rng.integers(1, 4))
    sums = np.abs(rng.normal(size=(steps, columns))) + 1.0  # the same scale on every step
    sums[-1, 0] = np.nan
    growth, _ = _growth_reads(rng, sums)
    observations = seen.Observations()
    frame = ("train.py", int(rng.integers(1, 200)))
    compiled = observations.site("compiled", frame)
    observations.codes(compiled, [3] * columns)
    observations.grown(compiled, growth)
    [found] = unexplained.findings(_record(observations=observations))
    assert found["cause"] == "not-known" and "exploded" not in found["message"]
    assert compiled.overflow_limit() == 0.0  # sums never pass for one value beyond the dtype's root


@pytest.mark.parametrize("seed", list(np.random.SeedSequence().generate_state(3)))
def test_an_errors_line_is_its_message_not_the_arguments_keras_lists_after_it(seed):
    """Keras wraps a layer's error as its message in bold, then "Arguments received by …" and one line per argument:
    the line said is the message's last, whatever the arguments."""
    rng = np.random.default_rng(seed)
    words = ["variables", "grad_fn", "shape", "must", "accept", "keyword", "argument", "since", "function"]
    message = " ".join(rng.choice(words, size=int(rng.integers(3, 9))))
    arguments = "".join(f"\n  • {name}=tf.Tensor(shape=({int(rng.integers(1, 64))},), dtype=float32)"
                        for name in rng.choice(["x", "inputs", "training", "mask"], size=int(rng.integers(1, 4))))
    wrapped = ValueError(f"Exception encountered when calling Dense.call().\n\n\x1b[1m{message}\x1b[0m\n\n"
                         f"Arguments received by Dense.call():{arguments}")
    assert seen.last_line(wrapped) == message
    plain = "\n".join(" ".join(rng.choice(words, size=int(rng.integers(1, 5)))) for _ in range(int(rng.integers(1, 4))))
    assert seen.last_line(RuntimeError(plain)) == plain.splitlines()[-1].strip()


@pytest.mark.parametrize("seed", range(3))
def test_the_rows_of_fits_arrays_that_hold_nan_or_inf_are_counted_from_the_first(seed):
    """fit_data.nonfinite_rows: which part (x before y), how many rows, and the first; integer arrays and a model's
    several inputs (a list, a dict) too; None when every number is finite."""
    from gradtutor.evidence.fit_data import nonfinite_rows

    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=(20, 3)).astype("float32"), rng.normal(size=(20, 1))
    assert nonfinite_rows(x, y) is None and nonfinite_rows([x, np.arange(20)], {"out": y}) is None
    rows = sorted(rng.choice(20, size=int(rng.integers(1, 5)), replace=False))
    bad = y.copy()
    bad[rows, 0] = rng.choice([np.nan, np.inf, -np.inf], size=len(rows))
    assert nonfinite_rows(x, bad) == {"part": "y", "rows": len(rows), "first": int(rows[0])}
    assert nonfinite_rows({"a": x, "b": bad}, y) == {"part": "x", "rows": len(rows), "first": int(rows[0])}


def test_a_replay_of_a_step_whose_python_state_changed_since_its_trace_is_no_evidence_about_it():
    """An actor's loss weight traced as 0.0 and set to 1.0 since: the eager replay computes with 1.0, so the cut it
    found (a stop_gradient) is not what made the compiled step's zeros; the frozen weight is."""
    line = random.randrange(5, 300)

    def finding(cause, facts):
        return {"file": "a.py", "line": line, "call": "gradient", "cause": cause, "message": cause, "count": 1,
                "broke_at": {"file": "a.py", "line": line - 4, "code": "x"}, "facts": facts}

    replayed = finding("stop-gradient", {"op": "StopGradient", "rerun": "same"})
    frozen = finding("frozen-python-state", {"how": "stale", "name": "w", "traced": "0.0", "now": "1.0"})
    assert [f["cause"] for f in root_causes.one_per_root_cause([replayed, frozen])] == ["frozen-python-state"]
    eager = finding("stop-gradient", {"op": "StopGradient"})  # seen in the step itself, not a replay: kept
    assert len(root_causes.one_per_root_cause([eager, frozen])) == 2


@pytest.mark.parametrize("seed", SEEDS)
def test_a_target_made_after_the_block_is_one_root_cause_for_every_source_it_leaves_none(seed):
    """The loss added up after the `with` block (outside-tape): a not-used of the same call that broke at that line
    (no path found from an LSTM's weights) is the same cause, said once with every source; the optimizer given the
    Nones joins it. Another line's not-used stays a finding of its own."""
    rng = np.random.default_rng(seed)
    asked, applied, broke, elsewhere = (int(n) for n in rng.choice(np.arange(2, 300), 4, replace=False))

    def finding(cause, sources, call="gradient", line=asked, broke_line=broke):
        return {"file": "g.py", "line": line, "call": call, "cause": cause, "symptom": "none", "message": cause,
                "count": len(sources), "sources": sources, "broke_at": {"file": "g.py", "line": broke_line, "code": "x"},
                "facts": {}}

    lstm, dense = [f"lstm/w{i}" for i in range(rng.integers(1, 4))], ["dense/kernel", "dense/bias"]
    findings = [finding("not-used", lstm), finding("outside-tape", dense),
                finding("not-used", lstm + dense, call="apply_gradients", line=applied)]
    order = list(rng.permutation(2)) + [2]
    [one] = root_causes.one_per_root_cause([findings[i] for i in order])
    assert one["cause"] == "outside-tape" and sorted(one["sources"]) == sorted(lstm + dense)
    assert one["count"] == len(lstm) + 2 and f"line {applied}" in one["message"]
    apart = root_causes.one_per_root_cause([finding("outside-tape", dense), finding("not-used", lstm, broke_line=elsewhere)])
    assert [f["cause"] for f in apart] == ["outside-tape", "not-used"]
