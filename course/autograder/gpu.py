"""The three checks that run the learner's kernel, each in a subprocess with a time limit.

course.autograder.worker does the GPU work; this module starts it, kills its whole process group at
the time limit (a hang becomes a "timeout" verdict that names what was running), reads its events
from the status file only (the kernel's printf on stdout is shown to the learner, capped, and never
parsed), and turns them into Korean check results. compute-sanitizer wraps the worker for the
hazards check, writing its report to a file of its own; where it is not installed, a repeated-run
test stands in and says so. The cases and every message that depends on the exercise's kind (what the result
is compared with, how a case reads, advice in the kind's terms) come from the kind (course.autograder.kinds).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from course.autograder import cases as case_plans
from course.autograder import kinds
from course.autograder.spec import ExerciseSpec
from course.autograder.verdict import CheckResult
from korean_text import with_particle

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
SANITIZER_ENV = "COURSE_SANITIZER"       # path of compute-sanitizer, or "none" to act as if missing
TOOL_DIAGNOSIS = {"memcheck": "out_of_bounds", "racecheck": "race", "synccheck": "sync_error"}
# Seconds a worker may take before the learner's kernel first runs (CuPy import, NVRTC, cuBLAS start,
# first-use compiles of CuPy's own kernels on a machine whose caches are cold; compute-sanitizer).
STARTUP_SECONDS = 240.0


@dataclass(frozen=True)
class Limits:
    """Seconds each subprocess may run before it is killed (compile and CUDA start-up included)."""
    correctness: float = 60.0
    hazards: float = 240.0        # per compute-sanitizer tool (they run side by side)
    speed: float = 180.0

    @classmethod
    def uniform(cls, seconds: float) -> "Limits":
        """One limit for every subprocess; compute-sanitizer gets at least three times as long (it is slow)."""
        return cls(seconds, max(3 * seconds, 60.0), seconds)


OUTPUT_CAP = 64 * 1024        # bytes of the kernel's printf (and of stderr) kept per subprocess
SHOWN_OUTPUT_LINES = 20       # lines of it shown to the learner


@dataclass
class WorkerRun:
    timed_out: bool
    returncode: int | None
    events: list = field(default_factory=list)     # from the status channel only
    stdout: str = ""              # the kernel's printf (capped at OUTPUT_CAP), never parsed
    stderr: str = ""
    seconds: float = 0.0
    stdout_bytes: int = 0         # how much the kernel printed in all
    sanitizer_text: str = ""      # compute-sanitizer's report (its own --log-file)
    ready_seconds: float | None = None   # when the worker said "ready" (the kernel's clock starts there)
    retried: bool = False         # a sanitizer tool that crashed on its own and was run once more

    def last(self, kind: str) -> dict | None:
        return next((e for e in reversed(self.events) if e.get("event") == kind), None)

    @property
    def stage(self) -> str:
        stage = self.last("stage")
        return stage["what"] if stage else "시작 전"

    @property
    def sanitizer_lines(self) -> list[str]:
        return [ln for ln in self.sanitizer_text.splitlines() if ln.startswith("=========")]


def sanitizer_path() -> str | None:
    env = os.environ.get(SANITIZER_ENV)
    if env:
        return None if env == "none" else env
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for candidate in ("/usr/local/cuda/bin/compute-sanitizer", "/opt/cuda/bin/compute-sanitizer"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


class _CappedReader:
    """Drains a pipe to its end (so the child never blocks on a full pipe), keeping OUTPUT_CAP bytes."""

    def __init__(self, stream):
        import threading

        self.stream, self.kept, self.total = stream, bytearray(), 0
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while True:
            chunk = self.stream.read(65536)
            if not chunk:
                return
            self.total += len(chunk)
            room = OUTPUT_CAP - len(self.kept)
            if room > 0:
                self.kept += chunk[:room]

    def text(self) -> str:
        self.thread.join(timeout=10)
        return self.kept.decode("utf-8", errors="replace")


class _StatusReader:
    """The worker's events, read from the status file it appends JSON lines to."""

    def __init__(self, path: Path):
        self.path, self.offset, self.pending, self.events = path, 0, b"", []

    def poll(self) -> list[dict]:
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                data = handle.read()
        except OSError:
            return []
        self.offset += len(data)
        lines = (self.pending + data).split(b"\n")
        self.pending = lines.pop()
        new = []
        for line in lines:
            try:
                event = json.loads(line.decode("utf-8"))
            except ValueError:
                continue
            if isinstance(event, dict):
                new.append(event)
        self.events += new
        return new

    def ready(self) -> bool:
        self.poll()
        return any(e.get("event") == "ready" for e in self.events)


def run_worker(job: dict, time_limit: float, wrapper: tuple = (), startup_limit: float | None = None,
               sanitizer_log: bool = False) -> WorkerRun:
    """Run the worker on `job` and kill its process group when it overstays.

    Two clocks: the worker has `startup_limit` seconds (default: STARTUP_SECONDS, at least
    time_limit) to import CuPy, compile the kernel and warm up its own helpers, which can take long
    on a fresh machine whose caches are cold; it then says "ready", and from there the learner's
    kernel has `time_limit` seconds. So a hang is judged by the kernel's time alone.

    The worker's events come through a status file in its own folder; stdout is the kernel's printf,
    kept up to OUTPUT_CAP bytes and never parsed. sanitizer_log: `wrapper` is compute-sanitizer,
    whose report goes to its own file (--log-file) instead of stdout.
    """
    import time

    startup_limit = max(startup_limit or STARTUP_SECONDS, time_limit)
    env = dict(os.environ, CUPY_TF32="0", PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    with tempfile.TemporaryDirectory(prefix="course-exercise-") as folder:
        job_file, status_file, log_file = (Path(folder) / n for n in ("job.json", "status.jsonl", "sanitizer.log"))
        job_file.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
        status_file.touch()
        if sanitizer_log and wrapper:
            wrapper = (wrapper[0], "--log-file", str(log_file), *wrapper[1:])
        command = [*wrapper, sys.executable, "-m", "course.autograder.worker", str(job_file), str(status_file)]
        started = time.monotonic()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=folder,
                                   start_new_session=True)
        out, err, status = _CappedReader(process.stdout), _CappedReader(process.stderr), _StatusReader(status_file)
        timed_out = not _wait_ready(process, status, startup_limit)
        ready_seconds = time.monotonic() - started if status.ready() else None
        if not timed_out:
            try:
                process.wait(timeout=time_limit)
            except subprocess.TimeoutExpired:
                timed_out = True
        if timed_out:
            _kill_group(process)
            process.wait()
        status.poll()
        sanitizer_text = log_file.read_text(encoding="utf-8", errors="replace") if log_file.exists() else ""
        seconds = time.monotonic() - started
    return WorkerRun(timed_out, process.returncode, status.events, out.text(), err.text(), seconds, out.total,
                     sanitizer_text, ready_seconds)


def _wait_ready(process: subprocess.Popen, status: _StatusReader, limit: float) -> bool:
    """True once the worker said "ready" or ended; False when `limit` seconds passed first."""
    import time

    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if status.ready() or process.poll() is not None:
            return True
        time.sleep(0.05)
    return False


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


def kernel_output(run: WorkerRun) -> str:
    """What the kernel printed, for the learner: the first lines, control characters made visible."""
    if not run.stdout_bytes:
        return ""
    from course.instructor.safe_text import printable

    lines = run.stdout.splitlines()
    shown = [printable(line[:200], keep_tabs=True) for line in lines[:SHOWN_OUTPUT_LINES]]
    cut = run.stdout_bytes > OUTPUT_CAP or len(lines) > SHOWN_OUTPUT_LINES
    part = f"처음 {len(shown)}줄" if cut else "전부"
    return (f"커널이 printf로 출력한 내용 (모두 {run.stdout_bytes:,}바이트 중 {part}; 검사기는 이 출력을 읽지 "
            "않습니다):\n" + "\n".join(f"    {line}" for line in shown))


def _with_output(result: CheckResult, run: WorkerRun) -> CheckResult:
    text = kernel_output(run)
    if text:
        result.message_ko += "\n" + text
        result.details["kernel_output_bytes"] = run.stdout_bytes
    return result


def _job(spec: ExerciseSpec, source: str, name: str, mode: str, **extra) -> dict:
    return {"mode": mode, "spec": spec.to_dict(), "source": source, "name": name, **extra}


def _fault_advice(error: str) -> str:
    if "Misaligned" in error or "misaligned" in error:
        return ("정렬되지 않은 주소(misaligned address)입니다: float4(16바이트) 읽기·쓰기는 주소가 16바이트의 배수여야 "
                "합니다. float4로 읽는 인덱스가 4씩 움직이는지 확인하세요.")
    if "IllegalAddress" in error or "illegal" in error:
        return "잘못된 주소(illegal address)입니다: 인덱스 계산과 경계 검사(bounds check)를 확인하세요."
    return "실행 구성 오류라면 블록당 자원(레지스터, 공유 메모리)을, 그 밖에는 인덱스 계산을 확인하세요."


def _timeout_advice(run: WorkerRun) -> str:
    if run.stdout_bytes > OUTPUT_CAP:
        return (f"커널이 printf로 {run.stdout_bytes:,}바이트를 출력했습니다. printf가 많으면 커널이 그만큼 느려집니다: "
                "printf를 지우고 다시 검사하세요. 그래도 끝나지 않으면 끝나지 않는 루프를 확인하세요.")
    return ("끝나지 않는 루프(infinite loop: 루프 변수가 늘지 않거나 조건이 늘 참인 경우)나, 일부 스레드만 도달하는 "
            "배리어를 확인하세요.")


def _abnormal(check: str, run: WorkerRun, limit: float) -> CheckResult | None:
    """Timeout, fault, crash or a compile failure on the device, as a check result (None if normal).

    Everything here comes from the status channel; what the kernel printed is shown, never read."""
    if run.timed_out and run.last("ready") is None:
        return CheckResult.failed(
            check, "timeout",
            f"커널을 실행하기 전 준비(CuPy, NVRTC 컴파일, cuBLAS)가 {run.seconds:.0f}초 안에 끝나지 않았습니다. 이 머신의 "
            "GPU가 다른 작업으로 바쁘거나 설치에 문제가 있습니다 (`make doctor`로 점검하세요).", stage=run.stage,
            limit_s=limit, startup=True)
    if run.timed_out:
        return _with_output(CheckResult.failed(
            check, "timeout",
            f"커널이 제한 시간 {limit:g}초 안에 끝나지 않아 하위 프로세스(subprocess)를 종료했습니다. "
            f"마지막으로 하던 일: {run.stage}. " + _timeout_advice(run), stage=run.stage, limit_s=limit), run)
    fault = run.last("fault")
    if fault:
        return _with_output(CheckResult.failed(
            check, "fault",
            f"커널 실행이 CUDA 오류로 중단되었습니다 (fault): {fault['error']}. 마지막으로 하던 일: {run.stage}. "
            + _fault_advice(fault["error"]), stage=run.stage, error=fault["error"]), run)
    failed = run.last("compile_failed")
    if failed:
        return CheckResult.failed(check, "compile_error",
                                  "이 GPU의 NVRTC가 소스를 컴파일하지 못했습니다:\n" + failed["message"])
    if run.last("result") is None:
        crash = run.last("crash")
        why = crash["error"] if crash else (run.stderr.strip().splitlines() or ["(출력 없음)"])[-1]
        return _with_output(CheckResult.failed(
            check, "fault",
            f"커널을 실행하던 하위 프로세스가 결과 없이 끝났습니다 (종료 코드 {run.returncode}): {why}",
            stage=run.stage, stderr=run.stderr[-2000:]), run)
    return None


# ----------------------------------------------------------------------------- correctness

_OUTCOME_DIAGNOSIS = {"oob_write": "out_of_bounds", "oob_read": "out_of_bounds", "writes_inputs": "writes_inputs",
                      "uninitialized_shared": "uninitialized_shared", "fill_dependent": "uninitialized_shared",
                      "reads_c": "reads_c_with_beta_zero", "unwritten": "unwritten_output", "wrong_values": "wrong_values",
                      "nondeterministic": "race"}
_ORDER = ("out_of_bounds", "writes_inputs", "race", "uninitialized_shared", "reads_c_with_beta_zero", "unwritten_output",
          "wrong_values")
OUTCOME_TEXT = {"oob_write": "행렬 밖에 씀", "oob_read": "행렬 밖을 읽음", "writes_inputs": "입력 {inputs} 바꿈",
                "uninitialized_shared": "쓰지 않은 공유 메모리를 읽음",
                "fill_dependent": "실행 전 공유 메모리의 내용에 따라 결과가 달라짐", "reads_c": "beta = 0인데 C를 읽음",
                "unwritten": "C의 일부를 쓰지 않음", "wrong_values": "값이 다름",
                "nondeterministic": "같은 입력으로 다시 실행하면 결과가 달라짐"}


def correctness_check(spec: ExerciseSpec, source: str, name: str, limits: Limits, seed: int = 0) -> CheckResult:
    plan = kinds.of(spec).correctness_cases(spec, seed)
    run = run_worker(_job(spec, source, name, "correctness", cases=[c.as_dict() for c in plan],
                          shared_fill=list(case_plans.shared_fill(spec, seed))), limits.correctness)
    abnormal = _abnormal("correctness", run, limits.correctness)
    if abnormal:
        abnormal.details["seed"] = seed
        return abnormal
    result = run.last("result")
    judged = judge_outcomes(spec, result["cases"], seed, result.get("device", ""), result.get("shared_junk_seen"))
    judged.details["shared_fill"] = result.get("shared_fill")
    if run.ready_seconds is not None:   # the limit counts from "ready": start-up and the learner's part apart
        judged.details["seconds"] = {"start_up": round(run.ready_seconds, 1),
                                     "after_ready": round(run.seconds - run.ready_seconds, 1)}
    return _with_output(judged, run)


def judge_outcomes(spec: ExerciseSpec, outcomes: list, seed: int, device: str = "", junk_seen=None) -> CheckResult:
    """The correctness verdict from the worker's per-case outcomes (CPU only: tests feed it directly)."""
    bad = [c for c in outcomes if c["outcome"] != "ok"]
    details = {"cases": outcomes, "device": device, "tolerance": 1e-5, "seed": seed, "shared_junk_seen": junk_seen}
    if not bad:
        worst = max((c["rel_error"] or 0.0) for c in outcomes)
        drawn = sum(1 for c in outcomes if c.get("drawn"))
        return CheckResult.passed(
            "correctness", f"{len(outcomes)}가지 경우(고정 {len(outcomes) - drawn}, 시드 {seed}에서 뽑은 {drawn})에서 "
                           f"{with_particle(kinds.of(spec).reference_name_ko, '와')} 일치합니다 (최대 상대 오차 {worst:.1e}, 허용 1e-05; 행 간격 "
                           f"{_strides_name(spec)}가 모두 다른 여백 있는 행렬, beta = 0이면 NaN과 ±Inf로 채운 C, 입력의 "
                           "NaN·±Inf는 IEEE 규칙대로, 실행마다 다른 무작위 비트 패턴 두 가지로 채운 공유 메모리에서 같은 "
                           "결과).", **details)
    found = {_OUTCOME_DIAGNOSIS[c["outcome"]] for c in bad}
    diagnosis = next(d for d in _ORDER if d in found)
    example = next(c for c in bad if _OUTCOME_DIAGNOSIS[c["outcome"]] == diagnosis)
    first = bad[0]
    head = (f"{len(outcomes)}가지 중 {len(bad)}가지에서 틀립니다. 처음 틀린 경우: {outcomes.index(first) + 1}번째 "
            f"{kinds.of(spec).shape_text(first, spec)} — {_outcome_text(first['outcome'], spec)}.")
    return CheckResult.failed("correctness", diagnosis,
                              head + " " + _correctness_message(diagnosis, example, bad, outcomes, spec), **details)


def _outcome_text(outcome: str, spec: ExerciseSpec) -> str:
    """OUTCOME_TEXT of an outcome, the inputs named as the exercise's kind has them ("A·B", "P")."""
    return OUTCOME_TEXT[outcome].format(inputs=with_particle("·".join(kinds.of(spec).read_only), "를"))


def _strides_name(spec: ExerciseSpec) -> str:
    return "·".join(n for n, _ in spec.parameters if n.startswith("ld"))


def _inputs_text(spec: ExerciseSpec) -> str:
    """The read-only inputs of the exercise's kind ("A나 B", "P")."""
    return "나 ".join(n for n, _ in spec.parameters if n in kinds.of(spec).read_only)


def _element(case: dict) -> str:
    w = case.get("first_wrong")
    if not w:
        return ""
    return f" 예: C[{w['row']}][{w['col']}] = {w['got']:.6g}, 기대값 {w['want']:.6g}."


def _values_hint(bad: list, outcomes: list, spec: ExerciseSpec) -> str:
    """"Only with padded rows" (the worker re-ran the case with tight rows and it was right) or "only
    at the edges" (said only when every whole-tile case passed, one of them with alpha != 0)."""
    whole = [c for c in outcomes if not c.get("edge")]
    if all(c.get("tight_ok") for c in bad):
        return kinds.of(spec).tight_rows_hint_ko
    product_tested = any(c["alpha"] != 0.0 for c in whole)
    if all(c.get("edge") for c in bad) and whole and product_tested and all(c["outcome"] == "ok" for c in whole):
        return kinds.of(spec).edge_hint_ko(spec)
    return ""


def _correctness_message(diagnosis: str, example: dict, bad: list, outcomes: list, spec: ExerciseSpec) -> str:
    where = kinds.of(spec).shape_text(example, spec)
    if diagnosis == "out_of_bounds":
        if example["outcome"] == "oob_write" and (example.get("input_guard_written") or example.get("input_padding_written")):
            return (f"{where}: {_inputs_text(spec)} 바깥(보호 구역이나 행 사이 여백)에 썼습니다 (out of bounds write). 입력 행렬에는 "
                    "쓰지 말고, 주소 계산에 쓰는 행 간격과 경계 검사를 확인하세요.")
        if example["outcome"] == "oob_write":
            part = ("행 사이 여백(ldc 패딩)" if example.get("padding_written") and not example.get("guard_written")
                    else "C 바깥의 보호 구역(guard band)")
            others = "나 ".join(n for n, _ in spec.parameters if n.startswith("ld") and n != "ldc")
            return (f"{where}: {part}에 썼습니다 (out of bounds write). 행렬 밖의 스레드가 쓰지 않도록 "
                    "`if (row < M && col < N)` 같은 경계 검사를 하고, C의 주소는 ldc로 계산하세요 "
                    f"({others} 말고).")
        return (f"{where}: 행렬 밖(보호 구역이나 행 사이 여백)의 값을 읽어 결과가 NaN이 되었습니다 "
                "(out of bounds read). 그 값을 0으로 바꾸면 맞으므로, 타일의 행렬 밖 부분을 0으로 채우거나 읽기 전에 "
                "경계를 검사하세요.")
    if diagnosis == "writes_inputs":
        written = example.get("inputs_written") or {}
        names = "와 ".join(n for n, count in written.items() if count) or "입력"
        count = sum(written.values()) if written else 0
        inputs = "와 ".join(n for n, _ in spec.parameters if n in kinds.of(spec).read_only)
        return (f"{where}: 입력 {names}의 원소 {count}개가 실행 뒤에 바뀌었습니다 (writes to inputs). {inputs}는 읽기만 하는 "
                "입력입니다(const float*): 중간 결과는 레지스터나 공유 메모리에 두세요.")
    if diagnosis == "race":
        return (f"{where}: 같은 입력으로 같은 커널을 다시 실행했더니 {example.get('differing_reruns', 1)}번 결과가 비트 단위로 "
                "달랐습니다. 실행할 때마다 달라지는 결과는 경쟁 상태(race)의 표시입니다: 한 스레드가 공유 메모리에 쓴 값을 "
                "다른 스레드가 배리어(__syncthreads()) 없이 읽고 있지 않은지 확인하세요.")
    if diagnosis == "uninitialized_shared":
        inputs = [n for n, _ in spec.parameters if n in kinds.of(spec).read_only]
        advice = ("이 블록이 쓰지 않은 공유 메모리 칸을 읽고 있습니다 (uninitialized shared memory). 공유 메모리는 "
                  "0으로 시작하지 않고, 그 안에 든 값을 보고 가려낼 수도 없습니다: 타일의 행렬 밖 칸"
                  f"({'와 '.join(inputs)}{' 모두' if len(inputs) > 1 else ''})까지 0으로 채운 뒤 읽으세요.")
        if example["outcome"] == "fill_dependent":
            return (f"{where}: 실행 전에 공유 메모리(shared memory)를 실행마다 다른 무작위 비트 패턴(NaN, ±Inf 포함)으로 "
                    f"채우는데, 패턴만 바꿔 같은 입력으로 다시 실행하자 C의 원소 {example.get('fill_changed', 0)}개가 "
                    "달라졌습니다 (같은 패턴으로 다시 실행하면 같음). " + advice)
        return (f"{where}: 실행 전에 공유 메모리(shared memory)를 무작위 비트 패턴(NaN, ±Inf 포함)으로 채우면 결과가 "
                "틀리고, 0으로 채우면 맞습니다. " + advice)
    if diagnosis == "reads_c_with_beta_zero":
        poison = "±Inf" if example.get("poison") == "inf" else "NaN"
        return (f"{where}: beta = 0인데 C를 읽었습니다. C를 {poison}으로 채워 두면 결과가 틀리고, 유한한 값으로 "
                "채우면 맞습니다. BLAS 규칙상 beta = 0이면 C는 출력일 뿐입니다: `if (beta != 0.0f)`일 때만 C를 읽으세요 "
                "(NaN만 걸러 내는 것으로는 부족합니다: 0 × Inf도 NaN입니다).")
    if diagnosis == "unwritten_output":
        n = example.get("unchanged") or example.get("non_finite")
        return (f"{where}: C의 원소 {n}개를 쓰지 않았습니다 (채워 둔 NaN·Inf가 그대로 남음). "
                "그리드가 C 전체를 덮는지(grid의 x·y와 행·열의 대응), 스레드가 맡은 원소를 모두 쓰는지 확인하세요."
                + _element(example))
    err = f", 상대 오차 {example['rel_error']:.1e} (허용 1e-05)" if example.get("rel_error") is not None else ""
    return (f"{where}{err}: {with_particle(kinds.of(spec).reference_name_ko, '와')} 값이 다릅니다 (wrong values)."
            f"{_element(example)}{_values_hint(bad, outcomes, spec)}")


# ----------------------------------------------------------------------------- hazards

def hazards_check(spec: ExerciseSpec, source: str, name: str, limits: Limits, seed: int = 0) -> CheckResult:
    tools = [t for t in ("memcheck", "racecheck", "synccheck") if spec.hazards.get(t, True)]
    if not tools:
        return CheckResult.passed("hazards", "이 실습은 경쟁·메모리 검사를 요구하지 않습니다.")
    sanitizer = sanitizer_path()
    if sanitizer is None:
        return differential_check(spec, source, name, limits, seed)
    plan = [c.as_dict() for c in kinds.of(spec).hazard_cases(spec, seed)]

    def one(tool: str) -> tuple[str, WorkerRun]:
        wrapper = (sanitizer, "--tool", tool, "--error-exitcode", "3", "--print-limit", "12",
                   "--show-backtrace", "no")
        job = _job(spec, source, name, "sanitize", cases=plan, tool=tool)
        run = run_worker(job, limits.hazards, wrapper, sanitizer_log=True)
        if tool_crashed(run):       # the tool itself died: once more before it counts
            run = run_worker(job, limits.hazards, wrapper, sanitizer_log=True)
            run.retried = True
        return tool, run

    with ThreadPoolExecutor(max_workers=len(tools)) as pool:
        runs = dict(pool.map(one, tools))
    return _hazard_result(runs, plan, limits, source, spec.kind)


def tool_crashed(run: WorkerRun) -> bool:
    """compute-sanitizer (or the worker under it) killed by a signal with nothing to say: no error it found, no
    fault or crash the worker reported, no result. Seen once in 150 sanitizer runs on a busy H200 (synccheck,
    SIGSEGV after a second); the learner's kernel is not to blame for it."""
    return (not run.timed_out and run.returncode is not None and run.returncode < 0 and not run.sanitizer_lines
            and run.last("result") is None and run.last("fault") is None and run.last("crash") is None)


def parse_sanitizer(lines: list[str], source: str) -> dict:
    """Errors and the learner's source lines they point at (sanitizer output lines, '=========' prefix)."""
    import re

    errors, code_lines = [], []
    summary = None
    for line in lines:
        text = line.lstrip("= ").rstrip()
        if re.search(r"(ERROR SUMMARY|RACECHECK SUMMARY): ", text):
            summary = text
            continue
        if re.match(r"(Invalid |Error|Warning|Barrier error|Race reported|Misaligned|Out-of-range|"
                    r"Program hit|Malloc|Uninitialized)", text):
            errors.append(text)
        for m in re.finditer(r"[\w.-]+\.cu:(\d+)", text):
            code_lines.append(int(m.group(1)))
    source_lines = source.splitlines()
    shown = []
    for number in dict.fromkeys(code_lines):
        if 0 < number <= len(source_lines):
            shown.append({"line": number, "code": source_lines[number - 1].strip()})
    return {"errors": errors[:12], "lines": shown[:6], "summary": summary}


# Each tool's finding and the general advice for it (an exercise kind replaces the advice in its own terms:
# ExerciseKind.tool_advice_ko).
_TOOL_TEXT = {
    "memcheck": ("memcheck가 잘못된 메모리 접근을 찾았습니다 (out of bounds)",
                 "행렬 밖의 주소를 읽거나 쓰는 스레드가 있습니다: 인덱스마다 경계 검사(row < M, col < N, k < K)를 하세요."),
    "racecheck": ("racecheck가 공유 메모리 경쟁 상태를 찾았습니다 (race)",
                  "한 스레드가 쓰는 공유 메모리를 다른 스레드가 배리어 없이 읽거나 덮어씁니다: 타일을 다 쓴 뒤와 "
                  "다음 타일을 덮어쓰기 전에 __syncthreads()가 있어야 합니다."),
    "synccheck": ("synccheck가 배리어 오류를 찾았습니다 (sync error)",
                  "블록의 일부 스레드만 도달하는 __syncthreads()가 있습니다 (if 안의 배리어, 일찍 return한 스레드). "
                  "모든 스레드가 같은 배리어를 지나게 하세요."),
}


def _hazard_result(runs: dict, plan: list, limits: Limits, source: str, kind: str = "sgemm") -> CheckResult:
    """The hazards check from each compute-sanitizer tool's run (`kind`: the exercise's kind, whose advice replaces
    the general one where it has its own)."""
    exercise_kind = kinds.get(kind)
    found, details, lines = [], {"cases": plan, "tools": {}}, []
    for tool, run in runs.items():
        parsed = parse_sanitizer(run.sanitizer_lines, source)
        clean = not run.timed_out and run.returncode == 0 and run.last("result") is not None
        details["tools"][tool] = {"returncode": run.returncode, "timed_out": run.timed_out, "seconds": round(run.seconds, 1),
                                  "retried": run.retried, **parsed}
        if parsed["errors"] or run.returncode == 3:
            found.append(tool)
            head, advice = _TOOL_TEXT[tool]
            advice = exercise_kind.tool_advice_ko.get(tool, advice)
            if tool == "memcheck" and any("isaligned" in e for e in parsed["errors"]):
                advice = ("정렬되지 않은 주소(misaligned)를 읽거나 씁니다: float4(16바이트) 접근은 주소가 16바이트의 "
                          "배수여야 합니다.")
            where = "; ".join(f"{ln['line']}행 `{ln['code']}`" for ln in parsed["lines"][:3])
            first = parsed["errors"][0] if parsed["errors"] else parsed["summary"] or ""
            lines.append(f"{head}: {first}" + (f" — 소스 위치: {where}" if where else "") + f". {advice}")
        elif run.timed_out:
            lines.append(f"{tool}: 제한 시간 {limits.hazards:g}초 안에 끝나지 않았습니다 (마지막: {run.stage}).")
        elif not clean:
            abnormal = _abnormal("hazards", run, limits.hazards)
            lines.append(f"{tool}: {abnormal.message_ko if abnormal else '비정상 종료'}")
    if found:
        diagnosis = TOOL_DIAGNOSIS[found[0]] if len(found) == 1 else \
            next(TOOL_DIAGNOSIS[t] for t in ("memcheck", "racecheck", "synccheck") if t in found)
        return CheckResult.failed("hazards", diagnosis, "\n".join(lines), sanitizer=True, **details)
    if lines:
        timed = [t for t, r in runs.items() if r.timed_out]
        diagnosis = "timeout" if timed else "fault"
        return CheckResult.failed("hazards", diagnosis, "\n".join(lines), sanitizer=True, **details)
    sizes = ", ".join(exercise_kind.case_label(c) for c in plan)
    return CheckResult.passed("hazards", f"compute-sanitizer {', '.join(runs)}: 문제 없음 ({sizes}, 행 여백 있음).",
                              sanitizer=True, **details)


def differential_check(spec: ExerciseSpec, source: str, name: str, limits: Limits, seed: int = 0) -> CheckResult:
    plan = [c.as_dict() for c in kinds.of(spec).differential_cases(spec, seed)]
    run = run_worker(_job(spec, source, name, "differential", cases=plan,
                          shared_fill=list(case_plans.shared_fill(spec, seed))), limits.hazards)
    note = ("compute-sanitizer가 없어 대신 차등 시험(differential test)을 했습니다: 같은 입력으로 여러 번, 다른 스트림이 "
            "SM을 다투게 하면서 실행해 결과가 매번 같은지와 행렬 밖 보호 구역(guard band)이 그대로인지 봅니다. 이 시험은 "
            "경쟁 상태를 놓칠 수 있습니다. CUDA Toolkit의 compute-sanitizer를 설치하면(PATH에 두면) 정확히 검사합니다.")
    abnormal = _abnormal("hazards", run, limits.hazards)
    if abnormal:
        abnormal.message_ko += "\n" + note
        return abnormal
    outcomes = run.last("result")["cases"]
    details = {"cases": outcomes, "sanitizer": False}
    for case in outcomes:
        where = kinds.of(spec).shape_text(case, spec)
        if case["guard_written"] or case["padding_written"]:
            return CheckResult.failed("hazards", "out_of_bounds",
                                      f"{where}: C 바깥에 썼습니다 (out of bounds).\n{note}", **details)
        if case.get("inputs_written"):
            return CheckResult.failed("hazards", "writes_inputs",
                                      f"{where}: 입력 {_inputs_text(spec)}가 실행 뒤에 바뀌었습니다 (writes to inputs).\n"
                                      f"{note}", **details)
        if case["differing_runs"]:
            return CheckResult.failed(
                "hazards", "race",
                f"{where}: 같은 입력으로 {case['repeats']}번 실행한 결과가 {case['differing_runs']}번 "
                "달랐습니다. 공유 메모리 경쟁 상태(race)일 가능성이 큽니다: 배리어(__syncthreads())를 확인하세요.\n" + note,
                **details)
    return CheckResult.passed("hazards", "반복 실행 결과가 모두 같고 보호 구역도 그대로입니다.\n" + note, **details)


# ----------------------------------------------------------------------------- speed

SPEED_KEYS = ("M", "N", "K", "S", "alpha", "beta", "lda", "ldb", "ldc", "ldp", "learner_ms", "reference_ms", "learner_min_ms",
              "reference_min_ms", "reps", "ratio", "rel_error", "registers", "device", "staged", "remeasured",
              "first_ratio", "first_reps", "first_learner_ms", "first_reference_ms", "band", "launches_checked",
              "wrong_launches", "first_wrong_launch", "worst_launch_error", "calls", "copies")


def _protocol_text(r: dict) -> str:
    """How the two times were taken, for the learner (kernels/timing.py's protocol)."""
    calls, copies = r.get("calls") or 1, r.get("copies") or 1
    each = (f"CUDA 이벤트 한 쌍 사이에서 {calls}번 연달아 실행한 GPU 시간의 한 번 몫" if calls > 1
            else "CUDA 이벤트 한 쌍 사이에서 잰 한 번 실행의 GPU 시간")
    rotation = (f", 값이 같은 피연산자 복사본 {copies}벌을 돌아가며 써서 앞 실행이 L2 캐시에 남긴 값을 쓰지 않음"
                if copies > 1 else "")
    return f"호스트가 실행을 요청하는 시간은 빼고 {each}{rotation}; 두 커널을 번갈아 {r['reps']}라운드 잰 중앙값"


def speed_check(spec: ExerciseSpec, source: str, name: str, limits: Limits, reps: int = 10, seed: int = 0) -> CheckResult:
    """The timed shape is drawn from the run's seed (the kind's speed_case); GPU time per launch, each kernel over its
    own operand copies (course.autograder.timing); a ratio within ±3% of the bar is measured again, longer, and that
    measurement decides. Where not even one copy fits in the GPU's free memory, the check is skipped and says so."""
    from course.autograder import timing

    case = kinds.of(spec).speed_case(spec, seed)
    run = run_worker(_job(spec, source, name, "speed", case=case.as_dict(), reference=spec.speed_reference, reps=reps,
                          min_ratio=spec.min_ratio, band=timing.BAND, remeasure_reps=timing.REMEASURE_FACTOR * reps),
                     limits.speed)
    abnormal = _abnormal("speed", run, limits.speed)
    if abnormal:
        return abnormal
    r = run.last("result")
    details = {k: r.get(k) for k in SPEED_KEYS}
    details.update(reference=spec.speed_reference, min_ratio=spec.min_ratio, seed=seed)
    if r.get("no_room"):
        return CheckResult.skipped("speed", r["no_room"], no_room=True, need_bytes=r.get("need_bytes"),
                                   free_bytes=r.get("free_bytes"), **details)
    size = kinds.of(spec).speed_size_text(r, spec)
    timing_text = (f"실행마다 뽑는 크기 {size}에서 내 커널 {r['learner_ms']:.3f} ms, 기준 커널 {spec.speed_reference} "
                   f"{r['reference_ms']:.3f} ms ({_protocol_text(r)}) → 기준 대비 "
                   f"{r['ratio']:.3f}배 속도 (목표 {spec.min_ratio:g}배 이상)")
    if r.get("remeasured"):
        timing_text += (f"; 첫 측정({r['first_reps']}라운드)의 {r['first_ratio']:.3f}배가 목표의 ±{r['band']:.0%} 안이라 "
                        f"더 길게 다시 잰 값으로 판정")
    if r["rel_error"] is None or r["rel_error"] > 1e-5:
        err = "NaN" if r["rel_error"] is None else f"{r['rel_error']:.1e}"
        return _with_output(CheckResult.failed(
            "speed", "wrong_values",
            f"{size}에서 잰 결과가 기준 커널과 다릅니다 (상대 오차 {err}, 허용 1e-05). 작은 크기에서는 맞았으니 "
            "실행할 때마다 달라지는 오류(경쟁 상태, race)이거나 큰 크기나 이 alpha·beta에서만 드러나는 오류입니다.", **details), run)
    if r.get("wrong_launches"):
        return _with_output(CheckResult.failed(
            "speed", "wrong_values",
            f"{size}에서 첫 실행은 맞았지만, 시간을 재는 동안의 실행 {r['launches_checked']}번 가운데 "
            f"{r['wrong_launches']}번의 결과가 틀립니다 (처음 틀린 것: {r['first_wrong_launch']}번째). 검사기는 매 실행 "
            "전에 C를 NaN으로(beta ≠ 0이면 처음 값으로) 되돌리고 실행 뒤에 값을 확인합니다: 실행마다 C 전체를 다시 계산해야 합니다 (앞선 실행이 "
            "남긴 값이나 실행 횟수에 기대는 커널은 틀립니다).", **details), run)
    if r["ratio"] < spec.min_ratio:
        return CheckResult.failed("speed", "too_slow",
                                  f"정확하지만 느립니다 (too slow): {timing_text}. 이 장의 기준 커널과 무엇이 다른지 "
                                  "(워프의 메모리 접근 순서, 데이터 재사용, 뱅크 충돌, SASS의 명령) 비교해 보세요.",
                                  **details)
    return CheckResult.passed("speed", timing_text + ".", **details)
