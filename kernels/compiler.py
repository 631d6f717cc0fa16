"""Compiling the kernel sources.

Two paths share one preprocessed source:
  * at run time, CuPy's RawModule (NVRTC) for the current device, cached per process; under a device
    profile below compute capability 8.0 (COURSE_DEVICE_PROFILE=T4) the kernels are compiled to PTX for
    that architecture and JIT-compiled by the driver, so their sm_75 code paths run on any newer GPU;
  * ahead of time, NVRTC through ctypes for a *named* architecture (sm_80, sm_90, ...), which
    needs no GPU and no driver, so SASS can be inspected on any machine. Its output is kept in a disk
    cache keyed by the text, the architecture, the options and the NVRTC version.

This module only compiles: it knows the device profile (kernels/devices.py) but not the configurations.
Choosing a kernel's configuration (kernels/configs.py) reads the resources of what is compiled here, and
loading a kernel by name in that configuration, guarded against the device's limits, is kernels/loader.py.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import hashlib
import os
import re
import sys
import tempfile
from pathlib import Path

from kernels import devices, registry
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


def device_id() -> int:
    """The current CUDA device's ordinal (GPUUnavailableError without a GPU)."""
    device_arch()
    return _cupy().cuda.Device().id


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


def ptx_target() -> str | None:
    """'compute_75' while a device profile below compute capability 8.0 is active, else None.

    Then every kernel is compiled to PTX for that architecture and JIT-compiled by the driver for the GPU
    in the machine: `__CUDA_ARCH__` is 750 while NVRTC compiles, so the kernels take their sm_75 code
    paths (the synchronous fallback of cp.async) even on an H100.
    """
    profile = devices.profile_from_env()
    if profile is None or profile.has_cp_async:
        return None
    return f"compute_{profile.cc[0]}{profile.cc[1]}"


def variant_source(file: str, defines: dict) -> str:
    """A kernel file with `#define NAME value` lines in front (the tuners' compile-time knobs)."""
    return "".join(f"#define {k} {v}\n" for k, v in sorted(defines.items())) + expanded_source(file)


@functools.lru_cache(maxsize=None)
def _module(file: str, defines: tuple, device_id: int, arch: str, target: str | None):
    """One compiled module per (file, defines, device, PTX target); no defines: the file exactly."""
    global compile_count
    cupy = _cupy()
    text = variant_source(file, dict(defines))
    what = f"{file} {dict(defines)}" if defines else file
    try:
        if target is None:
            module = cupy.RawModule(code=text, options=NVRTC_OPTIONS)
            module.compile()
        else:
            module = cupy.RawModule(path=str(ptx_file(file, target, text)))
    except cupy.cuda.compiler.CompileException as exc:
        raise CompileError(f"{what} 컴파일 실패(compile error):\n{exc}") from exc
    compile_count += 1
    return module


def _function(file: str, name: str, defines: dict):
    cupy = _cupy()
    module = _module(file, tuple(sorted(defines.items())), cupy.cuda.Device().id, device_arch(), ptx_target())
    return module.get_function(name)


def load(spec: registry.KernelSpec):
    """The compiled kernel of a (configured) registry spec, without the device-limit guard (kernels/loader.py
    adds it)."""
    return _function(spec.file, spec.name, dict(spec.defines))


def function_from_source(source: str, name: str):
    """Function `name` of a whole source text (a chapter's modified copy), compiled for the active target and
    not guarded (kernels/loader.py's kernel_from_source checks it against the device)."""
    cupy = _cupy()
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    target = ptx_target()
    try:
        if target is None:
            return cupy.RawModule(code=source, options=NVRTC_OPTIONS).get_function(name)
        return cupy.RawModule(path=str(ptx_file(f"source-{digest}.cu", target, source))).get_function(name)
    except cupy.cuda.compiler.CompileException as exc:
        raise CompileError(f"{name} 컴파일 실패(compile error):\n{exc}") from exc


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
            lib = ctypes.CDLL(path)
            lib.course_path = os.path.realpath(path)   # its size is part of the disk cache's key
            return lib
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


@functools.lru_cache(maxsize=1)
def nvrtc_version() -> str:
    """Version of the NVRTC library the ahead-of-time path uses, e.g. '12.9'."""
    lib = _nvrtc()
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(lib, lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)))
    return f"{major.value}.{minor.value}"


CACHE_ENV = "COURSE_CUBIN_CACHE"   # a folder for compiled cubins/PTX; "off" (or 0) disables the disk cache


def cache_dir() -> Path | None:
    """Where compiled cubins and PTX are kept between runs (None: disk cache off)."""
    setting = os.environ.get(CACHE_ENV, "").strip()
    if setting.lower() in ("0", "off", "no", "false"):
        return None
    if setting:
        return Path(setting)
    try:
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("sgemm-course")) / "nvrtc"
    except ImportError:  # pragma: no cover - platformdirs is a declared dependency
        return Path.home() / ".cache" / "sgemm-course" / "nvrtc"


@functools.lru_cache(maxsize=1)
def _compiler_identity() -> str:
    """NVRTC's version and the size of its library (two builds of one version differ in size; the same
    package installed in two environments does not, so they share the cache)."""
    lib = _nvrtc()
    size = os.path.getsize(lib.course_path) if os.path.exists(lib.course_path) else 0
    return f"{nvrtc_version()} {size}"


def _cache_path(kind: str, arch: str, text: str, name: str) -> Path | None:
    """File for one compiler output, named by everything it depends on: the expanded text and its file
    name (line information), the target, the options and the compiler (None: disk cache off)."""
    folder = cache_dir()
    if folder is None:
        return None
    parts = [kind, arch, " ".join(NVRTC_OPTIONS + AOT_EXTRA_OPTIONS), _compiler_identity(), name, text]
    return folder / f"{hashlib.sha256(chr(0).join(parts).encode()).hexdigest()}.{kind}"


def store_file(path: Path, data: bytes) -> None:
    """Write a cache file atomically, or skip it where the cache folder cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)   # atomic: a reader sees the whole file or none
    except OSError:
        pass                    # a read-only home still compiles, it just does not keep the result


def _cached(kind: str, arch: str, text: str, name: str) -> bytes:
    """The compiler output for (kind, arch, text) from the disk cache, or compiled and stored there."""
    path = _cache_path(kind, arch, text, name)
    if path is not None and path.exists():
        return path.read_bytes()
    options = (f"-arch={arch}",) + NVRTC_OPTIONS + AOT_EXTRA_OPTIONS
    data = _nvrtc_compile(text, name, options, kind)
    if kind == "ptx":
        data = data.rstrip(b"\0")   # NVRTC's PTX ends in a NUL; the file the driver loads must not
    if path is not None:
        store_file(path, data)
    return data


def _nvrtc_compile(text: str, name: str, options: tuple, kind: str) -> bytes:
    lib = _nvrtc()
    prog = ctypes.c_void_p()
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), text.encode(), name.encode(), 0, None, None))
    try:
        opts = [o.encode() for o in options]
        _check(lib, lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts)), prog)
        get_size, get = (lib.nvrtcGetCUBINSize, lib.nvrtcGetCUBIN) if kind == "cubin" else (lib.nvrtcGetPTXSize,
                                                                                            lib.nvrtcGetPTX)
        size = ctypes.c_size_t()
        _check(lib, get_size(prog, ctypes.byref(size)))
        buf = ctypes.create_string_buffer(size.value)
        _check(lib, get(prog, buf))
        return buf.raw
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


@functools.lru_cache(maxsize=None)
def compile_cubin(file: str, arch: str, source: str | None = None) -> bytes:
    """Compile a kernel file (or a given variant of its text) to a cubin for `arch`, e.g. 'sm_90'.

    Kept on disk (cache_dir) by the expanded text, architecture, options and NVRTC version, so that
    tests, facts and `python -m kernels configs` reuse cubins across processes.
    """
    if not re.fullmatch(r"sm_\d{2,3}a?", arch):
        raise CompileError(f"아키텍처 이름(architecture)은 sm_80, sm_90 같은 형식이어야 합니다: {arch!r}")
    text = source if source is not None else expanded_source(file)
    return _cached("cubin", arch, text, file)


@functools.lru_cache(maxsize=None)
def ptx_file(file: str, arch: str, source: str | None = None) -> Path:
    """PTX of a kernel text for a virtual architecture ('compute_75'), as a file CuPy can load.

    The driver JIT-compiles it for the GPU in the machine. Kept in the disk cache (or a temporary folder
    when the cache is off).
    """
    if not re.fullmatch(r"compute_\d{2,3}", arch):
        raise CompileError(f"가상 아키텍처 이름은 compute_75 같은 형식이어야 합니다: {arch!r}")
    text = source if source is not None else expanded_source(file)
    ptx = _cached("ptx", arch, text, file)
    path = _cache_path("ptx", arch, text, file)
    if path is None or not path.exists():
        path = Path(tempfile.mkdtemp(prefix="sgemm-ptx-")) / f"{Path(file).stem}.ptx"
        path.write_bytes(ptx)
    return path
