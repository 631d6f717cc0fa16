"""The instructor's ``python -m course unlock`` command: the signing key pair (keygen), one unlock code
per student from ids or a roster CSV (code), and checking codes against the public key (verify).

The code format, the keys and the signature are course.quiz.unlock's; the CSVs are written and read
through course.instructor.safe_text, the settings come from course.settings.
"""
from __future__ import annotations

import csv
import os
import sys
from pathlib import Path

from course.instructor.safe_text import printable, shown_name, unneutralised, write_safe_csv
from course.quiz.unlock import (UnlockError, code_module, generate_private_key, load_private_key, load_public_key,
                                make_code, normalise_text, private_key_pem, public_key_text, verify_code)
from course.settings import SettingsError, load_settings, load_unlock_settings

__all__ = ["KEY_FILE", "PUBLIC_FILE", "add_parser", "read_roster", "run"]

KEY_FILE = "unlock_private_key.pem"
PUBLIC_FILE = "unlock_public_key.txt"


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
    repository = Path(__file__).resolve().parents[2]
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
