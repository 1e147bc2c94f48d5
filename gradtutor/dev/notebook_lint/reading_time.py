"""How many minutes a lesson's prose takes to read, each script at its own reading speed.

Counting a Chinese character as an English word makes a faithful Chinese translation look half again as
long as its English, so each is timed at its own rate:

- Latin-script words (all of an English lesson; None, Keras, numbers in a Chinese one): 200 words a
  minute, the scale of issue 37 (1,900–3,200 words = 10–16 minutes) — slower than the 228 words a minute
  measured for English in the study below, as fits technical prose read with code between its paragraphs.
- Chinese characters: 255 characters a minute, the mean for Chinese in the International Reading Speed
  Texts (IReST) study: Trauzettel-Klosinski S, Dietz K; IReST Study Group. "Standardized assessment of
  reading performance: the new International Reading Speed Texts IReST." Invest Ophthalmol Vis Sci.
  2012;53(9):5452–5461 (English in the same study: 228 words a minute).

A lesson is to read in MAX_MINUTES or fewer in every language (issue 37: about 2,000 English words).
"""
from __future__ import annotations

from gradtutor.dev.notebook_lint.word_count import Prose

WORDS_PER_MINUTE = 200
CHARACTERS_PER_MINUTE = 255
MAX_MINUTES = 12


def minutes(prose: Prose) -> float:
    """Reading time of `prose`, in minutes, rounded to a tenth as it is shown (and judged)."""
    return round(prose.words / WORDS_PER_MINUTE + prose.characters / CHARACTERS_PER_MINUTE, 1)


def too_long(prose: Prose) -> bool:
    return minutes(prose) > MAX_MINUTES


def described(prose: Prose) -> str:
    """'2,269 characters at 255 a minute + 70 words at 200 a minute': what the minutes were made of."""
    parts = [f"{prose.characters:,} characters at {CHARACTERS_PER_MINUTE} a minute"] if prose.characters else []
    if prose.words or not parts:
        parts.append(f"{prose.words:,} words at {WORDS_PER_MINUTE} a minute")
    return " + ".join(parts)
