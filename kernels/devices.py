"""The GPUs a learner may have, described by the limits that decide whether a kernel launches.

A kernel's configuration (pipeline stages, block tile) is sized by shared memory and registers, so
the course keeps, for every GPU class it lists, the numbers that bound those choices: per-block
shared memory after opting in (cudaDevAttrMaxSharedMemoryPerBlockOptin), shared memory per SM, the
shared memory the runtime reserves per block, registers, threads and blocks per SM, SM count and
compute capability. Sources: CUDA C++ Programming Guide, "Features and Technical Specifications"
(per compute capability; checked 2026-11 against the table for 7.5, 8.0, 8.6, 8.9 and 9.0), the
allocation units of cuda_occupancy.h (registers per warp in 256s; shared memory per block in 256 B
below 8.0, 128 B from 8.0 on) and the GPUs' published SM counts and boost clocks.

`current()` reads the same numbers from the GPU in this machine. `occupancy()` is the CUDA occupancy
rule (blocks per SM from threads, registers and shared memory), without a GPU.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass

PROFILE_ENV = "COURSE_DEVICE_PROFILE"   # e.g. COURSE_DEVICE_PROFILE=T4: act as if the GPU were a T4


@dataclass(frozen=True)
class DeviceLimits:
    name: str                     # profile name (T4, RTX3090, ..., H200) or the device's own name
    title: str                    # what a learner calls it
    cc: tuple[int, int]           # compute capability
    sm_count: int
    smem_per_block_optin: int     # bytes a block may use after opting in (static + dynamic)
    smem_per_sm: int              # bytes of shared memory per SM (all resident blocks together)
    smem_reserved_per_block: int  # bytes the runtime keeps per resident block (1 KiB from sm_80 on)
    max_threads_per_sm: int
    max_blocks_per_sm: int
    clock_mhz: float              # boost clock (for the FP32 peak shown next to a profile)
    regs_per_sm: int = 65536
    regs_per_block: int = 65536
    max_regs_per_thread: int = 255
    max_threads_per_block: int = 1024
    reg_alloc_unit: int = 256     # registers are given to a warp in units of 256
    warp_alloc_granularity: int = 4
    smem_alloc_unit: int = 128    # a block's shared memory is taken in units of 128 B (256 B below 8.0)

    @property
    def arch(self) -> str:
        return f"sm_{self.cc[0]}{self.cc[1]}"

    @property
    def cc_text(self) -> str:
        return f"{self.cc[0]}.{self.cc[1]}"

    @property
    def has_cp_async(self) -> bool:
        """cp.async (LDGSTS) exists from compute capability 8.0 on."""
        return self.cc >= (8, 0)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["cc"] = self.cc_text
        return d


_KIB = 1024


def _smem_alloc_unit(cc: tuple[int, int]) -> int:
    """Granularity of a block's shared memory (cuda_occupancy.h: 256 B on 7.x, 128 B from 8.0 on)."""
    return 128 if cc >= (8, 0) else 256


def _limits(name, title, cc, sms, optin_kib, per_sm_kib, threads_sm, blocks_sm, clock):
    return DeviceLimits(name=name, title=title, cc=cc, sm_count=sms, smem_per_block_optin=optin_kib * _KIB,
                        smem_per_sm=per_sm_kib * _KIB, smem_reserved_per_block=_KIB if cc >= (8, 0) else 0,
                        max_threads_per_sm=threads_sm, max_blocks_per_sm=blocks_sm, clock_mhz=clock,
                        smem_alloc_unit=_smem_alloc_unit(cc))


# Every GPU class the course lists, in the order of their per-block shared memory.
PROFILES: dict[str, DeviceLimits] = {d.name: d for d in (
    _limits("T4", "NVIDIA T4 (Colab 무료 GPU)", (7, 5), 40, 64, 64, 1024, 16, 1590),
    _limits("RTX3090", "GeForce RTX 3090", (8, 6), 82, 99, 100, 1536, 16, 1695),
    _limits("A10G", "NVIDIA A10G (AWS g5)", (8, 6), 80, 99, 100, 1536, 16, 1710),
    _limits("L4", "NVIDIA L4", (8, 9), 58, 99, 100, 1536, 24, 2040),
    _limits("RTX4090", "GeForce RTX 4090", (8, 9), 128, 99, 100, 1536, 24, 2520),
    _limits("A100-40GB", "NVIDIA A100 40GB", (8, 0), 108, 163, 164, 2048, 32, 1410),
    _limits("A100-80GB", "NVIDIA A100 80GB", (8, 0), 108, 163, 164, 2048, 32, 1410),
    _limits("H100", "NVIDIA H100 SXM 80GB", (9, 0), 132, 227, 228, 2048, 32, 1980),
    _limits("H200", "NVIDIA H200", (9, 0), 132, 227, 228, 2048, 32, 1980),
)}


class UnknownDeviceError(ValueError):
    """A device profile name the course does not list; the message is Korean and lists the known ones."""


def profile(name: str) -> DeviceLimits:
    """The listed GPU called `name` (case and '-' insensitive: 'a100-40gb', 'rtx3090', 'h100')."""
    key = {k.replace("-", "").lower(): k for k in PROFILES}.get(str(name).replace("-", "").replace(" ", "").lower())
    if key is None:
        raise UnknownDeviceError(
            f"알 수 없는 GPU 이름(device profile)입니다: {name!r}. 알려진 이름: {', '.join(PROFILES)}, current"
        )
    return PROFILES[key]


def profile_from_env() -> DeviceLimits | None:
    """The profile named by COURSE_DEVICE_PROFILE, or None when the variable is unset, empty or 'current'."""
    name = os.environ.get(PROFILE_ENV, "").strip()
    return profile(name) if name and name.lower() != "current" else None


def from_properties(props: dict, name: str | None = None) -> DeviceLimits:
    """Limits of a real device from cudaGetDeviceProperties' dictionary (CuPy's getDeviceProperties)."""
    cc = (int(props["major"]), int(props["minor"]))
    raw_name = props.get("name", b"GPU")
    title = raw_name.decode() if isinstance(raw_name, bytes) else str(raw_name)
    clock_khz = props.get("clockRate") or 0
    return DeviceLimits(
        name=name or title, title=title, cc=cc, sm_count=int(props["multiProcessorCount"]),
        smem_per_block_optin=int(props.get("sharedMemPerBlockOptin") or props.get("sharedMemPerBlock", 49152)),
        smem_per_sm=int(props.get("sharedMemPerMultiprocessor", 0)),
        smem_reserved_per_block=int(props.get("reservedSharedMemPerBlock", _KIB if cc >= (8, 0) else 0)),
        max_threads_per_sm=int(props.get("maxThreadsPerMultiProcessor", 2048)),
        max_blocks_per_sm=int(props.get("maxBlocksPerMultiProcessor", 16)),
        clock_mhz=clock_khz / 1000 if clock_khz else 0.0,
        regs_per_sm=int(props.get("regsPerMultiprocessor", 65536)),
        regs_per_block=int(props.get("regsPerBlock", 65536)),
        max_threads_per_block=int(props.get("maxThreadsPerBlock", 1024)),
        smem_alloc_unit=_smem_alloc_unit(cc),
    )


def current(device_id: int = 0) -> DeviceLimits:
    """Limits of the GPU in this machine (raises GPUUnavailableError where there is none)."""
    from kernels.device import _require_cupy

    cupy = _require_cupy()
    return from_properties(cupy.cuda.runtime.getDeviceProperties(device_id))


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def registers_per_warp(limits: DeviceLimits, registers: int) -> int:
    """Registers a warp is given: registers per thread × 32, rounded up to the allocation unit (256)."""
    return _round_up(max(registers, 1) * 32, limits.reg_alloc_unit)


def smem_allocated_per_block(limits: DeviceLimits, smem_bytes: int) -> int:
    """Shared memory a resident block takes from the SM: its own (static + dynamic) plus what the runtime
    reserves per block (1 KiB from 8.0 on, even for a block that declares none), rounded up to the
    allocation unit."""
    return _round_up(smem_bytes + limits.smem_reserved_per_block, limits.smem_alloc_unit)


def occupancy(limits: DeviceLimits, threads: int, registers: int, smem_bytes: int) -> dict:
    """Resident blocks per SM for a block of `threads` using `registers` per thread and `smem_bytes`
    (static + dynamic) of shared memory, with the limit that decides it ("threads", "blocks",
    "registers" or "shared memory"). 0 blocks means the kernel cannot launch on that GPU.

    This is the course's one occupancy rule (book/appendix/models.md): the occupancy calculator of
    simulation 10 (sims.roofline.occupancy) is a view of it."""
    warps = -(-threads // 32)
    by = {"blocks": limits.max_blocks_per_sm,
          "threads": limits.max_threads_per_sm // (warps * 32) if threads <= limits.max_threads_per_block else 0}
    if registers > limits.max_regs_per_thread:
        by["registers"] = 0
    else:
        per_warp = registers_per_warp(limits, registers)
        warps_by_regs = limits.regs_per_sm // per_warp
        warps_by_regs -= warps_by_regs % limits.warp_alloc_granularity
        by["registers"] = warps_by_regs // warps if per_warp * warps <= limits.regs_per_block else 0
    per_block = smem_allocated_per_block(limits, smem_bytes)
    if smem_bytes > limits.smem_per_block_optin:
        by["shared memory"] = 0
    else:
        by["shared memory"] = limits.smem_per_sm // per_block if per_block else limits.max_blocks_per_sm
    limiter = min(by, key=lambda k: by[k])
    return {"blocks_per_sm": by[limiter], "limiter": limiter, "by": by}


__all__ = ["DeviceLimits", "PROFILES", "PROFILE_ENV", "UnknownDeviceError", "profile", "profile_from_env",
           "from_properties", "current", "occupancy", "registers_per_warp", "smem_allocated_per_block"]
