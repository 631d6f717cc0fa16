"""Instructor tools: export forms and keys, grade a folder of submissions.

Grading is authoritative from the bank: every submission is re-graded with
course.grading in "instructor" mode (self-assessments never count; free items stay
"pending" unless a manual mark is given). Scores written inside a submission are ignored.

Problems are reported and the file skipped, never raised:
malformed JSON, not a submission, newer format, wrong module, unknown question ids,
missing student id, integrity mismatch (tampered), and duplicates (same student and
module: the latest ``submitted_at`` is kept, the others are reported).

Manual marks CSV (``--manual-marks``): columns ``student_id,question_id,mark`` (an
optional ``comment`` column is ignored); ``mark`` is a fraction of the question between
0 and 1 (``1``, ``0.5``, ``0``). Only free-answer questions take manual marks.
"""
from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from course.bank import Bank, answer_key, student_view
from course.grading import QuizResult, grade_quiz
from course.submission import FORMAT, check_submission, integrity_status, parse_time

__all__ = [
    "GradeReport",
    "GradedSubmission",
    "export_form",
    "export_key",
    "form_markdown",
    "grade_folder",
    "load_manual_marks",
    "write_difficulty",
    "write_gradebook",
]

FORM_FORMAT = "sgemm-course-form"
KEY_FORMAT = "sgemm-course-key"
TYPE_HELP = {
    "single": "하나 고르기 — 선택지 id 하나를 문자열로 (예: \"b\")",
    "multiple": "모두 고르기 — 선택지 id 목록 (예: [\"a\", \"c\"])",
    "numeric": "수치 답 — 문자열이나 수 (예: \"8192\")",
    "code": "코드 빈칸 — {빈칸 id: 코드} (예: {\"b1\": \"row\"})",
    "free": "서술형 — 문자열",
}


# ---------------------------------------------------------------------------- export

def _template_answer(q: dict):
    return {"single": None, "multiple": [], "numeric": "", "free": ""}.get(
        q["type"], {b: "" for b in q.get("blanks", [])})


def form_document(bank: Bank) -> dict:
    view = student_view(bank)
    return {
        "format": FORM_FORMAT,
        "version": 1,
        **view,
        "submission_template": {
            "format": FORMAT, "version": 1, "client": "form",
            "student": {"id": "", "name": ""}, "module": bank.module, "bank_hash": bank.digest,
            "started_at": "", "submitted_at": "",
            "answers": {q["id"]: _template_answer(q) for q in view["questions"]},
            "self_assessment": {}, "integrity": None,
        },
    }


def form_markdown(bank: Bank) -> str:
    """A readable student form (no answers) in Markdown."""
    view = student_view(bank)
    lines = [f"# 모듈 {bank.module} 퀴즈: {bank.title}", "",
             f"문제 은행 해시(bank hash): `{bank.digest[:16]}`", "",
             "사이트나 JupyterLab에서 풀고 **제출 파일 내려받기**로 받은 JSON 파일을 내세요. "
             "종이로 풀 때는 같은 폴더의 JSON 양식에 있는 `submission_template`을 채워서 내도 됩니다.", ""]
    for number, q in enumerate(view["questions"], 1):
        lines += [f"## {number}. `{q['id']}` ({TYPE_HELP[q['type']].split(' — ')[0]}, 블룸 수준: {q['bloom']})", "",
                  q["prompt"].rstrip(), ""]
        if q["type"] in ("single", "multiple"):
            lines += [f"- **{c['id']}**: {c['text']}" for c in q["choices"]] + [""]
        elif q["type"] == "numeric":
            lines += [f"답: ________ {q['unit']}", ""]
        elif q["type"] == "code":
            lines += ["```", q["code"], "```", "", "빈칸: " + ", ".join(q["blanks"]), ""]
        else:
            lines += ["답 (서술형):", "", "> ", ""]
        lines += [f"답하는 형식: {TYPE_HELP[q['type']]}", ""]
    return "\n".join(lines)


def export_form(bank: Bank, out_dir: str | os.PathLike) -> list[Path]:
    """Write mNN_form.json (no answers, with a submission template) and mNN_form.md."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"m{bank.module:02d}_form"
    json_path, md_path = out / f"{stem}.json", out / f"{stem}.md"
    json_path.write_text(json.dumps(form_document(bank), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    md_path.write_text(form_markdown(bank), encoding="utf-8")
    return [json_path, md_path]


def key_markdown(bank: Bank) -> str:
    key = answer_key(bank)
    lines = [f"# 모듈 {bank.module} 정답지(answer key): {bank.title}", "",
             f"문제 은행 해시(bank hash): `{bank.digest[:16]}`", ""]
    for q in key["questions"]:
        lines.append(f"## `{q['id']}` ({q['type']}, {q['bloom']})")
        lines.append("")
        if "correct" in q:
            lines.append("정답: " + ", ".join(q["correct"]))
        elif "answer" in q:
            a = q["answer"]
            lines.append(f"정답: {a['value']:g} {a['unit']} (허용 오차 ±{a['tolerance']:g})")
        elif "blanks" in q:
            lines += [f"- {b}: " + " / ".join(f"`{x}`" for x in accept) for b, accept in q["blanks"].items()]
        else:
            lines += ["모범 답안:", "", q["model_answer"], "", "채점 기준:"] + [f"- {r}" for r in q["rubric"]]
        lines += ["", "해설: " + q["explanation"].strip(), ""]
    return "\n".join(lines)


def export_key(bank: Bank, out_file: str | os.PathLike) -> Path:
    """The answer key as JSON, or as Markdown when out_file ends with .md."""
    path = Path(out_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".md":
        path.write_text(key_markdown(bank), encoding="utf-8")
    else:
        path.write_text(json.dumps({"format": KEY_FORMAT, "version": 1, **answer_key(bank)},
                                   ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- grading

@dataclass
class GradedSubmission:
    path: Path
    student_id: str
    student_name: str
    submitted_at: str
    result: QuizResult
    notes: list = field(default_factory=list)


@dataclass
class GradeReport:
    bank: Bank
    graded: list = field(default_factory=list)      # GradedSubmission, one per student
    skipped: list = field(default_factory=list)     # (path, Korean reason)
    notes: list = field(default_factory=list)       # (path or "", Korean note) for graded files

    def lines(self) -> list[str]:
        out = [f"채점(graded): {len(self.graded)}개, 건너뜀(skipped): {len(self.skipped)}개"]
        out += [f"  건너뜀  {p}: {reason}" for p, reason in self.skipped]
        out += [f"  참고    {p}: {note}" for p, note in self.notes]
        return out


def load_manual_marks(path: str | os.PathLike, bank: Bank) -> tuple[dict, list[str]]:
    """{student_id: {qid: mark}} and the problems found (Korean)."""
    marks: dict = {}
    problems: list[str] = []
    free_ids = {q.id for q in bank.questions if q.type == "free"}
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return {}, [f"수동 채점 파일을 읽을 수 없습니다: {exc}"]
    for number, row in enumerate(rows, 2):
        sid = (row.get("student_id") or "").strip()
        qid = (row.get("question_id") or "").strip()
        raw = (row.get("mark") or "").strip()
        if not sid or not qid:
            problems.append(f"{path}:{number}: student_id와 question_id가 있어야 합니다")
            continue
        if qid not in free_ids:
            problems.append(f"{path}:{number}: {qid}는 이 모듈의 서술형 문항이 아닙니다 (무시함)")
            continue
        try:
            mark = float(raw)
        except ValueError:
            mark = -1.0
        if not 0.0 <= mark <= 1.0:
            problems.append(f"{path}:{number}: mark는 0과 1 사이의 수여야 합니다 (받은 값: {raw!r})")
            continue
        marks.setdefault(sid, {})[qid] = mark
    return marks, problems


def _read_submission(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8-sig")), None
    except UnicodeDecodeError:
        return None, "UTF-8 텍스트가 아닙니다"
    except json.JSONDecodeError as exc:
        return None, f"JSON 형식이 잘못되었습니다 ({exc.msg}, {exc.lineno}행)"
    except (ValueError, RecursionError) as exc:
        return None, f"JSON을 읽을 수 없습니다 ({type(exc).__name__})"
    except OSError as exc:
        return None, f"파일을 읽을 수 없습니다 ({exc})"


def grade_folder(bank: Bank, folder: str | os.PathLike, pass_count: int | None,
                 manual_marks: dict | None = None, require_integrity: bool = False) -> GradeReport:
    """Grade every *.json under folder (recursively, sorted) against bank."""
    report = GradeReport(bank)
    manual_marks = manual_marks or {}
    candidates: dict[str, list[GradedSubmission]] = {}
    for path in sorted(Path(folder).rglob("*.json")):
        doc, error = _read_submission(path)
        if error:
            report.skipped.append((path, error))
            continue
        problems = check_submission(doc, bank)
        if problems:
            report.skipped.append((path, "; ".join(problems)))
            continue
        integrity = integrity_status(doc)
        if integrity == "mismatch":
            report.skipped.append((path, "무결성 값(integrity)이 내용과 맞지 않습니다 — 파일이 수정된 것으로 보입니다"))
            continue
        notes = []
        if integrity == "absent":
            if require_integrity:
                report.skipped.append((path, "무결성 값(integrity)이 없습니다 (--require-integrity)"))
                continue
            notes.append("무결성 값(integrity)이 없어 수정 여부를 확인하지 못했습니다")
        if doc.get("bank_hash") != bank.digest:
            notes.append("제출할 때의 문제 은행과 지금의 문제 은행이 다릅니다 (bank_hash 불일치); 지금 은행으로 채점했습니다")
        sid = doc["student"]["id"].strip()
        result = grade_quiz(bank.questions, doc["answers"], None, pass_count, mode="instructor",
                            manual_marks=manual_marks.get(sid))
        candidates.setdefault(sid, []).append(GradedSubmission(
            path, sid, str(doc["student"].get("name", "")).strip(), doc["submitted_at"], result, notes))
    for sid in sorted(candidates):
        versions = sorted(candidates[sid], key=lambda g: (parse_time(g.submitted_at), str(g.path)))
        latest = versions[-1]
        for older in versions[:-1]:
            report.skipped.append((older.path, f"같은 학생({sid})의 더 늦은 제출 {latest.path.name}이 있어 중복으로 건너뜁니다"))
        report.graded.append(latest)
        report.notes += [(latest.path, note) for note in latest.notes]
    return report


def _mark(result) -> str:
    if result.status == "pending":
        return "pending"
    return _number(result.score)


def _number(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def _passed_text(result: QuizResult) -> str:
    return {"passed": "yes", "failed": "no", "pending": "pending", "": ""}[result.pass_status]


def write_gradebook(report: GradeReport, path: str | os.PathLike) -> Path:
    """student_id, student_name, module, score, max_score, correct_count, passed
    (yes/no/pending, empty when the module has no pass rule), attempt_time, then one
    column per question id (mark 0..1 or "pending")."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ids = list(report.bank.ids)
    with open(path, "w", newline="", encoding="utf-8-sig") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student_id", "student_name", "module", "score", "max_score", "correct_count",
                         "passed", "attempt_time", *ids])
        for g in report.graded:
            marks = g.result.by_id()
            writer.writerow([g.student_id, g.student_name, report.bank.module, _number(g.result.score),
                             g.result.max_score, g.result.correct_count, _passed_text(g.result),
                             g.submitted_at, *[_mark(marks[qid]) for qid in ids]])
    return path


def write_difficulty(report: GradeReport, path: str | os.PathLike) -> Path:
    """Per question: fraction fully correct, mean score and count (over graded, non-pending
    answers), and how many are still pending."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8-sig") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question_id", "type", "bloom", "count", "fraction_correct", "mean_score", "pending"])
        for q in report.bank.questions:
            results = [g.result.by_id()[q.id] for g in report.graded]
            marked = [r for r in results if r.status != "pending"]
            count = len(marked)
            fraction = _number(sum(r.correct for r in marked) / count) if count else ""
            mean = _number(sum(r.score for r in marked) / count) if count else ""
            writer.writerow([q.id, q.type, q.bloom, count, fraction, mean, len(results) - count])
    return path
