"""_toc.yml's modules part, written from the syllabus.

Jupyter Book reads the table of contents from _toc.yml. Its parts before and after the modules (시작하기,
부록) are pages that are not modules and stay as written; the part "본문" lists the syllabus's chapters in
reading order, and nothing else writes it. `make book` runs `python -m course toc --write` first, and a test
checks that the committed _toc.yml is what the syllabus gives.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from course import syllabus

MODULES_CAPTION = "본문"
HEADER = "# Table of contents. The part \"본문\" is written from course/syllabus.py (python -m course toc).\n"


def with_modules(toc: dict, course: syllabus.Syllabus) -> dict:
    """`toc` with its modules part replaced by the syllabus's chapters (the part is added if missing)."""
    parts = [dict(p) for p in toc.get("parts") or []]
    for part in parts:
        if part.get("caption") == MODULES_CAPTION:
            part["chapters"] = course.toc_chapters()
            break
    else:
        parts.insert(1 if parts else 0, {"caption": MODULES_CAPTION, "numbered": False,
                                         "chapters": course.toc_chapters()})
    return {**toc, "parts": parts}


def pages(path: Path) -> list[str]:
    """Every page _toc.yml at `path` lists (the root first, then parts, chapters and sections in reading
    order), as paths relative to the repository without the .md suffix."""
    toc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    found = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                found.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    return found


def render(toc: dict) -> str:
    return HEADER + yaml.safe_dump(toc, allow_unicode=True, sort_keys=False, width=120)


def expected_text(path: Path, course: syllabus.Syllabus | None = None) -> str:
    """The text _toc.yml at `path` should have for the syllabus."""
    toc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return render(with_modules(toc, course or syllabus.load()))


def write(path: Path, course: syllabus.Syllabus | None = None) -> bool:
    """Rewrite _toc.yml from the syllabus; True when the file changed."""
    text = expected_text(path, course)
    if path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True
