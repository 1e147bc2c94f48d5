"""`gradtutor grade --scheduler`: a real `dask scheduler` and two `dask worker`s on 127.0.0.1.

Is the gradebook a Dask cluster leaves the one `--jobs 2` leaves on one machine? A class of
lesson 1 (correct, untouched, wrong, a kernel that crashes, a memory flood, an infinite loop,
a notebook that tries to reach the scheduler) is copied into two course folders before
anything is graded; one is graded with `--jobs 2`, the other on the cluster while the test
kills a worker process (by its pid) in the middle of a task. The workers run in folders of
their own: they see the course only through the bytes the tasks carry.
"""
from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from gradtutor.course.secret import add_secret

from gradtutor.course import manifest as course
from tests.support.classroom import (Slot, Student, answers_of, gradtutor, make_course, read_gradebook,
                                     solution_code, submission, tool_env)

LESSON = "lesson1"
HOSTILE = Path(__file__).parents[1] / "hostile"
RUN_TIMEOUT = 1800  # seconds for one `gradtutor grade` of the class on a loaded 2-core machine
SOCKET_CELL = '''import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
    print("CONNECTED to the scheduler")
except OSError as exc:
    print("no network:", type(exc).__name__)
'''

pytestmark = pytest.mark.xdist_group("dask")  # one cluster for the module's tests


def _class(port: int) -> list[Student]:
    lesson = course.load().lesson(LESSON)
    solution = {e.id: Slot(solution_code(lesson, e), True) for e in lesson.exercises}
    wrong = {}
    for answer in answers_of(LESSON):
        if answer["expect"] == "fail" and answer["exercise"] not in wrong:
            wrong[answer["exercise"]] = Slot(answer["code"], False)
    exercises = [e.id for e in lesson.exercises]
    flood = {**solution, "frozen_weight": Slot((HOSTILE / "rt_memory_numpy.py").read_text(), False)}
    loop = {**solution, "watch_constant": Slot((HOSTILE / "rt_infinite_loop.py").read_text(), False)}
    return [Student("correct", solution, trimmed=True), Student("correct2", dict(solution), trimmed=True),
            Student("untouched", {}, trimmed=True), Student("untouched2", {}, trimmed=True),
            Student("partial", {k: solution[k] for k in exercises[:2]}, trimmed=True),
            *[Student(f"wrong-{e}", {**solution, e: slot}, trimmed=True) for e, slot in wrong.items()],
            Student("crash", solution, trimmed=True, graded=False, extra_cell="import os\nos._exit(1)\n"),
            Student("flood", flood, trimmed=True), Student("loop", loop, trimmed=True),
            Student("socket", solution, trimmed=True, extra_cell=SOCKET_CELL.format(port=port))]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    from tests.support.dask_cluster import DaskCluster

    started = DaskCluster(tmp_path_factory.mktemp("dask"))
    yield started
    started.close()


@pytest.fixture(scope="module")
def graded(cluster, tmp_path_factory):
    """The class graded twice: `--jobs 2` on one machine, and on the cluster with a worker killed mid-task."""
    root = tmp_path_factory.mktemp("class")
    here = make_course(root / "one-machine", [LESSON])
    lesson = course.load().lesson(LESSON)
    release = nbformat.read(here / "release" / LESSON / lesson.notebook, as_version=4)
    students = _class(cluster.port)
    for student in students:
        folder = here / "submitted" / student.id / LESSON
        folder.mkdir(parents=True)
        nbformat.write(submission(release, student), folder / lesson.notebook)
    there = root / "cluster"
    shutil.copytree(here, there)
    jobs = gradtutor("grade", str(here), LESSON, "--jobs", "2", cwd=root, timeout=RUN_TIMEOUT)
    process = subprocess.Popen([sys.executable, "-m", "gradtutor", "grade", str(there), LESSON, "--scheduler",
                                cluster.address], cwd=root, env=tool_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    killed = cluster.kill_worker_running(f"gradtutor-{LESSON}-")
    out, err = process.communicate(timeout=RUN_TIMEOUT)
    return {"here": here, "there": there, "students": students, "jobs": jobs, "killed": killed,
            "dask": subprocess.CompletedProcess(process.args, process.returncode, out, err)}


@pytest.mark.nbgrader
def test_the_cluster_leaves_the_gradebook_that_jobs_2_leaves(graded):
    jobs, dask = graded["jobs"], graded["dask"]
    assert jobs.returncode == dask.returncode == 1, jobs.stdout + jobs.stderr + dask.stdout + dask.stderr  # crash
    assert "Traceback" not in dask.stdout + dask.stderr
    # the summary says where the submissions ran: the cluster, not a --jobs count that did not apply
    assert re.search(r"submissions in \d+ s \(on the Dask cluster at tcp://127\.0\.0\.1:\d+\)", dask.stdout), dask.stdout
    assert "(2 at a time)" in jobs.stdout, jobs.stdout
    one_machine, cluster = read_gradebook(graded["here"], LESSON), read_gradebook(graded["there"], LESSON)
    assert sorted(cluster) == sorted(s.id for s in graded["students"])
    assert cluster == one_machine
    assert cluster["correct"]["score"] == cluster["correct"]["max_score"] > 0
    assert cluster["untouched"]["score"] == 0 and cluster["crash"]["score"] == 0
    assert 0 < cluster["flood"]["score"] < cluster["flood"]["max_score"]
    assert 0 < cluster["loop"]["score"] < cluster["loop"]["max_score"]
    for student in graded["students"]:  # the autograded copies came back from the workers
        name = f"{student.id}/{LESSON}/{LESSON}.ipynb"
        assert (graded["here"] / "autograded" / name).is_file() == (graded["there"] / "autograded" / name).is_file()
        assert (graded["there"] / "autograded" / name).is_file() == student.graded, name


@pytest.mark.nbgrader
def test_a_worker_killed_mid_task_loses_no_submission(graded, cluster):
    import psutil

    pid, worker = graded["killed"]
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    lines = [line for line in graded["dask"].stdout.splitlines() if f" {LESSON}.ipynb " in line]
    assert sorted(line.split()[1] for line in lines) == sorted(s.id for s in graded["students"])
    assert not [line for line in lines if "Dask" in line], lines  # every task ran to its end somewhere
    cluster.client.wait_for_workers(2, timeout=180)  # the nanny started a fresh worker process


@pytest.mark.nbgrader
def test_a_notebook_cannot_reach_the_scheduler_and_keeps_its_score(graded, cluster):
    with socket.create_connection(("127.0.0.1", cluster.port), timeout=5):
        pass  # the port is open to everything outside the fence
    book = read_gradebook(graded["there"], LESSON)
    assert book["socket"]["score"] == book["correct"]["score"] == book["correct"]["max_score"]
    graded_nb = nbformat.read(graded["there"] / "autograded" / "socket" / LESSON / f"{LESSON}.ipynb", as_version=4)
    printed = "".join(o.get("text", "") for cell in graded_nb.cells if "socket.create_connection" in cell.source
                      for o in cell.get("outputs", []))
    assert "no network:" in printed and "CONNECTED" not in printed, printed
    assert "could fence learner code off the network neither" not in graded["dask"].stdout


@pytest.mark.nbgrader
def test_a_submission_that_keeps_killing_workers_is_scored_0_not_retried_for_ever(graded, cluster, tmp_path):
    """The scheduler allows one worker death per task here: the second gives the task up."""
    folder = make_course(tmp_path / "course", [LESSON])
    shutil.copytree(graded["here"] / "submitted" / "correct", folder / "submitted" / "doomed")
    process = subprocess.Popen([sys.executable, "-m", "gradtutor", "grade", str(folder), LESSON, "--scheduler",
                                cluster.address], cwd=tmp_path, env=tool_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    first, _ = cluster.kill_worker_running("-doomed-")
    time.sleep(2)
    second, _ = cluster.kill_worker_running("-doomed-")
    out, err = process.communicate(timeout=RUN_TIMEOUT)
    assert first != second
    assert process.returncode == 1, out + err
    assert "killed every Dask worker that tried it" in out and "Traceback" not in out + err, out + err
    book = read_gradebook(folder, LESSON)
    assert book["doomed"]["score"] == 0
    assert not (folder / "autograded" / "doomed").exists()


@pytest.mark.unit
def test_a_bad_scheduler_address_is_one_line(tmp_path):
    done = gradtutor("grade", str(tmp_path), LESSON, "--scheduler", "my laptop", cwd=tmp_path)
    assert done.returncode == 2
    assert "tcp://HOST:PORT" in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.unit
def test_an_unreachable_scheduler_is_one_line(tmp_path, monkeypatch):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "3s")
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()  # noqa\n")
    add_secret(tmp_path / "nbgrader_config.py")  # a course as far as the secret goes: the scheduler is what fails
    done = gradtutor("grade", str(tmp_path), LESSON, "--scheduler", f"tcp://127.0.0.1:{closed.getsockname()[1]}",
                     cwd=tmp_path, timeout=120)
    closed.close()
    assert done.returncode == 2, done.stdout + done.stderr
    assert "cannot reach the Dask scheduler" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
