"""`gradtutor explain --fix` on the explain corpus (tests/explain/corpus/): patches verified by re-running, none on correct programs.

Two child processes (TensorFlow imported once in each) explain each script, patch it, re-run the
patched copy from a scratch folder under the same instrumentation, and check the repaired
gradients (tests/support/fix_runner.py, started by tests/explain/conftest.py: the corpus test
reads the same run's findings). A correct program, which has no finding, is not run again.

The mistakes counted are those whose cause the issue gives a mechanical repair, except the
scripts listed in BY_HAND: their cause is one of those, but this instance needs a decision the
tool cannot make (each says which).
"""
from __future__ import annotations


import pytest

from gradtutor.dev import corpus as explain_corpus  # the corpus schema's reader

from gradtutor.explain.fix.central import TOLERANCE
from gradtutor.explain.fix.verify import ASKS_NO_GRADIENT
from tests.support.corpus_runs import CORPUS

pytestmark = [pytest.mark.tf, pytest.mark.xdist_group("explain_corpus")]  # one corpus run: conftest.py

REQUIRED = 0.80
REPAIRABLE = {"unwatched", "outside-tape", "tape-reused", "tf-gradients-eager", "variable-replaced",
              "leaves-tensorflow", "softmax-sum", "non-finite", "stop-gradient", "not-used", "cannot-watch",
              "dead-relu", "underflow", "state-breaks-path", "frozen-python-state"}
BY_HAND = {
    "notused_rnn_cell_weight_fit.py": "not-used: a weight the layer's call never reads; where it belongs is a choice",
    "keras_dqn_target_network.py": "not-used: the loss reads the target network; which network to train is a choice",
    "keras_model_not_built.py": "not-used: a model with no variables yet; build it before the loop",
    "notused_fit_wrong_variables.py": "not-used: the other head's variables; which head is a choice",
    "notused_forgotten_weight.py": "not-used: a weight the layer forgot to use in call()",
    "notused_gan_wrong_input.py": "not-used: the discriminator fed the wrong tensor",
    "notused_loss_of_labels.py": "not-used: a loss of the labels alone; what the loss should be is a choice",
    "cannotwatch_integer_tensor.py": "cannot-watch: an integer tensor has no gradient; which float to use is a choice",
    "cannotwatch_keras_tensor.py": "cannot-watch: a symbolic Keras tensor is not a value; run the model on data",
    "nonfinite_sqrt_zero.py": "non-finite: sqrt(c * x) with c at 0, its slope truly infinite; keeping c from 0 is a choice",
    "compiled_fit_multi_input_loss_layer_sqrt.py": "non-finite: the sqrt of a model's output, which the repair cannot "
                                                   "show is at its minimum at 0 (sqrt(c * x) at c = 0 has a truly "
                                                   "infinite slope)",
    "seam_distribute_run_eager_unused.py": "not-used: a variable the loss forgot; what the loss should be is a choice",
    "compiled_fn_py_function_loss.py": "leaves-tensorflow: TensorFlow's own gradient call inside the py_function's "
                                       "gradient is where the None is seen, not a call of the script's to re-run",
    "notused_sequential_not_built_grads.py": "not-used: a model with no variables yet; build it before the loop",
    "notused_constant_target.py": "not-used: the target is a constant; what it should be computed from is a choice",
    "notused_unconnected_head.py": "not-used: the other head's variables; which head a step trains is a choice",
    "outside_build_concat_weights.py": "outside-tape: a tensor made once in build(); making it in call() rewrites the layer",
    "outside_build_noisy_dense.py": "outside-tape: noise drawn once in build(); drawing it in call() rewrites the layer",
    "nonfinite_fit_density_map_zero_sum.py": "non-finite: NaN targets made by a 0 / 0 in NumPy; which rows to drop "
                                             "or what to divide by is a choice",
    "outside_tensor_called_in_tape.py": "outside-tape: a tensor called as a function; which function to make of its "
                                        "computation is a choice",
    "outside_v1_optimizer_loss_tensor.py": "outside-tape: a TF1 optimizer given a loss tensor; the loss's whole "
                                           "computation must become a function, a rewrite",
    "nonfinite_angle_zero_prediction.py": "non-finite: the angle of a real prediction is 0 or pi, a loss with no slope anywhere; which loss to use is a choice",
    "nonfinite_fit_single_step_no_positives.py": "non-finite: a loss divided by the batch's count of positives; what a "
                                                 "batch without any should give is a choice",
    "nonfinite_exp_softmax_overflow.py": "non-finite: an exp that overflowed; a stable softmax is a rewrite of the loss, not an edit of a value",
    "nonfinite_atan2_origin.py": "non-finite: atan2 at (0, 0) has no slope; what the angle's gradient at the origin should be is a choice",
    "nonfinite_sqrt_negative_variance.py": "non-finite: a variance rounded below 0; computing it as E[(h - mean)²] is a rewrite",
    "nonfinite_focal_loss_where_saturated.py": "non-finite: a log of a probability at 0 is -inf; how far from 0 to clip it is a choice",
    "compiled_fn_focal_loss_built_in_step.py": "non-finite: a log of a probability at 0 is -inf; how far from 0 to clip it is a choice",
    "nonfinite_vae_tanh_log.py": "non-finite: a tanh output read as a probability; the repair (a sigmoid) changes the model",
    "notused_layer_output_overwritten.py": "not-used: a later line computes from the input again; which value it should read is a choice",
    "notused_eager_value_overwritten.py": "not-used: a later line computes from the input again; which value it should read is a choice",
    "softmax_loop_sums_every_class.py": "softmax-sum: every class's score is added up; which class to explain is a choice",
    "cause_float16_underflow.py": "underflow: a float16 variable updated by hand, with no optimizer to scale the loss; "
                                  "a float32 variable or a scale of one's own is a choice",
    "mixed_float16_unscaled_loss.py": "underflow: a loss weighted by 1e-6 in float16 stays partly below float16's range "
                                      "at the default loss scale; how far to scale it is a choice",
    "compiled_fit_mixed_float16_train_step.py": "underflow: a train_step override applying with self.optimizer, "
                                                "which compile made; wrapping it means changing compile's argument too",
    "underflow_float16_mean_count_overflow.py": "underflow: a float16 mean over more than 65504 values divides by an "
                                                "infinite count, which no loss scale undoes; computing the loss in "
                                                "float32 is a rewrite of it",
    # the compiled twins of the scripts above (tests/explain/corpus/compiled_*.py): the same decision, compiled
    "compiled_fit_build_concat.py": "outside-tape: a tensor made once in build(); making it in call() rewrites the layer",
    "compiled_fit_untracked_variable.py": "not-used: a raw tf.Variable the layer does not track; make it a weight",
    "compiled_fn_float16_mean_count_overflow.py": "underflow: a float16 mean over more than 65504 values divides by "
                                                  "an infinite count, which no loss scale undoes; computing the loss "
                                                  "in float32 is a rewrite of it",
    "compiled_fn_float16_underflow.py": "underflow: a float16 variable updated by hand, with no optimizer to scale "
                                        "the loss; a float32 variable or a scale of one's own is a choice",
    "compiled_fn_sqrt_zero.py": "non-finite: sqrt(c * x) with c at 0, its slope truly infinite; keeping c from 0 is a choice",
    "compiled_fn_exp_softmax_overflow.py": "non-finite: an exp that overflowed; a stable softmax is a rewrite of the loss, not an edit of a value",
    "compiled_fit_numpy_layer.py": "leaves-tensorflow: rewritten in TensorFlow, the clip then clips every output of "
                                   "some unseeded batches, a zero that is the clip's own; which bound to use is a choice",
    "compiled_fn_unconnected_head.py": "not-used: the other head's variables; which head a step trains is a choice",
    "compiled_fit_angle_zero_prediction.py": "non-finite: the angle of a real prediction is 0 or pi, a loss with no slope anywhere; which loss to use is a choice",
    # state the tape does not follow, where keeping the value a tensor changes the program's shape
    "cause_set_weights_inner_step.py": "state-breaks-path: weights copied with set_weights; a forward pass on the "
                                       "updated weights as tensors is a rewrite of the model's call",
    "leaves_model_copy_weights.py": "state-breaks-path: weights copied with set_weights; a forward pass on the "
                                    "updated weights as tensors is a rewrite of the model's call",
    "state_hypergradient_optimizer_step.py": "state-breaks-path: an optimizer's update in the path; the update as "
                                             "tensors (w - lr * g) is a rewrite of the step",
    "state_accumulated_loss_variable.py": "state-breaks-path: a sum kept in a variable with assign_add; a tensor "
                                          "accumulator is a rewrite of the loop",
    "compiled_fn_accumulated_loss_variable.py": "state-breaks-path: a sum kept in a variable with assign_add; a "
                                                "tensor accumulator is a rewrite of the loop",
    "state_tf_data_map.py": "state-breaks-path: the value goes through a tf.data pipeline; the same batches as "
                            "tensor ops inside the tape are a rewrite",
    "state_tf_data_reduce.py": "state-breaks-path: a tf.data reduce; the same sum as tensor ops is a rewrite",
    "compiled_fn_tf_data_reduce.py": "state-breaks-path: a tf.data reduce; the same sum as tensor ops is a rewrite",
    "state_tf_data_reduce_model.py": "state-breaks-path: the errors go through a tf.data pipeline; the same batches "
                                     "as tensor ops inside the tape are a rewrite",
    "state_tf_function_dataset_loop.py": "state-breaks-path: a dataset iterated inside the step; which tensors to "
                                         "pass in instead is a choice",
    "state_tf_function_dataset_step.py": "state-breaks-path: a dataset iterated inside the step; which tensors to "
                                         "pass in instead is a choice",
    "state_keras3_stateful_calls.py": "state-breaks-path: an RNN's stored state between calls; passing it as "
                                      "initial_state is a choice of model",
    "state_scatter_nd_add_graph_gradients.py": "state-breaks-path: a compat.v1 scatter into a variable; the tensor "
                                               "scatter in its place rewrites what the graph keeps",
    "state_scatter_sub_graph_gradients.py": "state-breaks-path: a compat.v1 scatter into a variable; the tensor "
                                            "scatter in its place rewrites what the graph keeps",
    # Python state frozen into a trace that is not a number set by a plain assignment
    "frozen_model_rebuilt_global.py": "frozen-python-state: a model rebuilt under the same name; which model the "
                                      "traced step reads is a choice",
    "frozen_numpy_dropout_mask.py": "frozen-python-state: a NumPy draw made once at tracing; drawing with tf.random "
                                    "is a rewrite of the draw",
    "frozen_numpy_generator_noise.py": "frozen-python-state: a NumPy draw made once at tracing; drawing with "
                                       "tf.random is a rewrite of the draw",
    "frozen_fit_train_step_python_counter.py": "frozen-python-state: a Python counter tested by a Python conditional "
                                               "in a train_step Keras does not convert; as a variable, the "
                                               "conditional must become a tf.where, a rewrite of the step",
    "frozen_unfreeze_custom_step.py": "frozen-python-state: the variables list the traced step read; a new step for "
                                      "the second phase is a choice",
    "frozen_variable_argument_alias.py": "frozen-python-state: a tf.Variable argument read by its global name; which "
                                         "variable the step reads is a choice",
    "frozen_variable_argument_alias_method.py": "frozen-python-state: a tf.Variable argument read by its attribute's "
                                                "name; which variable the step reads is a choice",
}


@pytest.fixture(scope="module")
def corpus() -> dict[str, dict]:
    """Each script explain can fix here (Keras 3's; the Keras 2 ones need tf_keras) and its expected cause."""
    return {case.file.name: {"cause": case.cause or None} for case in explain_corpus.read_scripts(CORPUS)
            if case.context.get("keras") != "2"}


@pytest.fixture(scope="module")
def results(corpus, corpus_runs) -> dict[str, dict]:
    """Each Keras 3 script's row: explained, patched, its patch verified (run once for both corpus modules: conftest.py)."""
    return {name: corpus_runs[name] for name in corpus}


def test_the_by_hand_list_names_real_scripts_of_repairable_causes(corpus):
    assert {name: corpus[name]["cause"] for name in BY_HAND} == {
        name: why.split(":")[0] for name, why in BY_HAND.items()}
    assert set(BY_HAND) <= {name for name, e in corpus.items() if e["cause"] in REPAIRABLE}


def test_most_repairable_mistakes_get_a_verified_patch_and_correct_programs_none(corpus, results):
    counted = [name for name, e in corpus.items() if e["cause"] in REPAIRABLE and name not in BY_HAND]
    verified = [name for name in counted if results[name]["patched"]
                and all(item["verified"] for item in results[name]["patched"])]
    suggested = [name for name, row in results.items() if row["patched"]
                 and not all(item["verified"] for item in row["patched"])]
    correct = [name for name, e in corpus.items() if e["cause"] is None]
    on_correct = [name for name in correct if results[name]["patched"] or results[name]["diff"]]
    print(f"\nfix: {len(verified)}/{len(counted)} verified, {len(suggested)} suggested, "
          f"{len(on_correct)} on correct programs")
    for name in sorted(set(counted) - set(verified)):
        print("  not verified:", name, [(i["cause"], i["why"], i["fd_error"]) for i in results[name]["patched"]],
              results[name]["manual"])
    assert len(counted) >= 30 and len(correct) >= 25
    assert on_correct == []
    assert len(verified) / len(counted) >= REQUIRED


def test_verified_patches_match_central_differences(results):
    """A gradient verified inside a compiled function is a symbol: there is no recorded eager op to replay, so
    the cross-check is asked of the patches verified on eager values (and measured wherever it was made)."""
    verified = [item for row in results.values() for item in row["patched"] if item["verified"]]
    eager = [item for item in verified if not item["compiled_steps"]]
    measured = [item["fd_error"] for item in verified if item["fd_error"] is not None]
    print(f"\nfix: {len(measured)}/{len(verified)} verified patches cross-checked by central differences "
          f"({len(eager)} verified on eager values, {len(verified) - len(eager)} in compiled steps), "
          f"largest error {max(measured):.1e}")
    assert all(error <= TOLERANCE for error in measured)
    assert len(measured) >= 0.8 * len(eager)


def test_a_compiled_mistake_is_verified_only_by_the_checks_of_its_compiled_steps(results):
    """A patch of a line that asks for no gradient (a call that raised while traced) is judged by the whole re-run's
    all-clear instead (fix/verify.py): every gradient it asked for observed, in its compiled steps too, and fine."""
    compiled = {name: row for name, row in results.items() if name.startswith("compiled_")}
    verified = [(name, item) for name, row in compiled.items() for item in row["patched"] if item["verified"]]
    assert verified, "no compiled mistake got a verified patch"
    assert [name for name, item in verified if item["compiled_steps"] < 1 and item["call"] not in ASKS_NO_GRADIENT] == []
    whole = [name for name, item in verified if item["call"] in ASKS_NO_GRADIENT]
    assert all(any(f["symptom"] == "error" for f in results[name]["findings"]) for name in whole), whole


def test_causes_without_a_mechanical_repair_get_no_patch_and_a_reason(corpus, results):
    """A saturation is patched only where its layer read data far beyond unit scale (a Rescaling put before it: the
    line the patch adds); an integer path only where a variable was made integer (its making is the line the patch
    changes); every other one (a cast, an argmax, an index, a saturation of weights or of a loss) keeps the by-hand
    reason."""
    rescaled = [name for name, e in corpus.items() if e["cause"] == "saturation" and results[name]["patched"]]
    assert rescaled and all(item["verified"] for name in rescaled for item in results[name]["patched"]), rescaled
    for name in rescaled:
        changed = [line for line in results[name]["diff"].splitlines() if line[:1] in "+-" and line[:3] not in "+++---"]
        assert any("Rescaling(1 / " in line for line in changed if line.startswith("+")), name
        assert all(".layers[" in line for line in changed if line.startswith("-")), name  # index reads shifted
    for name, e in corpus.items():
        if e["cause"] == "saturation" and name not in rescaled or e["cause"] == "integer-path" and not results[name]["patched"]:
            assert results[name]["patched"] == [] and results[name]["diff"] == "", name
            assert {m["reason"] for m in results[name]["manual"]} == {e["cause"].replace("-", "_")}, name
        elif e["cause"] == "integer-path":
            removed = [line for line in results[name]["diff"].splitlines()
                       if line.startswith("-") and not line.startswith("---")]
            assert removed and all("Variable(" in line or "add_weight(" in line for line in removed), name


def test_a_nan_from_an_overflow_or_outside_a_domain_gets_no_guard_and_its_own_reason(results):
    """The double where repairs a NaN at 0; for an exp that overflowed or a sqrt of a negative number (the scripts'
    `# how:` header, values.how_made) the reason given says what the fix really is."""
    told = {case.file.name: case.context["how"] for case in explain_corpus.read_scripts(CORPUS)
            if case.context.get("how") in ("overflow", "domain")}
    assert {"overflow", "domain"} <= set(told.values())
    for name, how in told.items():
        assert results[name]["patched"] == [] and results[name]["diff"] == "", name
        assert {m["reason"] for m in results[name]["manual"]} == {how}, name


def test_no_script_of_the_corpus_was_modified(results):
    assert [name for name, row in results.items() if not row["unchanged"]] == []


# a straight-through gradient verified wrong only where the re-run shows the path cut again after it
STRAIGHT_THROUGH_NOT_ENOUGH = {
    "nograd_train_on_batch_threshold_cast.py": "the thresholded output is fed to a cross-entropy that clips its 0s and "
                                               "1s: the gradient passed straight through is zero there",
}


def test_an_op_without_gradient_is_patched_only_as_a_top_score_or_a_straight_through(corpus, results):
    """Grad-CAM's `tf.argmax(predictions)` as a tape's target becomes the top score; a rounding, a threshold or a
    one-hot argmax gets a straight-through gradient; each is verified unless listed above. Every other op with no
    gradient (a sort, a unique, an argmax used as a label) keeps the by-hand reason: what to differentiate is a choice."""
    cases = {name: results[name] for name, e in corpus.items() if e["cause"] == "no-gradient-op"}
    patched = {name for name, row in cases.items() if row["patched"]}
    unverified = {name for name in patched if not all(item["verified"] for item in cases[name]["patched"])}
    assert patched and unverified == set(STRAIGHT_THROUGH_NOT_ENOUGH), unverified
    for name in patched:
        removed = [line for line in cases[name]["diff"].splitlines() if line.startswith("-") and "argmax(" in line]
        top_score = removed and "reduce_max(" in cases[name]["diff"]
        assert top_score or "stop_gradient(" in cases[name]["diff"], name
    assert all(row["manual"] for name, row in cases.items() if name not in patched)
    assert len(cases) - len(patched) >= 15
