"""A class on a real JupyterHub: release → fetch → submit → collect → grade → feedback → the student reads it.

JupyterHub on 127.0.0.1 (configurable-http-proxy from npm, `make hub`), an instructor and two
students as real local accounts (useradd; userdel -r afterwards, whatever happened), nbgrader's
exchange in a scratch root, each account's server with the course's kernel. The instructor runs
nbgrader's apps and `gradtutor grade` as themselves; the students fetch, submit and fetch
feedback through their own servers' nbgrader endpoints (what the Assignments tab calls), one
with the solutions, one with a known-wrong answer. Then Chromium (Debian's) logs in as the
second student, opens Lab's Assignments tab and the feedback page; any request that would leave
127.0.0.1 is recorded and refused. Screenshots go to test-output/hub-*.png.
"""
from __future__ import annotations

import html
import json
import pwd
import re
import secrets
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from gradtutor.course import manifest as course
from tests.support import REPO
from tests.support.browser import fenced_page
from tests.support.classroom import answers_of, solution_code
from tests.support.exchange import LESSON, with_answers
from tests.support.hub import (DEBIAN_SITE, PROXY, Hub, accounts_python, add_account, as_account, hub_config, listening,
                               new_names, passable_to_everyone, quiet_lab, readable_by_everyone,
                               remove_account)

pytestmark = pytest.mark.browser

SCREENSHOTS = REPO / "test-output"


@pytest.fixture
def hub():
    """The hub, its accounts (name → role) and the scratch root; everything removed afterwards."""
    for needed in (PROXY, DEBIAN_SITE / "soupsieve"):
        assert needed.exists(), f"{needed} is missing: `make hub` installs it"
    with passable_to_everyone(REPO):
        assert readable_by_everyone(REPO), f"{REPO}: the accounts' servers run this checkout's code; let others read it"
        yield from _hub()


def _hub():
    root = Path(tempfile.mkdtemp(prefix="gradtutor-hub-"))  # not pytest's tmp: that is root's alone (mode 700)
    root.chmod(0o755)
    users = new_names(["instructor", "student", "student"])
    hub = None
    try:
        python = accounts_python(root)
        exchange = root / "exchange"
        exchange.mkdir()
        exchange.chmod(0o777)  # nbgrader's own advice: every account writes its inbound submission there
        config_dir = root / "jupyter-config"
        config_dir.mkdir()
        course_id = "gradtutor-" + secrets.token_hex(2)
        (config_dir / "nbgrader_config.py").write_text(
            f"c = get_config()  # noqa\nc.Exchange.root = {str(exchange)!r}\nc.CourseDirectory.course_id = {course_id!r}\n")
        environment = {"JUPYTER_CONFIG_PATH": str(config_dir), "PATH": f"{python.parent}:/usr/local/bin:/usr/bin:/bin"}
        for name in users:
            add_account(name)
            quiet_lab(name)
        token = secrets.token_hex(16)
        password = secrets.token_hex(8)
        config, url = hub_config(root, python, users, token, password, environment)
        hub = Hub(root, config, url, token)
        hub.password = password  # the DummyAuthenticator's, for the browser's login
        yield hub, users, python, environment, course_id
    finally:
        if hub is not None:
            hub.stop(list(users))
        for name in users:
            remove_account(name)
        shutil.rmtree(root, ignore_errors=True)


def test_a_class_runs_on_jupyterhub_from_release_to_the_students_feedback(hub, playwright):
    hub, users, python, environment, course_id = hub
    instructor = next(n for n, role in users.items() if role == "instructor")
    right, wrong_student = [n for n, role in users.items() if role == "student"]
    lesson = course.load().lesson(LESSON)
    solutions = {e.id: solution_code(lesson, e) for e in lesson.exercises}
    wrong = next(a for a in answers_of(LESSON) if a["expect"] != "pass" and a.get("cause") == "unwatched")
    started = time.monotonic()

    # the instructor's course, made and released as the instructor
    home = Path(f"/home/{instructor}")
    folder = home / "course"
    run = lambda *args, timeout=600: as_account(instructor, [str(python), *args], folder, environment, timeout)  # noqa: E731
    as_account(instructor, [str(python), "-m", "gradtutor", "classroom", "init", str(folder)], home, environment)
    config = folder / "nbgrader_config.py"
    config.write_text(re.sub(r"c\.CourseDirectory\.course_id = '[^']+'", f"c.CourseDirectory.course_id = {course_id!r}",
                             config.read_text()))
    run("-m", "nbgrader", "generate_assignment", LESSON)
    run("-m", "nbgrader", "release_assignment", LESSON)

    hub.start_servers(list(users))
    tokens = {name: hub.user_token(name) for name in users}
    for name in users:
        specs = hub.api("GET", f"/user/{name}/api/kernelspecs", token=tokens[name])
        assert specs["default"] == "gradtutor" and "gradtutor (TensorFlow)" in json.dumps(specs["kernelspecs"]), specs
        spec = specs["kernelspecs"]["gradtutor"]["spec"]
        assert spec["argv"][0] == str(python), spec  # the course's kernel on the accounts' Python

    # nothing listens beyond 127.0.0.1: the hub, its proxy (both root's, started by this test) and every server
    heard = listening({pwd.getpwnam(n).pw_uid for n in users}, hub.pids())
    assert sum("jupyterhub.singleuser" in c for c in heard) == len(users), heard
    assert any("configurable-http-proxy" in c for c in heard) and any("-m jupyterhub -f" in c for c in heard), heard
    outside = {c: a for c, a in heard.items() if any(not x.startswith("127.0.0.1:") for x in a)}
    assert outside == {}, f"listening beyond 127.0.0.1: {outside}"

    # the students, through their own servers: what the Assignments tab's buttons call
    def assignments(name: str, action: str) -> dict:
        done = hub.api("POST", f"/user/{name}/assignments/{action}", token=tokens[name],
                       form={"course_id": course_id, "assignment_id": LESSON})
        assert done["success"], done
        return done

    listed = hub.api("GET", f"/user/{right}/assignments", token=tokens[right], form={"course_id": course_id})
    assert [(a["assignment_id"], a["status"]) for a in listed["value"]] == [(LESSON, "released")], listed
    answers = {right: with_answers(solutions), wrong_student: with_answers({**solutions, wrong["exercise"]: wrong["code"]})}
    for name, text in answers.items():
        assignments(name, "fetch")
        hub.api("PUT", f"/user/{name}/api/contents/{LESSON}/{LESSON}.ipynb", token=tokens[name],
                body={"type": "notebook", "format": "json", "content": json.loads(text)})
        assignments(name, "submit")

    # the instructor collects, grades with gradtutor, generates and releases feedback
    run("-m", "nbgrader", "collect", LESSON)
    graded = run("-m", "gradtutor", "grade", str(folder), LESSON, "--jobs", "2", timeout=900)
    print(graded.stdout)
    for name in (right, wrong_student):
        assert re.search(rf"{name}\s", graded.stdout), graded.stdout
    run("-m", "nbgrader", "generate_feedback", LESSON)
    run("-m", "nbgrader", "release_feedback", LESSON)

    pages = {}
    for name in (right, wrong_student):
        assignments(name, "fetch_feedback")
        (page,) = Path(f"/home/{name}/{LESSON}/feedback").glob(f"*/{LESSON}.html")
        assert page.stat().st_uid == Path(f"/home/{name}").stat().st_uid  # the student's own file
        pages[name] = (page, html.unescape(page.read_text(encoding="utf-8")))
    points = f"{lesson.points:g}"
    right_text, wrong_text = pages[right][1], pages[wrong_student][1]
    assert f"Score: {points} / {points}" in right_text.replace(".0", ""), right_text[:2000]
    assert f"✗ {LESSON} / {wrong['exercise']}" in wrong_text and "tape.watch(" in wrong_text, wrong_text[-4000:]
    assert f"Score: {points} / {points}" not in wrong_text.replace(".0", "")
    print(f"release -> feedback read by both students: {time.monotonic() - started:.0f} s")

    # one pass through Lab in Chromium, as the student with the wrong answer
    _browse(playwright, hub.url, wrong_student, hub, pages[wrong_student][0])


# nbgrader's feedback template asks for MathJax from this CDN; the fence refuses it like any other
# off-site request, and it is the only one the feedback page may make (Lab's pass may make none)
NBGRADER_MATHJAX = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/"


def _browse(playwright, url: str, name: str, hub, page_file: Path) -> None:
    from playwright.sync_api import expect

    offsite: dict[str, list[str]] = {"lab": [], "feedback": []}
    phase = "lab"

    SCREENSHOTS.mkdir(exist_ok=True)
    browser, page = fenced_page(playwright, url + "/", lambda u: offsite[phase].append(u), {"width": 1400, "height": 900})
    try:
        page.goto(f"{url}/hub/login")
        page.fill("input[name=username]", name)
        page.fill("input[name=password]", hub.password)
        page.click("input[type=submit], button[type=submit]")
        page.goto(f"{url}/user/{name}/lab")
        page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click(timeout=180_000)
        page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
        expect(page.get_by_text("Downloaded assignments").first).to_be_visible(timeout=60_000)
        expect(page.get_by_text("Fetch Feedback").first).to_be_visible(timeout=60_000)
        expect(page.get_by_text("(view feedback)").first).to_be_visible()
        page.wait_for_timeout(1000)
        page.screenshot(path=str(SCREENSHOTS / "hub-assignments.png"))
        phase = "feedback"
        relative = page_file.relative_to(f"/home/{name}")
        page.goto(f"{url}/user/{name}/files/{relative}")
        verdict = page.get_by_text(f"✗ {LESSON} / watch_constant").first
        expect(verdict).to_be_visible(timeout=60_000)
        verdict.scroll_into_view_if_needed()
        page.evaluate("window.scrollBy(0, -200)")
        page.screenshot(path=str(SCREENSHOTS / "hub-feedback.png"))
    except Exception:
        page.screenshot(path=str(SCREENSHOTS / "hub-debug.png"), full_page=True)
        raise
    finally:
        browser.close()
    assert offsite["lab"] == [], f"Lab's requests left 127.0.0.1: {offsite['lab']}"
    assert all(u.startswith(NBGRADER_MATHJAX) for u in offsite["feedback"]), f"requests left 127.0.0.1: {offsite}"
