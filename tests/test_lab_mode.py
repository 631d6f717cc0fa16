"""Every page also runs as a notebook in JupyterLab mode (COURSE_STATIC unset, widgets instead of
static figures), on a machine without a GPU: no cell may raise."""
from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def book_pages() -> list[Path]:
    from course import toc

    files = toc.pages(REPO / "_toc.yml")
    return [REPO / (f + ".md") for f in files if "code-cell" in (REPO / (f + ".md")).read_text(encoding="utf-8")]


@pytest.mark.parametrize("page", book_pages(), ids=lambda p: p.stem)
def test_page_runs_as_a_notebook_in_lab_mode(page, tmp_path, monkeypatch):
    jupytext = pytest.importorskip("jupytext")
    from nbclient import NotebookClient

    monkeypatch.delenv("COURSE_STATIC", raising=False)
    monkeypatch.setenv("SGEMM_COURSE_DATA", str(tmp_path / "progress"))   # never touch the user's progress
    nb = jupytext.read(page)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(page.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
