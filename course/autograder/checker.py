"""Checking one submission: compile → sass → correctness → hazards → speed.

    from course.autograder import check_source, load
    verdict = check_source(load("m06-e1"), text, "my_kernel.cu")
    print(verdict.text())

A failed compile skips the rest (there is no kernel). The SASS rules do not stop the GPU checks (a
kernel may spill and still be right). The speed is measured only for a correct kernel ("correct
before fast"). Without a GPU the last three checks are skipped, each saying how to run them.
"""
from __future__ import annotations

import os
from datetime import datetime

from course.autograder import cases, gpu, static
from course.autograder.learner import (display_name, expand_includes, program_name, read_source_file, sha256,
                                       validate_source_text)
from course.autograder.spec import ExerciseSpec
from course.autograder.verdict import CheckResult, Verdict

CPU_ONLY_ENV = "COURSE_EXERCISE_CPU_ONLY"   # "1": behave as if there were no GPU (tests, instructors' laptops)


def gpu_ready() -> bool:
    if os.environ.get(CPU_ONLY_ENV) == "1":
        return False
    from kernels.device import gpu_available

    return gpu_available()


def no_gpu_message(spec: ExerciseSpec) -> str:
    return (f"이 컴퓨터에서는 CUDA GPU를 쓸 수 없어 건너뛰었습니다 (no GPU). 컴파일과 SASS 검사만 했습니다. "
            f"나머지는 GPU가 있는 머신에서 같은 `%%exercise {spec.id}` 셀을 실행하거나 "
            f"`python -m course exercise check {spec.id} 내_커널.cu`로 검사하세요.")


def check_source(spec: ExerciseSpec, source: str, name: str = "kernel.cu", *, line_offset: int = 0,
                 use_gpu: bool | None = None, limits: gpu.Limits | None = None, include_speed: bool = True,
                 progress=None, seed: int | None = None) -> Verdict:
    """The verdict on a CUDA source (ExerciseInputError when it is not CUDA at all).

    line_offset: lines above the source that the learner sees (1 for a %%exercise cell), so every
    line number in the messages is the one in front of the learner. progress: a callable that
    receives each check's Korean name before it starts (the notebook shows it). seed: the run's
    seed for the drawn cases (None: a fresh one); the verdict records it.
    """
    validate_source_text(source, display_name(name))
    limits = limits or gpu.Limits()
    seed = cases.new_seed() if seed is None else int(seed)
    shown_name, name = display_name(name), program_name(name)
    shifted = expand_includes("\n" * line_offset + source, name)
    say = progress or (lambda _text: None)
    verdict = Verdict(spec.id, shown_name, [], sha256(source), static.SASS_ARCH,
                      time=datetime.now().astimezone().isoformat(timespec="seconds"), seed=seed)

    say("컴파일 (NVRTC)")
    compiled, cubin = static.compile_check(spec, shifted, name)
    verdict.checks.append(compiled)
    if compiled.status != "pass":
        reason = ("컴파일에 실패해 실행할 커널이 없습니다." if compiled.status == "fail"
                  else "컴파일러를 쓸 수 없어 건너뛰었습니다.")
        verdict.checks += [CheckResult.skipped(c, reason) for c in ("sass", "correctness", "hazards", "speed")]
        verdict.seed = None
        return verdict
    say("SASS 규칙")
    verdict.checks.append(static.sass_check(spec, shifted, name))

    if not (gpu_ready() if use_gpu is None else use_gpu):
        verdict.seed = None                # nothing was drawn: no GPU check ran
        verdict.checks.append(CheckResult.skipped("correctness", no_gpu_message(spec), no_gpu=True))
        verdict.checks += [CheckResult.skipped(c, "GPU가 없어 건너뛰었습니다 (no GPU; 위의 정확성 칸 참고).", no_gpu=True)
                           for c in ("hazards", "speed")]
        return verdict
    say("정확성 (cuBLAS와 비교)")
    correctness = gpu.correctness_check(spec, shifted, name, limits, seed)
    verdict.checks.append(correctness)
    verdict.device = correctness.details.get("device", "")
    if correctness.diagnosis == "timeout":
        verdict.checks.append(CheckResult.skipped(
            "hazards", "정확성 검사에서 커널이 끝나지 않아 건너뛰었습니다 (compute-sanitizer에서도 끝나지 않습니다)."))
    else:
        say("경쟁·메모리 검사 (compute-sanitizer)")
        verdict.checks.append(gpu.hazards_check(spec, shifted, name, limits, seed))
    if not include_speed:
        verdict.checks.append(CheckResult.skipped("speed", "속도 측정을 따로 합니다 (deferred)."))
    elif correctness.status != "pass":
        verdict.checks.append(CheckResult.skipped(
            "speed", "정확성 검사를 통과한 커널만 속도를 잽니다 (빠른 것보다 맞는 것이 먼저)."))
    else:
        say("속도 (기준 커널과 번갈아 측정)")
        verdict.checks.append(gpu.speed_check(spec, shifted, name, limits, seed=seed))
    return verdict


def measure_speed(spec: ExerciseSpec, verdict: Verdict, source: str, limits: gpu.Limits | None = None,
                  line_offset: int = 0, reps: int = 10) -> Verdict:
    """Fill in a speed check left deferred by check_source(include_speed=False)."""
    limits = limits or gpu.Limits()
    name = program_name(verdict.source_name)
    shifted = expand_includes("\n" * line_offset + source, name)
    correct = verdict.result("correctness")
    index = [c.check for c in verdict.checks].index("speed")
    if correct is not None and correct.status == "pass":
        verdict.checks[index] = gpu.speed_check(spec, shifted, name, limits, reps=reps, seed=verdict.seed or 0)
    else:
        verdict.checks[index] = CheckResult.skipped(
            "speed", "정확성 검사를 통과한 커널만 속도를 잽니다 (빠른 것보다 맞는 것이 먼저).")
    return verdict


def check_file(spec: ExerciseSpec, path, **options) -> Verdict:
    """check_source on a file (ExerciseInputError for a missing, binary, empty or non-CUDA file)."""
    text = read_source_file(path)
    return check_source(spec, text, str(path), **options)
