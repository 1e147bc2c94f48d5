"""Feedback on submit: `gradtutor classroom serve` beside nbgrader's own exchange.

A course made by `gradtutor classroom init`, its exchange in a scratch root; the instructor
releases lesson1 with `nbgrader release_assignment`; a student (nbgrader's --student, their
own folder, cache and config) fetches it and submits with `nbgrader submit`, as the
Assignments tab does, and fetches feedback with `nbgrader fetch_feedback`. The serve process
runs throughout as the instructor runs it. Submissions: the solutions, a known-wrong answer
with the cause it really has, a file that is not a notebook, then one past the hourly limit.
Each gets its own page; none replaces another's.
"""
from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from gradtutor.course import manifest as course
from gradtutor.learner.lab import process_tree  # the worker is in a session of its own: found by parent, not group
from tests.support.classroom import answers_of, solution_code, tool_env
from tests.support.exchange import LESSON, make_classroom, nbgrader, submit_and_wait, with_answers
FEEDBACK_WITHIN = 30.0  # seconds from `nbgrader submit` starting to the page being there


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve")
    folder, feedback, home, env = make_classroom(root)
    # started as `gradtutor classroom serve … &` in a script starts it, with SIGINT ignored (what the hang was:
    # Python then raised no KeyboardInterrupt, so Ctrl-C or `kill -INT` left it running); a terminal's is the same
    serve = subprocess.Popen([sys.executable, "-m", "gradtutor", "classroom", "serve", str(folder), "--poll", "0.2",
                              "--limit", "3"], cwd=root, env=tool_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, preexec_fn=ignore_sigint)
    try:
        first = serve.stdout.readline()  # "Watching …", once the checker is warm: the class may submit
        assert first.startswith("Watching"), first + (serve.stdout.read() if serve.poll() is not None else "")
        yield folder, feedback, home, env, serve
    finally:
        if serve.poll() is None:
            serve.send_signal(signal.SIGINT)
            try:
                serve.wait(30)
            except subprocess.TimeoutExpired:
                serve.kill()
                serve.wait()


def ignore_sigint() -> None:
    """In the child before exec: SIGINT ignored, as a non-interactive shell leaves it for a background job."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def submit(classroom, notebook_text: str) -> tuple[str, float, str]:
    """Write the student's notebook, submit it; return (its timestamp, seconds to its page, the page)."""
    folder, feedback, home, env, serve = classroom
    (home / LESSON / f"{LESSON}.ipynb").write_text(notebook_text, encoding="utf-8")
    page, seconds, submitting = submit_and_wait(home, env, feedback, serve)
    print(f"submit -> feedback page: {seconds:.1f} s (from the start of `nbgrader submit`, which took {submitting:.1f} s)")
    cache = home / "data" / "nbgrader_cache"
    stamps = sorted(p.read_text() for p in cache.glob(f"*/alice+{LESSON}+*/timestamp.txt"))
    return stamps[-1], seconds, html.unescape(page.read_text(encoding="utf-8"))


def fetched_pages(classroom) -> dict[str, str]:
    _, _, home, env, _ = classroom
    nbgrader("fetch_feedback", LESSON, "--student", "alice", cwd=home, env=env)
    return {p.parent.name: html.unescape(p.read_text(encoding="utf-8"))
            for p in (home / LESSON / "feedback").glob(f"*/{LESSON}.html")}


def stopped_or_stacks(serve: subprocess.Popen, within: float) -> str:
    """Its output once it has stopped; if it has not within `within` seconds, the test fails with where each of
    its threads was (serve prints them on SIGUSR1) and the processes it had started."""
    try:
        return serve.communicate(timeout=within)[0]
    except subprocess.TimeoutExpired:
        pass
    serve.send_signal(signal.SIGUSR1)
    time.sleep(3)
    tree = subprocess.run(["ps", "-o", "pid,ppid,stat,wchan:24,etime,args", "-p",
                           ",".join(str(p) for p in [serve.pid, *(child.pid for child in process_tree.descendants(serve.pid))])],
                          capture_output=True, text=True).stdout
    serve.kill()
    output = serve.communicate()[0]
    pytest.fail(f"serve did not stop within {within:g} s of Ctrl-C; its output, threads and processes:\n"
                f"{output}\n{tree}")


def statuses(page: str) -> dict[str, tuple[str, str]]:
    return {m[0]: (m[1], m[2]) for m in re.findall(r'data-exercise="([^"]+)" data-status="([^"]+)" '
                                                    r'data-cause="([^"]*)"', page)}


@pytest.mark.nbgrader
@pytest.mark.xdist_group("classroom")
def test_each_submission_gets_its_own_feedback_page_and_none_replaces_another(classroom):
    lesson = course.load().lesson(LESSON)
    solutions = {e.id: solution_code(lesson, e) for e in lesson.exercises}
    wrong = next(a for a in answers_of(LESSON) if a["expect"] != "pass" and a.get("cause"))

    first, seconds, page = submit(classroom, with_answers(solutions))
    assert seconds <= FEEDBACK_WITHIN
    assert statuses(page) == {e.id: ("pass", "") for e in lesson.exercises}, page
    assert "visible inputs only" in page and "not your grade" in page

    second, seconds, page = submit(classroom, with_answers({**solutions, wrong["exercise"]: wrong["code"]}))
    assert seconds <= FEEDBACK_WITHIN
    assert statuses(page)[wrong["exercise"]] == ("fail", wrong["cause"]), page

    third, _, page = submit(classroom, '{"cells": [')
    assert "could not be checked" in page and "not valid notebook JSON" in page and "<script" not in page

    fourth, _, page = submit(classroom, with_answers(solutions))
    assert "the most this course gives (3)" in page and "data-status" not in page  # no check past the limit

    pages = fetched_pages(classroom)  # as the Assignments tab's Fetch Feedback leaves them
    assert set(pages) == {first, second, third, fourth}
    assert statuses(pages[first]) == {e.id: ("pass", "") for e in lesson.exercises}  # the first stays as it was
    assert statuses(pages[second])[wrong["exercise"]] == ("fail", wrong["cause"])
    limits = json.loads((classroom[0] / ".gradtutor-serve.json").read_text())
    assert len(limits["alice"]) == 3


@pytest.mark.nbgrader
@pytest.mark.xdist_group("classroom")
def test_serve_says_what_it_did_and_stops_on_ctrl_c(classroom):
    serve = classroom[4]
    serve.send_signal(signal.SIGINT)
    output = stopped_or_stacks(serve, within=180)  # its warm checker stops first (a spare worker may be starting)
    assert serve.returncode == 0, output
    assert "Stopped." in output and "Traceback" not in output
    exercises = len(course.load().lesson(LESSON).exercises)
    assert re.search(rf"alice {LESSON} [^\n]+: {exercises}/{exercises} \(", output), output
    assert "over the hourly limit" in output and "unreadable" in output


@pytest.mark.nbgrader
@pytest.mark.xdist_group("dask")
def test_serve_on_a_dask_cluster_checks_there_and_writes_the_same_page(tmp_path):
    from tests.support.dask_cluster import DaskCluster

    folder, feedback, home, env = make_classroom(tmp_path)
    lesson = course.load().lesson(LESSON)
    wrong = next(a for a in answers_of(LESSON) if a["expect"] != "pass" and a.get("cause"))
    codes = {e.id: solution_code(lesson, e) for e in lesson.exercises} | {wrong["exercise"]: wrong["code"]}
    (home / LESSON / f"{LESSON}.ipynb").write_text(with_answers(codes), encoding="utf-8")
    nbgrader("submit", LESSON, "--student", "alice", cwd=home, env=env)
    cluster = DaskCluster(tmp_path / "dask", workers=1)
    try:
        done = subprocess.run([sys.executable, "-m", "gradtutor", "classroom", "serve", str(folder), "--once",
                               "--scheduler", cluster.address], cwd=tmp_path, env=tool_env(), capture_output=True,
                              text=True, timeout=600)
        ran_there = cluster.client.run(lambda: __import__("sys").modules.get("gradtutor.classroom.cluster.serve_dask")
                                       is not None)
    finally:
        cluster.close()
    assert done.returncode == 0 and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert list(ran_there.values()) == [True]  # the check ran on the worker, not in the serving process
    (page,) = feedback.glob("*.html")
    got = statuses(html.unescape(page.read_text(encoding="utf-8")))
    assert got[wrong["exercise"]] == ("fail", wrong["cause"])
    assert all(status == "pass" for e, (status, _) in got.items() if e != wrong["exercise"])


@pytest.mark.unit
def test_serve_refuses_bad_arguments_in_one_line(tmp_path):
    for args, word in ((["--limit", "0"], "--limit"), (["--poll", "0"], "--poll"), ([], "nbgrader_config.py")):
        shown = subprocess.run([sys.executable, "-m", "gradtutor", "classroom", "serve", str(tmp_path), *args],
                               cwd=tmp_path, env=tool_env(), capture_output=True, text=True, timeout=60)
        assert shown.returncode != 0 and word in shown.stderr and "Traceback" not in shown.stderr, shown.stderr
        assert len(shown.stderr.strip().splitlines()) == 1, shown.stderr
    assert os.listdir(tmp_path) == []


STOPS = "\n".join(["import time", "from gradtutor.classroom.feedback.serve import stop_on_signals",
                   "stop_on_signals()", "try:", "    print('ready', flush=True)", "    time.sleep(120)",
                   "except KeyboardInterrupt:", "    print('stopped', flush=True)"])


@pytest.mark.unit
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "kill"])
def test_serve_stops_on_ctrl_c_and_kill_even_started_with_sigint_ignored(number):
    """Does serve's loop end (through its KeyboardInterrupt path, which closes the checker) on SIGINT and on
    SIGTERM (how JupyterHub stops a service), in a process that began with SIGINT ignored?"""
    process = subprocess.Popen([sys.executable, "-c", STOPS], env=tool_env(), stdout=subprocess.PIPE, text=True,
                               preexec_fn=ignore_sigint)
    assert process.stdout.readline() == "ready\n"
    process.send_signal(number)
    assert process.communicate(timeout=60)[0] == "stopped\n" and process.returncode == 0
