"""`python -m course exercise list | show ID | check ID FILE.cu [--json]` (wired in course.__main__).

Exit codes of `check`: 0 every check passed; 1 a check failed; 2 usage or input error (unknown
exercise, missing file, a file that is not CUDA); 4 nothing failed but some checks were skipped
(no GPU on this machine).
"""
from __future__ import annotations

import argparse
import json
import math
import sys

from course.autograder import spec as specs
from course.autograder.card_text import correctness_text, size_limit_text, speed_text
from course.autograder.cases import SEED_LIMIT
from course.autograder.learner import ExerciseInputError
from korean_text import with_particle

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE, EXIT_INCOMPLETE = 0, 1, 2, 4
MAX_TIME_LIMIT = 3600.0          # seconds; a longer limit is a typo, not a plan


def time_limit(text: str) -> float:
    """argparse type: seconds, a finite number in (0, MAX_TIME_LIMIT]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"제한 시간은 초 단위의 수여야 합니다 (받은 값: {text!r})") from None
    if not math.isfinite(value) or not 0 < value <= MAX_TIME_LIMIT:
        raise argparse.ArgumentTypeError(
            f"제한 시간은 0보다 크고 {MAX_TIME_LIMIT:g}초 이하여야 합니다 (받은 값: {text!r})")
    return value


def seed_value(text: str) -> int:
    """argparse type: a run seed, an integer 0 .. 2**32 - 1 (as a verdict records it)."""
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"시드(seed)는 0 이상의 정수여야 합니다 (받은 값: {text!r})") from None
    if not 0 <= value < SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"시드(seed)는 0 이상 {SEED_LIMIT - 1} 이하여야 합니다 (받은 값: {text!r})")
    return value


def exercise_id(text: str) -> str:
    """argparse type: m<module>-e<number>; the existence check comes later (with the list of ids)."""
    if not specs.ID_PATTERN.match(text):
        raise argparse.ArgumentTypeError(f"실습 번호는 m06-e1 같은 형식이어야 합니다 (받은 값: {text!r})")
    return text


def add_parser(sub) -> None:
    parser = sub.add_parser(
        "exercise", help="커널 실습 목록·설명·검사 / kernel exercises: list, show, check",
        description="커널 실습(exercise)을 보고, 내 CUDA 커널을 검사합니다: 컴파일 → SASS 규칙 → 정확성 → "
                    "경쟁·메모리 검사 → 속도. / Browse the kernel exercises and check a CUDA kernel.",
        epilog="check의 종료 코드 / exit codes: 0 모두 통과 (passed); 1 실패한 검사가 있음 (failed); "
               "2 사용법·입력 오류 (usage or input error); 4 실패는 없지만 GPU가 없어 건너뛴 검사가 있음 (incomplete).")
    verbs = parser.add_subparsers(dest="exercise_command", required=True, metavar="VERB")
    verbs.add_parser("list", help="실습 목록 / list the exercises")
    show = verbs.add_parser("show", help="실습 설명과 검사 기준 / an exercise's goal and targets")
    show.add_argument("id", type=exercise_id, help="실습 번호 / exercise id (예: m06-e1)")
    check = verbs.add_parser("check", help="내 커널 검사 / check a kernel file",
                             description="CUDA 소스 파일 하나를 실습의 기준으로 검사합니다. 커널은 시간 제한이 있는 "
                                         "하위 프로세스에서 실행합니다. / Check one CUDA file; the kernel runs in "
                                         "subprocesses with time limits.")
    check.add_argument("id", type=exercise_id, help="실습 번호 / exercise id (예: m06-e1)")
    check.add_argument("file", help="CUDA 소스 파일 / CUDA source file (.cu)")
    check.add_argument("--json", action="store_true", help="판정을 JSON으로 출력 / print the verdict as JSON")
    check.add_argument("--no-gpu", action="store_true", help="GPU가 있어도 컴파일과 SASS만 / compile and SASS only")
    check.add_argument("--time-limit", type=time_limit, metavar="S",
                       help=f"하위 프로세스마다의 제한 시간(초, 0 < S ≤ {MAX_TIME_LIMIT:g}) / time limit per subprocess")
    check.add_argument("--seed", type=seed_value, metavar="N",
                       help="무작위로 뽑는 경우의 시드: 판정에 적힌 시드로 같은 검사를 다시 합니다 / seed of the drawn "
                            "cases: replays a verdict exactly (default: a fresh seed, recorded in the verdict)")
    check.add_argument("--record", action="store_true",
                       help="판정을 내 진도 파일에 저장 / store the verdict in my progress file")


def run(args) -> int:
    handler = {"list": _list, "show": _show, "check": _check}[args.exercise_command]
    try:
        return handler(args)
    except specs.ExerciseError as exc:
        print(f"오류 (error): {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ExerciseInputError as exc:
        print(f"입력 오류 (input error, {exc.kind}): {exc}", file=sys.stderr)
        return EXIT_USAGE


def _list(args) -> int:
    exercises = specs.load_all()
    if not exercises:
        print("실습이 없습니다 (no exercises).")
        return EXIT_PASSED
    print(f"{'id':<8} {'모듈':>4}  {'제목'}")
    for s in exercises:
        print(f"{s.id:<8} {s.module:>4}  {s.title_ko}")
    print(f"\n{len(exercises)}개. 자세히: python -m course exercise show <id>")
    return EXIT_PASSED


def describe(s: specs.ExerciseSpec) -> str:
    """The exercise as plain text: goal, launch, what each check demands."""
    m = s.multiple_of
    shape_rules = ", ".join(f"{with_particle(d, '는')} {m[d]}의 배수" for d in "MNK" if m[d] > 1) or "제한 없음 (1, 소수, 타일의 배수가 아닌 크기 포함)"
    sass_rules = []
    if s.forbid:
        sass_rules.append("없어야 할 명령: " + ", ".join(s.forbid))
    if s.require:
        sass_rules.append("있어야 할 명령: " + ", ".join(s.require))
    for rule, operands in s.operand_rules:
        sass_rules.append(f"{rule}는 {', '.join(operands)}에 모두 쓰여야 함")
    if s.max_registers:
        sass_rules.append(f"레지스터 {s.max_registers}개 이하")
    tools = ", ".join(t for t, on in s.hazards.items() if on) or "없음"
    lines = [f"{s.id}: {s.title_ko} (모듈 {s.module})", "", s.goal_ko.strip(), "",
             f"커널: {s.signature_text()}",
             f"실행 구성 (launch): {s.launch_text()}",
             f"크기 (shapes): {shape_rules}" + ("; A, B, C는 16바이트 정렬, 선행 차원은 4의 배수" if s.aligned16 else "")
             + "; " + size_limit_text(s),
             "", "검사 (checks):",
             "  1. 컴파일: NVRTC (sm_90)",
             "  2. SASS 규칙: " + ("; ".join(sass_rules) or "없음"),
             "  3. 정확성: " + _correctness_text(s),
             f"  4. 경쟁·메모리 검사: compute-sanitizer {tools} (없으면 반복 실행 차등 시험)",
             "  5. 속도: " + _speed_text(s),
             "", f"시작 코드: {s.starter}", f"힌트 {len(s.hints_ko)}개: JupyterLab에서 %exercise_hint {s.id}",
             f"검사: python -m course exercise check {s.id} 내_커널.cu"]
    return "\n".join(lines)


def _correctness_text(s) -> str:
    return correctness_text(s)


def _speed_text(s) -> str:
    return speed_text(s)


def _show(args) -> int:
    print(describe(specs.load(args.id)))
    return EXIT_PASSED


def _check(args) -> int:
    from course.autograder import checker, gpu

    spec = specs.load(args.id)
    limits = gpu.Limits()
    if args.time_limit:
        limits = gpu.Limits.uniform(args.time_limit)
    progress = None if args.json else (lambda what: print(f"… {what}", file=sys.stderr, flush=True))
    verdict = checker.check_file(spec, args.file, use_gpu=False if args.no_gpu else None, limits=limits,
                                 progress=progress, seed=args.seed)
    if args.record:
        _record(verdict, spec)
    if args.json:
        print(json.dumps(verdict.to_dict(), ensure_ascii=False, indent=1))
    else:
        print(verdict.text())
    if verdict.passed:
        return EXIT_PASSED
    return EXIT_FAILED if verdict.failures else EXIT_INCOMPLETE


def _record(verdict, spec) -> None:
    from course.quiz.progress import ProgressReadOnlyError, ProgressStore

    try:
        ProgressStore().record_exercise_attempt(verdict.to_dict(), module=spec.module, client="cli")
        print("진도 파일에 저장했습니다 (saved to progress).", file=sys.stderr)
    except (OSError, ProgressReadOnlyError) as exc:
        print(f"진도 파일에 저장하지 못했습니다: {exc}", file=sys.stderr)
