"""Instructor command line: ``python -m course <command> --help``.

Commands
    export-form  student form (JSON without answers + Markdown) / 학생용 양식
    export-key   answer key (JSON, or Markdown for *.md) / 정답지
    grade        re-grade a folder of submissions into a gradebook CSV / 채점
    validate     check the question banks against the schema / 문제 은행 검사
    exercise     kernel exercises: list, show, check a .cu file / 커널 실습 (course.autograder.cli)
    grade-code   check a folder of learners' kernels into a CSV (runs their code) / 커널 제출물 채점
    unlock       instructor-signed unlock codes: keygen, code, verify / 잠금 해제 코드 (course.instructor.unlock_codes)

Exit codes
    0  done (grade: every file was graded cleanly; validate: the banks are valid and balanced)
    1  grade: no submission could be graded (empty folder, or every file was skipped)
       validate: the banks are valid, but the answer keys are unbalanced (position or length)
    2  usage or setup error: bad arguments, missing/invalid bank, invalid settings, missing folder
    3  grade: graded, but some files were skipped or graded with a note; they are listed in the
       problems CSV (default: <gradebook>_problems.csv beside the gradebook)
       grade-code: the same, for kernel submissions
    4  exercise check: nothing failed, but checks were skipped (no GPU on this machine)
    5  an unexpected internal error (a bug in the course tools): a Korean line, no traceback
       (set SGEMM_COURSE_DEBUG=1 to see it)

grade and grade-code never stop on one file: whatever a file holds or is named (bytes that are not
UTF-8, control characters, lone surrogates, huge numbers), it is graded or listed in the problems
CSV, and every CSV is written.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from course import syllabus
from course.instructor import forms, gradebook, problems, submissions
from course.instructor.safe_text import printable, shown_name
from course.quiz.bank import BankError, available_modules, choice_balance, course_modules, load_all_banks, load_bank
from course.settings import SettingsError, load_settings

EXIT_OK, EXIT_NOTHING_GRADED, EXIT_USAGE, EXIT_PROBLEMS = 0, 1, 2, 3
EXIT_UNBALANCED = 1
EXIT_INTERNAL = 5
DEBUG_ENV = "SGEMM_COURSE_DEBUG"


def _module_help() -> str:
    numbers = syllabus.load().numbers
    return f"모듈 번호 / module number ({numbers[0]}-{numbers[-1]})"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m course",
        description="SGEMM 강좌 강사 도구 / Instructor tools for the SGEMM course: "
                    "양식·정답지 내보내기, 제출 파일 채점 (export forms and keys, grade submissions).",
        epilog="종료 코드 / exit codes: 0 성공 (success); 1 grade: 채점된 제출 없음 (nothing graded), "
               "validate: 정답 위치·길이 치우침 (unbalanced keys); 2 사용법·설정 오류 (usage or setup error); "
               "3 grade: 건너뛰거나 참고가 붙은 파일이 있음, problems CSV 참고 (some files skipped or noted); "
               "5 내부 오류 (internal error).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--banks", metavar="DIR",
                        help="문제 은행 폴더 / question bank folder (기본값 default: course/quiz/banks, 또는 SGEMM_COURSE_BANKS)")
    parser.add_argument("--config", metavar="FILE",
                        help="course_settings를 읽을 _config.yml / _config.yml to read course_settings from")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    form = sub.add_parser("export-form", help="학생용 양식 내보내기 / export a student form (no answers)",
                          description="정답 없는 학생용 양식을 JSON과 Markdown으로 씁니다 (mNN_form.json, mNN_form.md). "
                                      "/ Write a student form without answers as JSON and Markdown.")
    form.add_argument("--module", type=int, required=True, help=_module_help())
    form.add_argument("--out", required=True, metavar="DIR", help="출력 폴더 / output folder")

    key = sub.add_parser("export-key", help="정답지 내보내기 / export the answer key",
                         description="정답지를 JSON으로 씁니다 (파일 이름이 .md로 끝나면 Markdown). "
                                     "/ Write the answer key as JSON (Markdown when FILE ends in .md).")
    key.add_argument("--module", type=int, required=True, help=_module_help())
    key.add_argument("--out", required=True, metavar="FILE", help="출력 파일 / output file")

    grade = sub.add_parser("grade", help="제출 파일 채점 / grade a folder of submissions",
                           description="폴더 안의 제출 파일(*.json)을 문제 은행으로 다시 채점해 성적부 CSV를 씁니다. "
                                       "심볼릭 링크는 따라가지 않습니다. 건너뛴 파일, 수정된 파일, 참고가 붙은 파일은 "
                                       "이유와 함께 problems CSV에 적습니다. CSV 칸은 스프레드시트가 수식으로 실행하지 "
                                       "않도록 처리합니다. / Re-grade every submission (*.json) in a folder from the bank "
                                       "and write a gradebook CSV. Symbolic links are never followed. Skipped, tampered "
                                       "and noted files are listed with their reason in a problems CSV. Cells are "
                                       "neutralised so that a spreadsheet never runs them as formulas.",
                           epilog="종료 코드 / exit codes: 0 모두 깨끗하게 채점 (all graded cleanly); "
                                  "1 채점된 제출 없음 (nothing graded); 2 사용법·설정 오류 (usage or setup error); "
                                  "3 채점했지만 problems CSV에 적힌 파일이 있음 (graded, with problems listed).")
    grade.add_argument("--module", type=int, required=True, help=_module_help())
    grade.add_argument("--submissions", required=True, metavar="DIR", help="제출 파일 폴더 / folder of submission files")
    grade.add_argument("--out", required=True, metavar="CSV", help="성적부 / gradebook CSV to write")
    grade.add_argument("--summary", metavar="CSV", help="문항별 난이도 요약 / per-question difficulty summary CSV")
    grade.add_argument("--problems", metavar="CSV",
                       help="건너뛴·참고 파일 목록 (기본값: 성적부 옆 <이름>_problems.csv) / "
                            "list of skipped and noted files (default: <gradebook>_problems.csv beside it)")
    grade.add_argument("--manual-marks", metavar="CSV",
                       help="서술형 수동 채점 (student_id,question_id,mark 0-1) / manual marks for free answers")
    grade.add_argument("--pass-count", type=_pass_count, metavar="N",
                       help="통과 기준 문항 수 (기본값: _config.yml) / pass count override (default: _config.yml)")
    grade.add_argument("--require-integrity", action="store_true",
                       help="무결성 값 없는 파일도 건너뜀 / also skip files without an integrity digest")
    grade.add_argument("--attempt-limit", type=_attempt_limit, metavar="N",
                       help="시도 번호가 N을 넘는 제출에 경고 (기본값: _config.yml의 attempt_limit, 0은 제한 없음) / "
                            "flag attempt numbers above N (default: attempt_limit in _config.yml; 0: no limit)")

    validate = sub.add_parser(
        "validate", help="문제 은행 검사 / validate the question banks",
        description="문제 은행을 스키마(SCHEMA.md)로 검사하고, 은행별·전체의 정답 위치 분포와 정답이 유일하게 가장 긴 "
                    "선택지인 비율을 보고합니다. 전체에서 한 위치가 하나 고르기 정답의 40%를 넘거나, 정답이 유일하게 "
                    "가장 긴 문항이 35%를 넘거나, 모두 고르기 문항의 절반을 넘는 문항에서 같은 위치가 정답이면 "
                    "실패합니다. / Validate banks against SCHEMA.md (variants included) and report, per bank and "
                    "overall, where the keys sit and how often the key is the unique longest option; fail when one "
                    "position holds over 40% of single-choice keys, the key is the unique longest in over 35%, or one "
                    "position is a key in more than half of the multiple-answer questions.",
        epilog="종료 코드 / exit codes: 0 문제 없음 (ok); 1 정답 위치·길이 치우침 (unbalanced keys); "
               "2 스키마 오류 (schema error).")
    validate.add_argument("--module", type=int, help="한 모듈만 / only this module")

    toc = sub.add_parser("toc", help="목차(_toc.yml)의 본문을 강좌 구성에서 쓰기 / write _toc.yml's modules part",
                         description="_toc.yml의 '본문' 부분을 course/syllabus.py의 모듈 순서대로 다시 씁니다. "
                                     "/ Rewrite the modules part of _toc.yml from the syllabus.")
    toc.add_argument("--file", default=str(Path(__file__).resolve().parent.parent / "_toc.yml"), metavar="FILE",
                     help="목차 파일 / the _toc.yml to write (기본값: 저장소의 _toc.yml)")
    toc.add_argument("--check", action="store_true",
                     help="쓰지 않고 다른지만 확인 (다르면 종료 코드 1) / only check (exit 1 when it differs)")

    from course.autograder import cli as exercise_cli

    exercise_cli.add_parser(sub)
    code = sub.add_parser(
        "grade-code", help="커널 제출물 채점 (학생 코드를 실행함) / grade kernel submissions (runs learners' code)",
        description="폴더 안의 CUDA 소스(*.cu)마다 실습 검사를 따로 된 하위 프로세스에서 제한 시간을 두고 실행해, 학습자마다 "
                    "한 줄(검사별 결과와 진단)의 CSV를 씁니다. 주의: 학생이 낸 코드를 이 머신의 GPU에서 실행합니다. "
                    "잃어도 되는 머신이나 컨테이너에서 돌리세요. / Check every *.cu under a folder, each in its own "
                    "subprocess with a time limit, into a CSV with every check's result. WARNING: this runs learners' "
                    "code on this machine's GPU.",
        epilog="종료 코드 / exit codes: 0 모두 검사함 (all checked); 1 검사한 제출 없음 (nothing checked); "
               "2 사용법 오류 (usage error); 3 건너뛰거나 참고가 붙은 파일이 있음, problems CSV 참고 (some files skipped).")
    code.add_argument("--exercise", required=True, metavar="ID", type=exercise_cli.exercise_id,
                      help="실습 번호 / exercise id (예: m06-e1)")
    code.add_argument("--submissions", required=True, metavar="DIR", help="제출 폴더 / folder of .cu submissions")
    code.add_argument("--out", required=True, metavar="CSV", help="결과 CSV / result CSV to write")
    code.add_argument("--problems", metavar="CSV",
                      help="건너뛴 파일 목록 (기본값: <이름>_problems.csv) / skipped files (default: <out>_problems.csv)")
    code.add_argument("--time-limit", type=exercise_cli.time_limit, default=90.0, metavar="S",
                      help="하위 프로세스마다의 제한 시간(초, 기본 90) / per-subprocess time limit in seconds")
    code.add_argument("--seed", type=exercise_cli.seed_value, metavar="N",
                      help="모든 파일에 같은 시드 (기본: 파일마다 새 시드, CSV의 seed 열에 기록) / one seed for every "
                           "file (default: a fresh one per file, in the CSV's seed column)")
    code.add_argument("--no-gpu", action="store_true", help="컴파일과 SASS만 / compile and SASS checks only")
    from course.instructor import unlock_codes

    unlock_codes.add_parser(sub)
    return parser


def _pass_count(text: str) -> int:
    """argparse type: a count of questions, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"통과 기준은 문항 수(1 이상의 정수)여야 합니다 (받은 값: {text!r})") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"통과 기준은 1 이상이어야 합니다 (받은 값: {text!r})")
    return value


def _attempt_limit(text) -> int:
    """argparse type (and the check of _config.yml's attempt_limit): 0 (no limit) or a positive count."""
    try:
        value = int(str(text), 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"시도 횟수 제한은 0 이상의 정수여야 합니다 (받은 값: {text!r})") from None
    if isinstance(text, bool) or not 0 <= value <= 10 ** 6:
        raise argparse.ArgumentTypeError(f"시도 횟수 제한은 0 이상 1000000 이하여야 합니다 (받은 값: {text!r})")
    return value


def _configured_attempt_limit(config) -> int | None:
    """course_settings.attempt_limit (None when 0: no limit), as course.settings validated it."""
    from course.settings import load_settings

    return load_settings(config).attempt_limit or None


def _write_outputs(writers) -> bool:
    """Run every (label, path, write) even when one fails; a failure is a Korean line. True when all wrote."""
    ok = True
    for label, path, write in writers:
        try:
            write()
        except OSError as exc:
            ok = False
            print(f"오류 (error): {label} 파일을 쓸 수 없습니다: {shown_name(path)} "
                  f"({printable(exc.strerror or exc)})", file=sys.stderr)
    return ok


def _export_form(args) -> int:
    bank = load_bank(args.module, args.banks)
    for path in forms.export_form(bank, args.out):
        print(f"썼습니다 (wrote): {path}")
    return EXIT_OK


def _export_key(args) -> int:
    bank = load_bank(args.module, args.banks)
    print(f"썼습니다 (wrote): {forms.export_key(bank, args.out)}")
    print("주의: 정답지는 학생에게 공개하지 마세요. / Keep the key away from students.")
    return EXIT_OK


def _grade(args) -> int:
    bank = load_bank(args.module, args.banks)
    folder = Path(args.submissions)
    if not folder.is_dir():
        print(f"오류 (error): 제출 폴더가 없습니다: {folder}", file=sys.stderr)
        return EXIT_USAGE
    pass_count = args.pass_count
    if pass_count is not None and pass_count > len(bank.ids):
        print(f"오류 (error): --pass-count {pass_count}이(가) 문항 수 {len(bank.ids)}보다 큽니다", file=sys.stderr)
        return EXIT_USAGE
    if pass_count is None:
        checkpoint = load_settings(args.config).checkpoint(args.module)
        pass_count = checkpoint.pass_count if checkpoint else None
    marks, mark_problems = {}, []
    if args.manual_marks:
        marks, mark_problems = submissions.load_manual_marks(args.manual_marks, bank)
    limit = args.attempt_limit if args.attempt_limit is not None else _configured_attempt_limit(args.config)
    limit = limit or None
    report = submissions.grade_folder(bank, folder, pass_count, marks, args.require_integrity, attempt_limit=limit)
    graded_ids = {g.student_id for g in report.graded}
    mark_problems += [f"수동 채점 파일의 학번 {printable(sid)}에 해당하는 제출이 없습니다"
                      for sid in sorted(set(marks) - graded_ids)]
    report.problems += [problems.Problem(shown_name(args.manual_marks), "ignored", "manual_mark", problem)
                        for problem in mark_problems]
    problems_csv = args.problems or problems.problems_path_for(args.out)
    written = _write_outputs([
        ("문제 목록(problems CSV)", problems_csv, lambda: problems.write_problems(report.problems, problems_csv)),
        ("성적부(gradebook CSV)", args.out, lambda: gradebook.write_gradebook(report, args.out)),
        *([("요약(summary CSV)", args.summary, lambda: gradebook.write_difficulty(report, args.summary))]
          if args.summary else [])])
    for line in report.lines():
        print(line)
    rule = f"{pass_count}/{len(bank.ids)}" if pass_count is not None else "없음 (none)"
    shown = shown_name
    print(f"통과 기준 (pass rule): {rule}; 시도 횟수 제한 (attempt limit): {limit or '없음 (none)'}; "
          f"성적부 (gradebook): {shown(args.out)}; 문제 목록 (problems): {shown(problems_csv)} ({len(report.problems)}건)"
          + (f"; 요약 (summary): {shown(args.summary)}" if args.summary else ""))
    if not written:
        return EXIT_USAGE
    if not report.graded:
        return EXIT_NOTHING_GRADED
    return EXIT_PROBLEMS if report.problems else EXIT_OK


def _validate(args) -> int:
    if args.module is not None:
        bank = load_bank(args.module, args.banks)
        print(f"모듈 {bank.module}: 문항 {len(bank.questions)}개, 스키마 문제 없음 (schema ok)")
        print("\n".join(choice_balance(bank).lines()))
        print("(정답 위치·길이 기준은 모든 은행을 합쳐 검사합니다: python -m course validate)")
        return EXIT_OK
    banks = load_all_banks(args.banks)
    missing = [m for m in course_modules() if m not in banks]
    for module, bank in sorted(banks.items()):
        print(f"모듈 {module}: 문항 {len(bank.questions)}개, 스키마 문제 없음 (schema ok)")
    if missing:
        print("아직 없는 문제 은행 (missing banks): " + ", ".join(f"m{m:02d}.yaml" for m in missing))
    if not banks:
        return EXIT_OK if available_modules(args.banks) else EXIT_USAGE
    print("\n정답 위치와 길이 (answer-key balance; 위치 a, b, c…는 은행 파일의 순서):")
    overall = None
    for module, bank in sorted(banks.items()):
        balance = choice_balance(bank)
        print("\n".join(balance.lines()))
        overall = balance if overall is None else overall.merged(balance, "전체")
    overall.label = "전체 (overall)"
    print("\n".join(overall.lines()))
    unbalanced = overall.problems()
    for problem in unbalanced:
        print(f"치우침 (unbalanced): {problem}", file=sys.stderr)
    if not unbalanced:
        print("정답 위치·길이 기준 통과 (balance ok)")
    return EXIT_UNBALANCED if unbalanced else EXIT_OK


def _toc(args) -> int:
    from course import toc

    path = Path(args.file)
    if args.check:
        same = path.read_text(encoding="utf-8") == toc.expected_text(path)
        print("목차가 강좌 구성과 같습니다 (toc up to date)" if same else
              "목차가 강좌 구성과 다릅니다: `python -m course toc`로 다시 쓰세요 (toc out of date)")
        return EXIT_OK if same else 1
    changed = toc.write(path)
    print(f"{'썼습니다 (wrote)' if changed else '바뀐 것 없음 (unchanged)'}: {path}")
    return EXIT_OK


def _exercise(args) -> int:
    from course.autograder import cli as exercise_cli

    return exercise_cli.run(args)


def _grade_code(args) -> int:
    from course.autograder import ExerciseError, load
    from course.autograder.grade import grade_code, write_report

    try:
        spec = load(args.exercise)
    except ExerciseError as exc:
        print(f"오류 (error): {exc}", file=sys.stderr)
        return EXIT_USAGE
    folder = Path(args.submissions)
    if not folder.is_dir():
        print(f"오류 (error): 제출 폴더가 없습니다: {folder}", file=sys.stderr)
        return EXIT_USAGE
    print("주의: 학생이 낸 코드를 이 머신에서 실행합니다 (this runs learners' code).", file=sys.stderr)
    report = grade_code(spec, folder, args.time_limit, args.no_gpu,
                        progress=lambda line: print(line, file=sys.stderr, flush=True), seed=args.seed)
    problems_csv = args.problems or problems.problems_path_for(args.out)
    written = _write_outputs([
        ("문제 목록(problems CSV)", problems_csv, lambda: write_report(report, None, problems_csv)),
        ("결과(results CSV)", args.out, lambda: write_report(report, args.out, None))])
    passed = sum(1 for r in report.rows if r.verdict and r.verdict.get("passed"))
    print(f"검사(checked): {len(report.rows)}개, 모두 통과(passed): {passed}개, 건너뜀(skipped): {len(report.skipped)}개")
    label = {"skipped": "건너뜀", "graded": "참고  ", "ignored": "무시함"}
    for p in report.problems:
        print(f"  {label.get(p.outcome, p.outcome)}  {printable(p.file)}: {printable(p.reason)}")
    print(problems.problem_count_line(report.problems))
    print(f"결과 (results): {shown_name(args.out)}; 문제 목록 (problems): {shown_name(problems_csv)} "
          f"({len(report.problems)}건)")
    if not written:
        return EXIT_USAGE
    if not report.rows:
        return EXIT_NOTHING_GRADED
    return EXIT_PROBLEMS if report.problems else EXIT_OK


def _unlock(args) -> int:
    from course.instructor import unlock_codes

    return unlock_codes.run(args)


COMMANDS = {"export-form": _export_form, "export-key": _export_key, "grade": _grade, "validate": _validate, "toc": _toc,
            "exercise": _exercise, "grade-code": _grade_code, "unlock": _unlock}


def _safe_streams() -> None:
    """Terminal lines never stop the run: what the terminal cannot show is written as an escape."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass


def main(argv=None) -> int:
    _safe_streams()
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except KeyboardInterrupt:
        print("중단했습니다 (interrupted).", file=sys.stderr)
        return 130
    except Exception as exc:   # noqa: BLE001 - the last guard: a Korean line, never a traceback
        if os.environ.get(DEBUG_ENV):
            raise
        print(f"내부 오류 (internal error, {type(exc).__name__}): {printable(str(exc))[:300]}. "
              f"강좌 도구의 버그입니다; {DEBUG_ENV}=1로 다시 실행하면 자세한 내용(traceback)이 나옵니다", file=sys.stderr)
        return EXIT_INTERNAL


def _run(args) -> int:
    try:
        return COMMANDS[args.command](args)
    except BankError as exc:
        print("문제 은행 오류 (bank error):", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return EXIT_USAGE
    except SettingsError as exc:
        print(f"설정 오류 (settings error): {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"파일 오류 (file error): {printable(exc)}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
