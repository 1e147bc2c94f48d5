"""One corpus schema, one reader: the known answers, the hostile corpus and the explain corpus all read as Cases."""
from __future__ import annotations

import pytest

from gradtutor.dev import corpus
from gradtutor.errors import CourseError
from tests.support import REPO, hostile

pytestmark = pytest.mark.unit


def test_the_explain_corpus_reads_as_cases():
    cases = corpus.read_scripts(REPO / "tests" / "explain" / "corpus")
    found = [c for c in cases if c.expect == (corpus.FOUND,)]
    clean = [c for c in cases if c.expect == (corpus.CLEAN,)]
    assert len(found) >= 60 and len(clean) >= 25 and len(found) + len(clean) == len(cases)
    assert all(c.cause and c.line.isdigit() for c in found) and not any(c.cause or c.line for c in clean)
    assert all(c.source.split()[0].startswith(("http", "shared/seeds/")) for c in cases)  # a public question
    # the explain tests' keras-2 runs and their optimizer expectations are headers too, read into the context
    assert sum(c.context.get("keras") == "2" for c in cases) >= 2
    assert sum("expect-keras" in c.context for c in cases) >= 4


def test_the_hostile_corpus_reads_as_cases():
    cases = hostile.load_cases()
    assert len(cases) >= 80
    assert all(case.entry.file.is_file() and case.entry.says for case in cases)
    assert not any("pass" in case.expect for case in cases)


def test_the_known_answers_are_in_the_same_schema():
    from gradtutor.course import manifest as course
    from gradtutor.dev import answers

    lesson = course.load().lessons[0]
    cases = corpus.read_tables(answers.answers_path(REPO, lesson.id), "answer", outcomes=corpus.VERDICTS,
                               required={"exercise", "name", "expect", "code"}, context={"exercise", "variant"})
    assert len(cases) >= 10 and all(c.code and len(c.expect) == 1 for c in cases)
    assert {c.expect[0] for c in cases} >= {"pass", "fail"}


def test_a_case_checks_its_words():
    case = corpus.Case("x.toml", 1, "n", ("fail",), code="y = f(x)\n", line="y = f(x)", says=("(?i)watch",))
    assert case.words_problem("… Watch it (at y = f(x))") is None
    assert "does not quote" in case.words_problem("… watch it")
    assert "does not say" in case.words_problem("… (at y = f(x))")


@pytest.mark.parametrize("entry, says", [
    ('expect = "fail"\nname = "a"\ncode = "x"\nwho = 1', "has keys"),
    ('expect = "passes"\nname = "a"\ncode = "x"', "expect ['passes']"),
    ('expect = "fail"\ncause = "no-such-cause"\nname = "a"\ncode = "x"', "not a cause id"),
    ('expect = "fail"\nline = "z = 1"\nname = "a"\ncode = "x = 1"', "is not in its code"),
    ('expect = "fail"\nsays = ["("]\nname = "a"\ncode = "x"', "regular expressions"),
])
def test_a_malformed_entry_is_one_line_naming_the_file_and_entry(tmp_path, entry, says):
    path = tmp_path / "corpus.toml"
    path.write_text(f"[[answer]]\nexpect = \"pass\"\nname = \"ok\"\ncode = \"x\"\n\n[[answer]]\n{entry}\n")
    with pytest.raises(CourseError) as raised:
        corpus.read_tables(path, "answer", outcomes=corpus.VERDICTS, required={"name", "expect", "code"})
    message = str(raised.value)
    assert message.startswith(f"{path}: answer 2: ") and says in message and "\n" not in message


def test_a_script_without_its_headers_is_one_line(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import tensorflow as tf\n# expect: clean\n")  # a comment in the code is not a header
    with pytest.raises(CourseError, match=r"s\.py: needs a `# expect:"):
        corpus.read_script(script)
    script.write_text("# source: https://example.org/q\n# expect: cause=unwatched\nx = 1\n")
    with pytest.raises(CourseError, match="write `cause=ID line=N` or `clean`"):
        corpus.read_script(script)


def test_dev_check_reads_the_checkouts_corpora_with_the_same_reader(tmp_path):
    cases, problems = corpus.checkout_corpora(REPO)
    assert problems == [] and len(cases) >= 240  # 162 explain scripts, 87 hostile cases and more
    (tmp_path / "tests" / "explain" / "corpus").mkdir(parents=True)
    (tmp_path / "tests" / "explain" / "corpus" / "bad.py").write_text("# source: https://example.org\nx = 1\n")
    cases, problems = corpus.checkout_corpora(tmp_path)
    assert cases == [] and len(problems) == 1 and "bad.py: needs a `# expect:" in problems[0]
