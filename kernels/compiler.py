"""Compiling the kernel sources.

Two paths share one preprocessed source:
  * at run time, CuPy's RawModule (NVRTC) for the current device, cached per process;
  * ahead of time, NVRTC through ctypes for a *named* architecture (sm_80, sm_90, ...), which
    needs no GPU and no driver, so SASS can be inspected on any machine.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import os
import re
import sys

from kernels import registry
from kernels.errors import CompileError, GPUUnavailableError
from kernels.source import headers, read_source

NVRTC_OPTIONS = ("-std=c++17", "-lineinfo")
# CuPy adds -ftz=true to every NVRTC compile (cupy.cuda.compiler); the ahead-of-time path adds it
# too, so that the SASS shown without a GPU is the SASS that runs (FFMA.FTZ, same registers).
AOT_EXTRA_OPTIONS = ("-ftz=true",)
_INCLUDE = re.compile(r'^\s*#include\s+"([\w.]+)"\s*$', re.MULTILINE)

# How many modules this process has compiled (the benchmark asserts a warm rerun adds none).
compile_count = 0


def expanded_source(file: str) -> str:
    """The file with local headers pasted in, so that a cache keyed on the text sees header edits."""
    available = headers()

    def paste(match: re.Match) -> str:
        name = match.group(1)
        if name not in available:
            raise CompileError(f"{file}: 헤더(header) {name}를 kernels/에서 찾을 수 없습니다.")
        body = available[name].replace("#pragma once", "")
        return f'#line 1 "{name}"\n{body}\n#line {_line_after(match)} "{file}"'

    text = read_source(file)

    def _line_after(match: re.Match) -> int:
        return text.count("\n", 0, match.end()) + 2

    return _INCLUDE.sub(paste, text)


# --------------------------------------------------------------------------- run time (CuPy)

def _cupy():
    try:
        import cupy
    except ImportError as exc:  # pragma: no cover - cupy is a declared dependency
        raise GPUUnavailableError(f"CuPy를 불러올 수 없습니다(import error): {exc}") from exc
    return cupy


@functools.lru_cache(maxsize=None)
def _module(file: str, device_id: int, arch: str):
    global compile_count
    cupy = _cupy()
    try:
        module = cupy.RawModule(code=expanded_source(file), options=NVRTC_OPTIONS)
        module.compile()
    except cupy.cuda.compiler.CompileException as exc:
        raise CompileError(f"{file} 컴파일 실패(compile error):\n{exc}") from exc
    compile_count += 1
    return module


def device_arch() -> str:
    """The current device's architecture as 'sm_XY'."""
    cupy = _cupy()
    try:
        cc = cupy.cuda.Device().compute_capability
    except Exception as exc:  # CUDARuntimeError when there is no GPU or driver
        raise GPUUnavailableError(
            "사용할 수 있는 CUDA GPU가 없습니다(no CUDA device). 기록된 결과(recorded results)를 보거나 "
            "GPU 머신에서 실행하세요."
        ) from exc
    return f"sm_{cc}"


STATIC_SMEM_LIMIT = 48 * 1024   # a block may use more shared memory only after opting in


def allow_dynamic_smem(kernel, nbytes: int) -> None:
    """Let `kernel` launch with `nbytes` of dynamic shared memory (opt-in above 48 KiB)."""
    if nbytes > STATIC_SMEM_LIMIT and kernel.max_dynamic_shared_size_bytes < nbytes:
        kernel.max_dynamic_shared_size_bytes = nbytes


def get_kernel(name: str):
    """The compiled cupy.RawKernel for a registry entry (compiled once per process and device)."""
    spec = registry.get(name)
    cupy = _cupy()
    arch = device_arch()
    kernel = _module(spec.file, cupy.cuda.Device().id, arch).get_function(spec.name)
    allow_dynamic_smem(kernel, spec.dynamic_smem)
    return kernel


def variant_source(file: str, defines: dict) -> str:
    """A kernel file with `#define NAME value` lines in front (the tuners' compile-time knobs)."""
    return "".join(f"#define {k} {v}\n" for k, v in sorted(defines.items())) + expanded_source(file)


@functools.lru_cache(maxsize=None)
def _variant_module(file: str, defines: tuple, device_id: int, arch: str):
    global compile_count
    cupy = _cupy()
    try:
        module = cupy.RawModule(code=variant_source(file, dict(defines)), options=NVRTC_OPTIONS)
        module.compile()
    except cupy.cuda.compiler.CompileException as exc:
        raise CompileError(f"{file} {dict(defines)} 컴파일 실패(compile error):\n{exc}") from exc
    compile_count += 1
    return module


def get_variant(file: str, name: str, defines: dict, dynamic_smem: int = 0):
    """A kernel of `file` compiled with extra -D style defines (cached per process and device)."""
    cupy = _cupy()
    arch = device_arch()
    kernel = _variant_module(file, tuple(sorted(defines.items())), cupy.cuda.Device().id, arch).get_function(name)
    allow_dynamic_smem(kernel, dynamic_smem)
    return kernel


def resources(name: str) -> dict:
    """Registers, shared and local memory of a compiled kernel, as the driver reports them."""
    k = get_kernel(name)
    return {
        "registers": int(k.num_regs),
        "smem_static": int(k.shared_size_bytes),
        "smem_dynamic": registry.get(name).dynamic_smem,
        "local_bytes": int(k.local_size_bytes),
        "max_threads_per_block": int(k.max_threads_per_block),
    }


# --------------------------------------------------------------------------- ahead of time (ctypes)

def _nvrtc_candidates() -> list[str]:
    found: list[str] = []
    for base in sys.path:
        found += glob.glob(os.path.join(base, "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so.*[0-9]"))
        found += glob.glob(os.path.join(base, "nvidia", "cu1[0-9]", "lib", "libnvrtc.so.*[0-9]"))
    for root in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root:
            found += glob.glob(os.path.join(root, "lib64", "libnvrtc.so*"))
    if (system := ctypes.util.find_library("nvrtc")):
        found.append(system)
    return [f for f in found if "builtins" not in f and ".alt." not in f]


@functools.lru_cache(maxsize=1)
def _nvrtc():
    errors = []
    for path in _nvrtc_candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as exc:
            errors.append(f"{path}: {exc}")
    raise CompileError(
        "NVRTC 라이브러리(libnvrtc)를 찾지 못했습니다. `pip install nvidia-cuda-nvrtc-cu12`로 설치하세요."
        + ("\n" + "\n".join(errors) if errors else "")
    )


def _check(lib, status: int, prog=None) -> None:
    if status == 0:
        return
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    message = lib.nvrtcGetErrorString(status).decode()
    log = _program_log(lib, prog) if prog is not None else ""
    raise CompileError(f"NVRTC: {message}\n{log}")


def _program_log(lib, prog) -> str:
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, buf)
    return buf.value.decode(errors="replace")


@functools.lru_cache(maxsize=None)
def compile_cubin(file: str, arch: str, source: str | None = None) -> bytes:
    """Compile a kernel file (or a given variant of its text) to a cubin for `arch`, e.g. 'sm_90'."""
    if not re.fullmatch(r"sm_\d{2,3}a?", arch):
        raise CompileError(f"아키텍처 이름(architecture)은 sm_80, sm_90 같은 형식이어야 합니다: {arch!r}")
    lib = _nvrtc()
    text = (source if source is not None else expanded_source(file)).encode()
    prog = ctypes.c_void_p()
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), text, file.encode(), 0, None, None))
    try:
        opts = [f"-arch={arch}".encode(), *(o.encode() for o in NVRTC_OPTIONS + AOT_EXTRA_OPTIONS)]
        _check(lib, lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts)), prog)
        size = ctypes.c_size_t()
        _check(lib, lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)))
        buf = ctypes.create_string_buffer(size.value)
        _check(lib, lib.nvrtcGetCUBIN(prog, buf))
        return buf.raw
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
