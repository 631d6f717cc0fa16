"""The submission file a learner hands in (written by the site's quiz.js and by the
JupyterLab quiz; read by ``python -m course grade``).

Format (JSON object, UTF-8)::

    {
      "format": "sgemm-course-submission",
      "version": 1,
      "client": "site" | "jupyterlab" | "form",
      "student": {"id": "20261234", "name": "홍길동"},
      "module": 6,
      "bank_hash": "<sha-256 of the bank the learner answered>",
      "started_at": "2026-11-22T10:00:00.000Z",
      "submitted_at": "2026-11-22T10:12:34.567Z",
      "answers": {"m06-q01": "b", "m06-q02": ["a", "c"], "m06-q03": "8,192 B",
                  "m06-q04": {"b1": "row"}, "m06-q08": "..."},
      "self_assessment": {"m06-q08": true},
      "presentation": {"learner": "3f9c0a7d5e21b684", "attempt": 3,
                       "choice_order": {"m06-q01": ["c", "a", "d", "b"], ...},
                       "variants": {"m06-q03": {"T": 24}}},
      "integrity": {"algorithm": "sha256", "digest": "<hex>"}   # or null when not computed
    }

``presentation`` (optional; absent in hand-filled forms) records what the learner saw: the
order of every choice question, by choice id, the seed it came from (the learner's anonymous id
and attempt number, see course.quiz.shuffle), and on a checkpoint after the first attempts the
parameters of each numeric variant shown (course.quiz.variants; the grader re-draws them from the
seed and grades against the seed's key). The attempt number is also what the gradebook shows.
Answers always name choices by id.

Answer shapes: single → choice id; multiple → list of choice ids; numeric → the text
typed (or a number); code → {blank id: text}; free → text.

Integrity: SHA-256 (hex) of the canonical JSON of the whole object without the
``integrity`` key. Canonical JSON = keys sorted, no spaces (``","`` and ``":"``),
non-ASCII characters written as they are (a lone surrogate as its ``\\uXXXX`` escape, as the
browser's JSON.stringify writes it), UTF-8. It detects a file edited by hand
(e.g. an answer changed after the fact); it is not a signature, since anyone can
recompute it. ``null`` means the writer could not compute it (a browser without
``crypto.subtle``); the grader then grades it and notes the absence.
No score is stored: the grader always re-grades from the bank.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from datetime import datetime, timezone

__all__ = [
    "FORMAT",
    "VERSION",
    "build_submission",
    "canonical_json",
    "check_submission",
    "integrity_digest",
    "integrity_status",
    "json_depth",
    "parse_time",
    "submission_filename",
    "utc_now_iso",
]

FORMAT = "sgemm-course-submission"
VERSION = 1


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def canonical_json(obj) -> str:
    """Keys sorted, no spaces, non-ASCII as it is; a lone surrogate (which a hand-made file may hold,
    and which has no UTF-8 form) is written as its \\uXXXX escape, as the browser's JSON.stringify
    writes it, so both sides hash the same bytes."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def integrity_digest(doc: dict) -> str:
    body = {k: v for k, v in doc.items() if k != "integrity"}
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def integrity_status(doc: dict) -> str:
    """"ok", "absent" (null or missing) or "mismatch" (also for a malformed integrity field)."""
    field = doc.get("integrity")
    if field is None:
        return "absent"
    if not isinstance(field, dict) or field.get("algorithm") != "sha256" or not isinstance(field.get("digest"), str):
        return "mismatch"
    try:
        return "ok" if field["digest"].lower() == integrity_digest(doc) else "mismatch"
    except (TypeError, ValueError):
        return "mismatch"


def utc_now_iso() -> str:
    """UTC time as JavaScript's Date.toISOString() writes it."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(text) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def build_submission(bank, student: dict, answers: dict, self_assessment: dict | None = None,
                     started_at: str | None = None, submitted_at: str | None = None,
                     client: str = "jupyterlab", presentation: dict | None = None) -> dict:
    """A complete submission document, integrity included."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "client": client,
        "student": {"id": str(student.get("id", "")).strip(), "name": str(student.get("name", "")).strip()},
        "module": bank.module,
        "bank_hash": bank.digest,
        "started_at": started_at or utc_now_iso(),
        "submitted_at": submitted_at or utc_now_iso(),
        "answers": {qid: answers[qid] for qid in bank.ids if qid in answers},
        "self_assessment": {qid: bool(v) for qid, v in (self_assessment or {}).items() if qid in bank.ids},
    }
    if presentation is not None:
        doc["presentation"] = presentation
    doc["integrity"] = {"algorithm": "sha256", "digest": integrity_digest(doc)}
    return doc


def json_depth(value, limit: int = 64) -> int:
    """Nesting depth of parsed JSON, without recursion (a hostile file may nest thousands deep);
    counting stops a little past `limit`."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > limit:
            return depth
        if isinstance(item, dict):
            stack += [(v, depth + 1) for v in item.values()]
        elif isinstance(item, list):
            stack += [(v, depth + 1) for v in item]
    return deepest


def safe_student_id(student_id: str) -> str:
    """The student id as a file name carries it (letters, digits, _ and - only)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", student_id or "anonymous").strip("_") or "anonymous"


def submission_filename(module: int, student_id: str, submitted_at: str) -> str:
    """e.g. m06_20261234_20261122T101234Z.json (only safe characters)."""
    safe_id = safe_student_id(student_id)
    stamp = re.sub(r"[^0-9T]", "", (submitted_at or "").split(".")[0]) + "Z"
    return f"m{int(module):02d}_{safe_id}_{stamp}.json"


def check_submission(doc, bank) -> list[str]:
    """Reasons (Korean) why a parsed document cannot be graded against bank; [] when it can.

    Integrity is checked separately (integrity_status) so the caller can word it.
    """
    if not isinstance(doc, dict):
        return ["JSON 최상위가 객체(object)가 아닙니다"]
    if doc.get("format") != FORMAT:
        return [f"제출 파일 형식(format)이 {FORMAT!r}가 아닙니다 (받은 값: {doc.get('format')!r})"]
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        return ["version이 정수가 아닙니다"]
    if version > VERSION:
        return [f"더 새로운 제출 형식(version {version})입니다. 강좌 도구를 업데이트하세요"]
    problems = []
    student = doc.get("student")
    if not isinstance(student, dict) or not isinstance(student.get("id"), str) or not student["id"].strip():
        problems.append("student.id(학번)가 없습니다")
    elif not isinstance(student.get("name", ""), str):
        problems.append("student.name이 문자열이 아닙니다")
    module = doc.get("module")
    if module != bank.module or isinstance(module, bool):
        problems.append(f"모듈이 다릅니다 (파일: {module!r}, 채점 대상: {bank.module})")
    if parse_time(doc.get("submitted_at")) is None:
        problems.append("submitted_at이 ISO 8601 시각이 아닙니다")
    answers = doc.get("answers")
    if not isinstance(answers, dict):
        problems.append("answers가 객체가 아닙니다")
    else:
        unknown = sorted(set(answers) - set(bank.ids))
        if unknown:
            problems.append(f"문제 은행에 없는 문항 id: {', '.join(unknown)}")
    assessment = doc.get("self_assessment", {})
    if not isinstance(assessment, dict) or not all(isinstance(v, bool) for v in assessment.values()):
        problems.append("self_assessment는 {문항 id: true/false} 객체여야 합니다")
    if "presentation" in doc and not _valid_presentation(doc["presentation"]):
        problems.append("presentation은 {learner: 문자열, attempt: 양의 정수, choice_order: {문항 id: [선택지 id]}, "
                        "variants(선택): {문항 id: {이름: 수}}} 객체여야 합니다")
    elif "presentation" in doc and not _plain_variants(doc["presentation"]):
        problems.append(f"presentation.variants의 값이 유한한 수가 아니거나 너무 큽니다 (절댓값 {MAX_VARIANT_VALUE:g} "
                        "이하여야 합니다): 변형 문항의 값은 작은 수입니다. 손으로 고친 파일인지 확인하세요")
    return problems


MAX_ATTEMPT = 10 ** 6
MAX_VARIANT_VALUE = 1e15     # a variant parameter is a tile size, a count, a few digits


def _plain_variants(value: dict) -> bool:
    """Every recorded variant parameter is a finite number of a sane size (a 400-digit integer or
    1e400 cannot be compared, or drawn again, as a float)."""
    for params in (value.get("variants") or {}).values():
        for v in params.values():
            if isinstance(v, int) and abs(v) > MAX_VARIANT_VALUE:
                return False
            if isinstance(v, float) and not (math.isfinite(v) and abs(v) <= MAX_VARIANT_VALUE):
                return False
    return True


def _valid_presentation(value) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("learner"), str):
        return False
    attempt = value.get("attempt")
    if isinstance(attempt, bool) or not isinstance(attempt, int) or not 1 <= attempt <= MAX_ATTEMPT:
        return False
    order = value.get("choice_order")
    if not (isinstance(order, dict) and all(
            isinstance(ids, list) and all(isinstance(i, str) for i in ids) for ids in order.values())):
        return False
    variants = value.get("variants", {})
    return isinstance(variants, dict) and all(
        isinstance(params, dict) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in params.values())
        for params in variants.values())
