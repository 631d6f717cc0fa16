"""Errors the kernels package raises for the learner, each with a Korean message and the English term."""


class KernelInputError(ValueError):
    """A launch was refused before it reached the GPU: the inputs break a kernel's rules."""


class GPUUnavailableError(RuntimeError):
    """No usable CUDA device (no GPU, no driver, or a driver too old for this CuPy)."""


class CompileError(RuntimeError):
    """NVRTC rejected a kernel source; the message carries the compiler log."""
