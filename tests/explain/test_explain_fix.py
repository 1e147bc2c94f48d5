"""`explain --fix` without TensorFlow: each cause's source transformation, and --apply's refusals.

The findings here are what `gradtutor explain` reports (cause, the gradient call's line, the
break line); the verification by re-run is tests/explain/test_explain_fix_corpus.py and _cli.py.
"""
from __future__ import annotations

import os
import random
import textwrap

import pytest

from gradtutor.explain.fix import plan as plans
from gradtutor.explain.fix import show, verify

pytestmark = pytest.mark.unit


def patched(tmp_path, code: str, cause: str, line: int, broke: int | None = None, **facts) -> str:
    """The script's text after the repair of one finding (also checked: the script itself is not touched)."""
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(code).lstrip())
    before = script.read_bytes()
    finding = {"file": str(script), "line": line, "call": "gradient", "sources": ["w"], "cause": cause,
               "broke_at": {"file": str(script), "line": broke or line, "code": ""}, "facts": facts}
    plan = plans.make(str(script), [finding])
    assert script.read_bytes() == before
    assert not plan.manual, [(m.cause, m.reason) for m in plan.manual]
    compile(plan.patched, "patched", "exec")
    return plan.patched


def test_unwatched_watches_the_sources_first_in_the_block(tmp_path):
    out = patched(tmp_path, """
        import tensorflow as tf
        w = tf.constant(1.0)
        with tf.GradientTape() as g:  # a comment kept
            y = w * w
        print(g.gradient(y, w))
        """, "unwatched", 5, 3, why="tensor")
    assert out.splitlines()[2:5] == ["with tf.GradientTape() as g:  # a comment kept", "    g.watch(w)",
                                     "    y = w * w"]


@pytest.mark.parametrize("seed", range(2))
def test_a_variable_made_with_trainable_false_is_made_trainable_where_it_was_made(tmp_path, seed):
    """A PINN's unknown rate `k = tf.Variable(0.5, trainable=False)`: the tape watches trainable variables only, and a
    Keras 3 variable list cannot be watched by hand; the keyword goes, the rest of the line stays."""
    keywords = random.Random(seed).sample(['name="k"', "dtype=tf.float32", "trainable=False"], 3)
    out = patched(tmp_path, f"""
        import tensorflow as tf
        k = tf.Variable(0.5, {", ".join(keywords)})  # the unknown rate
        with tf.GradientTape() as tape:
            y = k * k
        print(tape.gradient(y, [k]))
        """, "unwatched", 5, 2, why="not trainable")
    kept = [k for k in keywords if k != "trainable=False"]
    assert out.splitlines()[1] == f"k = tf.Variable(0.5, {', '.join(kept)})  # the unknown rate"
    assert "watch" not in out


@pytest.mark.parametrize("rank, want", [(3, 'alpha = layers.Softmax(axis=1, name="att")(score)'),
                                        (2, 'alpha = layers.Activation("softmax", name="att")(score)')])
def test_a_one_unit_softmax_over_a_sequences_scores_goes_over_its_steps(tmp_path, rank, want):
    """Attention weights from (batch, steps, 1) scores: over the steps (axis 1). Of (batch, 1) scores nothing is
    known to be over: the sigmoid repair looks for `activation="softmax"`, which this line does not have."""
    script = tmp_path / "train.py"
    script.write_text('from keras import layers\nalpha = layers.Activation("softmax", name="att")(score)\n')
    finding = {"file": str(script), "line": 2, "call": "gradient", "sources": ["w"], "cause": "softmax-sum",
               "broke_at": {"file": str(script), "line": 2, "code": ""}, "facts": {"how": "one_unit", "rank": str(rank)}}
    plan = plans.make(str(script), [finding])
    assert plan.patched.splitlines()[1] == want
    assert [m.cause for m in plan.manual] == ([] if rank == 3 else ["softmax-sum"])


def test_a_one_unit_softmax_call_over_a_sequence_is_given_its_steps_axis(tmp_path):
    out = patched(tmp_path, """
        import tensorflow as tf
        weights = tf.nn.softmax(tf.tanh(scores))
        """, "softmax-sum", 2, 2, how="one_unit", rank="3")
    assert out.splitlines()[1] == "weights = tf.nn.softmax(tf.tanh(scores), axis=1)"


@pytest.mark.parametrize("keras_import", ["import keras\n", ""])
def test_a_raw_variable_a_keras_layer_holds_is_made_a_keras_variable_where_it_is_made(tmp_path, keras_import):
    """Keras 3 tracks a keras.Variable a layer holds, not a tf.Variable: the maker is renamed, `initial_value=` too."""
    code = f'import tensorflow as tf\n{keras_import}self.scales = tf.Variable(initial_value=tf.ones((3,)), name="scales")\n'
    line = code.count("\n")
    out = patched(tmp_path, code, "not-used", line, line, keras="untracked tf.Variable")
    maker = "keras.Variable" if keras_import else "tf.keras.Variable"
    assert out.splitlines()[-1] == f'self.scales = {maker}(initializer=tf.ones((3,)), name="scales")'


def test_unwatched_with_watch_accessed_variables_false_drops_the_argument(tmp_path):
    out = patched(tmp_path, """
        import tensorflow as tf
        w = tf.Variable(1.0)
        with tf.GradientTape(watch_accessed_variables=False, persistent=True) as tape:
            y = w * w
        print(tape.gradient(y, w))
        """, "unwatched", 5, 3, why="watch_accessed_variables=False")
    assert "with tf.GradientTape(persistent=True) as tape:" in out


def test_outside_tape_moves_the_steps_into_the_block_and_hoists_a_sliced_target(tmp_path):
    out = patched(tmp_path, """
        import tensorflow as tf
        x = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            y = x * x

        loss = tf.reduce_sum(y)
        print(tape.gradient(loss[None][0], x))
        """, "outside-tape", 7, 6)
    assert out.splitlines()[3:] == ["    y = x * x", "", "    loss = tf.reduce_sum(y)",
                                    "    target = loss[None][0]", "print(tape.gradient(target, x))"]


def test_tape_reused_becomes_persistent(tmp_path):
    code = """
        import tensorflow as tf
        x = tf.Variable(2.0)
        with tf.GradientTape({}) as tape:
            a, b = x * x, x * x * x
        tape.gradient(a, x)
        tape.gradient(b, x)
        """
    assert "tf.GradientTape(persistent=True)" in patched(tmp_path, code.format(""), "tape-reused", 6, 5)
    assert "tf.GradientTape(persistent=True)" in patched(tmp_path, code.format("persistent=False"),
                                                         "tape-reused", 6, 5)


def test_a_persistent_tape_is_deleted_after_its_last_use_and_only_then(tmp_path):
    loop = """
        import tensorflow as tf
        w = [tf.Variable(1.0), tf.Variable(2.0)]
        with tf.GradientTape() as tape:
            loss = w[0] * w[1]
        grads = []
        for v in w:
            grads.append(tape.gradient(loss, v))
        print(grads)
        """
    out = patched(tmp_path, loop, "tape-reused", 7, 7)
    assert out.endswith("        grads.append(tape.gradient(loss, v))\ndel tape\nprint(grads)\n".replace("        ", "    "))
    returned = """
        import tensorflow as tf
        def grads(x):
            with tf.GradientTape() as tape:
                a, b = x * x, x * x * x
            tape.gradient(a, x)
            return tape.gradient(b, x)
        """
    assert "del tape" not in patched(tmp_path, returned, "tape-reused", 6, 5)
    no_newline = "import tensorflow as tf\nx = tf.Variable(2.0)\nwith tf.GradientTape() as t:\n    a = x * x\n" \
                 "t.gradient(a, x)\nt.gradient(a, x)"
    assert patched(tmp_path, no_newline, "tape-reused", 6, 5).endswith("t.gradient(a, x)\ndel t\n")


def test_stop_gradient_is_removed_and_a_self_assignment_deleted(tmp_path):
    out = patched(tmp_path, """
        import tensorflow as tf
        w = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            y = tf.stop_gradient(w * 2) + 1
        tape.gradient(y, w)
        """, "stop-gradient", 5, 4)
    assert "    y = w * 2 + 1" in out.splitlines()
    out = patched(tmp_path, """
        import tensorflow as tf
        def loss(p):
            p = tf.stop_gradient(p)
            return p * p
        w = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            y = loss(w)
        tape.gradient(y, w)
        """, "stop-gradient", 8, 3)
    assert "stop_gradient" not in out and out.count("\n") == 7


def test_variable_replaced_assigns(tmp_path):
    code = """
        import tensorflow as tf
        w = tf.Variable(1.0)
        for _ in range(2):
            with tf.GradientTape() as tape:
                y = w * w
            g = tape.gradient(y, w)
            {}
        """
    assert "    w.assign(w - 0.1 * g)" in patched(tmp_path, code.format("w = w - 0.1 * g"), "variable-replaced", 6, 7)
    assert "    w.assign_sub(0.1 * g)" in patched(tmp_path, code.format("w -= 0.1 * g"), "variable-replaced", 6, 7)


def _drawn_name(stem: str) -> str:
    return f"{stem}_{random.randrange(10_000)}"


def test_a_variable_made_again_in_a_loop_is_made_once_before_it(tmp_path):
    w, w0, alias = _drawn_name("w"), _drawn_name("start"), random.choice(["tf", "tensorflow"])
    importing = "import tensorflow" if alias == "tensorflow" else "import tensorflow as tf"
    out = patched(tmp_path, f"""
        {importing}
        {w0} = {alias}.zeros((3, 1))
        for step in range(4):
            {w} = {alias}.Variable({w0})
            with {alias}.GradientTape() as tape:
                loss = {alias}.reduce_sum({w} * {w})
            g = tape.gradient(loss, {w})
            {w}.assign_sub(0.1 * g)
        """, "variable-replaced", 7, 4)
    assert out.splitlines()[2:5] == [f"{w} = {alias}.Variable({w0})", "for step in range(4):",
                                     f"    with {alias}.GradientTape() as tape:"]
    assert out.count(f"{alias}.Variable(") == 1


def test_a_variable_made_from_what_the_loop_changes_is_not_moved_out_of_it(tmp_path):
    w = _drawn_name("w")
    out = patched(tmp_path, f"""
        import tensorflow as tf
        for step in range(4):
            start = tf.fill((3,), float(step))
            {w} = tf.Variable(start)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum({w} * {w})
            g = tape.gradient(loss, {w})
        """, "variable-replaced", 7, 4)
    assert out.splitlines()[1] == "for step in range(4):" and f"    {w}.assign(start)" in out


def test_a_running_total_kept_in_a_variable_becomes_a_tensor_where_it_is_made(tmp_path):
    total, image = _drawn_name("total"), _drawn_name("image")
    out = patched(tmp_path, f"""
        import tensorflow as tf
        {image} = tf.Variable(tf.ones((2, 2)))
        with tf.GradientTape() as tape:
            {total} = tf.Variable(0.0)
            {total} += tf.reduce_sum({image} ** 2)
        print(tape.gradient({total}, {image}))
        """, "variable-replaced", 5, 5)
    assert f"    {total} = tf.convert_to_tensor(0.0)" in out and f"    {total} += tf.reduce_sum" in out


def test_a_weight_stepped_with_minus_equals_is_still_assigned_in_place(tmp_path):
    w = _drawn_name("w")
    out = patched(tmp_path, f"""
        import tensorflow as tf
        {w} = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            y = {w} * {w}
        g = tape.gradient(y, {w})
        {w} -= 0.1 * g
        """, "variable-replaced", 6, 6)
    assert f"{w}.assign_sub(0.1 * g)" in out


def test_a_weight_kept_as_an_attribute_is_assigned_in_place(tmp_path):
    """`self.w = self.w - lr * g` in a hand-written model class, or `model.b -= …` outside it."""
    owner, w = random.choice(["self", "model", "net.dense"]), _drawn_name("w")
    code = f"""
        import tensorflow as tf
        for _ in range(2):
            with tf.GradientTape() as tape:
                y = {owner}.{w} * {owner}.{w}
            g = tape.gradient(y, {owner}.{w})
            {{}}
        """
    out = patched(tmp_path, code.format(f"{owner}.{w} = {owner}.{w} - 0.1 * g"), "variable-replaced", 5, 6)
    assert f"    {owner}.{w}.assign({owner}.{w} - 0.1 * g)" in out
    out = patched(tmp_path, code.format(f"{owner}.{w} -= 0.1 * g"), "variable-replaced", 5, 6)
    assert f"    {owner}.{w}.assign_sub(0.1 * g)" in out


def _whole_run_item(tmp_path, call: str, rerun: dict):
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nw = tf.Variable(1.0)\nwith tf.GradientTape() as tape:\n"
                      "    y = w * w\ng = tape.gradient(y, w)\nw -= 0.1 * g\n")
    plan = plans.make(str(script), [{"file": str(script), "line": 6, "call": call, "cause": "variable-replaced",
                                     "broke_at": {"file": str(script), "line": 6, "code": ""}}])
    verify.judge(plan, {"gradients": {}, **rerun}, str(script))
    return plan.items[0]


@pytest.mark.parametrize("rerun, why", [
    ({"script_exit": 1, "findings": []}, "not_reached"),  # the copy still ended early
    ({"script_exit": 0, "findings": [], "unobserved": [{"line": 5}]}, "not_reached"),  # a gradient never seen
    ({"script_exit": 0, "findings": [{"file": "COPY", "line": 5, "cause": "not-known"}]}, "still_found"),
])
def test_a_raised_line_is_verified_only_by_a_whole_run_with_nothing_found(tmp_path, rerun, why):
    findings = [dict(f, file=str(tmp_path / "train.py")) for f in rerun["findings"]]
    item = _whole_run_item(tmp_path, "raised", dict(rerun, findings=findings))
    assert (item.verified, item.why) == (False, why)


def test_a_raised_line_whose_whole_rerun_is_clean_is_verified(tmp_path):
    item = _whole_run_item(tmp_path, "raised", {"script_exit": 0, "findings": [], "unobserved": []})
    assert (item.verified, item.why) == (True, "")
    assert _whole_run_item(tmp_path, "gradient", {"script_exit": 0, "findings": []}).why == "not_reached"


def test_a_raised_numpy_line_lets_the_rerun_reach_the_next_and_both_are_repaired(tmp_path):
    """np.abs on two lines of a traced step: the first re-run raises at the second, which the next round repairs;
    the item is verified by the last, clean, whole run and its words say so."""
    script = tmp_path / "step.py"
    script.write_text("import numpy as np\nimport tensorflow as tf\n\n\n@tf.function\ndef step(x):\n"
                      "    a = tf.reduce_mean(np.abs(x))\n    b = tf.reduce_mean(np.abs(x - 1))\n    return a + b\n")
    copy, ran = str(script), []

    def raised(line):
        return {"file": copy, "line": line, "call": "raised", "cause": "leaves-tensorflow",
                "broke_at": {"file": copy, "line": line, "code": ""}, "facts": {"refused": "symbolic_to_numpy"}}

    def run(text, lines, eager=False):
        ran.append(text)
        left = [number for number, row in enumerate(text.splitlines(), 1) if "np.abs" in row]
        return {"script_exit": 1 if left else 0, "findings": [raised(left[0])] if left else [], "unobserved": []}

    plan = plans.make(copy, [raised(7)])
    verify.rounds(plan, copy, run)
    assert len(ran) == 2 and "np.abs" not in ran[-1]
    assert "    b = tf.reduce_mean(tf.abs(x - 1))" in plan.patched.splitlines()
    assert (plan.items[0].verified, plan.items[0].why) == (True, "")
    assert "ran to its end" in show.verification(plan.items[0])


def test_a_keras_only_script_gets_tensorflow_imported_with_the_op_it_is_given(tmp_path):
    out = patched(tmp_path, """
        import keras
        import numpy as np


        def nll(y_true, y_pred):
            return -y_true * np.log(y_pred)
        """, "leaves-tensorflow", 6, 6)
    lines = out.splitlines()
    assert lines[:3] == ["import keras", "import numpy as np", "import tensorflow as tf"]
    assert "    return -y_true * tf.math.log(y_pred)" in lines


def test_numpy_steps_become_tensorflow_ops_in_the_files_own_aliases(tmp_path):
    out = patched(tmp_path, """
        import numpy as onp
        import tensorflow as tf
        w = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            y = float(onp.sum(onp.log(w.numpy()), axis=0))
        tape.gradient(y, w)
        """, "leaves-tensorflow", 6, 5)
    assert "    y = tf.reduce_sum(tf.math.log(w), axis=0)" in out.splitlines()


def test_what_numpys_result_was_given_becomes_a_tensors_too(tmp_path):
    """A padding mask written with np.where on `p.numpy()`, then `.astype` and `tf.constant`: the cast and the
    tensor itself, so the patched line stays a tensor's (an EagerTensor has no astype)."""
    out = patched(tmp_path, """
        import numpy as np
        import tensorflow as tf
        with tf.GradientTape() as tape:
            p = model(x)
            p = tf.constant(np.where(mask == 1, p.numpy(), 0.0).astype("float32"))
        tape.gradient(p, model.trainable_variables)
        """, "leaves-tensorflow", 6, 5)
    assert out.splitlines()[4] == '    p = tf.cast(tf.where(mask == 1, p, 0.0), "float32")'


def test_where_over_a_log_or_a_division_gets_the_second_where(tmp_path):
    out = patched(tmp_path, """
        import tensorflow as tf
        x = tf.Variable([0.0, 2.0])
        with tf.GradientTape() as tape:
            y = tf.where(x > 0, tf.math.log(x), 1.0 / x)
        tape.gradient(y, x)
        """, "non-finite", 5, 4)
    assert ("    y = tf.where(x > 0, tf.math.log(tf.where(x > 0, x, tf.ones_like(x))), "
            "1.0 / tf.where(x > 0, tf.ones_like(x), x))") in out.splitlines()


def test_softmax_sum_asks_for_the_top_class_and_tf_gradients_gets_a_tape(tmp_path):
    out = patched(tmp_path, """
        import tensorflow as tf
        z = tf.Variable([[1.0, 2.0]])
        with tf.GradientTape() as tape:
            p = tf.nn.softmax(z)
        print(tape.gradient(p, z))
        """, "softmax-sum", 5, 4)
    assert out.splitlines()[4:] == ["    target = tf.reduce_max(p, axis=-1)", "print(tape.gradient(target, z))"]
    out = patched(tmp_path, """
        import tensorflow as tf
        def f(x):
          loss = tf.reduce_sum(x * x)
          return tf.gradients(loss, x)
        f(tf.constant(1.0))
        """, "tf-gradients-eager", 4)
    assert out.splitlines()[2:6] == ["  with tf.GradientTape() as tape:", "    tape.watch(x)",
                                     "    loss = tf.reduce_sum(x * x)", "  return tape.gradient(loss, [x])"]


@pytest.mark.parametrize("cause, reason", [("integer-path", "integer_path"), ("saturation", "saturation"),
                                           ("dead-relu", "dead_relu"), ("wrong-tape", "no_repair")])
def test_causes_without_a_mechanical_repair_get_no_patch_and_say_why(tmp_path, cause, reason):
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nw = tf.Variable(1.0)\n")
    plan = plans.make(str(script), [{"file": str(script), "line": 2, "call": "gradient", "cause": cause,
                                     "broke_at": {"file": str(script), "line": 2, "code": ""}}])
    assert (plan.items, [(m.cause, m.reason) for m in plan.manual], plan.diff) == ([], [(cause, reason)], "")
    assert "by hand" in show.lines(plan)[0] or "fix line" in show.lines(plan)[0]


def test_a_break_in_another_file_is_not_patched(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\n")
    plan = plans.make(str(script), [{"file": str(tmp_path / "helper.py"), "line": 2, "cause": "unwatched",
                                     "broke_at": None}])
    assert [(m.reason, m.params) for m in plan.manual] == [("elsewhere", {"file": "helper.py"})]


def test_an_argmax_under_fit_is_by_hand_even_when_the_tape_is_in_keras(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nw = tf.Variable(1.0)\n")
    trainer = "/site-packages/keras/src/backend/tensorflow/trainer.py"
    plan = plans.make(str(script), [{"file": trainer, "line": 60, "call": "gradient", "cause": "integer-path",
                                     "broke_at": {"file": str(script), "line": 2, "code": ""}}])
    assert (plan.items, [(m.cause, m.reason) for m in plan.manual]) == ([], [("integer-path", "integer_path")])


def _traced_rerun(tmp_path, calls, compiled):
    script, plan = _plan_for(tmp_path, verified=False)
    line = plan.moved(plan.items[0].line)
    verify.judge(plan, {"script_exit": 0, "findings": [], "gradients": {str(line): calls},
                        "compiled": {str(line): compiled} if compiled is not None else {}}, str(script))
    return plan.items[0]


@pytest.mark.parametrize("calls, compiled, why", [
    ([["traced"]], None, "unchecked"),  # traced, but no in-graph check ran in a compiled step
    ([["traced"]], {"steps": 0, "codes": [[0]]}, "unchecked"),
    ([["traced"]], {"steps": 3, "codes": []}, "unchecked"),
    ([["traced", "traced"]], {"steps": 3, "codes": [[0, 3]]}, "nonfinite"),
    ([["traced", "traced"]], {"steps": 3, "codes": [[2, 2]]}, "zero"),
    ([["none"]], {"steps": 3, "codes": [[0]]}, "none"),  # None when traced
])
def test_a_traced_gradient_is_not_verified_on_less_than_the_compiled_checks(tmp_path, calls, compiled, why):
    item = _traced_rerun(tmp_path, calls, compiled)
    assert (item.verified, item.why) == (False, why)
    assert "verified:" not in show.verification(item).replace("not verified:", "")


def test_a_traced_gradient_checked_in_every_compiled_step_is_verified_and_said_so(tmp_path):
    item = _traced_rerun(tmp_path, [["traced", "traced"]], {"steps": 5, "codes": [[0, 2]]})  # a bias that cancels
    assert (item.verified, item.compiled_steps, item.fd_error) == (True, 5, None)
    assert show.verification(item).startswith("verified:") and "5 compiled steps" in show.verification(item)


def _plan_for(tmp_path, verified: bool):
    script = tmp_path / "train.py"
    script.write_bytes(b"import tensorflow as tf\r\nx = tf.constant(1.0)\r\nwith tf.GradientTape() as t:\r\n"
                       b"    y = x * x\r\nprint(t.gradient(y, x))\r\n")
    os.utime(script, ns=(1_000_000_000, 1_000_000_000))
    plan = plans.make(str(script), [{"file": str(script), "line": 5, "call": "gradient", "cause": "unwatched",
                                     "broke_at": {"file": str(script), "line": 3, "code": ""}}])
    for item in plan.items:
        item.verified, item.why = verified, "" if verified else "zero"
        item.why_params = {"subject": "x"}
    return script, plan


def test_apply_saves_the_original_byte_for_byte_and_keeps_the_line_endings(tmp_path):
    script, plan = _plan_for(tmp_path, verified=True)
    original = script.read_bytes()
    written, said = show.apply(plan)
    assert written and said == f"gradtutor explain: patched {script}; the original is saved as {script}.orig"
    assert (tmp_path / "train.py.orig").read_bytes() == original
    assert script.read_bytes() == original.replace(b"as t:\r\n", b"as t:\r\n    t.watch(x)\r\n")


@pytest.mark.parametrize("case", ["unverified", "backup exists", "changed meanwhile"])
def test_a_refused_apply_changes_nothing_and_says_why_in_one_line(tmp_path, case):
    script, plan = _plan_for(tmp_path, verified=case != "unverified")
    if case == "backup exists":
        (tmp_path / "train.py.orig").write_text("older")
    if case == "changed meanwhile":
        plan.original = plan.original.replace("1.0", "2.0")
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()}
    written, said = show.apply(plan)
    assert not written and said.startswith(f"gradtutor explain: {script} was not changed: ") and "\n" not in said
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()} == before


def test_a_script_without_findings_gets_no_fix_report(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\n")
    plan = plans.make(str(script), [])
    assert (plan.items, plan.manual, plan.diff, show.lines(plan)) == ([], [], "", [])


def test_outside_tape_moves_a_step_made_before_the_block_after_its_watch(tmp_path):
    out = patched(tmp_path, """
        import tensorflow as tf
        r = tf.constant([1.0, 2.0])
        noisy = r + 0.1
        other = 3
        with tf.GradientTape() as tape:
            tape.watch(r)
            y = tf.reduce_sum(noisy * noisy)
        print(tape.gradient(y, r))
        """, "outside-tape", 8, 3)
    assert out.splitlines()[2:7] == ["other = 3", "with tf.GradientTape() as tape:", "    tape.watch(r)",
                                     "    noisy = r + 0.1", "    y = tf.reduce_sum(noisy * noisy)"]


@pytest.mark.parametrize("seed", range(2))
def test_a_module_step_read_by_a_function_called_in_a_module_loops_block_is_made_again_in_the_block(tmp_path, seed):
    """TFP's affine flow: `scale = fill(L)` once at the top, read by `log_prob` that the training loop's block calls.
    The step is computed again at the top of the block (the module's own line stays for its other readers)."""
    loop = random.Random(seed).choice(["for step in range(3):", "while True:"])
    out = patched(tmp_path, f"""
        import tensorflow as tf
        L = tf.Variable([1.0, 2.0])
        scale = tf.reduce_sum(L)
        def log_prob(x):
            return x * scale
        {loop}
            with tf.GradientTape() as tape:
                loss = log_prob(3.0)
            print(tape.gradient(loss, L))
        """, "outside-tape", 9, 3)
    assert out.splitlines()[2] == "scale = tf.reduce_sum(L)"
    assert out.splitlines()[6:9] == ["    with tf.GradientTape() as tape:", "        scale = tf.reduce_sum(L)",
                                     "        loss = log_prob(3.0)"]


def test_a_module_step_after_the_block_is_not_moved_into_it(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nL = tf.Variable(1.0)\nfor i in range(2):\n"
                      "    with tf.GradientTape() as tape:\n        y = f()\n    print(tape.gradient(y, L))\n"
                      "scale = L * 2\n")
    finding = {"file": str(script), "line": 6, "call": "gradient", "sources": ["L"], "cause": "outside-tape",
               "broke_at": {"file": str(script), "line": 7, "code": ""}, "facts": {}}
    plan = plans.make(str(script), [finding])
    assert [(m.cause, m.reason) for m in plan.manual] == [("outside-tape", "pattern")] and plan.diff == ""


def test_the_notebook_view_puts_the_patched_cell_beside_the_original(tmp_path):
    from gradtutor.explain.fix import cell

    script, plan = _plan_for(tmp_path, verified=True)
    page = cell.html(plan, plan.original)
    assert page.count("<pre>") == 2 and "t.watch(x)" in page.split("<pre>")[2]
    assert "t.watch(x)" not in page.split("<pre>")[1]
    assert "verified: the gradient for x is now finite and non-zero" in page


@pytest.mark.parametrize("seed", range(3))
def test_a_loop_run_before_the_block_moves_into_it_with_what_follows_it(tmp_path, seed):
    """The actor-critic example's mistake: the rollout loop before the `with`, the loss alone inside it. The loop
    and every statement after it up to the block move into the block, in order, their own indentation kept."""
    draw = random.Random(seed)
    unit = draw.choice(["  ", "    "])
    between = [f"note_{i} = len(log_probs)" for i in range(draw.randrange(3))]
    lines = ["import tensorflow as tf", "w = tf.Variable(2.0)", "log_probs = []", "for t in range(3):",
             f"{unit}p = tf.sigmoid(w * t)", f"{unit}if t:", f"{unit * 2}log_probs.append(tf.math.log(p))",
             *between, "with tf.GradientTape() as tape:", f"{unit}loss = -tf.add_n(log_probs)",
             "print(tape.gradient(loss, w))"]
    out = patched(tmp_path, "\n".join(lines) + "\n", "outside-tape", len(lines), 5)
    assert out.splitlines()[3:] == ["with tf.GradientTape() as tape:", f"{unit}for t in range(3):",
                                    f"{unit * 2}p = tf.sigmoid(w * t)", f"{unit * 2}if t:",
                                    f"{unit * 3}log_probs.append(tf.math.log(p))", *(unit + b for b in between),
                                    f"{unit}loss = -tf.add_n(log_probs)", "print(tape.gradient(loss, w))"]


def test_a_loop_is_not_moved_past_a_watch_of_what_it_makes(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nfor i in range(2):\n    x = tf.constant(float(i))\n"
                      "with tf.GradientTape() as tape:\n    tape.watch(x)\n    y = x * x\nprint(tape.gradient(y, x))\n")
    finding = {"file": str(script), "line": 7, "call": "gradient", "sources": ["x"], "cause": "outside-tape",
               "broke_at": {"file": str(script), "line": 3, "code": ""}, "facts": {}}
    plan = plans.make(str(script), [finding])
    assert [(m.cause, m.reason) for m in plan.manual] == [("outside-tape", "pattern")] and plan.diff == ""


def test_a_numpy_function_becomes_a_call_of_its_body_in_tensorflow_ops(tmp_path):
    out = patched(tmp_path, """
        import numpy as np
        import tensorflow as tf

        def np_hinge(y_true, y_pred):
            margin = 1.0 - y_true * y_pred  # kept as it is
            return np.maximum(0.0, margin).mean(axis=0).astype(np.float32)

        w = tf.Variable([[1.0], [2.0]])
        with tf.GradientTape() as tape:
            loss = tf.numpy_function(np_hinge, [tf.ones((3, 1)), tf.ones((3, 2)) @ w], tf.float32)
        print(tape.gradient(loss, w))
        """, "leaves-tensorflow", 11, 10)
    assert out.splitlines()[4:6] == ["    margin = 1.0 - y_true * y_pred  # kept as it is",
                                     "    return tf.cast(tf.reduce_mean(tf.maximum(0.0, margin), axis=0), tf.float32)"]
    assert "    loss = np_hinge(tf.ones((3, 1)), tf.ones((3, 2)) @ w)" in out.splitlines()


def test_a_lambda_given_to_numpy_function_is_called_where_it_stood(tmp_path):
    out = patched(tmp_path, """
        import numpy as np
        import tensorflow as tf
        w = tf.Variable([0.5, 2.0])
        with tf.GradientTape() as tape:
            y = tf.numpy_function(lambda t: np.clip(t, -1.0, 1.0), [w * 0.5], tf.float32)
        print(tape.gradient(y, w))
        """, "leaves-tensorflow", 6, 5)
    assert "    y = (lambda t: tf.clip_by_value(t, -1.0, 1.0))(w * 0.5)" in out.splitlines()


@pytest.mark.parametrize("body, why", [
    ("return np.random.rand() * x", "an np.random draw has no TensorFlow op here"),
    ("return np.argsort(x)", "argsort has no op of the same meaning in the table"),
])
def test_a_numpy_function_with_a_step_that_has_no_tensorflow_op_is_left_by_hand(tmp_path, body, why):
    script = tmp_path / "train.py"
    script.write_text(f"import numpy as np\nimport tensorflow as tf\n\ndef f(x):\n    {body}\n\n"
                      "w = tf.Variable([1.0])\nwith tf.GradientTape() as tape:\n"
                      "    y = tf.numpy_function(f, [w], tf.float64)\nprint(tape.gradient(y, w))\n")
    finding = {"file": str(script), "line": 10, "call": "gradient", "sources": ["w"], "cause": "leaves-tensorflow",
               "broke_at": {"file": str(script), "line": 9, "code": ""}, "facts": {}}
    plan = plans.make(str(script), [finding])
    assert [(m.cause, m.reason) for m in plan.manual] == [("leaves-tensorflow", "leaves_tensorflow")], why


@pytest.mark.parametrize("how", ["zero", "given"])
def test_a_division_by_zero_becomes_divide_no_nan_and_a_division_by_a_number_stays(tmp_path, how):
    out = patched(tmp_path, """
        import tensorflow as tf
        a = tf.Variable([0.0, 1.0])
        with tf.GradientTape() as tape:
            norm = tf.norm(a)
            y = tf.reduce_sum(a * a / 2.0) / (norm * norm)
        print(tape.gradient(y, a))
        """, "non-finite", 6, 5, op="RealDiv", how=how)
    assert "    y = tf.math.divide_no_nan(tf.reduce_sum(a * a / 2.0), norm * norm)" in out.splitlines()


def test_a_log_handed_a_nan_after_an_unseen_step_gets_its_operand_floored(tmp_path):
    out = patched(tmp_path, """
        import tensorflow as tf
        p = tf.Variable([0.5, 1.0])
        with tf.GradientTape() as tape:
            y = -tf.reduce_sum(tf.math.log(1 - p))
        print(tape.gradient(y, p))
        """, "non-finite", 5, 4, op="Log", how="given")
    assert "    y = -tf.reduce_sum(tf.math.log(tf.maximum(1 - p, 1e-7)))" in out.splitlines()


@pytest.mark.parametrize("asked", ["conv", "layer.output"])
def test_a_watch_of_a_symbolic_keras_tensor_goes_when_the_gradient_is_asked_of_another(tmp_path, asked):
    """Grad-CAM's `tape.watch(layer.output)`: the conv output the model returns is recorded anyway, so the watch goes;
    a gradient asked of the Keras tensor itself has no such repair."""
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(f"""
        import tensorflow as tf
        def cam(model, layer, image):
            with tf.GradientTape() as tape:
                tape.watch(layer.output)
                conv, scores = model(image)
            return tape.gradient(scores[:, 0], {asked})
        """).lstrip())
    finding = {"file": str(script), "line": 6, "call": "gradient", "sources": [asked], "cause": "cannot-watch",
               "broke_at": {"file": str(script), "line": 4, "code": ""},
               "facts": {"error": "Passed in object <KerasTensor shape=(None, 3)> of type 'KerasTensor'"}}
    plan = plans.make(str(script), [finding])
    if asked == "conv":
        assert not plan.manual and "watch" not in plan.patched and "        conv, scores = model(image)" in plan.patched
    else:
        assert [(m.cause, m.reason) for m in plan.manual] == [("cannot-watch", "cannot_watch")] and plan.diff == ""


@pytest.mark.parametrize("how", ["overflow", "half_overflow", "half_cast", "domain", "grew", "data"])
def test_a_nan_whose_repair_is_a_choice_is_said_by_hand_in_words_of_its_own(tmp_path, how):
    """Every way a NaN was made that has no guard (values.how_made, unexplained's explosion) has its own reason,
    shown without an error: an exploding gradient's (`grew`) once had no words, and --fix stopped on it."""
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nw = tf.Variable(1.0)\ny = tf.exp(w)\n")
    plan = plans.make(str(script), [{"file": str(script), "line": 3, "call": "gradient", "cause": "non-finite",
                                     "broke_at": {"file": str(script), "line": 3, "code": ""}, "facts": {"how": how}}])
    assert [(m.cause, m.reason) for m in plan.manual] == [("non-finite", how)] and plan.diff == ""
    assert "by hand" in show.lines(plan)[0]


@pytest.mark.parametrize("written, made", [
    ('keras.layers.Dense(8, activation="relu")', 'keras.layers.Dense(8, activation="leaky_relu")'),
    ("keras.layers.Dense(8, activation='relu')", "keras.layers.Dense(8, activation='leaky_relu')"),
    ("keras.layers.Dense(8, activation=tf.nn.relu)", "keras.layers.Dense(8, activation=tf.nn.leaky_relu)"),
    ("keras.layers.Dense(8, activation=keras.activations.relu)",
     "keras.layers.Dense(8, activation=keras.activations.leaky_relu)"),
    ("tf.nn.relu(tf.matmul(x, w))", "tf.nn.leaky_relu(tf.matmul(x, w))"),
    ("keras.layers.ReLU()", "keras.layers.LeakyReLU()"),
    ('keras.layers.Activation("relu")', 'keras.layers.Activation("leaky_relu")'),
])
def test_a_dead_relu_becomes_a_leaky_one_on_the_line_where_the_units_died(tmp_path, written, made):
    """Only the ReLU of the break line changes: another layer's ReLU, on the next line, is left as it was."""
    out = patched(tmp_path, f"""
        import keras
        import tensorflow as tf
        x, w = tf.ones((2, 3)), tf.Variable(tf.ones((3, 8)))
        layer = {written}
        other = keras.layers.Dense(8, activation="relu")
        """, "dead-relu", 4)
    assert out.splitlines()[3:5] == [f"layer = {made}", 'other = keras.layers.Dense(8, activation="relu")']


def by_hand(tmp_path, code: str, cause: str, line: int, **facts) -> list[tuple[str, str]]:
    """The (cause, reason) of each finding left by hand, for a script whose finding broke at `line`; no patch."""
    script = tmp_path / "train.py"
    script.write_text(code)
    plan = plans.make(str(script), [{"file": str(script), "line": line, "call": "gradient", "cause": cause,
                                     "broke_at": {"file": str(script), "line": line, "code": ""}, "facts": facts}])
    assert plan.diff == "" and plan.items == []
    return [(m.cause, m.reason) for m in plan.manual]


@pytest.mark.parametrize("written", ["relu(h)", "keras.layers.ReLU(max_value=6.0)", "keras.layers.Dense(8)"])
def test_a_relu_this_does_not_rewrite_keeps_the_by_hand_reason(tmp_path, written):
    code = f"from tensorflow.nn import relu\nimport keras\nh = 1.0\nlayer = {written}\n"
    assert by_hand(tmp_path, code, "dead-relu", 4) == [("dead-relu", "dead_relu")]


@pytest.mark.parametrize("written, made", [
    ("opt = keras.optimizers.SGD(learning_rate=1.0)", "opt = keras.optimizers.SGD(learning_rate=1.0, clipnorm=1.0)"),
    ("opt = tf.keras.optimizers.Adam()", "opt = tf.keras.optimizers.Adam(clipnorm=1.0)"),
    ("opt = SGD(0.5)", "opt = SGD(0.5, clipnorm=1.0)"),
    ('model.compile(loss="mse", optimizer="sgd")',
     'model.compile(loss="mse", optimizer=tf.keras.optimizers.SGD(clipnorm=1.0))'),
    ('model.compile("RMSprop", "mse")', 'model.compile(tf.keras.optimizers.RMSprop(clipnorm=1.0), "mse")'),
])
def test_exploding_gradients_get_the_scripts_one_optimizer_clipped(tmp_path, written, made):
    out = patched(tmp_path, f"""
        import keras
        import tensorflow as tf
        from keras.optimizers import SGD
        model = keras.Sequential([keras.layers.Dense(1)])
        {written}
        """, "non-finite", 5, how="grew")
    assert out.splitlines()[4] == made


@pytest.mark.parametrize("written", [
    "a = keras.optimizers.SGD(0.1)\nb = keras.optimizers.Adam()",  # two: which one trains the exploding weights?
    "a = keras.optimizers.SGD(0.1, clipnorm=5.0)",  # clipped already: how far is a choice
    "a = tf.compat.v1.train.GradientDescentOptimizer(0.1)",  # not Keras's: no clipnorm argument
])
def test_exploding_gradients_without_one_optimizer_to_clip_are_left_by_hand(tmp_path, written):
    code = f"import keras\nimport tensorflow as tf\n{written}\n"
    assert by_hand(tmp_path, code, "non-finite", 3, how="grew") == [("non-finite", "grew")]


@pytest.mark.parametrize("written, made", [
    ("w = tf.Variable(2)", "w = tf.Variable(2.0)"),
    ("w = tf.Variable([1, -2, 3], name='w')", "w = tf.Variable([1.0, -2.0, 3.0], name='w')"),
    ("w = tf.Variable(tf.zeros(3), dtype=tf.int32)", "w = tf.Variable(tf.zeros(3), dtype=tf.float32)"),
    ('w = layer.add_weight(shape=(3,), dtype="int64")', 'w = layer.add_weight(shape=(3,), dtype="float32")'),
])
def test_a_variable_made_integer_is_made_float(tmp_path, written, made):
    out = patched(tmp_path, f"""
        import keras
        import tensorflow as tf
        layer = keras.layers.Dense(1)
        {written}
        """, "integer-path", 4)
    assert out.splitlines()[3] == made


@pytest.mark.parametrize("written", ["w = tf.Variable(0)\nw.assign_add(1)",  # a counter: an integer is its type
                                     "w = tf.cast(tf.Variable(2.0), tf.int32)",  # a cast: a choice of model
                                     "w = tf.Variable(np.arange(3))"])  # a value it cannot read
def test_an_integer_path_not_made_by_a_variable_keeps_the_by_hand_reason(tmp_path, written):
    code = f"import numpy as np\nimport tensorflow as tf\n{written}\n"
    assert by_hand(tmp_path, code, "integer-path", 3) == [("integer-path", "integer_path")]


STRAIGHT_THROUGH = [  # (the line as written, {t} the drawn name, {tf} its alias) → the value it passes through
    ("h = {tf}.round({t})", "h = {t} + {tf}.stop_gradient({tf}.round({t}) - {t})"),
    ("h = {tf}.math.floor({t}) * 2.0", "h = ({t} + {tf}.stop_gradient({tf}.math.floor({t}) - {t})) * 2.0"),
    ("h = {tf}.round({t} * 4.0)", "h = ({t} * 4.0) + {tf}.stop_gradient({tf}.round({t} * 4.0) - ({t} * 4.0))"),
    ("h = keras.layers.Lambda(lambda {t}: {tf}.sign({t}))(x)",
     "h = keras.layers.Lambda(lambda {t}: {t} + {tf}.stop_gradient({tf}.sign({t}) - {t}))(x)"),
    ("h = {tf}.cast({t} > 0.5, {tf}.float32)", "h = {t} + {tf}.stop_gradient({tf}.cast({t} > 0.5, {tf}.float32) - {t})"),
    ("h = {tf}.cast({t} >= cut, 'float32')", "h = {t} + {tf}.stop_gradient({tf}.cast({t} >= cut, 'float32') - {t})"),
    ("h = keras.ops.round(self.{t})", "h = self.{t} + {tf}.stop_gradient(keras.ops.round(self.{t}) - self.{t})"),
    ("{t} = {tf}.one_hot({tf}.argmax({t}, axis=-1), 4)",
     "{t} = {t} + {tf}.stop_gradient({tf}.one_hot({tf}.argmax({t}, axis=-1), 4) - {t})"),
]


@pytest.mark.parametrize("cause", ["no-gradient-op", "integer-path"])
@pytest.mark.parametrize("written, made", STRAIGHT_THROUGH)
def test_a_rounding_threshold_or_one_hot_argmax_gets_a_straight_through_gradient(tmp_path, cause, written, made):
    """The values stay what they were (x + (round(x) - x) is round(x)); the gradient passes as the identity."""
    rng = random.Random(seed := random.randrange(2**32))
    t, tf = rng.choice(["y_pred", "t", "scores", "hidden"]), rng.choice(["tf", "tensorflow", "T"])
    out = patched(tmp_path, f"""
        import keras
        import tensorflow as {tf}
        x, cut = None, 0.5
        cut = 0.25
        {written.format(t=t, tf=tf)}
        """, cause, 5)
    assert out.splitlines()[4] == made.format(t=t, tf=tf), seed


@pytest.mark.parametrize("written", [
    "h = tf.round(layer(x))",  # a call: read twice it would run the layer twice
    "h = tf.cast(a > b, tf.float32)",  # a comparison of two computed values: which one passes is a choice
    "h = tf.cast(t > 0.5, tf.int32)",  # an integer: the path stays cut after it
    "h = tf.one_hot(tf.argmax(t), 4)",  # argmax's default axis is 0: not the one-hot's last axis
    "h = tf.gather(t, tf.argmax(t, axis=-1))",  # an argmax used as an index
    "h = tf.equal(tf.sign(t), tf.sign(x))",  # compared on the spot: the comparison cuts the path again
    "h = tf.cast(tf.round(t * 255.0), tf.uint8)",  # cast to an integer on the spot: the cast cuts it again
    "h = t + tf.stop_gradient(tf.round(t) - t)",  # a straight-through already (an earlier round's patch)
])
def test_a_step_the_straight_through_repair_does_not_recognise_keeps_the_by_hand_reason(tmp_path, written):
    code = f"import tensorflow as tf\nt = a = b = x = layer = None\n{written}\n"
    assert by_hand(tmp_path, code, "no-gradient-op", 3) == [("no-gradient-op", "no_repair")]
    assert by_hand(tmp_path, code, "integer-path", 3) == [("integer-path", "integer_path")]


@pytest.mark.parametrize("gradients, verified", [([["ok"]], True), ([["nonfinite"]], False), ([["none"]], False)])
def test_another_cause_found_once_the_repaired_one_is_gone_is_said_beside_the_verdict(tmp_path, gradients, verified):
    """A NaN repaired, the re-run finds a saturation at the same call: the patch is judged by the gradients there (a
    central difference that agrees), and the other cause is said; gradients still None or NaN are not verified."""
    script, plan = _plan_for(tmp_path, verified=False)
    line = plan.moved(plan.items[0].line)
    other = {"file": str(script), "line": line, "cause": "saturation", "broke_at": {"line": 2}}
    verify.judge(plan, {"script_exit": 0, "findings": [other], "gradients": {str(line): gradients},
                        "central": {str(line): 1e-6}}, str(script))
    item = plan.items[0]
    assert item.verified is verified
    if verified:
        assert "saturation at line 2" in show.verification(item) and show.as_dict(plan)["patches"][0]["another"]
    else:
        assert item.why == "still_found" and "saturation" in show.verification(item)


@pytest.mark.parametrize("written, made", [
    ("angle = tf.acos(cos)", "angle = tf.acos(tf.clip_by_value(cos, -1 + 1e-7, 1 - 1e-7))"),
    ("angle = tf.math.asin(cos * 1.0)", "angle = tf.math.asin(tf.clip_by_value(cos * 1.0, -1 + 1e-7, 1 - 1e-7))"),
    ("angle = keras.ops.arccos(cos)", "angle = keras.ops.arccos(tf.clip_by_value(cos, -1 + 1e-7, 1 - 1e-7))"),
])
def test_an_inverse_cosine_given_one_gets_its_operand_clipped_inside_its_edges(tmp_path, written, made):
    """acos at ±1 (two vectors that point the same way): the slope is infinite there, and the operand is kept 1e-7
    inside, as a log's is floored at 1e-7; NumPy's arccos (a value that left TensorFlow) is not touched."""
    out = patched(tmp_path, f"""
        import keras
        import tensorflow as tf
        cos = tf.constant([1.0, 0.5])
        {written}
        """, "non-finite", 4, how="edge")
    assert out.splitlines()[3] == made
    code = "import numpy as np\nimport tensorflow as tf\ncos = 1.0\nangle = np.arccos(cos)\n"
    assert by_hand(tmp_path, code, "non-finite", 4, how="edge") == [("non-finite", "non_finite")]


@pytest.mark.parametrize("made, called, expected", [
    ("mean_loss = keras.metrics.Mean()", "loss = mean_loss(per_example)", "mean_loss = keras.ops.mean"),
    ("cc = keras.metrics.SparseCategoricalCrossentropy(from_logits=True)", "loss = cc(y, logits)",
     "cc = keras.losses.SparseCategoricalCrossentropy(from_logits=True)"),
    ("cc = tf.keras.metrics.LogCoshError()", "loss = cc(y, logits)", "cc = tf.keras.losses.LogCosh()"),
])
def test_a_keras_metric_called_as_a_loss_is_made_that_loss(tmp_path, made, called, expected):
    """A metric keeps running totals in variables, which the tape does not follow: the loss of that name does not."""
    out = patched(tmp_path, f"""
        import keras
        import tensorflow as tf
        {made}
        with tf.GradientTape() as tape:
            {called}
        """, "state-breaks-path", 5, 5)
    assert out.splitlines()[2] == expected


def test_a_value_assigned_to_a_variable_and_read_back_is_kept_a_tensor(tmp_path):
    """The reads after the write use the value itself (the variable is still written); a later write ends them."""
    rng = random.Random(seed := random.randrange(2**32))
    variable = rng.choice(["buffer", "self.memory", "state"])
    out = patched(tmp_path, f"""
        import tensorflow as tf
        with tf.GradientTape() as tape:
            {variable}.assign(x * 3.0)
            y = {variable} * {variable}
            {variable}.assign_add(y)
            z = {variable} + 1.0
        """, "state-breaks-path", 3, 3)
    kept = variable.rpartition(".")[2] + "_value"
    assert out.splitlines()[2:] == [f"    {kept} = x * 3.0", f"    {variable}.assign({kept})",
                                    f"    y = {kept} * {kept}", f"    {variable}.assign_add(y)",
                                    f"    z = {variable} + 1.0"], seed


@pytest.mark.parametrize("written", [
    "total.assign_add(x)\ny = total * 2.0",  # a sum kept in a variable: a tensor accumulator is a rewrite
    "total.assign(x)",  # nothing reads it back
    "m = keras.metrics.CosineSimilarity()\ny = m(a, b)",  # the loss of that name is the metric's negative
])
def test_state_this_does_not_rewrite_keeps_the_by_hand_reason(tmp_path, written):
    code = f"import keras\nimport tensorflow as tf\ntotal = x = a = b = None\n{written}\n"
    line = code.count("\n") - (1 if "\ny" in written else 0)
    assert by_hand(tmp_path, code, "state-breaks-path", line) == [("state-breaks-path", "state")]


FROZEN = [  # (where the number is first set, where the program changes it, the read the step froze) → the two lines
    ("self.kl_weight = 0.0", "self.model.kl_weight = min(1.0, epoch * 0.5)", "loss = rec + self.kl_weight * kl",
     "self.kl_weight = tf.Variable(0.0, trainable=False)", "self.model.kl_weight.assign(min(1.0, epoch * 0.5))"),
    ("aux_weight = 0", "aux_weight += 0.25", "loss = a + aux_weight * b",
     "aux_weight = tf.Variable(0.0, trainable=False)", "aux_weight.assign_add(0.25)"),
    ("alpha = -1.5", "alpha *= 2", "loss = a + settings.alpha * b",
     "alpha = tf.Variable(-1.5, trainable=False)", "settings.alpha.assign(settings.alpha * (2))"),
]


@pytest.mark.parametrize("first, changed, read, made, assigned", FROZEN)
def test_a_frozen_python_number_becomes_a_variable_and_its_changes_assigns(tmp_path, first, changed, read, made,
                                                                           assigned):
    """The compiled step reads the variable anew at each call; every setting after the first assigns it."""
    owner = first.startswith("alpha")  # a class attribute, changed and read through an instance
    changer = changed.replace("alpha", "settings.alpha") if owner else changed
    code = "\n".join(["import tensorflow as tf", *(["class Settings:", f"    {first}"] if owner else [first]),
                      "def step(a, b, rec, kl, epoch):", "    global aux_weight", f"    {changer}", f"    {read}", ""])
    out = patched(tmp_path, code, "frozen-python-state", code.count("\n"),
                  name=first.split("=")[0].strip().rpartition(".")[2])
    lines = out.splitlines()
    assert lines[2 if owner else 1].strip() == made and lines[5 if owner else 4].strip() == assigned


@pytest.mark.parametrize("first", ["weight = np.zeros(3)", "weight, other = 0.0, 1.0", "x = weight = 0.0"])
def test_a_frozen_value_this_cannot_make_a_variable_keeps_the_by_hand_reason(tmp_path, first):
    code = f"import numpy as np\nimport tensorflow as tf\n{first}\nloss = weight * 2.0\n"
    assert by_hand(tmp_path, code, "frozen-python-state", 4, name="weight") == [("frozen-python-state",
                                                                                 "frozen_state")]


def test_a_local_of_the_same_name_is_not_the_frozen_global(tmp_path):
    out = patched(tmp_path, """
        import tensorflow as tf
        weight = 0.5
        def report():
            weight = 3
            return weight
        loss = weight * 2.0
        weight = 1.0
        """, "frozen-python-state", 6, 6, name="weight")
    assert out.splitlines()[1:] == ["weight = tf.Variable(0.5, trainable=False)", "def report():", "    weight = 3",
                                    "    return weight", "loss = weight * 2.0", "weight.assign(1.0)"]


def test_weights_unfrozen_between_two_fits_get_the_scripts_compile_again(tmp_path):
    """fit traced its step while the base was frozen: compiling again (the script's own last compile, copied) makes
    fit trace a new one, with a new optimizer for the weights the first never saw."""
    script = tmp_path / "train.py"
    script.write_text("import keras\nmodel.compile(optimizer='sgd', loss='mse')\nmodel.compile(\n"
                      "    optimizer=keras.optimizers.Adam(1e-3), loss='mse')\nmodel.fit(x, y)\nbase.trainable = True")
    plan = plans.make(str(script), [{"file": str(script), "line": 6, "call": "compiled", "cause": "frozen-python-state",
                                     "broke_at": {"file": str(script), "line": 6}, "facts": {"how": "trainable"}}])
    assert plan.patched.splitlines()[5:] == ["base.trainable = True", "model.compile(",
                                             "    optimizer=keras.optimizers.Adam(1e-3), loss='mse')"]
    assert [item.call for item in plan.items] == ["whole"]  # the flag's line asks for no gradient: the whole re-run


def test_weights_unfrozen_in_a_callback_get_the_compile_on_self_model_and_a_new_train_function(tmp_path):
    """Keras 3 applies an optimizer only to the weights it was built for: the script's compile arguments (a new
    optimizer) on self.model, then make_train_function(force=True), so fit goes on with the new step."""
    script = tmp_path / "train.py"
    script.write_text("import keras\nclass Thaw(keras.callbacks.Callback):\n    def on_epoch_begin(self, epoch, logs=None):\n"
                      "        if epoch == 1:\n            base.trainable = True\n"
                      "model.compile(optimizer=keras.optimizers.Adam(1e-3), loss='mse')\n")
    plan = plans.make(str(script), [{"file": str(script), "line": 5, "call": "compiled", "cause": "frozen-python-state",
                                     "broke_at": {"file": str(script), "line": 5}, "facts": {"how": "trainable"}}])
    assert plan.patched.splitlines()[4:7] == [
        "            base.trainable = True",
        "            self.model.compile(optimizer=keras.optimizers.Adam(1e-3), loss='mse')",
        "            self.model.make_train_function(force=True)"]


@pytest.mark.parametrize("code", [
    "@tf.function\ndef step():\n    base.trainable = True",  # a step of one's own: a new tf.function is a rewrite
    "model.fit(x, y)\nbase.trainable = True",  # no compile before it
])
def test_weights_unfrozen_in_a_step_of_ones_own_or_with_no_compile_keep_the_by_hand_reason(tmp_path, code):
    code = f"import keras\nimport tensorflow as tf\n{code}\nmodel.compile(optimizer='adam', loss='mse')\n"
    line = code.splitlines().index(next(l for l in code.splitlines() if "trainable" in l)) + 1
    assert by_hand(tmp_path, code, "frozen-python-state", line, how="trainable") == [("frozen-python-state",
                                                                                       "unfrozen")]


@pytest.mark.parametrize("seed", range(3))
def test_a_flag_a_compiled_function_read_when_traced_becomes_its_argument(tmp_path, seed):
    """`if train_encoder:` in a tf.function, the flag set to True later: a tf.Variable cannot choose which variables
    to train, a Python argument can (a new trace per value). The def takes it last, each call by name passes it."""
    draw = random.Random(seed)
    first = draw.choice([True, False])
    params, call = draw.choice([("x, y", "step(x[:8], y)"), ("", "step()"), ("x, scale=2.0", "step(x, scale=3.0)")])
    code = textwrap.dedent(f"""
        import tensorflow as tf
        flag = {first}
        @tf.function
        def step({params}):
            if flag:
                return 1.0
            return 0.0
        for i in range(3):
            flag = i > 0
            {call}
        """).lstrip()
    out = patched(tmp_path, code, "frozen-python-state", 5, 5, name="flag", traced=repr(first))
    sep = ", " if params else ""
    assert f"def step({params}{sep}flag={first}):" in out.splitlines()
    assert f"    {call[:-1]}{', ' if call[-2] != '(' else ''}flag=flag)" in out.splitlines()


def test_a_flag_the_function_sets_itself_is_no_argument(tmp_path):
    code = "import tensorflow as tf\nflag = False\n@tf.function\ndef step():\n    global flag\n    flag = not flag\n" \
           "    return 1.0 if flag else 0.0\nstep()\n"
    assert by_hand(tmp_path, code, "frozen-python-state", 7, name="flag", traced="False") == [
        ("frozen-python-state", "frozen_state")]


def test_a_layer_weight_handed_to_a_custom_gradient_function_is_handed_as_a_tensor(tmp_path):
    """Given `self.kernel`, the function reads a variable and TensorFlow asks its gradient function for variables=;
    given the weight's value, its gradient for that argument is the weight's. Other arguments stay as they were."""
    name = random.choice(["kernel", "w", "weights"])
    out = patched(tmp_path, f"""
        import tensorflow as tf
        scale = tf.Variable(2.0)
        class Layer:
            def call(self, x):
                return clipped(x, self.{name}, scale, 3)
        """, "custom-gradient-signature", 5, 5)
    assert out.splitlines()[4] == (f"        return clipped(x, tf.convert_to_tensor(self.{name}), "
                                   "tf.convert_to_tensor(scale), 3)")


def test_tensors_given_to_a_custom_gradient_function_by_keyword_are_given_by_position_in_the_defs_order(tmp_path):
    """`loss(y_pred, weight=w, y_true=y)` of `def loss(y_pred, y_true, weight)`: the keywords the finding names follow
    the positional argument in the def, so they go by position in its order; a keyword it does not name stays."""
    names = random.sample(["y_true", "weight", "scale"], 2)
    call = ", ".join(f"{n}={n[0]}" for n in reversed(names))
    out = patched(tmp_path, f"""
        import tensorflow as tf
        @tf.custom_gradient
        def loss(y_pred, {", ".join(names)}, reduce=True):
            return y_pred, lambda dy: (dy, None, None)
        value = loss(p, {call}, reduce=False)
        """, "custom-gradient-signature", 5, 5, keywords=",".join(names))
    assert out.splitlines()[4] == f"value = loss(p, {names[0][0]}, {names[1][0]}, reduce=False)"


def test_a_keyword_that_is_not_the_next_parameter_of_the_def_is_no_repair(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\n@tf.custom_gradient\ndef loss(a, b, c):\n    return a, None\n"
                      "value = loss(p, c=q)\n")
    finding = {"file": str(script), "line": 5, "call": "raised", "sources": [], "cause": "custom-gradient-signature",
               "broke_at": {"file": str(script), "line": 5, "code": ""}, "facts": {"keywords": "c"}}
    plan = plans.make(str(script), [finding])
    assert plan.items == [] and [m.cause for m in plan.manual] == ["custom-gradient-signature"]


def test_tf_gradients_of_a_loss_made_from_a_model_call_records_both_and_watches_no_variable_list(tmp_path):
    """`pred = model(x)` then `loss = f(pred)`: both go in the tape (the path starts at the model's weights); a
    Keras 3 variable cannot be watched by hand, and a list of them is given to tape.gradient as the list it is."""
    out = patched(tmp_path, """
        import tensorflow as tf
        def train_step(x, y):
            pred = model(x)
            loss = tf.reduce_mean(
                tf.square(pred - y))
            grads = tf.gradients(loss, model.trainable_variables)
            return grads
        """, "tf-gradients-eager", 6)
    assert out.splitlines()[2:] == ["    with tf.GradientTape() as tape:", "        pred = model(x)",
                                    "        loss = tf.reduce_mean(", "            tf.square(pred - y))",
                                    "    grads = tape.gradient(loss, model.trainable_variables)", "    return grads"]
