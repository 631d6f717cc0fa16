"""Recording benchmark results with their provenance, for readers without a GPU.

`python -m kernels record` runs every kernel at the recorded sizes on the current GPU and writes
book/data/benchmarks.json: the rows of kernels.bench plus who/what/when produced them.
"""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from kernels import bench, registry, timing
from kernels.device import info, today

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = REPO_ROOT / "book" / "data"
BENCH_FILE = DATA_DIR / "benchmarks.json"
RECORD_SIZES = (1024, 2048, 4096)
# 8192^3 only for the kernels fast enough to time it many times (Levels 3 to 6) and cuBLAS.
LARGE_SIZE = 8192
LARGE_MIN_LEVEL = 3
# Shapes that take the staged path (K, N not multiples of 4), for the float4 levels' representatives.
AWKWARD_SHAPES = ((4095, 4095, 4095), (4096, 4096, 4095), (1000, 1023, 1025))
AWKWARD_KERNELS = registry.awkward_kernels()   # KernelSpec.awkward_shapes
# Level against level, timed in direct alternation: robust to the slow drift that moves cuBLAS's own
# time between two kernels' windows (each % of cuBLAS is measured in its own window).
PAIRS = registry.pairs()                     # KernelSpec.paired_with
PAIR_SIZES = (4096, LARGE_SIZE)


def pairwise(reps: int) -> list[dict]:
    """For each pair (new, old): both kernels timed in alternation; speedup = old time / new time."""
    import cupy

    from kernels import launch

    out = []
    for n in PAIR_SIZES:
        copies = timing.operand_copies(n, n, n)
        for new, old in PAIRS:
            runs_new = [launch.prepare(new, A, B, C) for A, B, C in copies]
            runs_old = [launch.prepare(old, A, B, C) for A, B, C in copies]
            t_new, t_old = bench.interleaved_timings(runs_new, runs_old, warmup=3, reps=reps)
            out.append({"new": new, "old": old, "M": n, "N": n, "K": n, "new_ms": t_new.median_ms,
                        "old_ms": t_old.median_ms, "speedup": t_old.median_ms / t_new.median_ms, "reps": reps,
                        "new_calls": t_new.calls, "old_calls": t_old.calls, "copies": t_new.copies})
            del runs_new, runs_old
        del copies
        cupy.get_default_memory_pool().free_all_blocks()
    return out


def git_commit() -> str | None:
    """The commit the sources came from (COURSE_GIT_COMMIT wins: copies without .git set it)."""
    if os.environ.get("COURSE_GIT_COMMIT"):
        return os.environ["COURSE_GIT_COMMIT"]
    try:
        out = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or None
    except Exception:
        return None


def copy_bandwidth_gbs(nbytes: int = 1 << 30) -> float:
    """Device-to-device copy rate, counting bytes read plus bytes written (a practical DRAM ceiling)."""
    return timing.copy_bandwidth(nbytes)[0]


def profile_label(device: str) -> dict:
    """Under COURSE_DEVICE_PROFILE: what the numbers are (the profile's configuration timed on this GPU)."""
    from kernels import configs

    profile = configs.active_profile()
    if profile is None:
        return {}
    return {
        "device_profile": profile.name,
        "label": f"configuration of device {profile.name} timed on an {device} (not the {profile.name}'s own speed)",
        "label_ko": f"{profile.name}의 구성을 {device}에서 잰 값 ({profile.name} 자신의 속도가 아님)",
    }


def guard_book_record(path) -> None:
    """Refuse to write the book's records (book/data) under COURSE_DEVICE_PROFILE: the book's numbers are
    the recording GPU's own configuration. Profile runs go to their own files (device_profiles.json) or to
    a path outside book/data."""
    from kernels import configs
    from kernels.errors import KernelInputError

    profile = configs.active_profile()
    target = Path(path).resolve()
    if profile is None or target.parent != DATA_DIR.resolve() or target.name == "device_profiles.json":
        return
    raise KernelInputError(
        f"장치 프로필(COURSE_DEVICE_PROFILE={profile.name})이 켜져 있어 책의 기록 파일({target.name})을 덮어쓰지 "
        "않습니다. 프로필을 지우거나 --out으로 book/data 밖의 파일을 주세요."
    )


def provenance(command: str | None = None) -> dict:
    dev = info()
    return {**profile_label(dev["device"]),
        "device": dev["device"],
        "compute_capability": dev["compute_capability"],
        "driver": dev["driver"],
        "cuda_driver_api": dev["cuda_driver"],
        "cuda_runtime": dev["cuda_runtime"],
        "cupy": dev["cupy"],
        "date": today(),
        "command": command or " ".join(shlex.quote(a) for a in ["python", "-m", "kernels", *sys.argv[1:]]),
        "git_commit": git_commit(),
        "sm_count": dev["sm_count"],
        "clock_mhz": dev["clock_mhz"],
        "clock_source": dev["clock_source"],
        "fp32_lanes_per_sm": dev["fp32_lanes_per_sm"],
        "peak_gflops": dev["peak_gflops"],
        "tf32": "off (CUPY_TF32=0)",
        "timing": timing.PROTOCOL,
    }


def spin_up(seconds: float = 3.0, n: int = 4096) -> None:
    """Keep the GPU busy for a few seconds so that its clocks have left their idle state."""
    import time

    import cupy

    a = cupy.ones((n, n), dtype=cupy.float32)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        cupy.matmul(a, a)
        cupy.cuda.get_current_stream().synchronize()


def gpu_state() -> str | None:
    """SM clock, temperature, power and active clock-limit reasons (bitmask), as nvidia-smi reports them."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,temperature.gpu,power.draw,"
                              "clocks_event_reasons.active", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0]
    except Exception:
        return None


def record(path: Path = BENCH_FILE, sizes=RECORD_SIZES, reps: int = 20, command: str | None = None) -> dict:
    guard_book_record(path)
    spin_up()
    state_before = gpu_state()
    names = registry.benchmarked_kernels()
    rows = bench.bench(list(names), sizes, reps=reps)
    large = [name for name in names if registry.get(name).level >= LARGE_MIN_LEVEL]
    rows += bench.bench(large, [LARGE_SIZE], reps=reps)
    awkward = bench.bench(list(AWKWARD_KERNELS), list(AWKWARD_SHAPES), reps=reps)
    result = provenance(command)
    result["gpu_state"] = {"columns": "SM clock, temperature, power, clock-limit reasons (nvidia-smi)",
                           "before": state_before, "after": gpu_state()}
    result["bandwidth_gbs"] = copy_bandwidth_gbs()
    result["bandwidth_method"] = "device-to-device copy of 1 GiB, (read + written bytes) / median time"
    result["rows"] = [r.as_row() for r in rows]
    result["awkward_rows"] = [r.as_row() for r in awkward]
    result["pairs"] = pairwise(reps)
    result["awkward_note"] = ("shapes whose N or K is not a multiple of 4: the launcher stages the listed operands "
                              "into zero-padded aligned buffers; median_ms includes those copies, kernel_only_ms "
                              "is the kernel alone on the padded buffers (timed separately, also beside cuBLAS)")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return result


def load(path: Path = BENCH_FILE) -> dict | None:
    """The recorded results, or None when no file has been recorded yet."""
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))
