"""Launch one course kernel (optionally recompiled with -D defines) a few times, for ncu.

    ncu --clock-control none --kernel-name regex:sgemm python tools/ncu_one.py sgemm_async_copy_vec 4096 L5_STAGES=2
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kernels import check, compiler, registry  # noqa: E402


def main() -> int:
    import cupy

    name, n, *defs = sys.argv[1:]
    n = int(n)
    spec = registry.get(name)
    prefix = "".join(f"#define {d.replace('=', ' ', 1)}\n" for d in defs)
    module = cupy.RawModule(code=prefix + compiler.expanded_source(spec.file), options=compiler.NVRTC_OPTIONS)
    k = module.get_function(name)
    A, B = check.random_matrix(n, n, 1), check.random_matrix(n, n, 2)
    C = cupy.empty((n, n), dtype=cupy.float32)
    args = (A, B, C, *(cupy.int32(v) for v in (n, n, n, n, n, n)), cupy.float32(1), cupy.float32(0))
    for _ in range(2):
        k(spec.grid(n, n), (*spec.block, 1), args)
    cupy.cuda.get_current_stream().synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
