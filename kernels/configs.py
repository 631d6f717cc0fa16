"""One function decides a kernel's configuration from the device's limits: `choose(family, limits)`.

Levels 5 and 6 keep K tiles in a ring of shared-memory stages, and Level 6 also chooses its block and
thread tiles. How much of that fits is a property of the GPU: a block may use 64 KiB of shared memory
on a T4, 99 KiB on an RTX 30xx/40xx, L4 or A10G, 163 KiB on an A100 and 227 KiB on an H100/H200
(kernels/devices.py). The rule, in three steps:

1. Candidates. Level 5: the rings tools/tune_async.py measures (LEVEL5_RINGS). Level 6: each block
   shape of LEVEL6_SHAPES with a K tile of 32, 16 or 8 and 3 to 8 stages.
2. What fits the device: threads per block, shared memory per block after opting in (static and
   dynamic together), registers as ptxas allocated them for the device's compute capability, and at
   least one resident block per SM (the CUDA occupancy rule, devices.occupancy).
3. The first in the family's order of preference (`preference`), which follows the tuners' records on
   the H100 (book/data/async_tuning.json, level6_tuning.json):
   - both: a configuration that keeps the resident blocks its __launch_bounds__ promises (Level 5: two)
     comes first: ptxas capped its registers for that many blocks, and the measurements were made so;
   - Level 5: the deepest K tile (depth mattered more than stages: BK 8 was slower than Level 4 with
     any ring), then the FEWEST stages (at BK 32 a third stage measured no faster, and it costs shared
     memory), then no early barrier;
   - Level 6: the largest block tile, then the largest thread tile (they set how many FFMA each byte
     and each shared load feeds, the point of Level 6), then the deepest K tile (32 > 16 > 8 in the
     record), then the MOST stages that fit (4 > 3 at BK 32, 6 > 4 at BK 16);
   - below compute capability 8.0 (no cp.async) the kernels compile to synchronous copies, so a stage
     beyond what the loop needs only costs shared memory: there the FEWEST stages win in both families.

On the H100 and H200 the rule gives exactly the tuned configurations the book was measured with
(registry.LEVEL5, registry.LEVEL6; a CPU test checks it).

`spec_for(name)` is what the loader (kernels/loader.py) uses: the registry's kernel with the configuration
of the active device, which is COURSE_DEVICE_PROFILE's listed GPU when that is set (for example T4 on an
H100, to check the T4 configuration there), otherwise the GPU in this machine.

Registers and shared memory come from below: the cubin compiled ahead of time (kernels/compiler.py) and
read by kernels/sass.py, or the kernel loaded on this GPU. Neither of those imports this module.
"""
from __future__ import annotations

import functools
import importlib
import os
from dataclasses import dataclass, field
from typing import Callable

from kernels import compiler, devices, registry, sass
from kernels.devices import DeviceLimits
from kernels.errors import DeviceLimitError

# Level 5's rings: (BK, STAGES, EARLY_BARRIER), those tools/tune_async.py measures. The early-barrier loop
# keeps the ring's refill convention (tile kt + STAGES - 1 into tile kt - 1's stage), which needs three stages
# or more (static_assert in sgemm_async_copy.cu); the barrier itself would be safe with two.
LEVEL5_RINGS = ((8, 2, 0), (8, 3, 0), (8, 3, 1), (16, 2, 0), (16, 3, 0), (16, 3, 1), (16, 4, 1), (32, 2, 0),
                (32, 3, 1))

# Level 6's block shapes, largest first. The first is the H100's; the two 128 x 128 shapes are those
# tools/tune_level6.py measures for two blocks per SM. (The tall 256 x 128 tile is left out: the same size
# as 128 x 256 and slower in the record.)
LEVEL6_SHAPES = (
    {"BM": 128, "BN": 256, "WM": 64, "WN": 64, "TM": 8, "TN": 16, "MIN_BLOCKS": 1},   # 256 threads
    {"BM": 128, "BN": 128, "WM": 64, "WN": 64, "TM": 8, "TN": 16, "MIN_BLOCKS": 2},   # 128 threads
    {"BM": 128, "BN": 128, "WM": 32, "WN": 64, "TM": 8, "TN": 8, "MIN_BLOCKS": 2},    # 256 threads, 8x8 tiles
)
LEVEL6_DEPTHS = (32, 16, 8)        # BK 48 measured slower than 32 on the H100 (level6_tuning.json)
LEVEL6_STAGES = range(3, 9)        # its loop's refill convention needs 3 (static_assert in sgemm_warp_tiling.cu)


def candidates(family: str) -> list[dict]:
    """Every configuration the rule considers for a family (full knob sets)."""
    if family == "level5":
        return [{**registry.LEVEL5, "BK": bk, "STAGES": s, "EARLY_BARRIER": e} for bk, s, e in LEVEL5_RINGS]
    if family == "level6":
        return [{**registry.LEVEL6, **shape, "BK": bk, "STAGES": s}
                for shape in LEVEL6_SHAPES for bk in LEVEL6_DEPTHS for s in LEVEL6_STAGES]
    raise ValueError(f"unknown family {family!r}")


def target_blocks(spec: registry.KernelSpec) -> int:
    """Resident blocks per SM the kernel's __launch_bounds__ asks ptxas to make room for."""
    if spec.family == "level5":
        return registry.LEVEL5_MIN_BLOCKS
    return dict(spec.config).get("MIN_BLOCKS", 1)


def preference(spec: registry.KernelSpec, blocks: int, limits: DeviceLimits) -> tuple:
    """The family's order of preference (a larger tuple is better), as the module docstring states it."""
    cfg = dict(spec.config)
    keeps_promise = blocks >= target_blocks(spec)
    if spec.family == "level5":
        return (keeps_promise, cfg["BK"], -cfg["STAGES"], -cfg["EARLY_BARRIER"])
    # Level 6: with cp.async the most stages that fit; with synchronous copies (below 8.0) the fewest.
    stages = cfg["STAGES"] if limits.has_cp_async else -cfg["STAGES"]
    return (keeps_promise, cfg["BM"] * cfg["BN"], cfg["TM"] * cfg["TN"], cfg["BK"], stages)


# ----------------------------------------------------------------------------- fitting one configuration

@dataclass(frozen=True)
class Resources:
    """What ptxas gave one kernel: registers per thread and static shared memory (bytes)."""

    registers: int | None
    smem_static: int


# (spec, limits) -> Resources of that kernel compiled for that device
ResourceSource = Callable[[registry.KernelSpec, DeviceLimits], Resources]


def cubin_resources(spec: registry.KernelSpec, limits: DeviceLimits) -> Resources:
    """Registers and static shared memory from the cubin compiled ahead of time for the device's cc."""
    text = compiler.variant_source(spec.file, dict(spec.defines))
    usage = sass.resource_usage(spec.file, limits.arch, text)[spec.name]
    reserved = sass.SYSTEM_SMEM_BYTES if usage["smem_static"] and limits.cc >= (9, 0) else 0
    return Resources(usage["registers"], usage["smem_static"] - reserved)


@dataclass
class Fit:
    """One kernel, one configuration, one device: what it needs, what the device gives, and whether it fits."""

    spec: registry.KernelSpec
    device: DeviceLimits
    registers: int | None
    smem_static: int
    blocks_per_sm: int
    limiter: str
    problems: list = field(default_factory=list)   # Korean, one per limit it breaks

    @property
    def fits(self) -> bool:
        return not self.problems

    @property
    def smem_bytes(self) -> int:
        return self.smem_static + self.spec.dynamic_smem

    def row(self) -> dict:
        """The JSON object `python -m kernels configs --json` prints for this kernel."""
        s, d = self.spec, self.device
        return {
            "kernel": s.name, "level": s.level, "device": d.name, "title": d.title, "cc": d.cc_text,
            "config": dict(s.config), "config_text": config_text(s), "threads": s.threads,
            "smem_static": self.smem_static, "smem_dynamic": s.dynamic_smem, "smem_bytes": self.smem_bytes,
            "smem_limit": d.smem_per_block_optin, "smem_per_sm": d.smem_per_sm, "registers": self.registers,
            "blocks_per_sm": self.blocks_per_sm, "limiter": self.limiter, "fits": self.fits,
            "problems": list(self.problems), "cp_async": d.has_cp_async,
        }


def fit(spec: registry.KernelSpec, limits: DeviceLimits, resources: Resources) -> Fit:
    """Check one configured kernel against one device's limits."""
    problems = []
    total = resources.smem_static + spec.dynamic_smem
    if spec.threads > limits.max_threads_per_block:
        problems.append(f"블록당 스레드(threads per block) {spec.threads:,}개 > 한도 {limits.max_threads_per_block:,}개")
    if total > limits.smem_per_block_optin:
        problems.append(f"블록당 공유 메모리(shared memory per block) {total:,} B > 한도(opt-in) "
                        f"{limits.smem_per_block_optin:,} B")
    regs = resources.registers
    if regs is not None and regs * spec.threads > limits.regs_per_block:
        problems.append(f"블록당 레지스터(registers per block) {regs}×{spec.threads} > 한도 {limits.regs_per_block:,}")
    occ = devices.occupancy(limits, spec.threads, regs or 1, total)
    if not problems and occ["blocks_per_sm"] < 1:
        problems.append(f"SM에 블록이 하나도 올라가지 못함 (제한: {occ['limiter']})")
    return Fit(spec, limits, regs, resources.smem_static, occ["blocks_per_sm"], occ["limiter"], problems)


# ----------------------------------------------------------------------------- the rule

@dataclass(frozen=True)
class Choice:
    family: str
    device: str
    config: dict
    considered: int     # candidates of the family
    fitting: int        # of those, how many fit by shared memory and threads (registers checked lazily)

    def reason(self) -> str:
        return (f"후보 {self.considered}개 중 공유 메모리와 스레드로 맞는 {self.fitting}개에서 "
                f"규칙(kernels/configs.py)의 첫 번째")


def _family_kernels(family: str) -> list[str]:
    return [name for name, fam in registry.configurable().items() if fam == family]


def _smem_only(spec: registry.KernelSpec, limits: DeviceLimits) -> Fit:
    """The fit before any compile: registers unknown (they can only lower the resident blocks)."""
    return fit(spec, limits, Resources(None, spec.static_smem))


@functools.lru_cache(maxsize=None)
def choose(family: str, limits: DeviceLimits, resources: ResourceSource = cubin_resources) -> Choice:
    """The configuration of `family` ("level5" or "level6") for a device: the rule of this module.

    Candidates are ordered by what shared memory and threads allow; registers (which need a compile)
    are read only for a candidate about to be chosen. Registers can only lower the resident blocks, so a
    candidate whose compiled registers keep its place in the order is the best; one that loses it is
    compared again with the rest.
    """
    names = _family_kernels(family)
    ranked = []
    for cfg in candidates(family):
        specs = [registry.configured(name, cfg) for name in names]
        fits = [_smem_only(s, limits) for s in specs]
        if all(f.fits for f in fits):
            ranked.append((min(preference(f.spec, f.blocks_per_sm, limits) for f in fits), cfg, specs))
    ranked.sort(key=lambda item: item[0], reverse=True)
    best = None
    for promised, cfg, specs in ranked:
        if best is not None and promised <= best[0]:
            break
        fits = [fit(s, limits, resources(s, limits)) for s in specs]
        if all(f.fits for f in fits):
            real = min(preference(f.spec, f.blocks_per_sm, limits) for f in fits)
            if best is None or real > best[0]:
                best = (real, cfg)
    if best is None:
        raise DeviceLimitError(
            f"{family}의 어떤 구성도 {limits.title}({limits.cc_text})에 맞지 않습니다: 블록당 공유 메모리 한도 "
            f"{limits.smem_per_block_optin:,} B, SM당 {limits.smem_per_sm:,} B. 이 GPU에서는 기록된 결과를 보세요."
        )
    return Choice(family, limits.name, dict(best[1]), len(candidates(family)), len(ranked))


def config_text(spec: registry.KernelSpec) -> str:
    """A configuration as a learner reads it: '-' for a fixed kernel, else its shape and ring."""
    cfg = dict(spec.config)
    if spec.dispatch and cfg:
        return f"{cfg['BM']}×{cfg['BN']} 블록, BK {cfg['BK']}, 스테이지 {cfg['STAGES']}개 (최대, 모양별 선택)"
    if not spec.family:
        return "-"
    ring = registry.ring_text(cfg)
    if spec.family == "level5":
        return ring + (", 이른 배리어" if cfg["EARLY_BARRIER"] else "")
    return f"{cfg['BM']}×{cfg['BN']} 블록, {cfg['TM']}×{cfg['TN']} 스레드 타일, {ring}"


# ----------------------------------------------------------------------------- the active device

def active_profile() -> DeviceLimits | None:
    """The listed GPU named by COURSE_DEVICE_PROFILE, or None (then the real GPU decides)."""
    return devices.profile_from_env()


@functools.lru_cache(maxsize=None)
def _current(device_id: int) -> DeviceLimits:
    return devices.current(device_id)


def current_limits() -> DeviceLimits:
    """The GPU in this machine (raises GPUUnavailableError without one)."""
    return _current(compiler.device_id())


def active_limits() -> DeviceLimits:
    """Whose configurations the launcher uses: the profile's when one is set, else this machine's GPU."""
    return active_profile() or current_limits()


def runtime_resources(spec: registry.KernelSpec, limits: DeviceLimits) -> Resources:
    """Registers and static shared memory of the kernel as loaded on this machine's GPU."""
    kernel = compiler.load(spec)
    return Resources(int(kernel.num_regs), int(kernel.shared_size_bytes))


def active_resources() -> ResourceSource:
    """Under a profile, the cubin for the profile's cc (no run on a GPU needed); else the loaded kernel."""
    return cubin_resources if active_profile() else runtime_resources


def spec_for(name: str, limits: DeviceLimits | None = None, resources: ResourceSource | None = None
             ) -> registry.KernelSpec:
    """The registry's kernel with the configuration of `limits` (default: the active device)."""
    spec = registry.get(name)
    if spec.dispatch:   # Level 7 picks its form per shape; configs shows its largest form on the device
        return importlib.import_module(f"kernels.{spec.dispatch}").device_spec(name, limits or active_limits())
    if not spec.family:
        return spec
    if limits is None:
        limits = active_limits()
        resources = resources or active_resources()
    choice = choose(spec.family, limits, resources or cubin_resources)
    return registry.configured(name, choice.config)


# ----------------------------------------------------------------------------- every kernel on a device

def fits_for(limits: DeviceLimits, names: list[str] | None = None,
             resources: ResourceSource = cubin_resources) -> list[Fit]:
    """Every kernel (or `names`) with the device's configuration, checked against the device."""
    out = []
    for name in names or list(registry.KERNELS):
        spec = spec_for(name, limits, resources)
        out.append(fit(spec, limits, resources(spec, limits)))
    return out


def resolve_device(name: str) -> DeviceLimits:
    """A listed profile by name, or 'current' for this machine's GPU (Korean error for anything else)."""
    if str(name).strip().lower() == "current":
        return current_limits()
    return devices.profile(name)


def resolve_devices(names: list[str]) -> list[DeviceLimits]:
    """Names as `kernels configs --device` takes them; 'all' is every listed GPU."""
    out: list[DeviceLimits] = []
    for name in names:
        found = list(devices.PROFILES.values()) if str(name).strip().lower() == "all" else [resolve_device(name)]
        out += [limits for limits in found if limits not in out]
    return out


def fits_for_many(many: list[DeviceLimits], workers: int | None = None) -> list[list[Fit]]:
    """fits_for of several devices, compiled in parallel (NVRTC runs outside the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers or min(len(many), os.cpu_count() or 1) or 1) as pool:
        return list(pool.map(fits_for, many))


LIMITER_KO = {"threads": "스레드", "blocks": "블록 수", "registers": "레지스터", "shared memory": "공유 메모리"}


def _pad(text: str, width: int) -> str:
    """Left-aligned in `width` terminal columns (a Hangul syllable takes two)."""
    import unicodedata

    used = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - used)


def format_table(fits: list[Fit]) -> str:
    """One device's kernels as a plain-text table."""
    d = fits[0].device
    head = (f"{d.title} ({d.name}, compute capability {d.cc_text}, SM {d.sm_count}개): 블록당 공유 메모리 "
            f"{d.smem_per_block_optin:,} B (opt-in), SM당 {d.smem_per_sm:,} B, cp.async "
            f"{'있음' if d.has_cp_async else '없음 (동기 복사 폴백)'}")
    cols = (f"{'kernel':<31} {_pad('구성', 44)} {'threads':>7} {'smem B (static+dynamic)':>23} {'regs':>4} "
            f"{_pad('blocks/SM (제한)', 19)} fits")
    lines = [head, cols, "-" * 140]
    for f in fits:
        smem = f"{f.smem_static:,}+{f.spec.dynamic_smem:,}"
        regs = "-" if f.registers is None else str(f.registers)
        occupancy = f"{f.blocks_per_sm} ({LIMITER_KO.get(f.limiter, f.limiter)})"
        lines.append(f"{f.spec.name:<31} {_pad(config_text(f.spec), 44)} {f.spec.threads:>7} {smem:>23} {regs:>4} "
                     f"{_pad(occupancy, 19)} {'yes' if f.fits else 'NO: ' + '; '.join(f.problems)}")
    return "\n".join(lines)


def configuration_classes() -> dict[tuple, list[str]]:
    """Listed devices grouped by the configurations they get (the device proof runs one of each)."""
    groups: dict[tuple, list[str]] = {}
    for limits in devices.PROFILES.values():
        key = (limits.cc < (8, 0),) + tuple(
            tuple(sorted(choose(family, limits).config.items())) for family in registry.FAMILY_DEFAULTS)
        groups.setdefault(key, []).append(limits.name)
    return groups


__all__ = ["LEVEL5_RINGS", "LEVEL6_SHAPES", "LEVEL6_DEPTHS", "LEVEL6_STAGES", "Resources", "Fit", "Choice",
           "candidates", "preference", "choose", "fit", "fits_for", "spec_for", "config_text", "cubin_resources",
           "runtime_resources", "active_profile", "active_limits", "current_limits", "resolve_device", "resolve_devices",
           "fits_for_many", "format_table",
           "configuration_classes"]
