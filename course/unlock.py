"""Unlock codes signed by the instructor: a lock on the chapters after a checkpoint that a learner
cannot forge.

Settings (``_config.yml``, ``sphinx.config.course_settings``; read and validated by course.settings,
which :func:`load_unlock_settings` and :func:`unlock_settings_from` take them from)::

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

The page (course/static/unlock.js) verifies a code with the public key in the gate marker, keeps it in
localStorage and verifies it again on every page load: a flag set by hand opens nothing. JupyterLab
(course.gating.unlock) verifies with ``cryptography``. The private key never leaves the instructor:
``python -m course unlock keygen`` writes it with mode 0600.
"""
from __future__ import annotations

import base64
import binascii
import csv
import os
import re
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from course.csv_safe import printable, shown_name, unneutralised, write_safe_csv

__all__ = [
    "LAB_UNLOCK_MODES",
    "UNLOCK_MODES",
    "UnlockError",
    "UnlockSettings",
    "code_module",
    "generate_private_key",
    "load_private_key",
    "load_public_key",
    "load_unlock_settings",
    "make_code",
    "message",
    "normalise_text",
    "normalise_student_id",
    "public_key_text",
    "read_roster",
    "unlock_settings_from",
    "verify_code",
]

UNLOCK_MODES = ("progress", "instructor")
LAB_UNLOCK_MODES = ("same", "instructor")
MESSAGE_HEAD = "sgemm-course-unlock/v1"
# Whitespace removed at both ends of a student id or course text (the same list as unlock.js).
STRIP_CHARS = (" \t\n\r\f\v\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
               "\u200b\u2028\u2029\u202f\u205f\u3000\ufeff")
MAX_ID_LENGTH = 64
SIGNATURE_BYTES = 64
_CODE = re.compile(r"^[Uu](\d{1,3})-([A-Za-z0-9_-]{86})$")
_FORBIDDEN_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
KEY_FILE = "unlock_private_key.pem"
PUBLIC_FILE = "unlock_public_key.txt"


class UnlockError(ValueError):
    """A bad key, student id, code or setting; the message is Korean and names the English term."""


# ---------------------------------------------------------------------------- settings

@dataclass(frozen=True)
class UnlockSettings:
    mode: str = "progress"           # what opens a gated chapter on the site (and in JupyterLab by default)
    public_key: str = ""             # base64 SPKI
    course: str = ""                 # the course text every code is bound to
    lab: str = "same"                # JupyterLab/Colab: "same" as mode, or "instructor" (the code only)
    source: str = "defaults"

    @property
    def site_by_code(self) -> bool:
        return self.mode == "instructor"

    @property
    def lab_by_code(self) -> bool:
        return self.mode == "instructor" or self.lab == "instructor"


def _from_settings(settings) -> UnlockSettings:
    return UnlockSettings(settings.gating_unlock, settings.unlock_public_key, settings.unlock_course,
                          settings.lab_unlock, settings.source)


def load_unlock_settings(path=None) -> UnlockSettings:
    """The unlock settings of the _config.yml course.settings reads (validated there)."""
    from course.settings import load_settings

    return _from_settings(load_settings(path))


def unlock_settings_from(raw: dict, title: str = "", source: str = "dict") -> UnlockSettings:
    """The unlock keys of a course_settings mapping, validated by course.settings (SettingsError, in
    Korean, when wrong); the other keys of the mapping are not looked at."""
    from course.settings import unlock_values

    values = unlock_values(raw, title, f"{source}: course_settings")
    return UnlockSettings(values["gating_unlock"], values["unlock_public_key"], values["unlock_course"],
                          values["lab_unlock"], source)


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


def _crypto_available() -> bool:
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


# ---------------------------------------------------------------------------- roster

ID_COLUMNS = ("student_id", "id", "학번", "student id", "학생 id")
NAME_COLUMNS = ("name", "student_name", "이름", "성명")


def read_roster(path, passed_only: bool = False) -> tuple[list[tuple[str, str, int]], list[str]]:
    """[(student id as written, name, line)] and Korean problems. UTF-8 (with or without BOM), or
    CP949 as Korean spreadsheets save it; the id column is student_id (or id, 학번). passed_only: only
    the rows whose ``passed`` column is ``yes`` (a gradebook that `grade` wrote serves as the roster)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise UnlockError(f"명단 파일(roster)을 읽을 수 없습니다: {shown_name(path)} ({exc.strerror})") from None
    for encoding in ("utf-8-sig", "cp949"):
        try:
            text = raw.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise UnlockError(f"명단 파일(roster)이 UTF-8도 CP949도 아닙니다: {shown_name(path)}")
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as exc:
        raise UnlockError(f"명단 파일(roster)을 CSV로 읽을 수 없습니다: {exc}") from None
    if not rows:
        raise UnlockError(f"명단 파일(roster)이 비어 있습니다: {shown_name(path)}")
    header = [normalise_text(h).lower() for h in rows[0]]
    id_col = next((header.index(c) for c in ID_COLUMNS if c in header), None)
    if id_col is None:
        raise UnlockError(f"명단 파일(roster)의 첫 줄에 학번 열(student_id, id 또는 학번)이 없습니다 "
                          f"(받은 열: {printable(', '.join(rows[0]))[:200]})")
    name_col = next((header.index(c) for c in NAME_COLUMNS if c in header), None)
    passed_col = header.index("passed") if "passed" in header else None
    if passed_only and passed_col is None:
        raise UnlockError("--passed-only에는 passed 열이 있는 명단이 필요합니다 (`grade`가 쓴 성적부 CSV)")
    students, problems = [], []
    for line, row in enumerate(rows[1:], 2):
        if not any(cell.strip() for cell in row):
            continue
        if passed_only and (row[passed_col].strip() if passed_col < len(row) else "") != "yes":
            continue
        sid = unneutralised(row[id_col]) if id_col < len(row) else ""
        name = row[name_col] if name_col is not None and name_col < len(row) else ""
        students.append((sid, name, line))
    if not students:
        problems.append("명단에 코드를 만들 학번이 한 줄도 없습니다")
    return students, problems


# ---------------------------------------------------------------------------- command line

def add_parser(sub) -> None:
    parser = sub.add_parser(
        "unlock", help="잠금 해제 코드: 키 만들기, 학생별 코드, 확인 / instructor unlock codes",
        description="체크포인트 다음 장을 강사가 서명한 학생별 잠금 해제 코드(unlock code)로 여는 설정의 도구입니다. "
                    "/ Keys and per-student codes for chapters that open with an instructor-signed code.",
        epilog="종료 코드 / exit codes: 0 성공 (ok); 1 verify: 맞지 않는 코드가 있음 (a code does not verify); "
               "2 사용법·입력 오류 (usage or input error); 3 code: 코드를 만들지 못한 학번이 있음 (some ids refused).")
    verbs = parser.add_subparsers(dest="unlock_command", required=True, metavar="VERB")
    keygen = verbs.add_parser("keygen", help="서명 키 만들기 / make the signing key pair",
                              description="ECDSA P-256 키 쌍을 만듭니다. 개인 키는 강사만 가집니다 (파일 권한 0600). "
                                          "출력되는 unlock_public_key 줄을 _config.yml의 course_settings에 넣으세요.")
    keygen.add_argument("--out", required=True, metavar="DIR", help="키를 쓸 폴더 / folder for the key files")
    keygen.add_argument("--force", action="store_true", help="있는 키를 덮어씀 / overwrite an existing key")
    code = verbs.add_parser("code", help="학생별 잠금 해제 코드 만들기 / sign one code per student",
                            description="학생마다 코드 하나를 만듭니다. --out이 없으면 화면에 씁니다.")
    code.add_argument("--key", required=True, metavar="PEM", help="개인 키 / private key (keygen이 만든 파일)")
    code.add_argument("--module", type=int, required=True, help="체크포인트 모듈 번호 / checkpoint module (예: 6)")
    who = code.add_mutually_exclusive_group(required=True)
    who.add_argument("--student", action="append", metavar="ID", help="학번 (여러 번 쓸 수 있음) / student id")
    who.add_argument("--roster", metavar="CSV", help="명단 CSV (student_id 또는 학번 열) / roster with a student_id column")
    code.add_argument("--passed-only", action="store_true",
                      help="명단의 passed 열이 yes인 학생만 (성적부 CSV를 명단으로) / only rows whose passed column is "
                           "yes (a gradebook as the roster)")
    code.add_argument("--out", metavar="CSV", help="코드 CSV (LMS에 올릴 파일) / codes CSV to write")
    verify = verbs.add_parser("verify", help="코드 확인 / check codes against the public key",
                              description="코드가 이 강좌, 모듈, 학번에 맞는지 공개 키로 확인합니다 (기본: _config.yml의 "
                                          "unlock_public_key). 코드 CSV 전체도 확인합니다 (--codes).")
    verify.add_argument("--module", type=int, help="체크포인트 모듈 번호 / checkpoint module")
    verify.add_argument("--student", metavar="ID", help="학번 / student id")
    verify.add_argument("--code", metavar="CODE", help="잠금 해제 코드 / the code")
    verify.add_argument("--codes", metavar="CSV", help="`unlock code --out`이 쓴 CSV / a codes CSV to check")
    verify.add_argument("--public-key", metavar="B64", help="공개 키 (기본: _config.yml) / public key (default: _config.yml)")


def run(args) -> int:
    from course.settings import SettingsError

    handler = {"keygen": _keygen, "code": _code, "verify": _verify}[args.unlock_command]
    try:
        return handler(args)
    except (UnlockError, SettingsError) as exc:
        print(f"오류 (error): {printable(str(exc))}", file=sys.stderr)
        return 2


def _course_text(args) -> str:
    return load_unlock_settings(args.config).course


def _keygen(args) -> int:
    out = Path(args.out)
    key_path, public_path = out / KEY_FILE, out / PUBLIC_FILE
    repository = Path(__file__).resolve().parent.parent
    if out.resolve() == repository or repository in out.resolve().parents:
        raise UnlockError(f"개인 키를 강좌 저장소 안({shown_name(out)})에 두지 마세요: 저장소를 공개하면 누구나 코드를 "
                          "만들 수 있습니다. 저장소 밖의 폴더를 --out으로 주세요")
    if key_path.exists() and not args.force:
        raise UnlockError(f"이미 키가 있습니다: {shown_name(key_path)}. 새 키를 만들면 나눠 준 코드가 모두 무효가 됩니다; "
                          "정말 바꾸려면 --force를 붙이세요")
    key = generate_private_key()
    out.mkdir(parents=True, exist_ok=True)
    try:
        key_path.unlink()
    except FileNotFoundError:
        pass
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(private_key_pem(key))
    os.chmod(key_path, 0o600)
    line = f"unlock_public_key: {public_key_text(key)}"
    public_path.write_text(line + "\n", encoding="utf-8")
    print(f"개인 키 (private key, 강사만 보관, 권한 0600): {shown_name(key_path)}")
    print(f"공개 키 (public key): {shown_name(public_path)}")
    print("_config.yml의 sphinx.config.course_settings에 다음 두 줄을 넣고 사이트를 다시 빌드하세요:")
    print("  gating_unlock: instructor")
    print(f"  {line}")
    return 0


def _checkpoint_module(module: int, config) -> int:
    """module, when it is a checkpoint (the module a code opens the chapters after)."""
    from course.settings import load_settings

    settings = load_settings(config)
    if settings.checkpoint(module) is None:
        known = ", ".join(str(m) for m in sorted(settings.checkpoints))
        gated = settings.required_module(module)
        hint = f" 모듈 {module}의 장은 모듈 {gated} 체크포인트의 코드로 열립니다" if gated is not None else ""
        raise UnlockError(f"모듈 {module}에는 체크포인트가 없습니다: 코드는 잠긴 장이 아니라 먼저 통과할 체크포인트의 "
                          f"번호로 만듭니다 (체크포인트: {known}).{hint}")
    return module


def _code(args) -> int:
    _checkpoint_module(args.module, args.config)
    key = load_private_key(args.key)
    course = _course_text(args)
    if args.roster:
        students, problems = read_roster(args.roster, args.passed_only)
    elif args.passed_only:
        raise UnlockError("--passed-only는 --roster와 함께 씁니다")
    else:
        students, problems = [(sid, "", 0) for sid in args.student], []
    rows, refused = [], 0
    for sid, name, line in students:
        try:
            code, problem = make_code(key, course, args.module, sid), ""
        except UnlockError as exc:
            code, problem = "", (f"{line}행: " if line else "") + str(exc)
            refused += 1
        rows.append([normalise_text(sid) if not problem else sid, name, args.module, code, problem])
    for problem in problems:
        print(f"주의: {printable(problem)}", file=sys.stderr)
    if args.out:
        write_safe_csv(args.out, ["student_id", "name", "module", "code", "problem"], rows)
        print(f"썼습니다 (wrote): {shown_name(args.out)} (코드 {len(rows) - refused}개, 강좌: {printable(course)})")
    else:
        for sid, _, _, code, problem in rows:
            print(f"{printable(sid)}\t{code or '(코드 없음: ' + printable(problem) + ')'}")
    for sid, _, _, code, problem in rows:
        if problem and args.out:
            print(f"코드를 만들지 못함: {printable(problem)}", file=sys.stderr)
    return 3 if refused or problems else 0


def _verify(args) -> int:
    settings = load_unlock_settings(args.config)
    key = load_public_key(args.public_key or settings.public_key) if (args.public_key or settings.public_key) else None
    if key is None:
        raise UnlockError("공개 키가 없습니다: _config.yml에 unlock_public_key를 넣거나 --public-key를 주세요")
    if args.codes:
        checks = _codes_csv(args.codes)
    elif args.module is not None and args.student is not None and args.code is not None:
        checks = [(args.student, args.module, args.code, "")]
    else:
        raise UnlockError("--module, --student, --code를 함께 주거나 --codes CSV를 주세요")
    bad = 0
    for sid, module, code, where in checks:
        ok = verify_code(key, settings.course, module, sid, code)
        bad += not ok
        print(f"{'맞음 (valid)' if ok else '틀림 (invalid)'}: {where}모듈 {module}, 학번 {printable(sid)}")
    print(f"강좌 (course): {printable(settings.course)}; 확인한 코드 {len(checks)}개, 맞지 않는 코드 {bad}개")
    return 1 if bad else 0


def _codes_csv(path) -> list[tuple]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise UnlockError(f"코드 CSV를 읽을 수 없습니다: {shown_name(path)} ({printable(str(exc))[:120]})") from None
    checks = []
    for line, row in enumerate(rows, 2):
        code = row.get("code") or ""
        module = code_module(code)
        if code and module is not None:
            checks.append((unneutralised(row.get("student_id") or ""), module, code, f"{line}행 "))
    if not checks:
        raise UnlockError(f"코드 CSV에 student_id와 code 열의 코드가 없습니다: {shown_name(path)}")
    return checks
