"""nbgrader's exchange as `gradtutor classroom serve` reads and writes it: inbound submissions, feedback files.

`nbgrader submit` (a student's Assignments tab) copies the notebooks to
`{root}/{course}/inbound/{student}+{assignment}+{timestamp}[+random]/`, then writes
`timestamp.txt` and `submission_secret.txt` there. Feedback for that submission is the
file `{root}/{course}/feedback/{md5(secret + notebook)}.html`, which the student's
"Fetch Feedback" copies to `{assignment}/feedback/{timestamp}/{notebook}.html`; so each
submission has its own feedback, and a second one never replaces the first's.
(`nbgrader release_feedback` writes to the same name for the submission it collected:
the instructor's graded feedback then takes the place of the instant one.)

Everything under inbound/ is written by students: a name is parsed, never trusted as a
path, and a symbolic link or anything but a plain file is not read.
"""
from __future__ import annotations

import dataclasses
import os
import stat
import tempfile
from pathlib import Path

SECRET_FILE = "submission_secret.txt"
TIMESTAMP_FILE = "timestamp.txt"
MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024  # a lesson notebook with its outputs is well under 1 MB


@dataclasses.dataclass(frozen=True)
class Exchange:
    root: Path  # nbgrader's Exchange.root
    course_id: str

    @property
    def inbound(self) -> Path:
        return self.root / self.course_id / "inbound"

    @property
    def feedback(self) -> Path:
        return self.root / self.course_id / "feedback"


@dataclasses.dataclass(frozen=True)
class Submission:
    folder: Path  # inbound/<its name>
    student: str
    assignment: str
    timestamp: str

    @property
    def key(self) -> str:
        return self.folder.name


def exchange_of(course_dir: Path) -> Exchange:
    """The exchange the course's nbgrader configuration names (nbgrader's own default otherwise)."""
    from gradtutor.classroom.grading.nbgrader_glue import inside, nbgrader_api

    with inside(Path(course_dir).expanduser().resolve()):
        api = nbgrader_api()
        from nbgrader.exchange.default import Exchange as NbgraderExchange

        root = NbgraderExchange(coursedir=api.coursedir, authenticator=api.authenticator, config=api.config).root
        return Exchange(Path(root).expanduser(), api.coursedir.course_id)


def parse_name(name: str) -> tuple[str, str, str] | None:
    """(student, assignment, timestamp) of an inbound folder's name; None for one nbgrader did not make."""
    parts = name.split("+")
    if len(parts) not in (3, 4) or not all(parts[:3]):
        return None
    return parts[0], parts[1], parts[2]


def inbound(exchange: Exchange) -> list[Submission]:
    """The submissions in inbound/, oldest first (by the name's timestamp, as nbgrader orders them)."""
    found = []
    try:
        entries = list(os.scandir(exchange.inbound))
    except OSError:
        return []
    for entry in entries:
        parsed = parse_name(entry.name)
        if parsed is None or not entry.is_dir(follow_symlinks=False):
            continue
        found.append(Submission(Path(entry.path), *parsed))
    return sorted(found, key=lambda s: (s.timestamp, s.key))


def secret_of(submission: Submission) -> str | None:
    """The submission's secret, once nbgrader has written it (it is written last)."""
    text = read_plain(submission.folder / SECRET_FILE, 4096)
    if text is None:
        return None
    secret = text.decode("ascii", "replace").strip()
    return secret or None


def notebooks_of(submission: Submission) -> list[str]:
    """The notebook ids (file names without .ipynb) the submission holds as plain files."""
    names = []
    try:
        for entry in os.scandir(submission.folder):
            if entry.name.endswith(".ipynb") and entry.is_file(follow_symlinks=False):
                names.append(entry.name[:-len(".ipynb")])
    except OSError:
        return []
    return sorted(names)


def read_plain(path: Path, limit: int = MAX_NOTEBOOK_BYTES) -> bytes | None:
    """A plain file's bytes, at most `limit`; None for a link, a folder, a device, a file too big or absent."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(limit + 1)[:limit]
    finally:
        os.close(fd)


def feedback_file(exchange: Exchange, submission: Submission, notebook_id: str, secret: str) -> Path:
    """Where nbgrader's Fetch Feedback looks for this notebook of this submission."""
    from nbgrader.utils import notebook_hash

    return exchange.feedback / f"{notebook_hash(secret=secret, notebook_id=notebook_id)}.html"


def write_new(path: Path, text: str) -> bool:
    """Write `text` to `path` whole (a reader never sees half), unless the file is there already.

    Never replaces: a page there is the instructor's released feedback, or this submission's
    own instant page. Readable by all, as nbgrader's release_feedback leaves its files (the
    name, a hash of the submission's secret, is what keeps it to its student).
    """
    if path.exists():
        return False
    path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".gradtutor-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temporary, 0o644)
        os.link(temporary, path)  # fails if the file appeared meanwhile: the first page written stays
        return True
    except FileExistsError:
        return False
    finally:
        os.unlink(temporary)
