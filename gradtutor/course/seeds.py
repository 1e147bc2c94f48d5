"""The seeds every check runs: the visible ones are the inputs a learner can print
while working; the hidden ones catch answers hard-coded from what was seen.

Hidden seeds a learner could read in this package would catch nothing, so a
course's hidden seeds are derived from the course's secret (gradtutor.course.secret:
written into its nbgrader_config.py by `gradtutor classroom init`, read only by the
grader's side) with HMAC-SHA256: the package's source cannot reveal them, and two
courses get different ones. Without a secret there are no hidden inputs: a
learner's own check runs the visible inputs only. The package's fixed
PUBLIC_HIDDEN_SEEDS are for its own checks (`gradtutor dev check`) and for a plain
nbgrader course that has no secret (gradtutor.learner.judge grades there on them and says so).

Kept apart from gradtutor.course.references (the answers), which the processes that run
learner code may not read: a notebook kernel that shows a verdict needs the seeds,
never the answers.
"""
from __future__ import annotations

import dataclasses
import hashlib
import hmac

from gradtutor.errors import UsageError
from gradtutor.messages import say

VISIBLE_SEEDS = (0, 1)
PUBLIC_HIDDEN_SEEDS = (7919, 104729)  # public, so worthless against hard-coding: the test suite's only
HIDDEN_SEEDS = PUBLIC_HIDDEN_SEEDS  # the name the test suite knows them by
ALL_SEEDS = VISIBLE_SEEDS + PUBLIC_HIDDEN_SEEDS
HIDDEN_COUNT = 2  # hidden inputs per lesson
CHOICES = ("visible", "hidden", "all")


def is_hidden(seed: int) -> bool:
    """Every seed but the visible ones is hidden: its inputs and expected values are never shown."""
    return seed not in VISIBLE_SEEDS


def course_seeds(secret: str, lesson_id: str, count: int = HIDDEN_COUNT) -> tuple[int, ...]:
    """A course's hidden seeds for one lesson: HMAC-SHA256(secret, lesson/index), never a visible seed."""
    found: list[int] = []
    index = 0
    while len(found) < count:
        digest = hmac.new(secret.encode(), f"{lesson_id}/hidden/{index}".encode(), hashlib.sha256).digest()
        seed = int.from_bytes(digest[:4], "big") & 0x7FFFFFFF  # numpy and Keras take any 31-bit seed
        if seed not in VISIBLE_SEEDS and seed not in found:
            found.append(seed)
        index += 1
    return tuple(found)


@dataclasses.dataclass(frozen=True)
class HiddenInputs:
    """Which hidden inputs a checker may run: a course's (from its secret), the public ones, or none."""

    secret: str | None = None
    public: bool = False
    count: int = HIDDEN_COUNT  # per lesson; `make sweep` draws hundreds from one random secret

    @classmethod
    def default(cls) -> "HiddenInputs":
        """No secret given: none (a learner's own check runs the visible inputs)."""
        return cls()

    @property
    def available(self) -> bool:
        return bool(self.secret) or self.public

    def seeds(self, lesson_id: str) -> tuple[int, ...]:
        if self.secret:
            return course_seeds(self.secret, lesson_id, self.count)
        return PUBLIC_HIDDEN_SEEDS if self.public else ()

    def seeds_for(self, which: str, lesson_id: str) -> tuple[int, ...]:
        """Seeds for 'visible', 'hidden' or 'all'; 'all' without hidden inputs is the visible ones,
        'hidden' without them is empty (the checker refuses it: checking nothing must not look like a pass).
        """
        if which not in CHOICES:
            raise UsageError(say("lessons.bad_seeds", seeds=repr(which)))
        if which == "visible":
            return VISIBLE_SEEDS
        return self.seeds(lesson_id) if which == "hidden" else VISIBLE_SEEDS + self.seeds(lesson_id)

    def visible_only(self, which: str) -> bool:
        """Does a check asked for `which` run the visible inputs only because there are no hidden ones?"""
        return which == "all" and not self.available


def of_course_folder(folder, which: str) -> tuple[HiddenInputs | None, object]:
    """(hidden inputs, config) of the course folder `folder` is in, when `which` asks for hidden inputs.

    `gradtutor check` run by an instructor inside a course (a one-off check of a submission on the
    course's hidden inputs); a learner's folder has no course config, so (None, None).
    """
    if which == "visible":
        return None, None
    from gradtutor.course import secret as course_secret

    found = course_secret.find_secret(folder)
    return (HiddenInputs(secret=found[0]), found[1]) if found else (None, None)


def seeds_for(which: str) -> tuple[int, ...]:
    """The public seeds for 'visible', 'hidden' or 'all' (the package's own tests and tools)."""
    return HiddenInputs(public=True).seeds_for(which, "")
