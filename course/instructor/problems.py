"""The problems list the instructor's grading commands write: one row per file that was skipped,
ignored or graded with a note, for quiz submissions (course.instructor.submissions) and kernel
submissions (course.autograder.grade) alike.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from course.instructor.safe_text import write_safe_csv

__all__ = ["Problem", "problem_count_line", "problems_path_for", "write_problems"]


@dataclass
class Problem:
    """One file (or manual-marks row) that was skipped, ignored or graded with a note."""
    file: str            # path relative to the submissions folder (or the manual-marks file and line)
    outcome: str         # skipped | graded | ignored
    kind: str            # stable English code, listed in the grading module's PROBLEM_KINDS
    reason: str          # Korean explanation
    student_id: str = ""


def problem_count_line(problems) -> str:
    """One Korean line: how many problems, by outcome (the terminal's summary of the problems CSV)."""
    if not problems:
        return "문제(problems): 없음"
    counts = {outcome: sum(1 for p in problems if p.outcome == outcome) for outcome in ("skipped", "graded", "ignored")}
    parts = [f"{label} {counts[o]}건" for o, label in (("skipped", "건너뜀"), ("graded", "참고"), ("ignored", "무시함"))
             if counts[o]]
    files = len({p.file for p in problems})
    return f"문제(problems): {len(problems)}건, 파일 {files}개 ({', '.join(parts)}); 자세한 내용은 problems CSV에 있습니다"


def problems_path_for(gradebook: str | os.PathLike) -> Path:
    """Where the problems CSV goes by default: beside the gradebook (gradebook_problems.csv)."""
    gradebook = Path(gradebook)
    return gradebook.with_name(f"{gradebook.stem}_problems.csv")


def write_problems(problems, path: str | os.PathLike) -> Path:
    """file, student_id, outcome (skipped/graded/ignored), kind (see PROBLEM_KINDS), reason.
    Written even when empty (header only), so an empty file means "checked, nothing found"."""
    rows = [[p.file, p.student_id, p.outcome, p.kind, p.reason] for p in problems]
    return write_safe_csv(path, ["file", "student_id", "outcome", "kind", "reason"], rows)
