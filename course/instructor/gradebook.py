"""The CSVs a graded folder of quiz submissions is written to: the gradebook (one row per student)
and the per-question difficulty summary. Both go through course.instructor.safe_text.write_safe_csv.
"""
from __future__ import annotations

import os
from pathlib import Path

from course.instructor.safe_text import write_safe_csv
from course.instructor.submissions import GradeReport
from course.quiz.grading import QuizResult

__all__ = ["GRADEBOOK_COLUMNS", "write_difficulty", "write_gradebook"]


def _mark(result):
    if result.status == "pending":
        return "pending"
    return result.score


def _passed_text(result: QuizResult) -> str:
    return {"passed": "yes", "failed": "no", "pending": "pending", "": ""}[result.pass_status]


GRADEBOOK_COLUMNS = ["student_id", "student_name", "module", "score", "max_score", "correct_count", "passed",
                     "attempt_time", "attempt", "file", "warnings"]


def write_gradebook(report: GradeReport, path: str | os.PathLike) -> Path:
    """student_id, student_name, module, score, max_score, correct_count, passed
    (yes/no/pending, empty when the module has no pass rule), attempt_time (submitted_at), attempt
    (the learner's attempt number, empty for hand-filled forms), file (inside the submissions
    folder), warnings (codes of the notes on this submission, e.g. future_time; shared_learner),
    then one column per question id (mark 0..1 or "pending")."""
    ids = list(report.bank.ids)
    rows = []
    for g in report.graded:
        marks = g.result.by_id()
        warnings = "; ".join(kind for kind, _ in g.notes)
        rows.append([g.student_id, g.student_name, report.bank.module, g.result.score, g.result.max_score,
                     g.result.correct_count, _passed_text(g.result), g.submitted_at, g.attempt, g.file, warnings,
                     *[_mark(marks[qid]) for qid in ids]])
    return write_safe_csv(path, GRADEBOOK_COLUMNS + ids, rows)


def write_difficulty(report: GradeReport, path: str | os.PathLike) -> Path:
    """Per question: fraction fully correct, mean score and count (over graded, non-pending
    answers), and how many are still pending."""
    rows = []
    for q in report.bank.questions:
        results = [g.result.by_id()[q.id] for g in report.graded]
        marked = [r for r in results if r.status != "pending"]
        count = len(marked)
        fraction = sum(r.correct for r in marked) / count if count else None
        mean = sum(r.score for r in marked) / count if count else None
        rows.append([q.id, q.type, q.bloom, count, fraction, mean, len(results) - count])
    return write_safe_csv(path, ["question_id", "type", "bloom", "count", "fraction_correct", "mean_score", "pending"],
                          rows)
