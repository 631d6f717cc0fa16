"""Kernel sources on disk and the regions the chapters quote from them.

A region is marked in a .cu/.cuh file (or, with "#", in a .py file) as::

    // [region: name]
    ...
    // [end-region: name]

Regions may nest; the markers themselves are left out of a quoted region.
"""
from __future__ import annotations

import re
from pathlib import Path

KERNEL_DIR = Path(__file__).resolve().parent
COMMON_HEADER = "sgemm_common.cuh"

# "//" in .cu/.cuh files, "#" in the Python the chapters quote (kernels/level7_model.py).
_START = re.compile(r"^\s*(?://|#)\s*\[region:\s*([\w-]+)\]\s*$")
_END = re.compile(r"^\s*(?://|#)\s*\[end-region:\s*([\w-]+)\]\s*$")


def read_source(file: str) -> str:
    return (KERNEL_DIR / file).read_text(encoding="utf-8")


def headers() -> dict[str, str]:
    """Headers the kernel files include, by include name."""
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(KERNEL_DIR.glob("*.cuh"))}


def regions(file: str) -> dict[str, str]:
    """All regions of a file, by name, without marker lines and with common indentation removed."""
    lines = read_source(file).splitlines()
    open_regions: dict[str, int] = {}
    found: dict[str, str] = {}
    for i, line in enumerate(lines):
        if (m := _START.match(line)):
            open_regions[m.group(1)] = i
        elif (m := _END.match(line)):
            name = m.group(1)
            if name not in open_regions:
                raise ValueError(f"{file}:{i + 1}: end of region {name!r} that was never opened")
            body = [ln for ln in lines[open_regions.pop(name) + 1:i] if not (_START.match(ln) or _END.match(ln))]
            found[name] = _dedent(body)
    if open_regions:
        raise ValueError(f"{file}: regions never closed: {sorted(open_regions)}")
    return found


def region(file: str, name: str) -> str:
    """One region's text; a KeyError names the regions that do exist."""
    all_regions = regions(file)
    if name not in all_regions:
        raise KeyError(f"{file} has no region {name!r}; regions: {sorted(all_regions)}")
    return all_regions[name]


def region_lines(file: str, name: str) -> tuple[int, int]:
    """1-based first and last line of a region's body in its file (for "lines a-b" references)."""
    lines = read_source(file).splitlines()
    start = next(i for i, ln in enumerate(lines) if (m := _START.match(ln)) and m.group(1) == name)
    end = next(i for i, ln in enumerate(lines) if (m := _END.match(ln)) and m.group(1) == name)
    return start + 2, end


def _dedent(lines: list[str]) -> str:
    indents = [len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()]
    cut = min(indents, default=0)
    return "\n".join(ln[cut:] for ln in lines).strip("\n")
