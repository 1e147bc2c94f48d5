"""The report's text, JSON and HTML, and the wording of every cause (no TensorFlow)."""
from __future__ import annotations

import json

import pytest

from gradtutor import messages
from gradtutor.evidence.reading import wording
from gradtutor.explain import findings_view as report
from gradtutor.protocol import Cause

pytestmark = pytest.mark.unit

FINDING = {"file": "train.py", "line": 14, "call": "gradient", "sources": ["w"], "cause": "outside-tape",
           "symptom": "none", "broke_at": {"file": "train.py", "line": 12, "code": "loss = z * 2"},
           "message": wording.message("outside-tape", "none", ["w"]), "fix": wording.fix("outside-tape"),
           "count": 3}


def test_every_explain_cause_has_a_sentence_and_a_fix():
    worded = [cause for cause in Cause if messages.has(f"cause.{cause.value}.what")]
    assert len(worded) >= 15, worded  # the tape causes explain can find
    for cause in worded:
        assert messages.has(f"cause.{cause.value}.fix"), cause
        assert wording.fix(cause.value) and wording.message(cause.value, "none", ["x"]).startswith(
            "the gradient for x is None: " + wording.what(cause.value))


def test_text_names_where_it_was_asked_the_cause_and_the_line_that_broke():
    text = "\n".join(report.lines([FINDING], "train.py"))
    assert "train.py:14" in text and "tape.gradient (×3)" in text and "outside-tape" in text
    assert "train.py:12" in text and "loss = z * 2" in text and text.count("fix:") == 1


def test_text_says_the_step_a_sampled_or_compiled_gradient_first_went_wrong():
    sampled = dict(FINDING, facts={"first_seen_step": "31"})
    compiled = dict(FINDING, facts={"first_step": "7"})
    assert "first seen at step 31 of this tape" in "\n".join(report.lines([sampled], "train.py"))
    assert "first seen at step 7 of a compiled function" in "\n".join(report.lines([compiled], "train.py"))
    assert "first seen" not in "\n".join(report.lines([FINDING], "train.py"))


def test_json_is_one_line_with_the_findings_and_the_exit_code():
    line = report.as_json([FINDING], 3)
    assert "\n" not in line and json.loads(line) == {"findings": [FINDING], "script_exit": 3}


def test_html_escapes_code():
    finding = dict(FINDING, broke_at={"file": "t.py", "line": 1, "code": "a < b"})
    assert "a &lt; b" in report.as_html([finding]) and "<table" in report.as_html([finding])
    assert "fine" in report.as_html([]) and "no gradient" in report.as_html([], gradient_calls=0)


def test_no_findings_and_no_gradients_are_told_apart():
    assert "came back fine (2 calls checked)" in report.lines([], "t.py", 0, 2)[0]
    assert "asked TensorFlow for no gradient" in report.lines([], "t.py", 0, 0)[0]
    assert report.lines([], "t.py", 3, 0) == [
        ("gradtutor explain: t.py asked TensorFlow for no gradient, so there was nothing to check; "
        "t.py itself exited with code 3.")]


def test_no_all_clear_while_a_call_site_went_unobserved():
    """Every gradient asked for must be seen before "came back fine" is said; an unseen site is named instead."""
    site = {"kind": "compiled", "file": "train.py", "line": 21, "calls": 40, "why": "compiled"}
    text = "\n".join(report.lines([], "train.py", 0, 40, [site]))
    assert "came back fine" not in text and "train.py:21" in text and "could not be observed" in text
    assert "came back fine" in "\n".join(report.lines([], "train.py", 0, 40, []))
    assert "could not be observed" in report.as_html([], 40, [site]) and "✓" not in report.as_html([], 40, [site])
    graph = dict(site, why="graph")  # a TF1 graph's tf.gradients: asked for, but symbolic until a Session runs it
    text = "\n".join(report.lines([], "train.py", 0, 0, [graph]))
    assert "only when a Session runs it" in text and "asked TensorFlow for no gradient" not in text


def test_an_exact_zero_is_said_beside_the_all_clear_with_where_its_terms_cancel():
    exact = [{"file": "gan.py", "line": 20, "sources": ["critic/dense_1/bias"],
              "at": {"file": "gan.py", "line": 19, "code": "loss = tf.reduce_mean(d(fake)) - tf.reduce_mean(d(real))"}}]
    shown = report.lines([], "gan.py", 0, 2, exact=exact)
    assert shown[0].startswith("[green]✓[/green]") and len(shown) == 2
    assert "critic/dense_1/bias" in shown[1] and "exactly 0" in shown[1] and "gan.py:19" in shown[1]
    assert report.lines([], "gan.py", 0, 2) == shown[:1]  # nothing to say: the all-clear alone
    assert json.loads(report.as_json([], 0, exact=exact))["exact"] == exact
    html = report.as_html([], 2, exact=exact)  # a notebook's %%explain and --html say it too
    assert html.index("✓") < html.index("exactly 0") and "critic/dense_1/bias" in html and "gan.py:19" in html
    assert "exactly 0" not in report.as_html([], 2)


def test_nones_a_stop_gradient_keeps_out_withhold_the_all_clear_and_name_its_line():
    """A REINFORCE location network cut by `tf.stop_gradient(mean_loc)` while the call trains the rest: no finding
    (a cut can be meant), but no "fine" either: the Nones are said, with the line that cuts them."""
    kept = {"file": "ram.py", "line": 40, "sources": ["loc/kernel", "loc/bias"], "why": "kept",
            "at": {"file": "ram.py", "line": 31, "code": "mean_loc = tf.stop_gradient(mean_loc)"}}
    shown = report.lines([], "ram.py", 0, 4, exact=[kept])
    assert not any("✓" in line for line in shown)
    assert "[yellow]?[/yellow]" in shown[0] and "None" in shown[0]
    assert "ram.py:31" in shown[1] and "loc/kernel, loc/bias" in shown[1] and "stop_gradient(mean_loc)" in shown[1]
    assert "✓" not in report.as_html([], 4, exact=[kept])


def test_gradients_that_were_all_tiny_withhold_the_all_clear_and_name_the_line():
    """Finite and not zero, yet every gradient of a call below 1e-6: a model at its minimum, or one stuck (a ReLU at
    its kink) — no cause is named and nothing is called fine; the exact zero beside it is still said."""
    tiny = {"file": "train.py", "line": 35, "kind": "compiled", "calls": 2000, "tiny": True}
    zero = {"file": "train.py", "line": 20, "sources": ["b"], "at": {"file": "train.py", "line": 19, "code": "y"}}
    shown = report.lines([], "train.py", 0, 2001, exact=[zero, tiny])
    assert shown[0].startswith("[yellow]?[/yellow]") and "fine" not in shown[0].replace("not known to be fine", "")
    assert "finite and not all zero" in shown[0] and "exactly 0" in shown[1]
    assert "train.py:35" in shown[2] and "below 1e-6" in shown[2] and "cause is not known" in shown[2]
    html = report.as_html([], 2001, exact=[tiny])
    assert "✓" not in html and "below 1e-6" in html
    block = report.lines([], None, 0, 1, exact=[tiny])  # a notebook's block: no script named
    assert block[0].startswith("[yellow]?[/yellow]") and "the code asked for" in block[0]


def test_a_frozen_or_outer_tape_line_is_labelled_as_what_it_is():
    frozen = dict(FINDING, cause="frozen-python-state", facts={"how": "alias"})
    outer = dict(FINDING, cause="unwatched", facts={"how": "outer"})
    assert "the compiled function's code reads it at train.py:12" in "\n".join(report.lines([frozen], "train.py"))
    assert "the outer tape that never watched it, opened at train.py:12" in "\n".join(report.lines([outer], "train.py"))
    assert "made at train.py:12" in "\n".join(report.lines([dict(outer, facts={})], "train.py"))
    read = "\n".join(report.lines([dict(outer, facts={"how": "read"})], "train.py"))  # an argument: no line made it
    assert "first used under the tape at train.py:12" in read and "made at" not in read
    layer = "\n".join(report.lines([dict(FINDING, cause="dead-relu", facts={"layer": "dense_1"})], "train.py"))
    assert "run by the Keras layer made at train.py:12" in layer  # the line that chose the activation
