"""Run every path of Level 7 on small shapes, for compute-sanitizer (memcheck, racecheck, synccheck).

    compute-sanitizer --tool memcheck  --error-exitcode 3 python tools/sanitize_level7.py
    compute-sanitizer --tool racecheck --error-exitcode 3 python tools/sanitize_level7.py
    compute-sanitizer --tool synccheck --error-exitcode 3 python tools/sanitize_level7.py
    compute-sanitizer --tool racecheck --error-exitcode 3 python tools/sanitize_level7.py --quick
    compute-sanitizer --tool memcheck  --error-exitcode 3 python tools/sanitize_level7.py --quick --tall

Paths: the streaming kernels (stream-B, stream-A; 16- and 4-byte loads; one K slice and three), each tile in
the ring of this GPU and of every listed GPU whose ring differs (kernels/devices.py profiles: the T4's BK 8,
the smaller-shared-memory GPUs' shallower rings), one K slice and three (workspace and
reduction), B in 16-byte and 4-byte copies, C as float4 and element by element (an offset view), and
the PTX-for-compute_75 path (no cp.async). Inputs come from NumPy and the reference is computed on the
CPU in float64, so every kernel the sanitizer sees is Level 7's. Prints one line per case; exits 1 when
a result is wrong. Every case lays its tiles along grid x (one block per tile, swizzled in the kernel).

--quick: this GPU's forms only (no T4 rings, no PTX path). --tall: also a C of 65,537 tile rows (M = 4,194,305
in 64 x 128 tiles, past what grid y could hold), with one K slice and two; meant for memcheck (racecheck
takes minutes over 65,537 blocks).
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kernels import devices, level7  # noqa: E402
from kernels import level7_model as model  # noqa: E402

# N = 260 keeps B's rows 16-byte aligned; N = 29 does not (4-byte copies); K = 300 leaves a partial K tile
# in the last of three slices; M = 131 and 37 cut every tile's rows.
SHAPES = ((131, 260, 300), (37, 29, 300))


def _device(x: np.ndarray, offset: int):
    import cupy

    flat = cupy.empty(x.size + offset, dtype=cupy.float32)
    view = flat[offset:].reshape(x.shape)
    view[...] = cupy.asarray(x)
    return view


def run_case(shape, tile: str, split: int, beta: float, offset: int = 0, b16=None, ptx_arch=None) -> str:
    import cupy

    M, N, K = shape
    rng = np.random.default_rng(M + 7 * N + 13 * K + split)
    A = rng.uniform(-1, 1, (M, K)).astype(np.float32)
    B = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    C0 = rng.uniform(-1, 1, (M, N)).astype(np.float32) if beta else np.full((M, N), np.nan, np.float32)
    C = _device(C0, offset)
    prepared = level7.prepare(_device(A, offset), _device(B, offset), C, 1.0, beta, tile=tile, split=split,
                              b16=b16, ptx_arch=ptx_arch)
    prepared()
    cupy.cuda.get_current_stream().synchronize()
    ref = A.astype(np.float64) @ B.astype(np.float64) + (beta * C0.astype(np.float64) if beta else 0.0)
    err = float(np.linalg.norm(cupy.asnumpy(C).astype(np.float64) - ref) / np.linalg.norm(ref))
    d = prepared.describe()
    ok = err < 1e-5
    return (f"{'ok ' if ok else 'BAD'} {tile} BK{d['BK']}x{d['STAGES']} split={d['split']} b16={d['b16']} "
            f"{M}x{N}x{K} beta={beta} offset={offset} ptx={ptx_arch or '-'} grid={prepared.grid}: "
            f"rel.err {err:.1e}")


def profiles_with_new_forms() -> list[str]:
    """This GPU (""), then each listed GPU whose rings give a form not seen yet: every compiled form of the tile
    kernel that any listed GPU would run is sanitized once."""
    seen, out = set(), []
    for profile in ("", *devices.PROFILES):
        limits = level7.device_model()[0] if profile == "" else devices.profile(profile)
        forms = {(c.tile.name, c.BK, c.STAGES, c.resident) for c in model.candidates(limits)}
        if forms - seen:
            out.append(profile)
            seen |= forms
    return out


def cases(quick: bool = False, tall: bool = False):
    for profile in ("",) if quick else profiles_with_new_forms():
        os.environ[devices.PROFILE_ENV] = profile
        for t in model.TILES:
            for split in (1, 3):
                for i, shape in enumerate(SHAPES):
                    try:
                        yield run_case(shape, t.name, split, 0.5 if (split + i) % 2 else 0.0)
                    except level7.KernelInputError as exc:   # a tile that does not fit this profile's GPU
                        yield f"skip {t.name} on {profile or 'this GPU'}: {str(exc).splitlines()[0]}"
    os.environ[devices.PROFILE_ENV] = ""
    for name, shape in (("stream-B", (5, 260, 700)), ("stream-B", (13, 29, 700)), ("stream-A", (260, 5, 1300)),
                        ("stream-A", (29, 13, 703))):   # 16-byte and 4-byte streamed rows
        for split in (1, 3):
            yield run_case(shape, name, split, 0.5 if split == 3 else 0.0)
    if tall:
        yield run_case((4_194_305, 5, 16), "64x128", 1, 0.0)                       # 65,537 tiles along x
        yield run_case((4_194_305, 5, 32), "64x128", 2, 0.5)                       # ... in two K slices
    if quick:
        return
    yield run_case((37, 28, 300), "128x128", 3, 0.5, offset=1)                      # C element-wise, B 4-byte
    yield run_case((131, 260, 300), "128x256", 1, 0.0, b16=False)                   # B 4-byte on aligned rows
    yield run_case((131, 260, 300), "64x128", 3, 0.5, ptx_arch="compute_75")        # no cp.async
    yield run_case((37, 29, 70), "128x128", 1, 0.0, ptx_arch="compute_75")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="this GPU's forms only")
    ap.add_argument("--tall", action="store_true", help="also a C of 65,537 tile rows (memcheck)")
    args = ap.parse_args(argv)
    bad = 0
    for line in cases(args.quick, args.tall):
        print(line, flush=True)
        bad += line.startswith("BAD")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
