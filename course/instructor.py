"""Instructor tools: export forms and keys, grade a folder of submissions, write CSVs
that are safe to open in a spreadsheet.

Grading is authoritative from the bank: every submission is re-graded with
course.grading in "instructor" mode (self-assessments never count; free items stay
"pending" unless a manual mark is given). Scores written inside a submission are ignored.

Files that cannot be graded are skipped and listed, never raised: symbolic links (never
followed, so nothing outside the submissions folder is read), anything that is not a
regular file, files that are not ``*.json``, files over MAX_SUBMISSION_BYTES, unreadable
or malformed JSON, not a submission, newer format, wrong module, unknown question ids,
missing student id, integrity mismatch (tampered), and duplicates (same student and
module: the latest ``submitted_at`` is kept, the others are listed). Graded files with
something to know (no integrity digest, a changed bank, a choice order that does not match
its seed) are listed too. ``write_problems`` writes the whole list as a CSV.

Every CSV goes through ``write_safe_csv``: text cells that a spreadsheet would run as a
formula are neutralised (``safe_cell``), numbers stay numbers. Other modules that write
CSVs for instructors should use the same two functions.

Manual marks CSV (``--manual-marks``): columns ``student_id,question_id,mark`` (an
optional ``comment`` column is ignored); ``mark`` is a fraction of the question between
0 and 1 (``1``, ``0.5``, ``0``). Only free-answer questions take manual marks.
"""
from __future__ import annotations

import csv
import json
import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from course.bank import Bank, answer_key, student_view
from course.grading import QuizResult, grade_quiz
from korean_text import with_particle
from course.shuffle import shuffled_ids
from course.submission import FORMAT, check_submission, integrity_status, parse_time

__all__ = [
    "FORMULA_TRIGGERS",
    "GradeReport",
    "GradedSubmission",
    "MAX_SUBMISSION_BYTES",
    "Problem",
    "export_form",
    "export_key",
    "form_markdown",
    "grade_folder",
    "load_manual_marks",
    "problems_path_for",
    "safe_cell",
    "write_difficulty",
    "write_gradebook",
    "write_problems",
    "write_safe_csv",
]

FORM_FORMAT = "sgemm-course-form"
KEY_FORMAT = "sgemm-course-key"
MAX_SUBMISSION_BYTES = 5 * 1024 * 1024      # a real submission is a few KiB
TYPE_HELP = {
    "single": "하나 고르기 — 선택지 id 하나를 문자열로 (예: \"b\")",
    "multiple": "모두 고르기 — 선택지 id 목록 (예: [\"a\", \"c\"])",
    "numeric": "수치 답 — 문자열이나 수 (예: \"8192\")",
    "code": "코드 빈칸 — {빈칸 id: 코드} (예: {\"b1\": \"row\"})",
    "free": "서술형 — 문자열",
}


# ---------------------------------------------------------------------------- spreadsheet-safe CSV

# A cell starting with one of these is read as a formula by Excel, LibreOffice or Google Sheets
# (OWASP "CSV Injection"); the full-width forms are included because some spreadsheet setups
# (East Asian input) convert them to their ASCII twins.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def safe_cell(value):
    """One CSV cell that a spreadsheet shows and never runs.

    Numbers (int or finite float, not bool) stay numbers, so negative values in numeric
    columns are untouched (floats are rounded to 4 decimals, integral ones written as ints).
    Everything else becomes text; text that starts with a formula trigger (also after leading
    whitespace) gets a leading apostrophe, as OWASP recommends: ``=1+1`` -> ``'=1+1``,
    ``-3`` (text) -> ``'-3``. None is the empty cell.
    """
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        if isinstance(value, float):
            return int(value) if value.is_integer() else round(value, 4)
        return value
    text = str(value)
    if text[:1] in FORMULA_TRIGGERS or text.lstrip()[:1] in FORMULA_TRIGGERS:
        return "'" + text
    return text


def write_safe_csv(path: str | os.PathLike, header, rows) -> Path:
    """Write a CSV for spreadsheets: UTF-8 with BOM (Excel reads the Korean), every cell through
    safe_cell, every text cell in double quotes (so a separator or quote inside a value cannot
    start a new cell, whatever separator the spreadsheet assumes), numbers unquoted."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8-sig") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_NONNUMERIC)
        writer.writerow([safe_cell(cell) for cell in header])
        for row in rows:
            writer.writerow([safe_cell(cell) for cell in row])
    return path


def _unneutralised(text: str) -> str:
    """A value read back from one of our CSVs, without the apostrophe safe_cell added."""
    if text.startswith("'") and (text[1:2] in FORMULA_TRIGGERS or text[1:].lstrip()[:1] in FORMULA_TRIGGERS):
        return text[1:]
    return text


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
    notes: list = field(default_factory=list)     # (kind, Korean note)


@dataclass
class Problem:
    """One file (or manual-marks row) that was skipped, ignored or graded with a note."""
    file: str            # path relative to the submissions folder (or the manual-marks file and line)
    outcome: str         # skipped | graded | ignored
    kind: str            # stable English code, see PROBLEM_KINDS
    reason: str          # Korean explanation
    student_id: str = ""


PROBLEM_KINDS = {
    "symlink": "symbolic link, never followed",
    "not_regular_file": "a folder link target, FIFO, device or socket",
    "not_json": "not a *.json file",
    "too_large": f"over {MAX_SUBMISSION_BYTES} bytes",
    "unreadable": "cannot be read or is not UTF-8 text",
    "malformed": "not valid JSON, or not a valid submission for this module",
    "tampered": "integrity digest does not match the content",
    "no_integrity": "no integrity digest (skipped with --require-integrity, else graded)",
    "duplicate": "an older submission of a student who submitted again",
    "bank_changed": "answered on another version of the bank (graded with the current one)",
    "order_mismatch": "the recorded choice order is not the one its seed gives",
    "manual_mark": "a row of the manual-marks file that was not applied",
}


@dataclass
class GradeReport:
    bank: Bank
    folder: Path | None = None
    graded: list = field(default_factory=list)      # GradedSubmission, one per student
    problems: list = field(default_factory=list)    # Problem

    @property
    def skipped(self) -> list:
        return [p for p in self.problems if p.outcome == "skipped"]

    @property
    def notes(self) -> list:
        return [p for p in self.problems if p.outcome == "graded"]

    def add(self, path, outcome: str, kind: str, reason: str, student_id: str = "") -> None:
        self.problems.append(Problem(self._name(path), outcome, kind, reason, student_id))

    def _name(self, path) -> str:
        if isinstance(path, Path) and self.folder is not None:
            try:
                return path.relative_to(self.folder).as_posix()
            except ValueError:
                pass
        return str(path)

    def lines(self) -> list[str]:
        label = {"skipped": "건너뜀", "graded": "참고  ", "ignored": "무시함"}
        out = [f"채점(graded): {len(self.graded)}개, 건너뜀(skipped): {len(self.skipped)}개"]
        out += [f"  {label[p.outcome]}  {p.file}: {p.reason}" for p in self.problems]
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
        sid = _unneutralised((row.get("student_id") or "").strip())
        qid = (row.get("question_id") or "").strip()
        raw = (row.get("mark") or "").strip()
        if not sid or not qid:
            problems.append(f"{path}:{number}: student_id와 question_id가 있어야 합니다")
            continue
        if qid not in free_ids:
            problems.append(f"{path}:{number}: {with_particle(qid, '는')} 이 모듈의 서술형 문항이 아닙니다 (무시함)")
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


def _candidate_files(report: GradeReport, folder: Path) -> list[Path]:
    """Regular *.json files under folder, without following any symbolic link; everything
    else found on the way is listed in the report."""
    found = []

    def unreadable_folder(error: OSError) -> None:
        report.add(Path(error.filename), "skipped", "unreadable", f"폴더를 읽을 수 없습니다 ({error.strerror})")

    for top, dirs, files in os.walk(folder, onerror=unreadable_folder, followlinks=False):
        top_path = Path(top)
        for name in sorted(dirs):
            if (top_path / name).is_symlink():
                report.add(top_path / name, "skipped", "symlink",
                           "심볼릭 링크(symbolic link)인 폴더는 따라가지 않습니다")
        dirs[:] = sorted(d for d in dirs if not (top_path / d).is_symlink())
        for name in sorted(files):
            path = top_path / name
            try:
                info = path.lstat()
            except OSError as exc:
                report.add(path, "skipped", "unreadable", f"파일 정보를 읽을 수 없습니다 ({exc.strerror})")
                continue
            if stat.S_ISLNK(info.st_mode):
                report.add(path, "skipped", "symlink", "심볼릭 링크(symbolic link)는 따라가지 않습니다")
            elif not stat.S_ISREG(info.st_mode):
                report.add(path, "skipped", "not_regular_file", "일반 파일이 아닙니다 (FIFO, 장치, 소켓 등)")
            elif path.suffix.lower() != ".json":
                report.add(path, "skipped", "not_json", "제출 파일(*.json)이 아닙니다")
            elif info.st_size > MAX_SUBMISSION_BYTES:
                report.add(path, "skipped", "too_large",
                           f"제출 파일로 보기에 너무 큽니다 ({info.st_size:,} B > {MAX_SUBMISSION_BYTES:,} B)")
            else:
                found.append(path)
    return sorted(found)


def _read_bytes_nofollow(path: Path) -> bytes:
    """The file's bytes; refuses a path that became a symbolic link or a non-regular file
    after it was listed (O_NOFOLLOW where the system has it)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(0, "일반 파일이 아닙니다")
        chunks, left = [], MAX_SUBMISSION_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _read_submission(path: Path):
    """(document, None) or (None, (kind, Korean reason))."""
    try:
        raw = _read_bytes_nofollow(path)
    except OSError as exc:
        return None, ("unreadable", f"파일을 읽을 수 없습니다 ({exc.strerror or exc})")
    if len(raw) > MAX_SUBMISSION_BYTES:
        return None, ("too_large", f"제출 파일로 보기에 너무 큽니다 (> {MAX_SUBMISSION_BYTES:,} B)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None, ("unreadable", "UTF-8 텍스트가 아닙니다")
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, ("malformed", f"JSON 형식이 잘못되었습니다 ({exc.msg}, {exc.lineno}행)")
    except (ValueError, RecursionError) as exc:
        return None, ("malformed", f"JSON을 읽을 수 없습니다 ({type(exc).__name__})")


def _order_mismatches(doc: dict, bank: Bank) -> list[str]:
    """Question ids whose recorded choice order is not the one its seed gives."""
    presentation = doc.get("presentation")
    if not isinstance(presentation, dict):
        return []
    learner, attempt = presentation["learner"], presentation["attempt"]
    wrong = []
    for qid, shown in presentation["choice_order"].items():
        q = next((q for q in bank.questions if q.id == qid), None)
        if q is None or not q.choices or shown != shuffled_ids([c.id for c in q.choices], learner, attempt, qid):
            wrong.append(qid)
    return wrong


def _notes_for(doc: dict, bank: Bank, integrity: str) -> list[tuple]:
    notes = []
    if integrity == "absent":
        notes.append(("no_integrity", "무결성 값(integrity)이 없어 수정 여부를 확인하지 못했습니다"))
    if doc.get("bank_hash") != bank.digest:
        notes.append(("bank_changed", "제출할 때의 문제 은행과 지금의 문제 은행이 다릅니다 (bank_hash 불일치); "
                                      "지금 은행으로 채점했습니다"))
    else:
        wrong = _order_mismatches(doc, bank)
        if wrong:
            notes.append(("order_mismatch", "기록된 선택지 순서가 시드(learner, attempt)로 만든 순서와 다릅니다: "
                                            + ", ".join(wrong)))
    return notes


def grade_folder(bank: Bank, folder: str | os.PathLike, pass_count: int | None,
                 manual_marks: dict | None = None, require_integrity: bool = False) -> GradeReport:
    """Grade every regular *.json under folder (recursively, sorted, never through a symbolic
    link) against bank; everything else found there is listed in report.problems."""
    folder = Path(folder)
    report = GradeReport(bank, folder)
    manual_marks = manual_marks or {}
    candidates: dict[str, list[GradedSubmission]] = {}
    for path in _candidate_files(report, folder):
        doc, error = _read_submission(path)
        if error:
            report.add(path, "skipped", *error)
            continue
        problems = check_submission(doc, bank)
        sid = _student_of(doc)
        if problems:
            report.add(path, "skipped", "malformed", "; ".join(problems), sid)
            continue
        integrity = integrity_status(doc)
        if integrity == "mismatch":
            report.add(path, "skipped", "tampered",
                       "무결성 값(integrity)이 내용과 맞지 않습니다 — 파일이 수정된 것으로 보입니다", sid)
            continue
        if integrity == "absent" and require_integrity:
            report.add(path, "skipped", "no_integrity", "무결성 값(integrity)이 없습니다 (--require-integrity)", sid)
            continue
        result = grade_quiz(bank.questions, doc["answers"], None, pass_count, mode="instructor",
                            manual_marks=manual_marks.get(sid))
        candidates.setdefault(sid, []).append(GradedSubmission(
            path, sid, str(doc["student"].get("name", "")).strip(), doc["submitted_at"], result,
            _notes_for(doc, bank, integrity)))
    for sid in sorted(candidates):
        versions = sorted(candidates[sid], key=lambda g: (parse_time(g.submitted_at), str(g.path)))
        latest = versions[-1]
        for older in versions[:-1]:
            report.add(older.path, "skipped", "duplicate",
                       f"같은 학생({sid})의 더 늦은 제출 {report._name(latest.path)}이 있어 중복으로 건너뜁니다", sid)
        report.graded.append(latest)
        for kind, note in latest.notes:
            report.add(latest.path, "graded", kind, note, sid)
    return report


def _student_of(doc) -> str:
    student = doc.get("student") if isinstance(doc, dict) else None
    sid = student.get("id") if isinstance(student, dict) else None
    return sid.strip() if isinstance(sid, str) else ""


def _mark(result):
    if result.status == "pending":
        return "pending"
    return result.score


def _passed_text(result: QuizResult) -> str:
    return {"passed": "yes", "failed": "no", "pending": "pending", "": ""}[result.pass_status]


def write_gradebook(report: GradeReport, path: str | os.PathLike) -> Path:
    """student_id, student_name, module, score, max_score, correct_count, passed
    (yes/no/pending, empty when the module has no pass rule), attempt_time, then one
    column per question id (mark 0..1 or "pending")."""
    ids = list(report.bank.ids)
    header = ["student_id", "student_name", "module", "score", "max_score", "correct_count",
              "passed", "attempt_time", *ids]
    rows = []
    for g in report.graded:
        marks = g.result.by_id()
        rows.append([g.student_id, g.student_name, report.bank.module, g.result.score, g.result.max_score,
                     g.result.correct_count, _passed_text(g.result), g.submitted_at,
                     *[_mark(marks[qid]) for qid in ids]])
    return write_safe_csv(path, header, rows)


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


def problems_path_for(gradebook: str | os.PathLike) -> Path:
    """Where the problems CSV goes by default: beside the gradebook (gradebook_problems.csv)."""
    gradebook = Path(gradebook)
    return gradebook.with_name(f"{gradebook.stem}_problems.csv")


def write_problems(problems, path: str | os.PathLike) -> Path:
    """file, student_id, outcome (skipped/graded/ignored), kind (see PROBLEM_KINDS), reason.
    Written even when empty (header only), so an empty file means "checked, nothing found"."""
    rows = [[p.file, p.student_id, p.outcome, p.kind, p.reason] for p in problems]
    return write_safe_csv(path, ["file", "student_id", "outcome", "kind", "reason"], rows)
