"""Does every Chinese message read like Chinese: its own punctuation, no English sentence left, no glued grammar?

Every message id is rendered in zh_CN with sample parameters, and so are the sentences made of parts
(a finding's subject + symptom, a hint's title + text, a list of names). Each must have
- no ASCII `:` `,` or sentence-ending `.` next to Chinese text (the full-width ：，。 belong there);
- no "是 " in front of a phrase: each symptom carries its own verb ("为 None", "几乎为零");
- no run of three or more English words outside code (`backticks`, a `gradtutor …` command line), a
  quotation of a program's own output ("…") or a name (TensorFlow, GradientTape, …).
"""
from __future__ import annotations

import re

import pytest

from gradtutor import messages
from gradtutor.evidence.reading import wording

pytestmark = pytest.mark.unit

LANG = "zh_CN"
HAN = r"\u4e00-\u9fff"
CHINESE = rf"[{HAN}\u3000-\u303f\uff01-\uff5e]"  # ideographs and full-width punctuation
ASCII_NEXT_TO_CHINESE = re.compile(rf"{CHINESE}[:,]|[:,]{CHINESE}|{CHINESE}\.(?![\w(*/])|(?<![\w)*/.])\.{CHINESE}")
GLUED_IS = re.compile(rf"是 (?=[{HAN}])")
WORD = r"[A-Za-z][a-z]*(?:'[a-z]+)?"
ENGLISH_RUN = re.compile(rf"(?<![\w.\-/=(`'\"]){WORD}(?: {WORD}){{2,}}(?![\w(./=`'\"-])")
NAMES = {"TensorFlow", "GradientTape", "Keras", "JupyterLab", "Jupyter", "Lab", "NumPy", "Python", "Dask", "nbgrader",
         "Chromium", "Colab", "Stack", "Overflow", "SQLite", "NaN", "None", "RNN", "ReLU", "Linux", "Landlock", "HTML"}
NUMBERS = {"number", "count", "passed", "total", "level", "next", "line", "element", "length", "points", "score",
           "seconds", "limit", "default", "done", "index", "students", "found", "expected", "got"}


def sample(name: str) -> str:
    """A parameter's sample value: a number where the name counts, else a code-like token."""
    return "3" if name in NUMBERS else f"{name}_1"


def rendered(message_id: str) -> str:
    text = messages.catalogue(LANG)[message_id]
    return messages.say(message_id, LANG, **{name: sample(name) for name in messages.parameters(text)})


def problems(text: str) -> list[str]:
    """What reads wrong in a Chinese text (code, quotations and names taken out first)."""
    prose = re.sub(r"`[^`]*`|\"[^\"]*\"|“[^”]*”|\bgradtutor(?: [\w./-]+)+", " ", text.replace("...", "…"))
    found = [f"ASCII punctuation: {m.group(0)!r}" for m in ASCII_NEXT_TO_CHINESE.finditer(prose)]
    found += [f"是 before a phrase: {prose[max(0, m.start() - 8):m.end() + 8]!r}" for m in GLUED_IS.finditer(prose)]
    for match in ENGLISH_RUN.finditer(prose):
        words = [word for word in match.group(0).split() if word not in NAMES]
        if len(words) >= 3:
            found.append(f"English: {match.group(0)!r}")
    return found


def test_does_the_check_see_what_it_is_meant_to_see():
    assert problems("kernel 的梯度是 几乎为零") and problems("梯度为 None: 请监视它.") and problems("提示,再试")
    assert problems("这是 the gradient of the loss 的意思")
    assert not problems("请用 `tf.GradientTape` 或 .numpy()，见 lesson1.ipynb。TensorFlow GradientTape Keras 的梯度为 None")
    assert not problems('抛出了 "No gradients provided for any variable"（x）')


@pytest.mark.parametrize("area", sorted({key.split(".")[0] for key in messages.catalogue(LANG)}))
def test_does_every_chinese_message_read_like_chinese(area):
    bad = {key: problems(rendered(key)) for key in messages.catalogue(LANG) if key.split(".")[0] == area}
    assert not {key: found for key, found in bad.items() if found}


def test_are_sentences_made_of_parts_chinese_too():
    made = [messages.say("hints.shown.heading", LANG, title=messages.say("hints.title", LANG, level=1, count=3,
                                                                           function="f")),
             messages.say("hints.shown.then", LANG, title="先试着写 f()", body="写下你的尝试。")]
    with_language = messages.use(LANG, export=False)
    try:
        assert with_language == LANG
        made += [wording.message(cause, symptom, ["kernel", "bias"], call) for cause in ("unwatched", "leaves-tensorflow")
                 for symptom in wording.SYMPTOMS for call in ("gradient",)]
        made += [wording.message("unwatched", symptom, ["kernel"], "apply_gradients") for symptom in ("none", "error")]
        assert "2 个变量（kernel、bias）的梯度为 None" in wording.message("unwatched", "none", ["kernel", "bias"])
        assert messages.join(["a", "b"]) == "a、b" and messages.join(["a", "b"], "en") == "a, b"
    finally:
        messages.use(None, export=False)
    assert not {text: problems(text) for text in made if problems(text)}


def test_is_an_index_said_the_way_python_counts():
    assert messages.say("check.table.element", LANG, element=1) == "下标为 1 的元素"
    assert "下标为 0 的元素" in messages.say("diagnosis.subject_element", LANG, function="f", element=0)


def test_are_the_chinese_docs_flowcharts_chinese():
    """Is every box and arrow label of a flowchart on a Chinese docs page in Chinese (or code alone)?"""
    from tests.support import REPO

    labels = []
    for page in sorted((REPO / "docs").rglob("*.zh.md")):
        for chart in re.findall(r"```mermaid\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL):
            labels += [(page.name, label) for label in re.findall(r'\["([^"]*)"\]|\(\["([^"]*)"\]\)|\|"?([^|"]*)"?\|', chart)]
    labels = [(name, next(part for part in found if part)) for name, found in labels if any(found)]
    assert len(labels) >= 20, labels
    english = [(name, label) for name, label in labels
               if not re.search(f"[{HAN}]", label) and len(re.findall(r"(?<![\w.(])[a-z]{2,}(?= |$|<)", label)) >= 2]
    assert not english, english
    assert not [(name, label) for name, label in labels if problems(label.replace("<br/>", ""))]


def test_do_the_labels_made_in_code_speak_chinese(tmp_path, monkeypatch):
    """The sandbox's PermissionError, an input an exercise changed: ids, not inline English."""
    import os

    import numpy as np

    from gradtutor.isolation import input_copies, policy

    monkeypatch.setattr(input_copies, "_numbers", lambda arg: [np.array(arg)])  # a tensor's numbers, without Keras

    (tmp_path / "scratch").mkdir()
    messages.use(LANG, export=False)
    try:
        hook = policy.audit_hook(policy.Scratch(str(tmp_path / "scratch")))
        with pytest.raises(PermissionError) as refused:
            hook("open", (str(tmp_path / "elsewhere.txt"), "w", os.O_WRONLY))
        with pytest.raises(PermissionError) as spawned:
            hook("subprocess.Popen", ("ls", ["ls"], None, None))
        changed = input_copies.changed([[1.0, 2.0]], [[np.array([1.0, 3.0])]])
    finally:
        messages.use(None, export=False)
    assert str(refused.value).startswith("练习代码不能在它的临时文件夹之外写文件：") and "不能启动其他进程" in str(spawned.value)
    assert changed == ["下标为 0 的输入（一个张量）"]
    for text in (str(refused.value), str(spawned.value), *changed):
        assert not problems(text), text
