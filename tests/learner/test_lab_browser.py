"""The learner's path in a real browser: `gradtutor lab`, lesson 1, ✗ with its diagnosis, two hints, ✓, progress;
then Run All with a wrong answer, which runs to the last cell.

`gradtutor lab` runs on a fresh workspace at 127.0.0.1 (its kernel spec, a temporary
state folder, the learner's warm checker on); Debian's headless Chromium, driven by playwright,
opens lesson 1 and types into it as a learner would. Any request that would leave 127.0.0.1 is
recorded and refused. Screenshots of the ✗, ✓ and Run All states go to test-output/.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.support import REPO
from tests.support.browser import fenced_page
from tests.support.cli import run_cli

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("lab")]

SCREENSHOTS = REPO / "test-output"
WRONG = '''def grad_of_cube(x):
    """Return dy/dx for y = tf.reduce_sum(x ** 3), where x is a tf.constant."""
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x ** 3)
    return tape.gradient(y, x)'''
RIGHT = '''def grad_of_cube(x):
    """Return dy/dx for y = tf.reduce_sum(x ** 3), where x is a tf.constant."""
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x ** 3)
    return tape.gradient(y, x)'''
HINT = 'from gradtutor import hint\nhint("lesson1", "watch_constant")'
SLOW = 300_000  # ms: the first check starts the judge, which imports TensorFlow on a busy machine


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """`gradtutor lab` on a fresh workspace; yields (url, workspace, env); Ctrl-C (SIGINT) stops it."""
    root = tmp_path_factory.mktemp("lab")
    env = dict(os.environ, GRADTUTOR_HOME=str(root / "home"), JUPYTERLAB_SETTINGS_DIR=str(root / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(root / "lab-workspaces"), JUPYTER_RUNTIME_DIR=str(root / "runtime"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    env.pop("GRADTUTOR_NO_LAB", None)
    env.pop("GRADTUTOR_NO_DAEMON", None)  # as a learner's: every kernel asks the learner's one warm checker
    news = root / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True)
    news.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    # Every cell attached to the page: Lab's default windowing attaches far-off cells lazily, so counting the
    # check cells in the page would depend on scrolling and load, not on what Run All did.
    tracker = root / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text(json.dumps({"windowingMode": "none"}))
    workspace = root / "ws"
    log = open(root / "lab.log", "w+")
    process = subprocess.Popen([sys.executable, "-m", "gradtutor", "lab", str(workspace)], env=env, cwd=root,
                               stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True)
    url = None
    deadline = time.monotonic() + 180
    while url is None and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if line.strip().startswith("http://127.0.0.1:"):
            url = line.strip()
    try:
        log.seek(0)
        assert url, f"gradtutor lab printed no URL; its log:\n{log.read()[-3000:]}"
        yield url, workspace, env
    finally:
        process.send_signal(signal.SIGINT)  # what Ctrl-C does in the learner's terminal
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


def _in_browser(playwright, url: str, steps) -> None:
    """steps(page, url) in a fresh Chromium page fenced to 127.0.0.1; a full-page screenshot if they fail."""
    offsite: list[str] = []
    SCREENSHOTS.mkdir(exist_ok=True)
    browser, page = fenced_page(playwright, url.split("/lab/")[0], offsite.append, {"width": 1400, "height": 1000})
    try:
        steps(page, url)
    except Exception:
        page.screenshot(path=str(SCREENSHOTS / "lab-debug.png"), full_page=True)
        raise
    finally:
        browser.close()
    assert offsite == [], f"requests left 127.0.0.1: {offsite}"


def test_does_a_learner_go_from_fail_to_pass_in_lab(lab, playwright):
    url, workspace, env = lab
    _in_browser(playwright, url, _learn)
    # the learner's checker records a notebook's pass just after the ✓ shows
    deadline = time.monotonic() + 120
    while True:
        listed = run_cli("list", cwd=workspace, env={"GRADTUTOR_HOME": env["GRADTUTOR_HOME"]})
        if "1/4 passed" in listed.stdout or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert listed.returncode == 0, listed.stderr
    assert "1/4 passed" in listed.stdout, listed.stdout
    assert "next: lesson1 numpy_input" in listed.stdout, listed.stdout


def test_does_run_all_with_a_wrong_answer_reach_the_last_cell(lab, playwright):
    """Run All on lesson 1 with a wrong first answer (and the starters of the others): every cell runs, each check
    shows its verdict, and no check cell shows a traceback."""
    _in_browser(playwright, lab[0], _run_all_cells)


def _run_all_cells(page, url: str) -> None:
    from playwright.sync_api import expect

    page.goto(url)
    expect(page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_have_count(1, timeout=120_000)
    answer = page.locator(".jp-Notebook .jp-Cell", has_text="def grad_of_cube").first
    _replace(page, answer, WRONG)
    last = page.locator(".jp-Notebook .jp-CodeCell").last
    before = last.locator(".jp-InputArea-prompt").inner_text()
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.wait_for_function("([c, before]) => { const t = c.querySelector('.jp-InputArea-prompt').textContent;"
                           " return /\\[\\d+\\]/.test(t) && t !== before; }",
                           arg=[last.element_handle(), before], timeout=SLOW)
    checks = page.locator(".jp-Notebook .jp-CodeCell", has_text='check("lesson1", ')
    assert checks.count() == 4
    first = checks.first
    first.scroll_into_view_if_needed()
    expect(first.locator(".jp-OutputArea-output").first).to_contain_text("✗ lesson1 / watch_constant: fail")
    page.screenshot(path=str(SCREENSHOTS / "lab-run-all-verdict.png"))
    for number in range(checks.count()):
        cell = checks.nth(number)
        cell.scroll_into_view_if_needed()  # Lab draws the cells in view only
        expect(cell.locator(".jp-OutputArea-output").first).to_contain_text("lesson1 / ")  # each shows its verdict
        assert cell.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count() == 0, \
            cell.inner_text()[:2000]
        assert "Traceback (most recent call last)" not in cell.inner_text(), cell.inner_text()[:2000]
    last.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "lab-run-all-last-cell.png"))


def _learn(page, url: str) -> None:
    """What the learner does in the browser, from opening lesson 1 to a ✓."""
    from playwright.sync_api import expect

    page.goto(url)
    # the course's kernel, chosen from the notebook's metadata, without a "Select Kernel" dialog
    kernel = page.locator(".jp-NotebookPanel-toolbar .jp-Toolbar-kernelName")
    expect(kernel).to_have_text("gradtutor (TensorFlow)", timeout=120_000)
    expect(page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_have_count(1, timeout=120_000)
    assert page.locator(".jp-Dialog").count() == 0

    setup = page.locator(".jp-Notebook .jp-Cell", has_text="import gradtutor.quiet").first
    answer = page.locator(".jp-Notebook .jp-Cell", has_text="def grad_of_cube").first
    check = page.locator(".jp-Notebook .jp-Cell", has_text='check("lesson1", "watch_constant"').first
    _run(page, setup)
    _replace(page, answer, WRONG)
    _run(page, answer)
    _run(page, check)
    verdict = check.locator(".jp-OutputArea-output").first
    expect(verdict).to_contain_text("✗ lesson1 / watch_constant: fail", timeout=SLOW)
    expect(verdict).to_contain_text("None")
    expect(check).to_contain_text('hint("lesson1", "watch_constant")')
    check.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "lab-fail.png"))

    page.keyboard.press("Escape")
    page.keyboard.press("b")  # a new cell below the check cell
    helper = page.locator(".jp-Notebook .jp-Cell.jp-mod-selected")
    helper.locator(".cm-content").click()
    page.keyboard.insert_text(HINT)
    page.keyboard.press("Control+Enter")
    expect(helper.locator(".jp-OutputArea-output")).to_contain_text("Hint 1 of 3", timeout=60_000)
    first = helper.locator(".jp-OutputArea-output").inner_text()
    page.keyboard.press("Control+Enter")
    expect(helper.locator(".jp-OutputArea-output")).to_contain_text("Hint 2 of 3", timeout=60_000)
    second = helper.locator(".jp-OutputArea-output").inner_text()
    assert first.split("\n", 1)[1] != second.split("\n", 1)[1], "two calls, two different hints"

    _replace(page, answer, RIGHT)
    _run(page, answer)
    _run(page, check)
    expect(check.locator(".jp-OutputArea-output").first).to_contain_text(
        "✓ lesson1 / watch_constant: pass", timeout=60_000)
    check.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "lab-pass.png"))


def _replace(page, cell, code: str) -> None:
    """Select everything in the cell's editor and put `code` there, as a paste does (no auto-indent)."""
    cell.scroll_into_view_if_needed()
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(code)


def _run(page, cell) -> None:
    """Run one cell (Ctrl-Enter) and wait until its prompt shows a new execution count."""
    cell.scroll_into_view_if_needed()
    prompt = cell.locator(".jp-InputArea-prompt")
    before = prompt.inner_text()
    prompt.click()
    page.keyboard.press("Control+Enter")
    page.wait_for_function("([c, before]) => { const t = c.querySelector('.jp-InputArea-prompt').textContent;"
                           " return /\\[\\d+\\]/.test(t) && t !== before; }",
                           arg=[cell.element_handle(), before], timeout=SLOW)
