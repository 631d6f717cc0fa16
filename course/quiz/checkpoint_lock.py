"""A checkpoint's page without a readable key: salted digests of the accepted answers, and each
question's explanation encrypted under a key that only right answers rebuild.

``locked_payload(bank, settings)`` is what a checkpoint page embeds instead of bank.site_payload
(course/site/static/checkpoint_lock.js reads it). Per question:

* a random 16-byte salt (os.urandom, new for every page built);
* its *parts*: a single or multiple choice question has one part, ``choice``, whose canonical
  answer is the picked ids sorted and joined by "," (course.quiz.grading.choice_canonical); a code
  question has one part per blank (course.quiz.grading.blank_canonical: the text without whitespace,
  or "=" and the values of an expression for a blank graded by meaning); a numeric question has
  one part, ``answer``, whose canonical answers are its cells on the tolerance grid
  (course.quiz.grading.accepted_forms) — with a variant, one part ``v<i>`` per value it may draw;
* for every accepted canonical answer c of part p, one entry {d, w}:
  d = the first 16 bytes of HMAC-SHA256(salt, "check|<qid>|<p>|<c>") (hex), and
  w = share(p) XOR HMAC-SHA256(salt, "wrap|<qid>|<p>|<c>") (base64), where share(p) is a random
  32-byte value; entries are padded with random ones to the same count and sorted, so neither
  their number nor their order tells anything;
* ``box``: {"explanation": ...} as JSON, encrypted with AES-256-GCM under R = XOR of the
  question's shares (a variant's parts share one share), with a random 12-byte IV and the question
  id as associated data. Right answers give every share back, so R; a wrong one gives nothing.

Free-text questions are graded by the instructor from the submission file: the page ships no
model answer, rubric or explanation for them (the learner self-assesses against the chapter).

``instructor_payload(bank, settings)`` is what a checkpoint page embeds instead under
``course_settings.checkpoint_grading: instructor``: no grading data at all. Per question only what the page
needs to show it and collect the answer: the prompt, section and Bloom level, the choices (ids and texts,
no correct flag), a code question's code and blank ids (no accepted answer, no ``evaluate`` assignments),
a numeric question's unit (no value, tolerance or rel) and, for a variant, its template and the parameter
values it may draw (course.quiz.variants draws one per attempt from the learner's nonce, as ``grade`` draws
them again). No salt, digest, wrapped share, box or explanation. The page (checkpoint_lock.js
``collectOnly``) says that the instructor grades the checkpoint, shows no score and offers the
submission file.

What this protects: nothing in the page reads as a key, and the feedback no longer tells which
question was wrong (quiz.js shows per-question verdicts only after a pass or after
``verdicts_after_attempts`` attempts). What it cannot protect: a script can try every choice (or
every number) against the digests offline, as the page itself does; the instructor's
``python -m course grade`` from the submission files stays the grade of record.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os

from course.quiz.bank import Bank, Question
from course.quiz.grading import accepted_forms, blank_canonical, choice_canonical
from course.settings import CourseSettings
from course.quiz.variants import evaluate

__all__ = ["FORMAT", "bare_question", "check_digest", "checkpoint_payload", "instructor_payload", "locked_payload",
           "locked_question", "wrap_mask"]

FORMAT = 1
SALT_BYTES, SHARE_BYTES, DIGEST_BYTES, IV_BYTES = 16, 32, 16, 12


def _mac(salt: bytes, kind: str, qid: str, part: str, canonical: str) -> bytes:
    return hmac.new(salt, f"{kind}|{qid}|{part}|{canonical}".encode("utf-8"), hashlib.sha256).digest()


def check_digest(salt: bytes, qid: str, part: str, canonical: str) -> str:
    """The digest a right answer's canonical form has (hex of the first 16 bytes)."""
    return _mac(salt, "check", qid, part, canonical)[:DIGEST_BYTES].hex()


def wrap_mask(salt: bytes, qid: str, part: str, canonical: str) -> bytes:
    return _mac(salt, "wrap", qid, part, canonical)[:SHARE_BYTES]


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _entries(salt: bytes, qid: str, part: str, canonicals, share: bytes) -> list[dict]:
    return [{"d": check_digest(salt, qid, part, c), "w": _b64(_xor(share, wrap_mask(salt, qid, part, c)))}
            for c in dict.fromkeys(canonicals)]


def _padded(entries: list[dict], count: int) -> list[dict]:
    """entries plus random ones up to count, sorted by digest (order and number tell nothing)."""
    fillers = [{"d": os.urandom(DIGEST_BYTES).hex(), "w": _b64(os.urandom(SHARE_BYTES))}
               for _ in range(count - len(entries))]
    return sorted(entries + fillers, key=lambda e: e["d"])


def _seal(key: bytes, qid: str, secret: dict) -> dict:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    iv = os.urandom(IV_BYTES)
    text = json.dumps(secret, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return {"iv": _b64(iv), "ct": _b64(AESGCM(key).encrypt(iv, text, qid.encode("utf-8")))}


def _numeric_forms(q: Question, key: float) -> list[str]:
    return accepted_forms(key, q.answer.tolerance, q.answer.rel)


def locked_question(q: Question) -> dict:
    """One question as a checkpoint page carries it (see the module docstring)."""
    item = {"id": q.id, "type": q.type, "bloom": q.bloom, "section": q.section, "prompt": q.prompt}
    if q.type == "free":
        item["graded_by"] = "instructor"
        return item
    salt = os.urandom(SALT_BYTES)
    lock = {"salt": _b64(salt)}
    shares = []
    if q.type in ("single", "multiple"):
        item["choices"] = [{"id": c.id, "text": c.text} for c in q.choices]
        shares.append(os.urandom(SHARE_BYTES))
        lock["parts"] = [{"name": "choice", "entries": _entries(salt, q.id, "choice",
                                                                [choice_canonical(q.correct_choice_ids)], shares[0])}]
    elif q.type == "code":
        item["code"] = q.code
        item["blanks"] = [{"id": b.id, **({"evaluate": b.evaluate} if b.evaluate else {})} for b in q.blanks]
        lock["parts"] = []
        for b in q.blanks:
            shares.append(os.urandom(SHARE_BYTES))
            accepted = [c for c in (blank_canonical(b, a) for a in b.accept) if c is not None]
            lock["parts"].append({"name": b.id, "entries": _entries(salt, q.id, b.id, accepted, shares[-1])})
        width = max(len(p["entries"]) for p in lock["parts"])
        for part in lock["parts"]:
            part["entries"] = _padded(part["entries"], width)
    else:
        item["answer"] = {"tolerance": q.answer.tolerance, "unit": q.answer.unit,
                          **({"rel": q.answer.rel} if q.answer.rel else {})}
        shares.append(os.urandom(SHARE_BYTES))
        if q.variant is None:
            lock["parts"] = [{"name": "answer", "entries": _entries(salt, q.id, "answer", _numeric_forms(q, q.answer.value),
                                                                    shares[0])}]
        else:
            drawn = q.variant.representatives()
            item["prompt"] = q.variant.template           # not the base numbers: the page draws from `values`
            item["variant"] = {"template": q.variant.template, "values": drawn}
            lock["parts"] = [{"name": f"v{i}", "entries": _entries(salt, q.id, f"v{i}",
                                                                   _numeric_forms(q, evaluate(q.variant.tree, params)),
                                                                   shares[0])}
                             for i, params in enumerate(drawn)]
        width = max(len(p["entries"]) for p in lock["parts"]) + 2
        for part in lock["parts"]:
            part["entries"] = _padded(part["entries"], width)
    key = shares[0]
    for share in shares[1:]:
        key = _xor(key, share)
    lock["box"] = _seal(key, q.id, {"explanation": q.explanation})
    item["lock"] = lock
    return item


def locked_payload(bank: Bank, settings: CourseSettings) -> dict:
    """A checkpoint page's quiz data: no correct flag, value, formula, accepted answer, model answer,
    rubric or explanation in readable form."""
    checkpoint = settings.checkpoint(bank.module)
    return {"module": bank.module, "title": bank.title, "bank_hash": bank.digest, "locked": FORMAT,
            "checkpoint": {"pass_count": checkpoint.pass_count, "question_count": checkpoint.question_count,
                           "title": checkpoint.title, "verdicts_after_attempts": settings.verdicts_after_attempts},
            "questions": [locked_question(q) for q in bank.questions]}


def bare_question(q: Question) -> dict:
    """One question as an instructor-graded checkpoint page carries it: what shows it, nothing that grades it."""
    item = {"id": q.id, "type": q.type, "bloom": q.bloom, "section": q.section, "prompt": q.prompt}
    if q.type in ("single", "multiple"):
        item["choices"] = [{"id": c.id, "text": c.text} for c in q.choices]
    elif q.type == "code":
        item["code"] = q.code
        item["blanks"] = [{"id": b.id} for b in q.blanks]
    elif q.type == "numeric":
        item["answer"] = {"unit": q.answer.unit}
        if q.variant is not None:
            item["prompt"] = q.variant.template
            item["variant"] = {"template": q.variant.template, "values": q.variant.representatives()}
    return item


def instructor_payload(bank: Bank, settings: CourseSettings) -> dict:
    """A checkpoint page's quiz data under checkpoint_grading: instructor (see the module docstring)."""
    checkpoint = settings.checkpoint(bank.module)
    return {"module": bank.module, "title": bank.title, "bank_hash": bank.digest, "graded_by": "instructor",
            "checkpoint": {"pass_count": checkpoint.pass_count, "question_count": checkpoint.question_count,
                           "title": checkpoint.title},
            "questions": [bare_question(q) for q in bank.questions]}


def checkpoint_payload(bank: Bank, settings: CourseSettings) -> dict:
    """The quiz data of a checkpoint page as course_settings.checkpoint_grading asks for it."""
    if settings.graded_by_instructor:
        return instructor_payload(bank, settings)
    return locked_payload(bank, settings)
