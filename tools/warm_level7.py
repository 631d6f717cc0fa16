"""Compile, in parallel, every kernel module the Level 7 tools and tests will load, into CuPy's disk cache.

    python tools/warm_level7.py [--all-profiles] [--levels] [--jobs 16]

NVRTC compiles one module at a time per process, and Level 7 has a form per tile, ring and B copy width;
compiled one after another they would cost a minute or more of a GPU session. Worker processes compile them
side by side and CuPy's kernel cache (~/.cupy/kernel_cache) keeps the cubins, so the tools that follow load
them without compiling. --all-profiles: the forms of every listed GPU (the tests run them all);
--levels: the course levels' files too (tools/record_shapes.py times them).
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def jobs(all_profiles: bool, levels: bool) -> list[tuple]:
    from kernels import devices, level7, registry
    from kernels import level7_model as model

    profiles = list(devices.PROFILES.values()) if all_profiles else [level7.device_model()[0]]
    forms = {}
    for limits in profiles:
        # every ring a shape may choose (model.ring_candidates), not only each tile's deepest
        for cand in model.ring_candidates(limits):
            for b16 in (True, False):
                forms[(cand.tile.name, cand.BK, cand.STAGES, b16)] = ("level7", cand, b16)
        # the streaming forms: each bucket of the small side, 16- and 4-byte loads of the streamed operand
        for name in model.STREAM_NAMES:
            for rows in (1, 2, 4, 8, 16):
                cand = model.stream_candidate(name, rows if name == "stream-B" else 4096,
                                              rows if name == "stream-A" else 4096, limits)
                for v4 in (True, False):
                    if cand is not None:
                        forms[(name, rows, v4)] = ("stream", cand, v4)
    out = list(forms.values())
    if levels:
        one_per_file = {s.file: s.name for s in registry.KERNELS.values() if not s.dispatch}
        out += [("registry", name) for name in sorted(one_per_file.values())]
    return out


def compile_one(job: tuple) -> str:
    from kernels import level7, loader

    start = time.perf_counter()
    if job[0] == "level7":
        _, cand, b16 = job
        level7.kernels_for(cand, b16)
        what = f"{cand.name} b16={int(b16)}"
    elif job[0] == "stream":
        _, cand, v4 = job
        level7.stream_kernels(cand, v4)
        what = f"{cand.tile.name} rows {cand.tile.rows} v4={int(v4)}"
    else:
        loader.get_kernel(job[1])
        what = job[1]
    return f"{what}: {time.perf_counter() - start:.1f} s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--all-profiles", action="store_true")
    ap.add_argument("--levels", action="store_true")
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1))
    args = ap.parse_args()
    todo = jobs(args.all_profiles, args.levels)
    start = time.perf_counter()
    # spawn: every worker opens its own CUDA context (a forked one could not)
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for line in pool.imap_unordered(compile_one, todo):
            print(line, flush=True)
    print(f"{len(todo)} modules in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
