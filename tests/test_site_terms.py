"""The glossary's retired terms (design.md) appear nowhere a learner reads: not in the chapters, the
simulators' labels, the quiz banks, nor the built site."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# 변곡점 means an inflection point (the roofline's is a ridge point, 꺾임점); 이상값 reads as "outlier";
# 시드 원고 is authoring jargon (the source material is 원 자료).
RETIRED = ["변곡점", "이상값", "시드 원고"]
SOURCES = [p for p in [*REPO.glob("book/**/*.md"), *REPO.glob("sims/*.py"), *REPO.glob("course/quiz/banks/*.yaml"),
                       *REPO.glob("course/site/static/*.js"), *REPO.glob("course/*.py"), *REPO.glob("course/site/*.py"),
                       *(p for package in ("quiz", "notebook", "instructor", "page") for p in REPO.glob(f"course/{package}/*.py"))]
           if not any(part.startswith(".") for part in p.relative_to(REPO).parts)]


@pytest.mark.parametrize("term", RETIRED)
def test_no_retired_term_in_the_sources(term):
    hits = [f"{p.relative_to(REPO)}:{i}" for p in SOURCES
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if term in line
            and "RETIRED" not in line]
    assert not hits, f"{term}: {hits[:10]}"


def test_no_retired_term_on_the_built_site(site_dir):
    for page in site_dir.rglob("*.html"):
        text = re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))
        found = [t for t in RETIRED if t in text]
        assert not found, f"{page.relative_to(site_dir)}: {found}"
