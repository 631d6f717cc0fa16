"""Launch one course kernel (optionally recompiled with -D defines), or cuBLAS, a few times for ncu.

    ncu --clock-control none --kernel-name regex:sgemm python tools/ncu_one.py sgemm_async_copy_vec 4096 L5_STAGES=2
    ncu --clock-control none python tools/ncu_one.py cublas 4096

For Level 6 the defines may change the block tile and the threads per block; the launch shape
follows them (kernels.registry.level6_threads / level6_smem).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("CUPY_TF32", "0")

from kernels import check, compiler, registry  # noqa: E402


def launch_shape(spec: registry.KernelSpec, n: int, defines: dict) -> tuple[tuple, tuple, int]:
    """Grid, block and dynamic shared memory of `spec` compiled with `defines`, for an n x n C."""
    if spec.level != 6:
        return spec.grid(n, n), (*spec.block, 1), spec.dynamic_smem
    cfg = dict(registry.LEVEL6)
    cfg.update({k[len("L6_"):]: int(v) for k, v in defines.items() if k.startswith("L6_")})
    grid = (-(-n // cfg["BN"]), -(-n // cfg["BM"]), 1)
    return grid, (registry.level6_threads(cfg), 1, 1), registry.level6_smem(cfg)


def main() -> int:
    import cupy
    import numpy as np

    name, n, *defs = sys.argv[1:]
    n = int(n)
    A, B = check.random_matrix(n, n, 1), check.random_matrix(n, n, 2)
    C = cupy.empty((n, n), dtype=cupy.float32)
    if name == "cublas":
        for _ in range(2):
            cupy.matmul(A, B, out=C)
        cupy.cuda.get_current_stream().synchronize()
        return 0
    spec = registry.get(name)
    defines = dict(d.split("=", 1) for d in defs)
    grid, block, smem = launch_shape(spec, n, defines)
    k = compiler.get_variant(spec.file, name, defines, smem)
    args = (A, B, C, *(np.int32(v) for v in (n, n, n, n, n, n)), np.float32(1), np.float32(0))
    for _ in range(2):
        k(grid, block, args, shared_mem=smem)
    cupy.cuda.get_current_stream().synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
