"""Grading a folder of quiz submissions (``python -m course grade``): every file judged alone, the
latest submission of each student kept, everything else listed as a problem.

Grading is authoritative from the bank: every submission is re-graded with
course.quiz.grading in "instructor" mode (self-assessments never count; free items stay
"pending" unless a manual mark is given). Scores written inside a submission are ignored.

Every file is judged alone: whatever one file holds (deep nesting, huge numbers such as a 400-digit
integer or 1e400, NaN, values of the wrong type, lone surrogates in its text) and whatever its name
is made of (bytes that are not UTF-8, such as a CP949 name from a Korean Windows ZIP, control or
bidirectional characters), it is graded or listed, never the end of the run. Files that cannot be graded are
skipped and listed: symbolic links and hard links whose other names lie outside the folder (never
followed, so nothing outside the submissions folder is read), anything that is not a regular file,
files that are not ``*.json``, files over MAX_SUBMISSION_BYTES, unreadable, malformed or too deeply
nested JSON, not a submission, newer format, wrong module, unknown question ids, missing student id,
integrity mismatch (tampered), and duplicates (same student and module: the latest ``submitted_at``
is kept, the others are listed; equal times say so and are broken by attempt number, then file
name). Graded files with something to know are listed too: no integrity digest, a changed bank, a
choice order or variant that does not match its seed, a ``submitted_at`` in the future, a file name
that names another student, one anonymous learner id under several student ids, a file name or a
student id that had to be shown escaped, an attempt number above the course's attempt limit. The
gradebook shows the attempt number, the file and those warnings per student. course.instructor.problems
writes the whole list as a CSV, course.instructor.gradebook the gradebook and the summary.

Every CSV goes through course.instructor.safe_text.write_safe_csv (cells a spreadsheet never runs, control
characters and undecodable bytes made visible, the file replaced in one step); terminal output goes
through ``printable`` and file names through ``shown_name``. Other modules that write CSVs for
instructors should use the same functions.

Manual marks CSV (``--manual-marks``): columns ``student_id,question_id,mark`` (an
optional ``comment`` column is ignored); ``mark`` is a fraction of the question between
0 and 1 (``1``, ``0.5``, ``0``). Only free-answer questions take manual marks; a student and
question given twice is a listed problem, and neither row is applied.
"""
from __future__ import annotations

import csv
import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from course.instructor.files import read_bytes_nofollow, regular_files
from course.instructor.problems import Problem, problem_count_line
from course.instructor.safe_text import name_note, printable, shown_name, unneutralised as _unneutralised
from course.quiz.bank import Bank
from course.quiz.grading import QuizResult, grade_quiz
from course.quiz.shuffle import shuffled_ids
from course.quiz.submission import check_submission, integrity_status, json_depth, parse_time
from course.quiz.variants import questions_for_submission, variant_mismatches
from korean_text import with_particle

__all__ = [
    "GradeReport",
    "GradedSubmission",
    "MAX_SUBMISSION_BYTES",
    "PROBLEM_KINDS",
    "grade_folder",
    "load_manual_marks",
]

MAX_SUBMISSION_BYTES = 5 * 1024 * 1024      # a real submission is a few KiB


@dataclass
class GradedSubmission:
    path: Path
    student_id: str
    student_name: str
    submitted_at: str
    result: QuizResult
    notes: list = field(default_factory=list)     # (kind, Korean note)
    attempt: int | None = None                    # the learner's attempt number (presentation.attempt)
    learner: str = ""                             # the anonymous learner id that seeded the presentation
    file: str = ""                                # path inside the submissions folder



PROBLEM_KINDS = {
    "symlink": "symbolic link, never followed",
    "hardlink": "hard link whose other name lies outside the folder, never read",
    "not_regular_file": "a folder link target, FIFO, device or socket",
    "not_json": "not a *.json file",
    "too_large": f"over {MAX_SUBMISSION_BYTES} bytes",
    "unreadable": "cannot be read or is not UTF-8 text",
    "malformed": "not valid JSON, nested too deeply, or not a valid submission for this module",
    "unjudgeable": "an unexpected error while grading this one file (the others were graded)",
    "tampered": "integrity digest does not match the content",
    "no_integrity": "no integrity digest (skipped with --require-integrity, else graded)",
    "duplicate": "an older submission of a student who submitted again",
    "duplicate_tie": "submissions of one student with the same submitted_at (the tie-break is named)",
    "bank_changed": "answered on another version of the bank (graded with the current one)",
    "order_mismatch": "the recorded choice order is not the one its seed gives",
    "variant_mismatch": "the recorded variant parameters are not the ones its seed gives (graded with the seed's)",
    "future_time": "submitted_at lies in the future",
    "id_mismatch": "the file name names another student id than the file's content",
    "shared_learner": "one anonymous learner id appears under several student ids",
    "odd_file_name": "the file name is not UTF-8 or holds control/bidi characters (shown escaped; graded)",
    "odd_student_id": "the student id or name holds control/bidi characters or lone surrogates (shown escaped)",
    "attempts_over_limit": "the recorded attempt number is above the attempt limit (--attempt-limit)",
    "manual_mark": "a row of the manual-marks file that was not applied",
}
MAX_JSON_DEPTH = 32                 # a real submission nests 4 levels deep
FUTURE_SLACK = timedelta(minutes=10)
_SITE_FILE_NAME = re.compile(r"^m\d{2}_(.+)_\d{8}T\d{6}Z\.json$", re.IGNORECASE)


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
        """List one problem. A skipped file whose name is odd (not UTF-8, control characters) says so
        in its reason; a graded one gets its own odd_file_name note instead."""
        if outcome != "graded" and isinstance(path, Path):
            odd = name_note(self._relative(path))
            if odd:
                reason = f"{reason} ({odd})"
        self.problems.append(Problem(self._name(path), outcome, kind, reason, student_id))

    def _relative(self, path: Path):
        if self.folder is not None:
            try:
                return path.relative_to(self.folder)
            except ValueError:
                pass
        return path

    def _name(self, path) -> str:
        """The path inside the submissions folder, shown safely (course.instructor.safe_text.shown_name)."""
        if isinstance(path, Path) and self.folder is not None:
            try:
                return shown_name(path.relative_to(self.folder).as_posix())
            except ValueError:
                pass
        return shown_name(path)

    def lines(self) -> list[str]:
        """The report for a terminal: ids, names and reasons with their control characters made visible."""
        label = {"skipped": "건너뜀", "graded": "참고  ", "ignored": "무시함"}
        out = [f"채점(graded): {len(self.graded)}개, 건너뜀(skipped): {len(self.skipped)}개"]
        out += [f"  {label[p.outcome]}  {printable(p.file)}: {printable(p.reason)}" for p in self.problems]
        out.append(problem_count_line(self.problems))
        return out


def load_manual_marks(path: str | os.PathLike, bank: Bank) -> tuple[dict, list[str]]:
    """{student_id: {qid: mark}} and the problems found (Korean). A student and question given on
    more than one row is a problem, and none of those rows is applied (which one was meant?)."""
    marks: dict = {}
    problems: list[str] = []
    free_ids = {q.id for q in bank.questions if q.type == "free"}
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return {}, [f"수동 채점 파일을 읽을 수 없습니다: {exc}"]
    lines_of: dict = {}
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
        lines_of.setdefault((sid, qid), []).append(number)
        marks.setdefault(sid, {})[qid] = mark
    for (sid, qid), numbers in lines_of.items():
        if len(numbers) > 1:
            del marks[sid][qid]
            problems.append(f"{path}:{', '.join(map(str, numbers))}: 학번 {sid}의 {qid} 점수가 여러 줄에 있어 어느 것도 "
                            "쓰지 않았습니다 (중복, duplicate); 한 줄만 남기세요")
    return {sid: m for sid, m in marks.items() if m}, problems


# ---------------------------------------------------------------------------- reading one file

def _read_submission(path: Path):
    """(document, None) or (None, (kind, Korean reason))."""
    try:
        raw = read_bytes_nofollow(path, MAX_SUBMISSION_BYTES)
    except OSError as exc:
        return None, ("unreadable", f"파일을 읽을 수 없습니다 ({exc.strerror or exc})")
    if len(raw) > MAX_SUBMISSION_BYTES:
        return None, ("too_large", f"제출 파일로 보기에 너무 큽니다 (> {MAX_SUBMISSION_BYTES:,} B)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None, ("unreadable", "UTF-8 텍스트가 아닙니다")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, ("malformed", f"JSON 형식이 잘못되었습니다 ({exc.msg}, {exc.lineno}행)")
    except RecursionError:
        return None, ("malformed", "값이 너무 깊게 중첩되어 있어 읽지 않았습니다; 제출 파일이 아닙니다")
    except ValueError as exc:
        return None, ("malformed", f"JSON을 읽을 수 없습니다 ({type(exc).__name__}: {printable(str(exc))[:120]})")
    if json_depth(doc, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        return None, ("malformed", f"값이 너무 깊게 중첩되어 있습니다 ({MAX_JSON_DEPTH}단계 초과); 제출 파일이 아닙니다")
    return doc, None


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


def _claimed_id_problem(path: Path, sid: str) -> str | None:
    """The site names a file m06_<id>_<time>.json: another id there than inside is worth a look."""
    from course.quiz.submission import safe_student_id

    m = _SITE_FILE_NAME.match(path.name)
    if not m:
        return None
    if m.group(1) != safe_student_id(sid):
        return (f"파일 이름의 학번({printable(m.group(1))})과 파일 안의 학번({printable(sid)})이 다릅니다: 다른 학생의 "
                "학번을 적은 파일인지 확인하세요")
    return None


def _odd_text_notes(report: GradeReport, path: Path, doc: dict) -> list[tuple]:
    """Notes on a graded file whose name or student id/name had to be shown escaped."""
    notes = []
    odd = name_note(report._relative(path))
    if odd:
        notes.append(("odd_file_name", odd))
    student = doc.get("student") or {}
    shown = [(label, value) for label, value in (("학번(student.id)", student.get("id")),
                                                 ("이름(student.name)", student.get("name")))
             if isinstance(value, str) and printable(value) != value]
    if shown:
        notes.append(("odd_student_id", ", ".join(f"{label} {printable(value)}" for label, value in shown)
                      + "에 제어 문자, 방향 바꿈 문자(bidi)나 짝 없는 서러게이트(lone surrogate)가 있어 보이게 적었습니다: "
                        "학생이 적은 값인지 확인하세요"))
    return notes


def _attempt_note(attempt, limit: int | None) -> list[tuple]:
    if limit is None or not isinstance(attempt, int) or attempt <= limit:
        return []
    return [("attempts_over_limit", f"시도 번호(attempt)가 {attempt}(으)로 허용 횟수 {limit}회를 넘습니다 "
                                    "(attempt_limit); 시도 번호는 학생의 브라우저가 센 값입니다")]


def _notes_for(doc: dict, bank: Bank, integrity: str, path: Path, now: datetime) -> list[tuple]:
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
        wrong = variant_mismatches(bank.questions, doc.get("presentation"))
        if wrong:
            notes.append(("variant_mismatch", "기록된 변형 문항의 값이 시드(learner, attempt)로 뽑은 값과 다릅니다: "
                                              + ", ".join(wrong) + "; 시드의 값으로 채점했습니다"))
    moment = parse_time(doc["submitted_at"])
    if moment > now + FUTURE_SLACK:
        notes.append(("future_time", f"제출 시각(submitted_at {printable(doc['submitted_at'])})이 채점하는 지금보다 "
                                     "미래입니다: 손으로 고친 파일인지 확인하세요"))
    claimed = _claimed_id_problem(path, _student_of(doc))
    if claimed:
        notes.append(("id_mismatch", claimed))
    return notes


def _judge_file(report: GradeReport, path: Path, bank: Bank, pass_count, manual_marks: dict,
                require_integrity: bool, now: datetime, attempt_limit: int | None = None) -> GradedSubmission | None:
    doc, error = _read_submission(path)
    if error:
        report.add(path, "skipped", *error)
        return None
    problems = check_submission(doc, bank)
    sid = _student_of(doc)
    if problems:
        report.add(path, "skipped", "malformed", "; ".join(problems), sid)
        return None
    integrity = integrity_status(doc)
    if integrity == "mismatch":
        report.add(path, "skipped", "tampered",
                   "무결성 값(integrity)이 내용과 맞지 않습니다 — 파일이 수정된 것으로 보입니다", sid)
        return None
    if integrity == "absent" and require_integrity:
        report.add(path, "skipped", "no_integrity", "무결성 값(integrity)이 없습니다 (--require-integrity)", sid)
        return None
    presentation = doc.get("presentation") if isinstance(doc.get("presentation"), dict) else {}
    questions = questions_for_submission(bank.questions, presentation) if presentation else list(bank.questions)
    result = grade_quiz(questions, doc["answers"], None, pass_count, mode="instructor",
                        manual_marks=manual_marks.get(sid))
    notes = (_notes_for(doc, bank, integrity, path, now) + _odd_text_notes(report, path, doc)
             + _attempt_note(presentation.get("attempt"), attempt_limit))
    return GradedSubmission(path, sid, str(doc["student"].get("name", "")).strip(), doc["submitted_at"], result,
                            notes, presentation.get("attempt"), presentation.get("learner", ""), report._name(path))


def grade_folder(bank: Bank, folder: str | os.PathLike, pass_count: int | None,
                 manual_marks: dict | None = None, require_integrity: bool = False,
                 now: datetime | None = None, attempt_limit: int | None = None) -> GradeReport:
    """Grade every regular *.json under folder (recursively, sorted, never through a link) against
    bank; everything else found there is listed in report.problems. One file's trouble, of whatever
    kind, is that file's problem: the others are graded. attempt_limit: a graded submission whose
    recorded attempt number is above it gets the note attempts_over_limit (None: no limit)."""
    folder = Path(folder)
    report = GradeReport(bank, folder)
    manual_marks = manual_marks or {}
    now = now or datetime.now(timezone.utc)
    candidates: dict[str, list[GradedSubmission]] = {}
    files = regular_files(folder, report, (".json",), "not_json", "제출 파일(*.json)이 아닙니다", MAX_SUBMISSION_BYTES)
    for path in files:
        try:
            graded = _judge_file(report, path, bank, pass_count, manual_marks, require_integrity, now, attempt_limit)
        except Exception as exc:   # noqa: BLE001 - one file never stops the run
            report.add(path, "skipped", "unjudgeable",
                       f"이 파일을 채점하다가 예상하지 못한 오류가 났습니다 ({type(exc).__name__}); 나머지 파일은 채점했습니다")
            continue
        if graded is not None:
            candidates.setdefault(graded.student_id, []).append(graded)
    for sid in sorted(candidates):
        _keep_latest(report, sid, candidates[sid])
    _note_shared_learners(report)
    for g in report.graded:
        for kind, note in g.notes:
            report.add(g.path, "graded", kind, note, g.student_id)
    return report


def _keep_latest(report: GradeReport, sid: str, versions: list) -> None:
    """The latest submitted_at wins; equal times are broken by attempt number, then file name, and say so."""
    order = sorted(versions, key=lambda g: (parse_time(g.submitted_at), g.attempt or 0, g.file))
    latest = order[-1]
    tied = [g for g in order[:-1] if parse_time(g.submitted_at) == parse_time(latest.submitted_at)]
    for older in order[:-1]:
        if older in tied:
            report.add(older.path, "skipped", "duplicate_tie",
                       f"같은 학생({printable(sid)})의 제출 {len(tied) + 1}개가 같은 시각(submitted_at {latest.submitted_at})이라 "
                       f"시도 번호, 그다음 파일 이름 순으로 {report._name(latest.path)}을(를) 골랐습니다 (tie): 어느 것이 "
                       "마지막인지 학생과 확인하세요", sid)
        else:
            report.add(older.path, "skipped", "duplicate",
                       f"같은 학생({printable(sid)})의 더 늦은 제출 {report._name(latest.path)}이(가) 있어 중복으로 건너뜁니다",
                       sid)
    report.graded.append(latest)


def _note_shared_learners(report: GradeReport) -> None:
    """One browser's anonymous learner id under several student ids: someone handed in for someone else?"""
    by_learner: dict[str, set] = {}
    for g in report.graded:
        if g.learner:
            by_learner.setdefault(g.learner, set()).add(g.student_id)
    for g in report.graded:
        others = sorted(by_learner.get(g.learner, set()) - {g.student_id})
        if others:
            g.notes.append(("shared_learner", f"같은 익명 학습자 id(learner {printable(g.learner)})가 다른 학번 "
                                              f"{', '.join(printable(o) for o in others)}의 제출에도 있습니다: 한 브라우저에서 "
                                              "여러 학번으로 냈습니다"))


def _student_of(doc) -> str:
    student = doc.get("student") if isinstance(doc, dict) else None
    sid = student.get("id") if isinstance(student, dict) else None
    return sid.strip() if isinstance(sid, str) else ""
