"""Errors the kernels package raises for the learner, each with a Korean message and the English term."""


class KernelInputError(ValueError):
    """A launch was refused before it reached the GPU: the inputs break a kernel's rules."""


class GPUUnavailableError(RuntimeError):
    """No usable CUDA device (no GPU, no driver, or a driver too old for this CuPy)."""


class CompileError(RuntimeError):
    """NVRTC rejected a kernel source; the message carries the compiler log."""


class DeviceLimitError(KernelInputError):
    """A kernel's configuration needs more than the device gives (shared memory, threads, registers).

    Raised before any launch, with the limit and the kernel named in Korean, instead of the raw CUDA error
    the launch would give. Chapters catch it and show the recorded result with a note.
    """
