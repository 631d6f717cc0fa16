"""Run every course kernel once on a small and an awkward shape, for compute-sanitizer.

    compute-sanitizer --tool memcheck  python tools/gpu_sanitize.py
    compute-sanitizer --tool racecheck python tools/gpu_sanitize.py
    compute-sanitizer --tool synccheck python tools/gpu_sanitize.py

Only the course's kernels run on the device (inputs are made with NumPy and copied; the reference
is computed on the CPU in float64), so every report the sanitizer prints is about them.
"""
from __future__ import annotations

import sys

import numpy as np

from kernels import launch, registry


def shapes_for(spec: registry.KernelSpec) -> list[tuple[int, int, int]]:
    return [(64, 64, 64), (131, 132, 20)] if spec.vec4 else [(64, 64, 64), (37, 29, 19)]


def run_one(name: str, M: int, N: int, K: int, beta: float) -> float:
    import cupy

    rng = np.random.default_rng(M * 7 + N * 3 + K)
    A = rng.uniform(-1, 1, (M, K)).astype(np.float32)
    B = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    C0 = rng.uniform(-1, 1, (M, N)).astype(np.float32) if beta else np.full((M, N), np.nan, np.float32)
    C = cupy.asarray(C0)
    launch.run(name, cupy.asarray(A), cupy.asarray(B), C, alpha=1.0, beta=beta)
    ref = A.astype(np.float64) @ B.astype(np.float64) + (beta * C0.astype(np.float64) if beta else 0.0)
    got = cupy.asnumpy(C).astype(np.float64)
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


def main() -> int:
    bad = 0
    for name, spec in registry.KERNELS.items():
        for M, N, K in shapes_for(spec):
            for beta in (0.0, 0.5):
                err = run_one(name, M, N, K, beta)
                ok = err < 1e-5
                bad += not ok
                print(f"{'ok ' if ok else 'BAD'} {name:<31} {M}x{N}x{K} beta={beta}: rel.err {err:.1e}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
