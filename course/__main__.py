"""Instructor command line: ``python -m course <command> --help``.

Commands
    export-form  student form (JSON without answers + Markdown) / 학생용 양식
    export-key   answer key (JSON, or Markdown for *.md) / 정답지
    grade        re-grade a folder of submissions into a gradebook CSV / 채점
    validate     check the question banks against the schema / 문제 은행 검사

Exit codes
    0  done (grade: at least one submission was graded; bad files are reported, not fatal)
    1  grade: no submission could be graded (empty folder, or every file was skipped)
    2  usage or setup error: bad arguments, missing/invalid bank, invalid settings, missing folder
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from course import instructor
from course.bank import BankError, available_modules, load_all_banks, load_bank
from course.settings import SettingsError, load_settings

EXIT_OK, EXIT_NOTHING_GRADED, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m course",
        description="SGEMM 강좌 교수자 도구 / Instructor tools for the SGEMM course: "
                    "양식·정답지 내보내기, 제출 파일 채점 (export forms and keys, grade submissions).",
        epilog="종료 코드 / exit codes: 0 성공 (success); 1 채점된 제출 없음 (nothing graded); "
               "2 사용법·설정 오류 (usage or setup error).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--banks", metavar="DIR",
                        help="문제 은행 폴더 / question bank folder (기본값 default: course/banks, 또는 SGEMM_COURSE_BANKS)")
    parser.add_argument("--config", metavar="FILE",
                        help="course_settings를 읽을 _config.yml / _config.yml to read course_settings from")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    form = sub.add_parser("export-form", help="학생용 양식 내보내기 / export a student form (no answers)",
                          description="정답 없는 학생용 양식을 JSON과 Markdown으로 씁니다 (mNN_form.json, mNN_form.md). "
                                      "/ Write a student form without answers as JSON and Markdown.")
    form.add_argument("--module", type=int, required=True, help="모듈 번호 / module number (4-10)")
    form.add_argument("--out", required=True, metavar="DIR", help="출력 폴더 / output folder")

    key = sub.add_parser("export-key", help="정답지 내보내기 / export the answer key",
                         description="정답지를 JSON으로 씁니다 (파일 이름이 .md로 끝나면 Markdown). "
                                     "/ Write the answer key as JSON (Markdown when FILE ends in .md).")
    key.add_argument("--module", type=int, required=True, help="모듈 번호 / module number (4-10)")
    key.add_argument("--out", required=True, metavar="FILE", help="출력 파일 / output file")

    grade = sub.add_parser("grade", help="제출 파일 채점 / grade a folder of submissions",
                           description="폴더 안의 제출 파일(*.json)을 문제 은행으로 다시 채점해 성적부 CSV를 씁니다. "
                                       "잘못된 파일은 보고하고 건너뜁니다. / Re-grade every submission (*.json) in a "
                                       "folder from the bank and write a gradebook CSV; bad files are reported and skipped.")
    grade.add_argument("--module", type=int, required=True, help="모듈 번호 / module number (4-10)")
    grade.add_argument("--submissions", required=True, metavar="DIR", help="제출 파일 폴더 / folder of submission files")
    grade.add_argument("--out", required=True, metavar="CSV", help="성적부 / gradebook CSV to write")
    grade.add_argument("--summary", metavar="CSV", help="문항별 난이도 요약 / per-question difficulty summary CSV")
    grade.add_argument("--manual-marks", metavar="CSV",
                       help="서술형 수동 채점 (student_id,question_id,mark 0-1) / manual marks for free answers")
    grade.add_argument("--pass-count", type=int, metavar="N",
                       help="통과 기준 문항 수 (기본값: _config.yml) / pass count override (default: _config.yml)")
    grade.add_argument("--require-integrity", action="store_true",
                       help="무결성 값 없는 파일도 건너뜀 / also skip files without an integrity digest")

    validate = sub.add_parser("validate", help="문제 은행 검사 / validate the question banks",
                              description="문제 은행을 스키마(SCHEMA.md)로 검사합니다. / Validate banks against SCHEMA.md.")
    validate.add_argument("--module", type=int, help="한 모듈만 / only this module")
    return parser


def _export_form(args) -> int:
    bank = load_bank(args.module, args.banks)
    for path in instructor.export_form(bank, args.out):
        print(f"썼습니다 (wrote): {path}")
    return EXIT_OK


def _export_key(args) -> int:
    bank = load_bank(args.module, args.banks)
    print(f"썼습니다 (wrote): {instructor.export_key(bank, args.out)}")
    print("주의: 정답지는 학생에게 공개하지 마세요. / Keep the key away from students.")
    return EXIT_OK


def _grade(args) -> int:
    bank = load_bank(args.module, args.banks)
    folder = Path(args.submissions)
    if not folder.is_dir():
        print(f"오류 (error): 제출 폴더가 없습니다: {folder}", file=sys.stderr)
        return EXIT_USAGE
    pass_count = args.pass_count
    if pass_count is None:
        checkpoint = load_settings(args.config).checkpoint(args.module)
        pass_count = checkpoint.pass_count if checkpoint else None
    marks, mark_problems = {}, []
    if args.manual_marks:
        marks, mark_problems = instructor.load_manual_marks(args.manual_marks, bank)
    report = instructor.grade_folder(bank, folder, pass_count, marks, args.require_integrity)
    graded_ids = {g.student_id for g in report.graded}
    mark_problems += [f"수동 채점 파일의 학번 {sid}에 해당하는 제출이 없습니다" for sid in sorted(set(marks) - graded_ids)]
    instructor.write_gradebook(report, args.out)
    if args.summary:
        instructor.write_difficulty(report, args.summary)
    for line in report.lines():
        print(line)
    for problem in mark_problems:
        print(f"  수동 채점 {problem}")
    rule = f"{pass_count}/{len(bank.ids)}" if pass_count is not None else "없음 (none)"
    print(f"통과 기준 (pass rule): {rule}; 성적부 (gradebook): {args.out}"
          + (f"; 요약 (summary): {args.summary}" if args.summary else ""))
    return EXIT_OK if report.graded else EXIT_NOTHING_GRADED


def _validate(args) -> int:
    if args.module is not None:
        bank = load_bank(args.module, args.banks)
        print(f"모듈 {bank.module}: 문항 {len(bank.questions)}개, 문제 없음 (ok)")
        return EXIT_OK
    banks = load_all_banks(args.banks)
    missing = [m for m in range(4, 11) if m not in banks]
    for module, bank in sorted(banks.items()):
        print(f"모듈 {module}: 문항 {len(bank.questions)}개, 문제 없음 (ok)")
    if missing:
        print("아직 없는 문제 은행 (missing banks): " + ", ".join(f"m{m:02d}.yaml" for m in missing))
    return EXIT_OK if banks or available_modules(args.banks) else EXIT_USAGE


COMMANDS = {"export-form": _export_form, "export-key": _export_key, "grade": _grade, "validate": _validate}


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
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
        print(f"파일 오류 (file error): {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
