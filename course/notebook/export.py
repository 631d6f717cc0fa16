"""Every chapter as a Jupyter notebook that reads like its site page in Colab and on any JupyterHub.

tools/export_notebooks.py (``make notebooks``, ``make book``) calls ``export``. A notebook is its chapter
(book/*.md, read by jupytext) with:

- every text cell converted from MyST to plain Markdown/HTML (course.notebook.markdown): ``{eval}`` values
  filled in at export, computed the way the chapter computes them (its first cell's ``from course.facts.mNN
  import f``; a name bound by a later code cell is found by running the chapter's code cells up to that
  point, as the site does); cross-references linked to the site page (``html.baseurl`` in _config.yml) or,
  without one, to the sibling notebook or the page's file;
- the cells the site hides (remove-input, remove-cell, hide-input) collapsed: ``jupyter.source_hidden`` for
  JupyterLab, Colab's form view (``cellView: "form"`` and a ``#@title`` line) where the cell allows it;
- three cells in front (course.notebook.cells): what to do first, the install cell (Python version check,
  progress on Google Drive, the course next to the platform's NumPy and CuPy) and the GPU check.

The result is a pure function of the chapters, the records they read and _config.yml: ``notebooks/`` is
committed, and tests/test_notebook_export.py regenerates it in memory and compares.
"""
from __future__ import annotations

import ast
import contextlib
import io
import os
import posixpath
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from course.notebook import cells as notebook_cells
from course.notebook.markdown import Context, convert

REPO = Path(__file__).resolve().parents[2]
SITE_DIR = REPO / "book" / "_static" / "notebooks"   # html_static_path: the site serves them from _static/notebooks
NOTEBOOK_DIR = REPO / "notebooks"                      # committed; Colab opens them from GitHub
COLAB = "https://colab.research.google.com/github"
GUIDE = "book/start/colab_hub"                         # the page that explains the notebooks

HIDE_INPUT = {"remove-input", "remove-cell", "hide-input", "hide-cell"}
HIDE_OUTPUT = {"hide-output", "remove-output", "hide-cell"}
FORM_TITLES = {   # Colab shows the title and hides the code; JupyterLab shows this first line of the folded input
    "hide-input": "코드 보기 (펼치면 코드가 보입니다)",
    "hide-cell": "코드 보기 (펼치면 코드가 보입니다)",
    "remove-input": "숨긴 코드: 결과만 보면 됩니다 (펼치면 코드가 보입니다)",
    "remove-cell": "숨긴 코드: 결과만 보면 됩니다 (펼치면 코드가 보입니다)",
}


class ExportError(Exception):
    """A chapter that cannot be exported; the message is Korean and names the page."""


# --------------------------------------------------------------------------------------------- settings

@dataclass(frozen=True)
class Settings:
    """From _config.yml: repository.url / repository.branch (GitHub: Colab links, the install cell's clone)
    and html.baseurl (the published site: links to its pages). Empty strings when unset."""

    repo_url: str = ""
    branch: str = "main"
    site_url: str = ""

    @property
    def github(self) -> "tuple[str, str] | None":
        """(owner, repository) when repo_url is a GitHub repository, else None."""
        m = re.match(r"^https?://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?$", self.repo_url.strip())
        return (m.group(1), m.group(2)) if m else None

    def colab_url(self, stem: str) -> str:
        """The notebook notebooks/<stem>.ipynb opened in Colab from GitHub, or "" without a GitHub repository."""
        if self.github is None:
            return ""
        owner, repo = self.github
        return f"{COLAB}/{owner}/{repo}/blob/{self.branch}/notebooks/{stem}.ipynb"


def load_settings(config: Path = REPO / "_config.yml") -> Settings:
    import yaml

    data = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    repository = data.get("repository") or {}
    html = data.get("html") or {}
    return Settings(repo_url=str(repository.get("url") or "").strip(),
                    branch=str(repository.get("branch") or "main").strip(),
                    site_url=str(html.get("baseurl") or "").strip())


# --------------------------------------------------------------------------------------------- the book

def _toc_pages() -> list[Path]:
    from course import toc

    return [REPO / f"{name}.md" for name in toc.pages(REPO / "_toc.yml")]


def _has_code(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    return text.startswith("---\njupytext:") and "```{code-cell}" in text


def chapters() -> list[Path]:
    """The pages a learner runs: every page of _toc.yml with code cells, except the start pages."""
    found = [p for p in _toc_pages()
             if p.exists() and _has_code(p) and "start" not in p.relative_to(REPO).parts]
    stems = [p.stem for p in found]
    if len(set(stems)) != len(stems):
        raise ExportError(f"노트북 이름이 겹칩니다 (notebook names collide): {stems}")
    return found


def docname(path: Path) -> str:
    return path.relative_to(REPO).with_suffix("").as_posix()


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclass
class BookIndex:
    """Titles of the book's pages and its labels ((name)= before a heading, a table's :name:)."""

    titles: dict = field(default_factory=dict)   # docname -> title
    labels: dict = field(default_factory=dict)   # label -> (docname, title)

    @classmethod
    def read(cls, pages: list[Path]) -> "BookIndex":
        index = cls()
        for path in pages:
            if not path.exists():
                continue
            name = docname(path)
            lines = path.read_text(encoding="utf-8").splitlines()
            pending = None
            for k, line in enumerate(lines):
                heading = _HEADING.match(line)
                if heading and name not in index.titles and heading.group(1) == "#":
                    index.titles[name] = heading.group(2)
                label = re.match(r"^\((?P<label>[^()\s]+)\)=\s*$", line)
                if label:
                    pending = label.group("label")
                    continue
                if pending and heading:
                    index.labels[pending] = (name, heading.group(2))
                    pending = None
                table = re.match(r"^\s*(:{3,}|`{3,})\{table\}\s*(.*)$", line)
                if table:
                    for option in lines[k + 1:k + 6]:
                        named = re.match(r"^\s*:name:\s*(\S+)", option)
                        if named:
                            index.labels[named.group(1)] = (name, table.group(2).strip())
        return index

    def title(self, name: str) -> "str | None":
        return self.titles.get(name)

    def label(self, label: str) -> "tuple[str, str] | None":
        return self.labels.get(label)


@dataclass
class Links:
    """Where a cross-reference in a notebook written to `out` points."""

    settings: Settings
    out: Path
    notebooks: frozenset   # stems of the exported pages

    def page(self, name: str, anchor: str = "") -> str:
        fragment = f"#{anchor}" if anchor else ""
        if self.settings.site_url:
            return f"{self.settings.site_url.rstrip('/')}/{name}.html{fragment}"
        stem = posixpath.basename(name)
        if stem in self.notebooks:
            return f"{stem}.ipynb{fragment}"
        if self.out.resolve() == SITE_DIR.resolve():   # the site's copies: the site page beside them
            return f"../../{name}.html{fragment}"
        if self.settings.github:                        # GitHub shows the page's file (Colab opens it from there)
            owner, repo = self.settings.github
            return f"https://github.com/{owner}/{repo}/blob/{self.settings.branch}/{name}.md{fragment}"
        return os.path.relpath(REPO / f"{name}.md", self.out).replace(os.sep, "/") + fragment

    def asset(self, page: str, path: str) -> str:
        """A file a page names (an image), from where the notebook is read."""
        if re.match(r"^[a-z]+://", path):
            return path
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
        if self.settings.github:
            owner, repo = self.settings.github
            return f"https://raw.githubusercontent.com/{owner}/{repo}/{self.settings.branch}/{target}"
        return os.path.relpath(REPO / target, self.out).replace(os.sep, "/")


# --------------------------------------------------------------------------------------------- {eval} values

def _display_text(value) -> str:
    """What the site shows for a value: IPython's plain-text form (the facts' Text shows without quotes)."""
    try:
        from IPython.lib.pretty import pretty
    except ImportError:   # pragma: no cover - IPython comes with jupytext's and the site's requirements
        return repr(value)
    return pretty(value)


def _magic(source: str) -> bool:
    return any(line.lstrip().startswith(("%", "!")) for line in source.splitlines())


class ChapterValues:
    """The names a chapter's {eval} expressions read, bound the way the chapter binds them.

    First only the chapter's imports from course.facts run (its first code cell: instant). An expression
    that needs another name makes the code cells before its text cell run in order, as the site's
    execution would have run them, until the name exists.
    """

    def __init__(self, path: Path, cells: list):
        self.path = path
        self.cells = cells
        self.ns: dict = {}
        self.ran: set = set()
        imports = []
        for cell in cells:
            if cell.cell_type != "code" or _magic(cell.source):
                continue
            try:
                tree = ast.parse(cell.source)
            except SyntaxError:
                continue
            imports += [node for node in tree.body
                        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course.facts")]
        self._run(ast.Module(body=imports, type_ignores=[]), "facts imports")

    def _run(self, code, where: str) -> None:
        out = io.StringIO()
        cwd = os.getcwd()
        try:
            os.chdir(self.path.parent)   # the site runs a page in its own folder
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                exec(compile(code, f"{self.path.name}: {where}", "exec"), self.ns)
        except Exception as exc:
            raise ExportError(f"{self.path.name}: {where}을(를) 실행하지 못했습니다 ({type(exc).__name__}: {exc})") \
                from None
        finally:
            os.chdir(cwd)

    def evaluate(self, expression: str, before: int) -> str:
        while True:
            try:
                return _display_text(eval(expression, self.ns))
            except NameError as exc:
                pending = [k for k, cell in enumerate(self.cells[:before])
                           if cell.cell_type == "code" and k not in self.ran
                           and "skip-execution" not in cell.metadata.get("tags", [])
                           and not _magic(cell.source)]
                if not pending:
                    raise ExportError(f"{self.path.name}: {{eval}}`{expression}`의 이름을 찾지 못했습니다 ({exc}). "
                                      "그 이름은 앞의 코드 셀이나 course/facts가 정해야 합니다.") from None
                self.ran.add(pending[0])
                self._run(self.cells[pending[0]].source, f"코드 셀 {pending[0]}")
            except Exception as exc:
                raise ExportError(f"{self.path.name}: {{eval}}`{expression}`을(를) 계산하지 못했습니다 "
                                  f"({type(exc).__name__}: {exc})") from None


# --------------------------------------------------------------------------------------------- cells

def hidden_metadata(cell) -> None:
    """Collapse what the site hides: the input (JupyterLab's source_hidden, Colab's form view) and outputs."""
    tags = set(cell.metadata.get("tags", []))
    jupyter = {}
    if tags & HIDE_INPUT:
        jupyter["source_hidden"] = True
        first = cell.source.lstrip().splitlines()[0] if cell.source.strip() else ""
        if not first.startswith("%%"):   # a cell magic must stay the first line: no title there
            tag = next(t for t in ("hide-input", "hide-cell", "remove-input", "remove-cell") if t in tags)
            if not first.startswith("#@title"):
                cell.source = f"#@title {FORM_TITLES[tag]}\n{cell.source}"
            cell.metadata["cellView"] = "form"
    if tags & HIDE_OUTPUT:
        jupyter["outputs_hidden"] = True
    if jupyter:
        cell.metadata["jupyter"] = jupyter


def notebook(path: Path, settings: Settings, out: Path, index: "BookIndex | None" = None,
             warnings: "list | None" = None):
    """The chapter at `path` as an nbformat notebook, as it is written into the folder `out`."""
    import jupytext
    import nbformat

    pages = chapters()
    index = index or BookIndex.read(_toc_pages())
    links = Links(settings, out, frozenset(p.stem for p in pages))
    nb = jupytext.read(path)
    name = docname(path)
    values = ChapterValues(path, nb.cells)
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            ctx = Context(page=name, evaluate=lambda e, k=k: values.evaluate(e, k),
                          link=links.page, doc_title=index.title, label=index.label,
                          asset=lambda p: links.asset(name, p))
            cell.source = convert(cell.source, ctx)
            if warnings is not None:
                warnings += ctx.warnings
        elif cell.cell_type == "code":
            hidden_metadata(cell)
    site_page = links.page(name) if settings.site_url else ""
    guide = links.page(GUIDE) if settings.site_url else ""
    nb.cells[:0] = notebook_cells.first_cells(settings.repo_url, site_page, guide)
    for k, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{k:03d}"   # stable ids: the same chapter gives the same file
    nb.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
        "accelerator": "GPU",                   # Colab: open on a GPU runtime when one is available
        "colab": {"provenance": [], "gpuType": "T4", "name": f"{path.stem}.ipynb"},
    }
    nbformat.validate(nb)
    return nb


def text(nb) -> str:
    import nbformat

    return nbformat.writes(nb) + "\n"


@lru_cache(maxsize=None)
def _index() -> BookIndex:
    return BookIndex.read(_toc_pages())


def rendered(out: Path, settings: "Settings | None" = None, warnings: "list | None" = None) -> dict:
    """{file name: notebook text} of every chapter, as export writes them into `out`."""
    settings = settings or load_settings()
    return {f"{p.stem}.ipynb": text(notebook(p, settings, out, _index(), warnings)) for p in chapters()}


def export(out: Path, settings: "Settings | None" = None, warnings: "list | None" = None) -> list[Path]:
    """Write every chapter's notebook into `out`; a notebook of a page no longer in the book is removed."""
    out.mkdir(parents=True, exist_ok=True)
    files = rendered(out, settings, warnings)
    for stale in out.glob("*.ipynb"):
        if stale.name not in files:
            stale.unlink()
    written = []
    for name, body in files.items():
        target = out / name
        if not target.exists() or target.read_text(encoding="utf-8") != body:
            target.write_text(body, encoding="utf-8")
        written.append(target)
    return written


def differences(out: Path, settings: "Settings | None" = None) -> list[str]:
    """Names of the notebooks in `out` that differ from what the chapters give now (missing, changed, extra)."""
    files = rendered(out, settings)
    found = {p.name for p in out.glob("*.ipynb")} if out.exists() else set()
    changed = [n for n, body in files.items()
               if n not in found or (out / n).read_text(encoding="utf-8") != body]
    return sorted(changed + sorted(found - set(files)))


__all__ = ["ExportError", "Settings", "load_settings", "chapters", "notebook", "export", "differences",
           "rendered"]
