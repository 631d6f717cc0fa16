"""Run every course kernel on small, awkward and staged launches, for compute-sanitizer.

    compute-sanitizer --tool memcheck  python tools/gpu_sanitize.py
    compute-sanitizer --tool racecheck python tools/gpu_sanitize.py
    compute-sanitizer --tool synccheck python tools/gpu_sanitize.py
    COURSE_DEVICE_PROFILE=T4 compute-sanitizer --tool racecheck python tools/gpu_sanitize.py --configurable

Only the course's kernels (and the launcher's staging copies) run on the device: inputs are made
with NumPy and copied, the reference is computed on the CPU in float64, so every report the sanitizer
prints is about them. The shapes cut every block tile (Level 6's is 128 x 256) and leave a partial K
tile; the last case starts every operand 4 bytes past an aligned address, so the float4 kernels take
the staged path. The kernels run in the active device's configuration (COURSE_DEVICE_PROFILE included);
--kernel NAME (repeatable) or --configurable (Levels 5 and 6, whose configuration follows the device)
limits the run.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kernels import configs, launch, registry  # noqa: E402

SHAPES = [(64, 64, 64), (37, 29, 19), (131, 260, 100)]
STAGED = (33, 65, 17)


def _device(x: np.ndarray, offset: int):
    """x on the GPU, starting `offset` floats into its buffer (offset 1: only 4-byte aligned)."""
    import cupy

    flat = cupy.empty(x.size + offset, dtype=cupy.float32)
    view = flat[offset:].reshape(x.shape)
    view[...] = cupy.asarray(x)
    return view


def run_one(name: str, M: int, N: int, K: int, beta: float, offset: int = 0) -> tuple[float, tuple]:
    import cupy

    rng = np.random.default_rng(M * 7 + N * 3 + K)
    A = rng.uniform(-1, 1, (M, K)).astype(np.float32)
    B = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    C0 = rng.uniform(-1, 1, (M, N)).astype(np.float32) if beta else np.full((M, N), np.nan, np.float32)
    C = _device(C0, offset)
    prepared = launch.prepare(name, _device(A, offset), _device(B, offset), C, alpha=1.0, beta=beta)
    prepared()
    cupy.cuda.get_current_stream().synchronize()
    ref = A.astype(np.float64) @ B.astype(np.float64) + (beta * C0.astype(np.float64) if beta else 0.0)
    got = cupy.asnumpy(C).astype(np.float64)
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref)), prepared.staged


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", action="append", help="only this kernel (repeatable)")
    ap.add_argument("--configurable", action="store_true", help="only the kernels configured per device")
    args = ap.parse_args(argv)
    names = args.kernel or (list(registry.configurable()) if args.configurable else list(registry.KERNELS))
    profile = configs.active_profile()
    print(f"device profile: {profile.name if profile else '-'}", flush=True)
    bad = 0
    for name in names:
        print(f"    {name}: {configs.config_text(configs.spec_for(name))}", flush=True)
        cases = [(shape, beta, 0) for shape in SHAPES for beta in (0.0, 0.5)] + [(STAGED, 0.5, 1)]
        for (M, N, K), beta, offset in cases:
            err, staged = run_one(name, M, N, K, beta, offset)
            ok = err < 1e-5
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} {name:<31} {M}x{N}x{K} beta={beta} offset={offset} "
                  f"staged={','.join(staged) or '-'}: rel.err {err:.1e}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
