"""What tools/profile_shapes.py runs under Nsight Compute: cuBLAS or Level 7 on zoo shapes.

    python tools/ncu_shape.py zoo                  every zoo shape: a marker kernel, then one cuBLAS call
    python tools/ncu_shape.py cublas M N K         cuBLAS twice (ncu skips the first launch)
    python tools/ncu_shape.py level7 M N K         Level 7 through its dispatcher, twice

"zoo" mode warms every shape up first, then starts the profiler (cudaProfilerStart) so that ncu, run with
--profile-from-start off, sees only the marker and cuBLAS's kernels. The marker's grid holds the shape's
index + 1, which is how the tool tells the shapes apart in ncu's list (cuBLAS may launch one kernel or two
per call: a GEMM and a split-K reduction).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("CUPY_TF32", "0")

MARKER = "course_zoo_marker"
MARKER_SOURCE = 'extern "C" __global__ void course_zoo_marker(int* out) { if (threadIdx.x == 0) out[blockIdx.x] = 1; }'


def operands(M: int, N: int, K: int):
    import cupy

    from kernels import check

    return check.random_matrix(M, K, 1), check.random_matrix(K, N, 2), cupy.empty((M, N), dtype=cupy.float32)


def zoo() -> None:
    import cupy

    from kernels import level7_model as model

    marker = cupy.RawKernel(MARKER_SOURCE, MARKER)
    flags = cupy.zeros(len(model.ZOO) + 1, dtype=cupy.int32)
    shapes = [operands(*shape) for shape in model.ZOO]
    for A, B, C in shapes:                     # warm-up: cuBLAS's own first-call work stays unprofiled
        cupy.matmul(A, B, out=C)
    cupy.cuda.get_current_stream().synchronize()
    cupy.cuda.runtime.profilerStart()
    for index, (A, B, C) in enumerate(shapes):
        marker((index + 1,), (32,), (flags,))
        cupy.matmul(A, B, out=C)
    cupy.cuda.get_current_stream().synchronize()
    cupy.cuda.runtime.profilerStop()


def one(what: str, M: int, N: int, K: int) -> None:
    import cupy

    from kernels import level7

    A, B, C = operands(M, N, K)
    for _ in range(2):
        if what == "cublas":
            cupy.matmul(A, B, out=C)
        else:
            level7.run(A, B, C)
    cupy.cuda.get_current_stream().synchronize()


def main(argv: list[str]) -> int:
    if argv[:1] == ["zoo"]:
        zoo()
        return 0
    what, M, N, K = argv[0], *map(int, argv[1:4])
    if what not in ("cublas", "level7"):
        raise SystemExit("usage: ncu_shape.py zoo | cublas M N K | level7 M N K")
    one(what, M, N, K)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
