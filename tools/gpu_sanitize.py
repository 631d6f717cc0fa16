"""Run every course kernel on small, awkward and staged launches, for compute-sanitizer.

    compute-sanitizer --tool memcheck  python tools/gpu_sanitize.py
    compute-sanitizer --tool racecheck python tools/gpu_sanitize.py
    compute-sanitizer --tool synccheck python tools/gpu_sanitize.py
    COURSE_DEVICE_PROFILE=T4 compute-sanitizer --tool racecheck python tools/gpu_sanitize.py --configurable
    compute-sanitizer --tool racecheck python tools/gpu_sanitize.py --fold 3          # the tall-grid path, small
    compute-sanitizer --tool memcheck  python tools/gpu_sanitize.py --fold 3 --tall   # ... and real tall C's

Only the course's kernels (and the launcher's staging copies) run on the device: inputs are made
with NumPy and copied, the reference is computed on the CPU in float64, so every report the sanitizer
prints is about them. The shapes cut every block tile (Level 6's is 128 x 256) and leave a partial K
tile; the last case starts every operand 4 bytes past an aligned address, so the float4 kernels take
the staged path. The kernels run in the active device's configuration (COURSE_DEVICE_PROFILE included);
--kernel NAME (repeatable) or --configurable (Levels 5 and 6, whose configuration follows the device)
limits the run.

--fold Y lowers the blocks fold() puts along grid y before z takes over (kernels/registry.py GRID_Y_FOLD)
to Y, so that small C's continue grid y in z as a C more than 65,535 tiles tall does (block_y() in
sgemm_common.cuh), with positions past the last tile in the last z plane; the run then takes FOLD_SHAPES
instead of the shapes above. --tall adds real tall products (4,200,000 x 3 x 16, and a C one tile row past
65,536 tiles of the kernel), for memcheck: under racecheck their hundreds of thousands of blocks take minutes.
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
# With the y limit at 3: 1000 rows are 63 tiles of 16 (3 x 21) or 8 of 128 (3 x 3, one past the end); 300 columns
# fold the strided mapping's y (19 tiles of 16: 3 x 7, two past the end).
FOLD_SHAPES = [(1000, 70, 33), (100, 300, 20)]


def tall_shapes(name: str) -> list[tuple[int, int, int]]:
    """4,200,000 x 3 x 16 and a C one tile row past 65,536 tiles along this kernel's grid y."""
    spec = registry.get(name)
    rows, cols = spec.tile
    long = 65_536 * (cols if spec.grid_rows_from_x else rows) + 100
    return [(4_200_000, 3, 16), (3, long, 16) if spec.grid_rows_from_x else (long, 3, 16)]


def _device(x: np.ndarray, offset: int):
    """x on the GPU, starting `offset` floats into its buffer (offset 1: only 4-byte aligned)."""
    import cupy

    flat = cupy.empty(x.size + offset, dtype=cupy.float32)
    view = flat[offset:].reshape(x.shape)
    view[...] = cupy.asarray(x)
    return view


def run_one(name: str, M: int, N: int, K: int, beta: float, offset: int = 0) -> tuple[float, tuple, tuple]:
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
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref)), prepared.staged, prepared.grid


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", action="append", help="only this kernel (repeatable)")
    ap.add_argument("--configurable", action="store_true", help="only the kernels configured per device")
    ap.add_argument("--fold", type=int, metavar="Y", help="at most Y blocks along grid y before z (the tall-grid path)")
    ap.add_argument("--tall", action="store_true", help="also real tall products (for memcheck)")
    args = ap.parse_args(argv)
    names = args.kernel or (list(registry.configurable()) if args.configurable else list(registry.KERNELS))
    profile = configs.active_profile()
    print(f"device profile: {profile.name if profile else '-'}", flush=True)
    bad = 0
    for name in names:
        print(f"    {name}: {configs.config_text(configs.spec_for(name))}", flush=True)
        # (shape, beta, offset, blocks along y before z): the grid's own limit except for the --fold cases
        if args.fold:
            cases = [(FOLD_SHAPES[0], 0.0, 0, args.fold), (FOLD_SHAPES[1], 0.5, 0, args.fold),
                     (FOLD_SHAPES[1], 0.0, 1, args.fold)]
        else:
            cases = [(shape, beta, 0, None) for shape in SHAPES for beta in (0.0, 0.5)] + [(STAGED, 0.5, 1, None)]
        if args.tall:
            cases += [(shape, beta, 0, None) for shape, beta in zip(tall_shapes(name), (0.0, 0.5))]
        for (M, N, K), beta, offset, fold in cases:
            registry.GRID_Y_FOLD = fold or registry.GRID_YZ_MAX
            err, staged, grid = run_one(name, M, N, K, beta, offset)
            ok = err < 1e-5
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} {name:<31} {M}x{N}x{K} beta={beta} offset={offset} "
                  f"staged={','.join(staged) or '-'} grid={grid}: rel.err {err:.1e}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
