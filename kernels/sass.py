"""SASS (machine code) inspection that needs no GPU.

A kernel file is compiled ahead of time for a named architecture (compiler.compile_cubin) and
disassembled with cuobjdump/nvdisasm from pip packages. The summary answers what each level is
about: 128-bit global loads, LDGSTS, spills, FFMA counts, shared-load widths.
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field

from kernels import compiler, registry
from kernels.compiler import compile_cubin
from kernels.errors import CompileError

DEFAULT_ARCHS = ("sm_80", "sm_90")
_OPCODE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)", re.MULTILINE)
_FUNCTION = re.compile(r"^\s*Function : (\S+)\s*$", re.MULTILINE)
_RESOURCE = re.compile(r"Function (\S+):\s*\n\s*REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)")


@functools.lru_cache(maxsize=1)
def tool_dir() -> str:
    """Folder holding cuobjdump and nvdisasm (pip's nvidia-cuda-cuobjdump/-nvdisasm, or CUDA's)."""
    candidates = []
    for base in sys.path:
        candidates += sorted(_glob(os.path.join(base, "nvidia", "cu1[0-9]", "bin")), reverse=True)
    if (which := shutil.which("cuobjdump")):
        candidates.append(os.path.dirname(which))
    candidates.append("/usr/local/cuda/bin")
    for folder in candidates:
        if os.path.exists(os.path.join(folder, "cuobjdump")) and os.path.exists(os.path.join(folder, "nvdisasm")):
            return folder
    raise CompileError(
        "cuobjdump/nvdisasm을 찾지 못했습니다. `pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm`으로 "
        "설치하세요 (SASS 디스어셈블러, disassembler)."
    )


def _glob(pattern: str) -> list[str]:
    import glob

    return glob.glob(pattern)


@functools.lru_cache(maxsize=1)
def _tool_identity() -> str:
    """cuobjdump and nvdisasm, by size: part of the disk cache's key (another version, another listing)."""
    folder = tool_dir()
    return " ".join(str(os.path.getsize(os.path.join(folder, t))) for t in ("cuobjdump", "nvdisasm"))


def _cuobjdump(args: list[str], cubin: bytes) -> str:
    """cuobjdump's output for a cubin, kept in the compiler's disk cache (disassembling a large kernel takes
    seconds, and chapters, facts and tests ask for the same listings in many processes)."""
    folder = compiler.cache_dir()
    key = hashlib.sha256(b"\0".join([" ".join(args).encode(), _tool_identity().encode(), cubin])).hexdigest()
    path = folder / "cuobjdump" / f"{key}.txt" if folder else None
    if path is not None and path.exists():
        return path.read_text(encoding="utf-8")
    text = _run_cuobjdump(args, cubin)
    if path is not None:
        compiler.store_file(path, text.encode("utf-8"))
    return text


def _run_cuobjdump(args: list[str], cubin: bytes) -> str:
    folder = tool_dir()
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as fh:
        fh.write(cubin)
        path = fh.name
    try:
        env = dict(os.environ, PATH=folder + os.pathsep + os.environ.get("PATH", ""))
        done = subprocess.run([os.path.join(folder, "cuobjdump"), *args, path],
                              capture_output=True, text=True, env=env, timeout=120)
    finally:
        os.unlink(path)
    if done.returncode != 0:
        raise CompileError(f"cuobjdump 실패: {done.stderr.strip()}")
    return done.stdout


def disassemble(file: str, arch: str, source: str | None = None) -> dict[str, str]:
    """SASS text of every function in a kernel file, by function name."""
    return dict(_disassemble(file, arch, source))


@functools.lru_cache(maxsize=64)
def _disassemble(file: str, arch: str, source: str | None) -> tuple:
    # compile_cubin is cached per text; the disassembly is too, since chapters, facts and
    # summaries ask for the same kernel several times in one process.
    text = _cuobjdump(["-sass"], compile_cubin(file, arch, source))
    starts = [(m.group(1), m.start()) for m in _FUNCTION.finditer(text)]
    return tuple((name, text[start:starts[i + 1][1] if i + 1 < len(starts) else len(text)])
                 for i, (name, start) in enumerate(starts))


def main_loop(kernel: str, arch: str = "sm_90", source: str | None = None) -> list[tuple[int, str]]:
    """(address, instruction) of a kernel's main loop: the backward branch's span that holds the most FFMAs."""
    text = disassemble(registry.get(kernel).file, arch, source)[kernel]
    insts = [(int(a, 16), i.strip()) for a, i in re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", text)]
    best: list[tuple[int, str]] = []
    for addr, inst in insts:
        m = re.search(r"\bBRA\b.*?0x([0-9a-f]+)", inst)
        if m and int(m.group(1), 16) < addr:                  # a backward branch closes a loop
            body = [(a, i) for a, i in insts if int(m.group(1), 16) <= a <= addr]
            if sum(i.startswith("FFMA") for _, i in body) > sum(i.startswith("FFMA") for _, i in best):
                best = body
    return best


def resource_usage(file: str, arch: str, source: str | None = None) -> dict[str, dict]:
    """Registers, stack, shared and local bytes per function, as ptxas allocated them."""
    text = _cuobjdump(["-res-usage"], compile_cubin(file, arch, source))
    return {m.group(1): {"registers": int(m.group(2)), "stack": int(m.group(3)),
                         "smem_static": int(m.group(4)), "local_bytes": int(m.group(5))}
            for m in _RESOURCE.finditer(text)}


def opcodes(sass_text: str) -> Counter:
    """Count of every opcode (with its modifiers, e.g. LDG.E.128) in a SASS listing.

    Instructions predicated on `!PT` (never true) are padding the assembler inserts, not work.
    """
    live = "\n".join(ln for ln in sass_text.splitlines() if "@!PT" not in ln)
    return Counter(_OPCODE.findall(live))


@dataclass
class SassSummary:
    kernel: str
    arch: str
    registers: int
    smem_static: int            # the kernel's own __shared__ arrays, in bytes
    local_bytes: int
    stack: int
    ffma: int
    ldg_128: int
    ldg_32: int
    ldgsts: int
    ldgdepbar: int
    depbar: int
    lds_widths: dict = field(default_factory=dict)   # {"32": n, "64": n, "128": n}
    sts_widths: dict = field(default_factory=dict)
    spills: int = 0                                  # LDL + STL instructions
    smem_reported: int = 0      # what ptxas reports: on sm_90+ it adds 1 KiB of system shared memory
    counts: Counter = field(default_factory=Counter)

    def as_row(self) -> dict:
        row = {k: v for k, v in self.__dict__.items() if k != "counts"}
        return row


def _width(op: str) -> str:
    for w in ("128", "64", "U8", "S8", "U16", "S16"):
        if op.endswith("." + w) or f".{w}." in op:
            return w
    return "32"


SYSTEM_SMEM_BYTES = 1024   # per-block shared memory the sm_90 toolchain reserves for the system


def _arch_number(arch: str) -> int:
    return int(re.sub(r"\D", "", arch))


def _is_plain_ldg(op: str) -> bool:
    """LDG proper, not LDGSTS (async copy) or LDGDEPBAR (its commit)."""
    return op == "LDG" or op.startswith("LDG.")


def summarize(kernel: str, arch: str = "sm_90", source: str | None = None) -> SassSummary:
    """What the machine code of one registry kernel does, for one architecture."""
    spec = registry.get(kernel)
    sass = disassemble(spec.file, arch, source)
    if kernel not in sass:
        raise CompileError(f"{spec.file}의 SASS에 {kernel} 함수가 없습니다.")
    res = resource_usage(spec.file, arch, source)[kernel]
    counts = opcodes(sass[kernel])
    lds, sts = Counter(), Counter()
    for op, n in counts.items():
        if op.startswith("LDS") and not op.startswith("LDSM"):
            lds[_width(op)] += n
        elif op.startswith("STS"):
            sts[_width(op)] += n
    def total(prefix: str, pred=lambda op: True) -> int:
        return sum(n for op, n in counts.items() if op.startswith(prefix) and pred(op))
    reserved = SYSTEM_SMEM_BYTES if res["smem_static"] and _arch_number(arch) >= 90 else 0
    return SassSummary(
        kernel=kernel, arch=arch, registers=res["registers"], smem_static=res["smem_static"] - reserved,
        smem_reported=res["smem_static"],
        local_bytes=res["local_bytes"], stack=res["stack"],
        ffma=total("FFMA"),
        ldg_128=total("LDG", lambda op: _is_plain_ldg(op) and _width(op) == "128"),
        ldg_32=total("LDG", lambda op: _is_plain_ldg(op) and _width(op) == "32"),
        ldgsts=total("LDGSTS"), ldgdepbar=total("LDGDEPBAR"),
        depbar=total("DEPBAR", lambda op: not op.startswith("LDGDEPBAR")),
        lds_widths=dict(lds), sts_widths=dict(sts),
        spills=total("LDL") + total("STL"), counts=counts,
    )


def excerpt(kernel: str, arch: str = "sm_90", pattern: str = r"FFMA|LDS|LDG|STS|LDGSTS|DEPBAR|BAR",
            limit: int = 40, source: str | None = None) -> str:
    """The first `limit` SASS lines of a kernel whose opcode matches `pattern` (for chapters)."""
    spec = registry.get(kernel)
    text = disassemble(spec.file, arch, source)[kernel]
    rx = re.compile(pattern)
    picked = []
    for line in text.splitlines():
        m = _OPCODE.match(line)
        if m and rx.match(m.group(1)):
            # Drop the address comment in front and the encoding comment (/* 0x... */) behind.
            text_only = re.sub(r"/\*\s*0x[0-9a-f]+\s*\*/", "", line)
            picked.append(re.sub(r"^\s*/\*[0-9a-f]{4,}\*/", "", text_only).strip())
            if len(picked) >= limit:
                break
    return "\n".join(picked)
