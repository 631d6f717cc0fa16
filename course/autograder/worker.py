"""The subprocess that runs a learner's kernel: ``python -m course.autograder.worker JOB.json STATUS.jsonl``.

Only this process touches the GPU with the learner's code, so a kernel that hangs or faults takes
down nothing but this process (the parent, course.autograder.gpu, kills it at its time limit).

Two channels, never mixed: the checker's events go as JSON lines into the STATUS file, which only
this Python code writes ({"event": "stage", ...} while it works, {"event": "ready"} once the kernel
is compiled, {"event": "result", ...} at the end). stdout belongs to the learner's kernel (printf):
the parent shows it, capped, and never parses it, so a kernel that prints lines looking like events
changes nothing. A CUDA error (illegal address, launch failure) becomes {"event": "fault", ...}; the
process then leaves with os._exit, since a context after a sticky error cannot be trusted to tear
down cleanly.

The job names the exercise's kind (job["spec"]["kind"]); the kind (course.autograder.kinds) compiles the
kernel and gives the function of each mode (job["mode"]):
  correctness   every case of the kind's correctness_cases against its reference (course.autograder.worker_base)
  sanitize      the hazard cases with exact-size allocations, no memory pool and no other kernel,
                so that compute-sanitizer (the parent wraps us in it) reports only on the learner's
  differential  the stand-in for racecheck where compute-sanitizer is missing (course.autograder.worker_base)
  speed         the learner's kernel and the kind's reference kernel timed in alternation (GPU time per
                launch, kernels/timing.py's protocol), each over its own copies of the same padded
                operands, at the run's drawn shape; every timed launch's output is poisoned before its
                event pair and checked after it, outside the events (course.autograder.timing)
"""
from __future__ import annotations

import json
import os
import sys
import traceback

os.environ.setdefault("CUPY_TF32", "0")

from course.autograder import kinds, worker_base  # noqa: E402
from course.autograder.worker_base import emit, leave  # noqa: E402


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], encoding="utf-8") as handle:
        job = json.load(handle)
    if len(argv) > 1:
        worker_base.open_status(argv[1])
    emit("stage", what="컴파일(NVRTC)과 GPU 준비")
    try:
        import cupy

        device = worker_base.device_name()
        worker_base.limit_printf()
        if job["mode"] == "sanitize":
            cupy.cuda.set_allocator(None)        # every array its own cudaMalloc: memcheck sees exact sizes
        kind = kinds.get(job["spec"].get("kind", "sgemm"))
        kernel, modes = kind.compile(job), kind.worker_modes()
        if job["mode"] in ("correctness", "differential"):
            # The fill kernel is compiled and probed before "ready": it is the checker's time, not the kernel's.
            kernel.junk = worker_base.make_junk(job.get("shared_fill") or (1, 2))
            kernel.junk_seen = kernel.junk.seen_fraction()
            kernel.prefer_shared()
            worker_base.warm_up(kernel, job.get("cases", ()))
        emit("ready")
        result = modes[job["mode"]](job, kernel)
    except Exception as exc:   # CUDA errors: the kernel faulted or could not launch
        name = type(exc).__name__
        if "CUDA" in name or "cuda" in type(exc).__module__:
            emit("fault", error=f"{name}: {exc}")
            leave(0)
        emit("crash", error=f"{name}: {exc}", traceback=traceback.format_exc()[-3000:])
        leave(2)
    emit("result", device=device, **result)
    leave(0)
    return 0


if __name__ == "__main__":
    main()
