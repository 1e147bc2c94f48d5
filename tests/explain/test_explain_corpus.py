"""`gradtutor explain` on the corpus in tests/explain/corpus/: real mistakes from public questions, and correct programs.

Each script says where it comes from (`# source:`) and what explain must find (`# expect:
cause=ID line=N`, or `# expect: clean`). The scripts run in three children (TensorFlow imported
once in each, Keras 2 scripts in their own; tests/explain/conftest.py, one run shared with the fix
test), each script under its own recording; and once more
plainly, without gradtutor, in two children (plain_runner.py): what their gradients really were
is the referee of the acceptance test (no all-clear on a broken program).
"""
from __future__ import annotations

import re
from collections import Counter

import pytest

from gradtutor.dev import corpus
from gradtutor.protocol import Cause

from tests.support.corpus_runs import CORPUS, PLAIN_RUNNER, rows_of, start

pytestmark = [pytest.mark.tf, pytest.mark.xdist_group("explain_corpus")]  # one corpus run: conftest.py

KERAS = re.compile(r"expect-keras: cause=(?P<cause>\S+) line=(?P<line>\d+)")  # a header's value, read by the schema
REQUIRED = 0.95
CAUSES = ["unwatched", "outside-tape", "leaves-tensorflow", "integer-path", "no-gradient-op", "stop-gradient",
          "variable-replaced", "state-breaks-path", "not-used", "softmax-sum", "non-finite", "saturation",
          "dead-relu", "tape-reused", "tf-gradients-eager", "cannot-watch", "wrong-tape", "frozen-python-state",
          "custom-gradient-signature", "underflow", "not-known"]


def expectations() -> dict[str, dict]:
    """What explain must find in each script, as the corpus schema reads its headers (gradtutor.dev.corpus)."""
    return {case.file.name: {"cause": case.cause or None, "line": int(case.line) if case.line else None,
                             "keras2": case.context.get("keras") == "2"}
            for case in corpus.read_scripts(CORPUS)}


@pytest.fixture(scope="module")
def results(corpus_runs) -> dict[str, dict]:
    """Each script's explained row (tests/explain/conftest.py runs the corpus once for this module and the fix test's)."""
    return corpus_runs


def test_the_corpus_is_large_enough_and_covers_every_cause():
    expected = expectations()
    mistakes = Counter(e["cause"] for e in expected.values() if e["cause"])
    assert sum(mistakes.values()) >= 60
    assert sum(1 for e in expected.values() if not e["cause"]) >= 25
    assert set(CAUSES) <= {c.value for c in Cause}
    assert {cause: n for cause, n in mistakes.items() if n < 2} == {}
    assert set(mistakes) == set(CAUSES)


def test_mistakes_get_the_right_cause_and_break_line(results):
    expected = {name: e for name, e in expectations().items() if e["cause"]}
    right, wrong = 0, []
    for name, want in sorted(expected.items()):
        findings = results[name]["findings"]
        got = [(f["cause"], (f["broke_at"] or {}).get("line")) for f in findings]
        if got and got[0] == (want["cause"], want["line"]):
            right += 1
        else:
            wrong.append(f"{name}: want {want['cause']} line {want['line']}, got {got}")
    share = right / len(expected)
    print(f"\nexplain corpus: right cause and line for {right}/{len(expected)} mistakes ({share:.1%})")
    for line in wrong:
        print("  miss:", line)
    assert share >= REQUIRED, "\n".join(wrong)


def test_correct_programs_get_no_finding(results):
    clean = [name for name, e in expectations().items() if not e["cause"]]
    noisy = {name: results[name]["findings"] for name in clean if results[name]["findings"]}
    print(f"\nexplain corpus: {len(clean) - len(noisy)}/{len(clean)} correct programs without a finding")
    assert noisy == {}
    assert all(results[name]["script_exit"] == 0 for name in clean)


def test_keras_optimizer_errors_and_warnings_are_explained(results):
    """Does optimizer.apply_gradients' "No gradients provided" / "Gradients do not exist" get the tape's cause?"""
    wanted = {case.file.name: (m["cause"], int(m["line"])) for case in corpus.read_scripts(CORPUS)
              if (m := KERAS.fullmatch("expect-keras: " + case.context.get("expect-keras", "")))}
    assert len(wanted) >= 4
    # the optimizer's own finding, or (one finding per root cause) the gradient call's that it joined
    got = {name: [(f["cause"], (f["broke_at"] or {}).get("line")) for f in results[name]["findings"]
                  if f["call"] == "apply_gradients" or f["facts"].get("optimizer_at")] for name in wanted}
    assert {name: got[name][:1] for name in wanted} == {name: [want] for name, want in wanted.items()}
    joined = [name for name in wanted if any(f["facts"].get("optimizer_at") for f in results[name]["findings"])]
    assert joined, "no gradient call's finding took in the optimizer that received its None"


def test_one_finding_per_root_cause_a_none_and_the_optimizer_given_it(results):
    for row in results.values():
        calls = {(f["cause"], (f["broke_at"] or {}).get("line")) for f in row["findings"] if f["call"] != "apply_gradients"}
        given = [f for f in row["findings"] if f["call"] == "apply_gradients"]
        assert [f for f in given if (f["cause"], (f["broke_at"] or {}).get("line")) in calls] == [], row["script"]


@pytest.mark.parametrize("name, cause", [("outside_seed002_slice.py", "outside-tape"),
                                         ("softmax_seed002.py", "softmax-sum"),
                                         ("state_seed000_keras2.py", "state-breaks-path")])
def test_the_seeds_original_programs(results, name, cause):
    assert [f["cause"] for f in results[name]["findings"]][:1] == [cause]


def test_each_finding_is_complete(results):
    for row in results.values():
        for finding in row["findings"]:
            assert {"file", "line", "call", "sources", "cause", "broke_at", "message", "fix"} <= set(finding)
            assert finding["cause"] in CAUSES and finding["message"] and finding["fix"]
            assert finding["broke_at"] is None or finding["broke_at"]["code"]


def test_compiled_versions_get_the_eager_versions_cause_and_their_break_line(results):
    """A @tf.function step, fit with a custom train_step, a subclassed model under fit: analysed when traced."""
    expected = expectations()
    compiled = {name: e for name, e in expected.items() if name.startswith("compiled_")}
    mistakes = {name: e for name, e in compiled.items() if e["cause"]}
    assert len(mistakes) >= 8 and len(compiled) - len(mistakes) >= 2
    assert sum(name.startswith("compiled_fit_") for name in mistakes) >= 4
    for name, want in mistakes.items():
        eager = re.search(r"^# source: \S+ \((\w+\.py)", (CORPUS / name).read_text(), re.MULTILINE)
        assert eager and expected[eager[1]]["cause"] == want["cause"], name  # the eager version's cause
        first = results[name]["findings"][0]
        assert (first["cause"], first["broke_at"]["line"]) == (want["cause"], want["line"]), name
    for name in set(compiled) - set(mistakes):
        assert results[name]["findings"] == [] and results[name]["script_exit"] == 0, name


def test_one_finding_per_call_cause_and_break_line_with_every_variable(results):
    for row in results.values():
        keys = [(f["call"], f["file"], f["line"], f["cause"], (f["broke_at"] or {}).get("line"), f["symptom"])
                for f in row["findings"]]
        assert len(keys) == len(set(keys)), row["script"]
    [first, *_] = results["compiled_fn_argmax_loss.py"]["findings"]
    kernel, bias = first["sources"]  # one model, one finding: its two variables (named by Keras, in order)
    assert kernel.endswith("/kernel") and bias.endswith("/bias") and first["count"] == 2
    assert first["message"].startswith(f"the gradients of 2 variables ({kernel}, {bias}) are None")


def test_a_value_symptom_in_compiled_code_says_the_step_it_first_appeared_at(results):
    for name in ("compiled_fn_sqrt_zero.py", "compiled_fit_norm_zero_loss.py"):
        assert results[name]["findings"][0]["facts"]["first_step"] == "1", name


def test_a_nan_is_told_by_how_it_was_made(results):
    """An exp that overflowed, a sqrt of a negative number, a sqrt or atan2 at 0, a branch a tf.where drops: each
    needs its own fix, and the scripts' `# how:` header says which (values.how_made)."""
    told = {case.file.name: case.context["how"] for case in corpus.read_scripts(CORPUS) if "how" in case.context}
    assert {"overflow", "domain", "zero", "where"} <= set(told.values())
    for name, how in told.items():
        first = results[name]["findings"][0]
        assert first["facts"].get("how") == how, (name, first["facts"])


@pytest.fixture(scope="module")
def plain(results, tmp_path_factory) -> dict[str, dict]:
    """Each script run plainly (after `results`: the two sets of children never share the cores)."""
    expected = expectations()
    folder = tmp_path_factory.mktemp("plain-corpus")
    groups = [([n for n, e in expected.items() if not e["keras2"]], False), ([n for n, e in expected.items() if e["keras2"]], True)]
    return rows_of([(start(PLAIN_RUNNER, names, folder / f"{i}.jsonl", flag), folder / f"{i}.jsonl")
                    for i, (names, flag) in enumerate(groups) if names])


def _broken(row: dict) -> list[str]:
    """What a plain run shows wrong: gradients None, all zero or NaN/inf, a gradient call that raised, a script that did."""
    wrong = sorted(kind for kind in row["gradients"] if kind != "ok")
    return wrong + [f"raised {name}" for name in row["raised"]] + \
        ([f"script raised {row['script_error']}"] if row["script_error"] else [])


def test_no_all_clear_on_a_program_whose_plain_run_is_broken(results, plain):
    """The acceptance test: wherever the plain run's gradients are None, NaN or all zero, or a gradient call (or the
    script) raised, explain reports a finding — unless the corpus calls the program correct, and then the plain
    run shows only a None or zero the program told TensorFlow it meant (a stop_gradient keeping a source out,
    unconnected_gradients=ZERO) and never broke on, or a zero explain showed to be the true slope and said so
    beside the all-clear (terms that cancel: a WGAN critic's output bias, a siamese twin's; a stationary point: an
    L2 penalty at a weight of 0, where the target moves at second order only). Any other zero nothing declared (a
    loss weight of 0) is a finding: the all-clear is only for gradients that are not all zero, or shown exact."""
    expected = expectations()
    assert set(plain) == set(expected)
    broken = {name: _broken(row) for name, row in plain.items() if _broken(row)}
    intended = {name: wrong for name, wrong in broken.items() if not expected[name]["cause"]}
    silent = {name: wrong for name, wrong in broken.items() if expected[name]["cause"] and not results[name]["findings"]}
    print(f"\nplain runs: {len(broken)}/{len(plain)} broken; explain silent on {len(silent)}; "
          f"meant by a correct program: {sorted(intended)}")
    assert len(broken) >= 60  # the referee sees the corpus's mistakes
    assert silent == {}
    declared = {"none": "stop_gradient", "zeros": "UnconnectedGradients.ZERO"}  # what the program said it meant
    shown_exact = {name for name, row in results.items()  # (a site whose gradients were all tiny is said there too)
                   if any(not seen.get("tiny") and seen.get("why") != "kept" for seen in row.get("exact") or ())}
    kept = {name for name, row in results.items() if any(seen.get("why") == "kept" for seen in row.get("exact") or ())}
    assert kept and {name for name in kept if "none" not in _broken(plain[name])} == set()  # Nones really seen, said
    assert {name: wrong for name, wrong in intended.items()
            if any(declared.get(kind, "\0") not in (CORPUS / name).read_text() and not
                   (kind == "zeros" and name in shown_exact) for kind in wrong)} == {}
    assert {name for name in shown_exact if "zeros" not in _broken(plain[name])} == set()  # only zeros really seen


def test_a_correct_programs_plain_run_is_not_broken_by_what_explain_flags(results, plain):
    """Every program explain finds nothing in ran plainly to its end (no gradient call or script raised)."""
    quiet = [name for name, row in results.items() if not row["findings"]]
    assert quiet
    assert {name: _broken(plain[name]) for name in quiet
            if plain[name]["raised"] or plain[name]["script_error"]} == {}
