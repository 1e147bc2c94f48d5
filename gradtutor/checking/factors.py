"""A factor between a learner's gradient and the reference, read as a count the inputs have, and worded.

A factor of exactly 1/20 where x has 20 elements is a mean over x where the sum is asked; a
factor of exactly 4 where the batch has 4 rows is a sum over the batch where the mean is asked.
The counts come from the inputs' shapes, which the reference process records for every seed.

One seed's shapes can make a count coincide: a factor 3 of d x**3 where x happens to have 3
rows. The other seeds settle it, since their shapes are drawn too: a count the factor follows
from one input size to another is the count; a factor that stays put while the count changes is
not that count; the same factor on inputs of other sizes is a constant of the formula. With no
other seed to ask, a count is named from 3 up (2 is as often a constant of the formula, d x**2 =
2x, as a count).

A factor of each row's own (the first axis) is read from the factors alone: 1/count_i with whole
counts is a mean over each row's own entries where their sum is asked, count_i a sum where the
mean is asked, anything else a normalisation of each row by something of its own (its norm).
"""
from __future__ import annotations

import math
import re
from typing import Iterable, NamedTuple

from gradtutor.messages import join, say

COUNTED = re.compile(r"(1/)?(\d+)")  # a factor named by compare._factor as a count: "1/N" or "N"
SMALLEST_ALONE = 3  # the smallest count named on one seed's evidence
SHOWN_ROWS = 6  # rows whose factors or counts a message lists


class Counted(NamedTuple):
    reading: str  # mean: 1/N where the sum is asked | sum: N where the mean is asked
    count: int
    counted: str  # what has that count, worded ("x has 4 rows (its first axis)")


def counted_factor(factor: str | None, shapes: dict, elsewhere: Iterable = ()) -> Counted | None:
    """The reading of a constant factor of exactly 1/N or N as a count the inputs have: the size of one input,
    else its first axis (the batch), else its last (the classes, the features); None when no count fits.

    elsewhere: (factor, shapes) of the same returned value on other seeds (factor "1" where it matched, None
    where it is no constant multiple); a count the factor did not follow there is not named.
    """
    found = COUNTED.fullmatch(factor or "")
    if not found:
        return None
    count, reading = int(found.group(2)), "mean" if found.group(1) else "sum"
    others = [(COUNTED.fullmatch(f or ""), s or {}) for f, s in elsewhere]
    candidates = _candidates(count, shapes)
    followed, unrefuted = [], []
    for kind, name in candidates:
        verdicts = [_follows(kind, name, reading, count, other, their) for other, their in others]
        if "no" in verdicts:
            continue  # the count changed (or the factor did) and the other did not follow: it coincided
        (followed if "yes" in verdicts else unrefuted).append((kind, name))
    chosen = followed or [c for c in unrefuted if count >= SMALLEST_ALONE]
    if not chosen:
        return None
    kind, name = chosen[0]
    return Counted(reading, count, say(f"diagnosis.counted_{kind}", name=name, count=count))


def constant_factor(factor: str | None, shapes: dict, elsewhere: Iterable = ()) -> bool:
    """Is the factor the same on another seed whose inputs have other shapes, where every count of theirs that
    equals it here has changed? Then no count of the inputs made it."""
    found = COUNTED.fullmatch(factor or "")
    here = _candidates(int(found.group(2)), shapes) if found else []
    return bool(factor) and any(other == factor and their and their != shapes and
                                all(_count(kind, their.get(name)) != _count(kind, shapes[name]) for kind, name in here)
                                for other, their in elsewhere)


def _follows_sizes(found, shapes: dict, elsewhere: list) -> bool:
    """Is the factor another count of the same direction (1/M for 1/N, M for N) on a seed whose inputs have other
    shapes? Then it is a count of something the inputs make (the elements of x @ w), though no input has it."""
    for other, their in elsewhere:
        theirs = COUNTED.fullmatch(other or "")
        if theirs and their and their != shapes and bool(theirs.group(1)) == bool(found.group(1)) \
                and theirs.group(2) not in ("1", found.group(2)):
            return True
    return False


def _candidates(count: int, shapes: dict) -> list[tuple[str, str]]:
    """(kind, input name) of every count of the inputs equal to `count`, in the order COUNTS reads them."""
    return [(kind, name) for kind in COUNTS for name in shapes if _count(kind, shapes[name]) == count]


# Where a count of an input is read, in order: its size, its first axis (a batch), its last (classes, features).
COUNTS = {"size": lambda s: math.prod(s) if len(s) >= 1 else None,
          "rows": lambda s: s[0] if len(s) >= 2 else None,
          "last": lambda s: s[-1] if len(s) >= 2 else None}


def _count(kind: str, shape) -> int | None:
    if not isinstance(shape, list):
        return None  # a model, a layer, a number: no shape of its own
    return COUNTS[kind]([int(d) for d in shape])


def _follows(kind: str, name: str, reading: str, count: int, other, their: dict) -> str:
    """On another seed: "yes" when the factor is that seed's count and the count changed, "no" when the factor
    is not that seed's count, "same" when it is and the count did not change (no news), "-" when unknown."""
    theirs = _count(kind, their.get(name))
    if other is None or theirs is None:
        return "-"  # no constant factor there, or no such input: it says nothing either way
    direction = "mean" if other.group(1) else "sum"
    if (direction, int(other.group(2))) != (reading, theirs) and not (other.group(2) == "1" and theirs == 1):
        return "no"
    return "yes" if theirs != count else "same"


def scale_sentence(factor: str | None, shapes: dict | None, elsewhere: Iterable = (), blind: bool = False) -> str:
    """Why a gradient is a constant multiple of the reference, and the fix: a count the inputs have when their
    shapes show it, a constant of the formula when other input sizes keep it, else what the factor itself says.
    blind: a hidden input, whose shapes and factor are never told (with the learner's values they give the
    reference away)."""
    if blind:
        return say("diagnosis.scale_blind")
    elsewhere = list(elsewhere)
    counted = counted_factor(factor, shapes or {}, elsewhere)
    if counted:
        return say(f"diagnosis.scale_{counted.reading}", count=counted.count, counted=counted.counted)
    if constant_factor(factor, shapes or {}, elsewhere):
        return say("diagnosis.scale_constant", factor=factor)
    found = COUNTED.fullmatch(factor or "")
    if found and _follows_sizes(found, shapes or {}, elsewhere):  # a count, of something the inputs make
        return say("diagnosis.scale_follows_mean" if found.group(1) else "diagnosis.scale_follows_sum",
                   factor=factor, count=found.group(2))
    if found:  # no count decides it: the factor's direction still does
        return say("diagnosis.scale_smaller" if found.group(1) else "diagnosis.scale_larger", factor=factor,
                   count=found.group(2))
    return say("diagnosis.scale", factor=factor)


class RowReading(NamedTuple):
    reading: str  # one of ROW_COUNTS, or "other": factors no counts make (a log or a square of each row)
    counts: tuple[int, ...] = ()  # each row's count (for a shared reading, in proportion), rows with no factor left out


# How factors of each row's own read as counts: mean, each row divided by its own count where the sum is asked;
# sum, times it where the mean is asked; shared, each row times or divided by a count of its own and all of them by
# one number (a mean per row then over the rows where one mean over every entry is asked, or the other way round;
# which way the values cannot always tell: 1/2, 1/4, 1/4 are 1, 2, 2 divided and 2, 1, 1 multiplied).
ROW_COUNTS = ("mean", "sum", "shared")
LARGEST_SHARED = 64  # the smallest row's count tried for a shared reading
SHARED_ROWS = 4  # rows a shared reading needs: with fewer, their ratios are near fractions of small numbers by chance
WHOLE = 1e-5  # how near a whole number a shared count must be, relative (a fitted factor is good to ~1e-7)


def row_reading(factors) -> RowReading:
    """What factors of each row's own are: each row's own count when the values show it (1/count_i or count_i
    with whole counts, or those up to one shared factor), else "other": no count makes them, and a log or a
    square of each row's value (the chain rule's f'(row)) makes factors like these as well as a norm does."""
    kept = [f for f in factors if f is not None]
    if not kept or any(f <= 0 for f in kept):
        return RowReading("other")
    for reading, counts in (("mean", [1 / f for f in kept]), ("sum", kept)):
        if all(c >= 1 - 1e-4 and abs(c - round(c)) <= 1e-4 * c for c in counts):
            return RowReading(reading, tuple(round(c) for c in counts))
    if len(kept) >= SHARED_ROWS:
        for smallest in range(1, LARGEST_SHARED + 1):  # the simplest counts, multiplied or divided
            for values in (kept, [1 / f for f in kept]):
                counts = [smallest * v / min(values) for v in values]
                if all(abs(c - round(c)) <= WHOLE * c for c in counts):
                    return RowReading("shared", tuple(round(c) for c in counts))
    return RowReading("other")


def row_scale_sentence(factors, blind: bool = False) -> str:
    """Why each row of a gradient is the reference's row times a count of its own, and the fix (no factor or
    count of a hidden input is told)."""
    found = row_reading(factors or ())
    if blind or found.reading not in ROW_COUNTS:
        return say("diagnosis.row_scale_blind")
    return say(f"diagnosis.row_scale_{found.reading}", counts=_listed(found.counts))


def row_factors_text(factors) -> str:
    """Each row's factor, as the comparison's detail lists them ("1/3, 1/5, 0.5, …")."""
    return _listed(["—" if f is None else _named(f) for f in factors])


def _named(factor: float) -> str:
    inverse = 1 / factor if factor else 0
    if factor < 1 and abs(inverse - round(inverse)) <= 1e-4 * abs(inverse):
        return f"1/{round(inverse)}"
    return f"{factor:.3g}"


def _listed(items) -> str:
    items = [str(item) for item in items]
    return join(items[:SHOWN_ROWS] + (["…"] if len(items) > SHOWN_ROWS else []))
