"""`python -m course grade-code`: check a folder of learners' kernels into a spreadsheet-safe CSV.

Every .cu file found under the folder (recursively, never through a symbolic link, nor a hard link
whose other name lies outside the folder) is checked in its own subprocess (`python -m course
exercise check ID FILE --json`) with an overall time limit, so a submission that hangs NVRTC or the
GPU costs one row, not the run. The learner of a file is the first folder under the submissions
folder (folder-per-learner layout) or else the file's name without .cu. Everything that cannot be
checked (links, other file types, empty, binary, UTF-16 or non-UTF-8 files, files without a kernel,
includes of files other than the course's headers) is listed with its reason in the problems CSV.
File and folder names may hold any bytes (a CP949 name from a Korean Windows ZIP, control or
bidirectional characters): they are shown escaped (course.instructor.safe_text.shown_name), a checked file with
such a name gets an odd_file_name note, and every CSV is written whatever the names and verdicts hold.
Every file gets its own seed unless --seed gives one for all; the CSV records it (replay a row with
`python -m course exercise check ID FILE --seed N`).

This RUNS LEARNERS' CODE on this machine's GPU: use a machine (or container) you can afford to lose.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from course.autograder.cases import new_seed
from course.autograder.learner import INPUT_ERROR_KINDS, ExerciseInputError, read_source_file
from course.autograder.spec import ExerciseSpec
from course.autograder.verdict import CHECKS
from course.instructor.files import regular_files
from course.instructor.problems import Problem, write_problems
from course.instructor.safe_text import name_note, printable, shown_name, write_safe_csv

SOURCE_SUFFIXES = (".cu",)


@dataclass
class CodeRow:
    learner: str
    file: str
    verdict: dict | None          # Verdict.to_dict(), None when the subprocess gave none
    error: str = ""               # why there is no verdict (timeout, crash)
    seed: int | None = None       # the seed the check ran with


@dataclass
class CodeReport:
    folder: Path
    rows: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    def add(self, path: Path, outcome: str, kind: str, reason: str, learner: str = "") -> None:
        if outcome != "graded":
            odd = name_note(self.relative(path))
            if odd:
                reason = f"{reason} ({odd})"
        self.problems.append(Problem(self.name(path), outcome, kind, reason, learner))

    def relative(self, path: Path):
        try:
            return path.relative_to(self.folder)
        except ValueError:
            return path

    def name(self, path: Path) -> str:
        """The path inside the folder, shown safely (bytes that are not UTF-8 as \\xNN, controls escaped)."""
        relative = self.relative(path)
        return shown_name(relative.as_posix() if isinstance(relative, Path) else relative)

    @property
    def skipped(self) -> list:
        return [p for p in self.problems if p.outcome == "skipped"]


def learner_of(relative: str) -> str:
    """The learner of a file (its relative name as shown): the first folder, else the file's stem."""
    parts = Path(relative).parts
    return parts[0] if len(parts) > 1 else Path(relative).stem


def _verdict_or_none(data) -> dict | None:
    """A verdict as the check process prints it (a dict with passed and checks), else None."""
    if not isinstance(data, dict) or not isinstance(data.get("passed"), bool) or not isinstance(data.get("checks"), list):
        return None
    if not all(isinstance(c, dict) for c in data["checks"]):
        return None
    return data


def candidate_files(report: CodeReport) -> list[Path]:
    """Regular .cu files under the folder; everything else found on the way goes to the report."""
    return regular_files(report.folder, report, SOURCE_SUFFIXES, "not_cuda_file", "CUDA 소스 파일(*.cu)이 아닙니다")


def _check_one(spec: ExerciseSpec, path: Path, time_limit: float, no_gpu: bool, seed: int) -> tuple[dict | None, str]:
    """The verdict dict from a fresh `python -m course exercise check` process, or (None, why)."""
    command = [sys.executable, "-m", "course", "exercise", "check", spec.id, str(path), "--json",
               "--time-limit", str(time_limit), "--seed", str(seed)]
    if no_gpu:
        command.append("--no-gpu")
    # Five steps, three of them subprocesses with `time_limit` each, plus start-up: the whole check's limit.
    overall = 4 * time_limit + 60
    env = dict(os.environ, CUPY_TF32="0", PYTHONUNBUFFERED="1")
    repo = str(Path(__file__).resolve().parent.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (repo, env.get("PYTHONPATH", "")) if p)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
                               errors="replace", env=env, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=overall)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            process.kill()
        process.communicate()
        return None, f"검사 전체가 제한 시간 {overall:g}초를 넘어 중단했습니다 (timeout)"
    try:
        verdict = _verdict_or_none(json.loads(stdout))
    except (ValueError, RecursionError):
        verdict = None
    if verdict is not None:
        return verdict, ""
    last = (stderr.strip().splitlines() or ["(출력 없음)"])[-1]
    return None, f"검사 프로세스가 판정 없이 끝났습니다 (종료 코드 {process.returncode}): {printable(last)[:300]}"


def grade_code(spec: ExerciseSpec, folder, time_limit: float = 90.0, no_gpu: bool = False,
               progress=None, seed: int | None = None) -> CodeReport:
    report = CodeReport(Path(folder))
    files = candidate_files(report)
    usable = []
    for path in files:
        relative = report.name(path)
        try:
            read_source_file(path, follow_symlinks=False)
        except ExerciseInputError as exc:
            report.add(path, "skipped", exc.kind, str(exc).replace(str(path), relative), learner_of(relative))
            continue
        except Exception as exc:   # noqa: BLE001 - one file never stops the run
            report.add(path, "skipped", "unreadable", f"이 파일을 읽다가 예상하지 못한 오류가 났습니다 "
                                                      f"({type(exc).__name__}); 나머지 파일은 검사했습니다", learner_of(relative))
            continue
        usable.append(path)
        odd = name_note(report.relative(path))
        if odd:
            report.add(path, "graded", "odd_file_name", odd, learner_of(relative))
    by_learner: dict[str, list] = {}
    for path in usable:
        by_learner.setdefault(learner_of(report.name(path)), []).append(path)
    for learner, paths in sorted(by_learner.items()):
        if len(paths) > 1:
            for path in paths:
                report.add(path, "graded", "several_files",
                           f"학습자 {learner}의 .cu 파일이 {len(paths)}개라 모두 따로 검사했습니다", learner)
    for i, path in enumerate(usable, 1):
        relative = report.name(path)
        if progress:
            progress(f"[{i}/{len(usable)}] {printable(relative)}")
        file_seed = new_seed() if seed is None else seed
        try:
            verdict, error = _check_one(spec, path, time_limit, no_gpu, file_seed)
        except (OSError, ValueError) as exc:    # cannot start the check process for this file
            verdict, error = None, f"검사 프로세스를 시작하지 못했습니다 ({type(exc).__name__}: {printable(exc)[:200]})"
        report.rows.append(CodeRow(learner_of(relative), relative, verdict, error, file_seed))
        if verdict is None:
            report.add(path, "graded", "no_verdict", error, learner_of(relative))
    return report


PROBLEM_KINDS = {
    "symlink": "symbolic link, never followed",
    "hardlink": "hard link whose other name lies outside the folder, never read",
    "not_regular_file": "FIFO, device or socket",
    "not_cuda_file": "not a *.cu file",
    "several_files": "a learner with several .cu files (each checked)",
    "no_verdict": "the check process gave no verdict (timeout or crash)",
    "odd_file_name": "the file name is not UTF-8 or holds control/bidi characters (shown escaped; checked)",
    **INPUT_ERROR_KINDS,
}


def csv_header() -> list[str]:
    header = ["learner", "file", "passed", "diagnosis"]
    for check in CHECKS:
        header += [f"{check}_status", f"{check}_diagnosis", f"{check}_message"]
    return header + ["registers", "speed_ratio", "learner_ms", "reference_ms", "device", "source_sha256", "seed",
                     "error"]


def csv_row(row: CodeRow) -> list:
    v = row.verdict
    if v is None:
        return [row.learner, row.file, "no", "timeout" if "timeout" in row.error else "",
                *([""] * (3 * len(CHECKS))), None, None, None, None, "", "", row.seed, row.error]
    cells = [row.learner, row.file, "yes" if v["passed"] else ("no" if any(c["status"] == "fail" for c in v["checks"])
                                                               else "incomplete"), v.get("diagnosis") or ""]
    by_check = {c["check"]: c for c in v["checks"]}
    for check in CHECKS:
        c = by_check.get(check, {})
        cells += [c.get("status", ""), c.get("diagnosis") or "", c.get("message_ko", "")]
    sass = by_check.get("sass", {}).get("details", {})
    speed = by_check.get("speed", {}).get("details", {})
    return cells + [sass.get("registers"), speed.get("ratio"), speed.get("learner_ms"), speed.get("reference_ms"),
                    v.get("device", ""), v.get("source_sha256", ""), row.seed, ""]


def _safe_row(row: CodeRow) -> list:
    """csv_row, or a row that says the verdict could not be read (a verdict of an unexpected shape)."""
    try:
        return csv_row(row)
    except (KeyError, TypeError, AttributeError, ValueError):
        return csv_row(CodeRow(row.learner, row.file, None, "판정을 CSV로 옮기지 못했습니다 (unexpected verdict shape)",
                               row.seed))


def write_report(report: CodeReport, out_csv, problems_csv) -> None:
    """The results CSV (one row per checked file) and the problems CSV; either path may be None."""
    if out_csv is not None:
        write_safe_csv(out_csv, csv_header(), [_safe_row(r) for r in report.rows])
    if problems_csv is not None:
        write_problems(report.problems, problems_csv)
