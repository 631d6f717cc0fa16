"""Unlock codes signed by the instructor: a lock on the chapters after a checkpoint that a learner
cannot forge.

Settings (``_config.yml``, ``sphinx.config.course_settings``; read and validated by course.settings,
whose load_unlock_settings and unlock_settings_from give them as an UnlockSettings)::

    gating_unlock: instructor      # progress (default): passing the checkpoint opens the next chapters
                                   # instructor: only an unlock code from the instructor opens them
    unlock_public_key: MFkw...     # base64 SubjectPublicKeyInfo (DER) of the instructor's P-256 key
    unlock_course_id: ""           # text bound into every code; empty: the book's title
    lab_unlock: same               # same | instructor: in JupyterLab/Colab, "instructor" opens a gated
                                   # notebook with the code only, never from local progress (Colab
                                   # wipes it), whatever gating_unlock says

A code is an ECDSA P-256 / SHA-256 signature over the message (UTF-8)::

    sgemm-course-unlock/v1 LF <course> LF <module> LF <student id>

with the course text and the student id normalised the same way in Python and in the browser: NFC,
then the whitespace listed in STRIP_CHARS removed at both ends. The signature is kept in the raw
r||s form (IEEE P1363, 64 bytes) that WebCrypto verifies (cryptography writes DER: decode_dss_signature
converts), written base64url without padding, after a prefix naming the module: ``U6-<86 characters>``.
The prefix never starts with a character a spreadsheet runs (= + - @), so a code survives a CSV.

The page (the site's unlock.js) verifies a code with the public key in the gate marker, keeps it in
localStorage and verifies it again on every page load: a flag set by hand opens nothing. JupyterLab
(course.gating.unlock) verifies with ``cryptography``. The private key never leaves the instructor:
``python -m course unlock keygen`` (course.instructor.unlock_codes) writes it with mode 0600.

This module imports nothing from the course but course.instructor.safe_text: course.settings checks
the configured key with it, so it must not import the settings back.
"""
from __future__ import annotations

import base64
import binascii
import re
import sys
import unicodedata
from pathlib import Path

from course.instructor.safe_text import printable, shown_name

__all__ = [
    "UnlockError",
    "clean_code",
    "code_module",
    "crypto_available",
    "generate_private_key",
    "load_private_key",
    "load_public_key",
    "make_code",
    "message",
    "normalise_text",
    "normalise_student_id",
    "public_key_text",
    "verify_code",
]

MESSAGE_HEAD = "sgemm-course-unlock/v1"
# Whitespace removed at both ends of a student id or course text (the same list as unlock.js).
STRIP_CHARS = (" \t\n\r\f\v\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
               "\u200b\u2028\u2029\u202f\u205f\u3000\ufeff")
MAX_ID_LENGTH = 64
SIGNATURE_BYTES = 64
_CODE = re.compile(r"^[Uu](\d{1,3})-([A-Za-z0-9_-]{86})$")
_FORBIDDEN_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


class UnlockError(ValueError):
    """A bad key, student id, code or setting; the message is Korean and names the English term."""


# ---------------------------------------------------------------------------- the signed message

def normalise_text(text: str) -> str:
    return unicodedata.normalize("NFC", text).strip(STRIP_CHARS)


def normalise_student_id(text) -> str:
    """The id a code is bound to: NFC, whitespace at both ends removed; refused (UnlockError) when
    empty, too long, or holding control, format, unassigned or surrogate characters."""
    if not isinstance(text, str):
        raise UnlockError("학번(student id)은 문자열이어야 합니다")
    sid = normalise_text(text)
    if not sid:
        raise UnlockError("학번(student id)이 비어 있습니다")
    if len(sid) > MAX_ID_LENGTH:
        raise UnlockError(f"학번(student id)이 너무 깁니다 ({len(sid)}자 > {MAX_ID_LENGTH}자)")
    bad = [ch for ch in sid if unicodedata.category(ch) in _FORBIDDEN_CATEGORIES]
    if bad:
        raise UnlockError(f"학번(student id) {printable(sid)}에 제어 문자나 보이지 않는 문자가 있습니다 "
                          f"({printable(''.join(bad))})")
    return sid


def message(course: str, module: int, student_id: str) -> bytes:
    return "\n".join([MESSAGE_HEAD, normalise_text(course), str(int(module)),
                      normalise_student_id(student_id)]).encode("utf-8")


# ---------------------------------------------------------------------------- keys

def _crypto():
    try:
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, utils
    except ImportError:
        raise UnlockError("잠금 해제 코드에는 cryptography 패키지가 필요합니다: "
                          f"{sys.executable} -m pip install cryptography") from None
    return hashes, serialization, ec, utils


def crypto_available() -> bool:
    try:
        _crypto()
    except UnlockError:
        return False
    return True


def generate_private_key():
    _, _, ec, _ = _crypto()
    return ec.generate_private_key(ec.SECP256R1())


def private_key_pem(key) -> bytes:
    _, serialization, _, _ = _crypto()
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def public_key_text(key) -> str:
    """base64 SubjectPublicKeyInfo (DER) of a private or public key: the value of unlock_public_key."""
    _, serialization, _, _ = _crypto()
    public = key.public_key() if hasattr(key, "public_key") else key
    der = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(der).decode("ascii")


def load_private_key(path):
    _, serialization, ec, _ = _crypto()
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UnlockError(f"개인 키 파일(private key)을 읽을 수 없습니다: {shown_name(path)} ({exc.strerror})") from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise UnlockError(f"개인 키 파일(private key)이 PEM 형식의 키가 아닙니다: {shown_name(path)} "
                          f"({printable(str(exc))[:120]})") from None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise UnlockError(f"개인 키가 ECDSA P-256 키가 아닙니다: {shown_name(path)} "
                          "(`python -m course unlock keygen`으로 만든 키를 쓰세요)")
    return key


def load_public_key(text: str):
    _, serialization, ec, _ = _crypto()
    try:
        der = base64.b64decode("".join(str(text).split()), validate=True)
        key = serialization.load_der_public_key(der)
    except (binascii.Error, ValueError, TypeError):
        raise UnlockError("공개 키(public key)가 base64로 쓴 SPKI 형식이 아닙니다") from None
    if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name != "secp256r1":
        raise UnlockError("공개 키(public key)가 ECDSA P-256 키가 아닙니다")
    return key


# ---------------------------------------------------------------------------- codes

def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def make_code(private_key, course: str, module: int, student_id: str) -> str:
    hashes, _, ec, utils = _crypto()
    der = private_key.sign(message(course, module, student_id), ec.ECDSA(hashes.SHA256()))
    r, s = utils.decode_dss_signature(der)
    return f"U{int(module)}-" + _b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def clean_code(code) -> str:
    """A code as a learner may paste it: spaces and line breaks inside, a spreadsheet's leading
    apostrophe, standard base64 (+ /) or padding."""
    text = re.sub(f"[{STRIP_CHARS}]", "", str(code))
    text = text[1:] if text.startswith("'") else text
    return text.replace("+", "-").replace("/", "_").rstrip("=")


def code_module(code) -> int | None:
    """The module a code names in its prefix (None when the text is not a code)."""
    match = _CODE.match(clean_code(code))
    return int(match.group(1)) if match else None


def verify_code(public_key, course: str, module: int, student_id: str, code) -> bool:
    """True when code is the instructor's signature for this course, module and student."""
    hashes, _, ec, utils = _crypto()
    match = _CODE.match(clean_code(code))
    if not match or int(match.group(1)) != int(module):
        return False
    try:
        raw = base64.urlsafe_b64decode(match.group(2) + "==")
        body = message(course, module, student_id)
    except (binascii.Error, ValueError):
        return False
    if len(raw) != SIGNATURE_BYTES or _b64url(raw) != match.group(2):   # one spelling per code: no spare bits
        return False
    key = load_public_key(public_key) if isinstance(public_key, str) else public_key
    signature = utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        key.verify(signature, body, ec.ECDSA(hashes.SHA256()))
    except Exception:   # noqa: BLE001 - cryptography's InvalidSignature, or a value out of range
        return False
    return True
