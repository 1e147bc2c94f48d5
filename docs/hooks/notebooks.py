"""Lesson notebooks → docs pages: execute each solutions notebook, then write it as Markdown.

Used by the mkdocs hook (gradtutor_docs.py) and by the docs tests. Plain functions,
no mkdocs import, so the conversion can be tested on a notebook made in a test.

Execution runs in a child process (`python notebooks.py execute SRC DST`), one per
lesson, so several lessons run side by side and a crashing kernel cannot take the
docs build down with it. What the page shows is what the learner sees, with the
solutions folded away:

* a solution cell shows the learner's starter (the region between `### BEGIN
  SOLUTION` and `### END SOLUTION` replaced as nbgrader replaces it), followed by a
  collapsed `??? success "Solution"` block with the answer;
* a test cell shows its visible checks and their verdict; the hidden tests are
  taken out before the notebook runs, as nbgrader takes them out of lessons/;
* outputs are the real ones from this build: text, HTML, and plots as PNG files.
"""
from __future__ import annotations

import base64
import copy
import dataclasses
import hashlib
import html
import io
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import tokenize
from pathlib import Path

from gradtutor.course import conventions

# Bump when the executed form changes (what runs, how), so old cache entries are not reused.
EXECUTOR_VERSION = "2"  # 2: the language is part of a run

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# TensorFlow's start-up lines (absl/glog format) that reach stderr despite gradtutor.quiet:
# noise about this machine, not part of the lesson.
_TF_NOISE = re.compile(
    r"^(WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR"
    r"|[IWE]\d{4} [\d:. ]+\s*\d+ [\w.]+:\d+\] .*"
    r"|.*(This TensorFlow binary is optimized|To enable the following instructions|oneDNN custom operations).*)$"
)


# --------------------------------------------------------------------------- the notebook as the learner sees it


def strip_hidden_tests(source: str) -> str:
    """The test cell as learners get it: nbgrader removes the hidden tests."""
    return conventions.without_hidden_tests(source).rstrip()


def starter(source: str, code: bool = True) -> str:
    """The solution cell as learners get it: each solution region replaced, indentation kept."""
    return conventions.starter(source, code)


def solution(source: str) -> str:
    """The solution cell without its markers."""
    return conventions.without_solution_markers(source)


def is_solution(cell) -> bool:
    """An answer cell with a solution region (the page shows starter and solution apart)."""
    return conventions.is_solution(cell) and conventions.has_solution_region(cell.get("source", ""))


def is_test(cell) -> bool:
    return conventions.is_test(cell)


def tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def prepare(nb):
    """The notebook that runs at build time: the solutions notebook with its hidden tests taken out."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if is_test(cell):
            cell.source = strip_hidden_tests(cell.source)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def checks_only(nb):
    """What a translated page runs in its own language: the first code cell (the imports), every answer cell
    and every check cell, in order. Every other cell's code is the English notebook's, and so are its outputs;
    a check's verdict is worded in the language the check ran in."""
    nb = copy.deepcopy(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    keep = {id(cell) for cell in code[:1]} | {id(cell) for cell in code if is_solution(cell) or is_test(cell)}
    nb.cells = [cell for cell in nb.cells if id(cell) in keep]
    return nb


def with_check_outputs_of(page, checked):
    """The page's notebook with each check cell's outputs taken from `checked` (the same cell id, run in the
    page's language); a check cell `checked` lacks is a ValueError."""
    page = copy.deepcopy(page)
    runs = {cell.get("id"): cell for cell in checked.cells if is_test(cell)}
    for cell in page.cells:
        if is_test(cell):
            if cell.get("id") not in runs:
                raise ValueError(f"its check cell {cell.get('id')} was not run in the page's language")
            cell.outputs = copy.deepcopy(runs[cell.id].get("outputs", []))
    return page


def code_without_comments(source: str) -> list[tuple[int, str]]:
    """A code cell's tokens without its comments and blank lines: what a translation may not change."""
    try:
        return [(tok.type, "" if tok.type == tokenize.NEWLINE else tok.string)
                for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.ENDMARKER)]
    except (tokenize.TokenError, SyntaxError):  # not Python (a shell line, a magic): compare line by line
        lines = (re.sub(r"(^|\s)#.*$", "", line).rstrip() for line in source.splitlines())
        return [(0, line) for line in lines if line.strip()]


def with_outputs_of(translated, executed):
    """The translated notebook (prepared) with the outputs of the executed one, cell by cell.

    Both must have the same cells in the same order (same type, same id where both have one), and
    every code cell the same code but for its comments; otherwise ValueError says which cell differs.
    """
    translated = copy.deepcopy(translated)
    if len(translated.cells) != len(executed.cells):
        raise ValueError(f"it has {len(translated.cells)} cells, the executed notebook {len(executed.cells)}")
    for number, (cell, done) in enumerate(zip(translated.cells, executed.cells), start=1):
        where = f"cell {number}" + (f" (id {cell.get('id')})" if cell.get("id") else "")
        if cell.cell_type != done.cell_type:
            raise ValueError(f"{where} is {cell.cell_type}, there it is {done.cell_type}")
        if cell.get("id") and done.get("id") and cell.id != done.id:
            raise ValueError(f"{where}: there the cell in this place has id {done.id}")
        if cell.cell_type != "code":
            continue
        if code_without_comments(_text(cell.source)) != code_without_comments(_text(done.source)):
            mine = [line for line in _text(cell.source).splitlines() if line.strip()]
            theirs = [line for line in _text(done.source).splitlines() if line.strip()]
            first = next((f"{a.strip()!r} vs {b.strip()!r}" for a, b in zip(mine, theirs)
                          if code_without_comments(a.strip()) != code_without_comments(b.strip())), "")
            raise ValueError(f"{where}: the code differs beyond its comments {first}".rstrip())
        cell.outputs = copy.deepcopy(done.get("outputs", []))
        cell.execution_count = done.get("execution_count")
    return translated


# --------------------------------------------------------------------------- execution (with a cache)


def cache_key(prepared_json: str, extra: str) -> str:
    """Content hash of what decides the outputs: the notebook as run, plus `extra` (package sources, versions)."""
    digest = hashlib.sha256()
    for part in (EXECUTOR_VERSION, prepared_json, extra):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:24]


def start_execution(source: Path, destination: Path, log: Path, lang: str = "en") -> subprocess.Popen:
    """Run `source` (already prepared) in a child process that writes the executed notebook to `destination`;
    gradtutor's messages in it (check()'s verdicts) are in `lang`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as handle:
        return subprocess.Popen([sys.executable, __file__, "execute", str(source), str(destination), lang],
                                stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)


def _execute(source: Path, destination: Path, lang: str = "en") -> int:
    """Child process: execute one notebook with the python3 kernel of this interpreter."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    # The python3 kernel of this interpreter (the venv's): its kernelspec is looked up here first, so one
    # in ~/.local/share/jupyter pointing at another Python cannot win.
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        p for p in (str(Path(sys.prefix) / "share" / "jupyter"), os.environ.get("JUPYTER_PATH")) if p)
    nb = nbformat.read(source, as_version=4)
    with tempfile.TemporaryDirectory(prefix="gradtutor-docs-") as work:
        env = dict(os.environ)
        env.pop("MPLBACKEND", None)  # a non-inline backend (Agg) would leave the page without its plots
        env["GRADTUTOR_HOME"] = str(Path(work) / "state")  # check() must not touch the user's progress
        env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
        env["GRADTUTOR_LANG"] = lang  # the notebook's language: its checks speak it, whatever the build's locale
        # The lessons import gradtutor: this checkout's, whatever else is installed.
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(Path(__file__).resolve().parents[2]),
                                                        env.get("PYTHONPATH")) if p)
        client = NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=False,
                                record_timing=False, resources={"metadata": {"path": work}})
        try:
            client.execute(env=env)
        except CellExecutionError as exc:
            print(f"{source}: a cell failed while building the docs:\n{exc}", file=sys.stderr)
            return 1
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_suffix(".partial")
    nbformat.write(nb, partial)
    partial.replace(destination)  # atomic: a concurrent build never reads half a notebook
    return 0


# --------------------------------------------------------------------------- the page


@dataclasses.dataclass
class Page:
    markdown: str
    files: dict[str, bytes]  # path relative to the page's folder → content
    figures: int  # plots (image outputs) on the page


def _fence(code: str, lang: str = "python", indent: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", code)), default=2)
    ticks = "`" * max(3, longest + 1)
    body = "\n".join((indent + line) if line.strip() else "" for line in code.splitlines())
    return f"{indent}{ticks}{lang}\n{body}\n{indent}{ticks}"


def _text(value) -> str:
    return value if isinstance(value, str) else "".join(value)


def _clean_stderr(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not _TF_NOISE.match(line)).strip("\n")


_DETAILS = re.compile(
    r"^(?P<indent>[ \t]*)<details>\s*<summary>(?P<summary>.*?)</summary>(?P<body>.*?)</details>[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
_LIST_ITEM = re.compile(r"^\s{0,3}([-*+]|\d+[.)])\s+\S")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def markdown_cell(source: str, answer: str = "Answer") -> str:
    """Notebook Markdown (as Jupyter renders it) → Python-Markdown with material's extensions.

    answer: the title of a folded `<details>` block whose `<summary>` is empty."""

    def details(match: re.Match) -> str:
        summary = re.sub(r"<[^>]+>", "", match["summary"]).strip().replace('"', "'") or answer
        body = textwrap.dedent(match["body"].strip("\n"))
        body = textwrap.indent(body.strip(), "    ")
        return f'\n??? question "{summary}"\n\n{body}\n\n'

    # <details> (folded answers) → a collapsed admonition, whose body is Markdown.
    source = _DETAILS.sub(details, source)
    # Jupyter starts a list right after a paragraph line; Python-Markdown needs a blank line first.
    out: list[str] = []
    in_fence = False
    for line in source.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        elif (not in_fence and _LIST_ITEM.match(line) and out and out[-1].strip()
              and not _LIST_ITEM.match(out[-1]) and not out[-1].startswith((" ", "\t", ">", "|", "#"))):
            out.append("")
        out.append(line.rstrip())
    return "\n".join(out).strip("\n")


def _output_html(kind: str, text: str) -> str:
    return f'<div class="gt-output gt-{kind}" markdown="0"><pre>{html.escape(text)}</pre></div>'


LABELS = {"solution": "Solution", "answer": "Answer", "plot": "Plot"}


def render(nb, lesson_id: str, intro: str = "", labels: dict[str, str] | None = None) -> Page:
    """An executed (prepared) notebook → one Markdown page; `intro` goes after the first Markdown cell.

    labels: the page's words for a folded solution, an untitled folded answer and a plot's alt text
    (keys as in LABELS, English by default)."""
    labels = {**LABELS, **(labels or {})}
    blocks: list[str] = []
    files: dict[str, bytes] = {}
    figures = 0
    intro_placed = not intro

    def image(data: bytes, ext: str, alt: str) -> str:
        nonlocal figures
        figures += 1
        name = f"{lesson_id}/figure-{figures}.{ext}"
        files[name] = data
        width = png_width(data) if ext == "png" else None  # the stylesheet keeps a figure near its drawn size
        style = f' style="--gt-figure-width: {width}px"' if width else ""
        return f'<figure class="gt-output gt-figure"{style} markdown>\n![{alt}]({name})\n</figure>'

    for index, cell in enumerate(nb.cells):
        cell_tags = tags(cell)
        if "remove-cell" in cell_tags or "remove_cell" in cell_tags:
            continue
        source = _text(cell.source)
        if cell.cell_type == "markdown":
            text = markdown_cell(starter(source, code=False) if is_solution(cell) else source, labels["answer"])
            for name, bundle in (cell.get("attachments") or {}).items():
                for mime, payload in bundle.items():
                    if mime.startswith("image/"):
                        ext = mime.split("/")[1].split("+")[0]
                        stored = f"{lesson_id}/attachment-{index}-{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}"
                        if not stored.endswith(ext):
                            stored += f".{ext}"
                        files[stored] = payload.encode() if ext == "svg" else base64.b64decode(payload)
                        text = text.replace(f"attachment:{name}", stored)
            blocks.append(text)
            if is_solution(cell):
                answer = textwrap.indent(markdown_cell(solution(source), labels["answer"]), "    ")
                blocks.append(f'??? success "{labels["solution"]}"\n\n{answer}')
            if not intro_placed:
                blocks.append(intro)
                intro_placed = True
            continue
        if cell.cell_type != "code":
            continue
        if source.strip() and "remove-input" not in cell_tags:
            if is_solution(cell):
                blocks.append(_fence(starter(source)))
                blocks.append(f'??? success "{labels["solution"]}"\n\n' + _fence(solution(source), indent="    "))
            else:
                blocks.append(_fence(source))
        if "remove-output" in cell_tags:
            continue
        blocks.extend(_outputs(cell, is_test(cell), image, labels["plot"]))
    return Page("\n\n".join(b for b in blocks if b.strip()) + "\n", files, figures)


def png_width(data: bytes) -> int | None:
    """A PNG's width in pixels (its IHDR chunk): the size matplotlib drew the figure's text for."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big")


def _outputs(cell, test_cell: bool, image, plot: str = "Plot") -> list[str]:
    shown: list[str] = []
    stream_kind, stream_text = None, ""

    def flush():
        nonlocal stream_kind, stream_text
        if stream_kind:
            text = _clean_stderr(stream_text) if stream_kind == "stderr" else stream_text.rstrip("\n")
            if text.strip():
                shown.append(_output_html(stream_kind, _ANSI.sub("", text)))
        stream_kind, stream_text = None, ""

    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream":
            if output.get("name") != stream_kind:
                flush()
                stream_kind = output.get("name")
            stream_text += _text(output.get("text", ""))
            continue
        flush()
        if kind == "error":
            # Cells tagged raises-exception fail on purpose: the exception's last line is the lesson.
            shown.append(_output_html("error", _ANSI.sub("", f"{output.get('ename')}: {output.get('evalue')}")))
            continue
        data = output.get("data", {})
        # check() returns its result too; the verdict it displays says it all.
        if test_cell and kind == "execute_result" and set(data) <= {"text/plain"}:
            continue
        if "image/png" in data:
            shown.append(image(base64.b64decode(_text(data["image/png"])), "png", _alt(data, plot)))
        elif "image/svg+xml" in data:
            shown.append(image(_text(data["image/svg+xml"]).encode(), "svg", _alt(data, plot)))
        elif "text/html" in data:
            shown.append(f'<div class="gt-output gt-html" markdown="0">\n{_text(data["text/html"]).strip()}\n</div>')
        elif "text/markdown" in data:
            shown.append(markdown_cell(_text(data["text/markdown"])))
        elif "text/plain" in data:
            shown.append(_output_html("result", _ANSI.sub("", _text(data["text/plain"]))))
    flush()
    return shown


def _alt(data, plot: str = "Plot") -> str:
    plain = _text(data.get("text/plain", "")).strip()
    label = re.sub(r"[<>\[\]]", "", plain) if plain and not plain.startswith("<") else plain.strip("<>")
    return f"{plot}: {label}" if label else plot


def title(nb) -> str | None:
    """The first Markdown heading of the notebook, if it has one."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = re.search(r"^#\s+(.+?)\s*#*\s*$", _text(cell.source), re.MULTILINE)
            return match.group(1) if match else None
    return None


if __name__ == "__main__":
    if len(sys.argv) in (4, 5) and sys.argv[1] == "execute":
        sys.exit(_execute(Path(sys.argv[2]), Path(sys.argv[3]), *sys.argv[4:]))
    print("usage: notebooks.py execute SOURCE.ipynb DESTINATION.ipynb [LANG]", file=sys.stderr)
    sys.exit(2)
