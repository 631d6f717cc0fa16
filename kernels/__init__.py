"""The course's SGEMM kernels: compile (NVRTC via CuPy), launch, check against cuBLAS, time, inspect.

    from kernels import run, check, bench, registry
    C = run("sgemm_tiled", A, B)

Nothing here touches the GPU at import time, so the package imports on machines without one.
"""
from kernels.errors import CompileError, GPUUnavailableError, KernelInputError
from kernels.launch import run
from kernels.registry import KERNELS, LEVEL_REPRESENTATIVE

__all__ = ["run", "KERNELS", "LEVEL_REPRESENTATIVE", "KernelInputError", "GPUUnavailableError", "CompileError"]
