"""Launch one course kernel (optionally recompiled with -D defines), or cuBLAS, a few times for ncu.

    ncu --clock-control none --kernel-name regex:sgemm python tools/ncu_one.py sgemm_async_copy_vec 4096 L5_STAGES=2
    ncu --clock-control none python tools/ncu_one.py cublas 4096

The kernel starts from the active device's configuration (kernels/configs.py; COURSE_DEVICE_PROFILE
included). For Levels 5 and 6 the defines may change the ring, the block tile and the threads per
block; the launch shape follows them (kernels.registry.configured).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("CUPY_TF32", "0")

from kernels import check, configs, loader, registry  # noqa: E402


def configured(name: str, defines: dict) -> tuple[registry.KernelSpec, dict]:
    """The active device's spec of `name` with `defines` applied, and every define it is compiled with."""
    spec = configs.spec_for(name)
    if not spec.family:
        return spec, dict(defines)
    prefix = registry.MACRO_PREFIX[spec.family]
    cfg = dict(spec.config)
    cfg.update({k[len(prefix):]: int(v) for k, v in defines.items() if k.startswith(prefix)})
    shaped = registry.configured(name, cfg)
    return shaped, {**dict(shaped.defines), **defines}


def launch_shape(spec: registry.KernelSpec, n: int) -> tuple[tuple, tuple, int]:
    """Grid, block and dynamic shared memory of `spec` for an n x n C."""
    return spec.grid(n, n), (*spec.block, 1), spec.dynamic_smem


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
    spec, defines = configured(name, dict(d.split("=", 1) for d in defs))
    grid, block, smem = launch_shape(spec, n)
    k = loader.get_variant(spec.file, name, defines, smem, spec.threads)
    args = (A, B, C, *(np.int32(v) for v in (n, n, n, n, n, n)), np.float32(1), np.float32(0))
    for _ in range(2):
        k(grid, block, args, shared_mem=smem)
    cupy.cuda.get_current_stream().synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
