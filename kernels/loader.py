"""Loading a kernel to launch: compiled (kernels/compiler.py) in the active device's configuration
(kernels/configs.py), and refused in Korean before the launch when it exceeds the device's limits.

Every path that hands out a launchable kernel comes through here: a registry kernel by name
(`get_kernel`), a tuner's variant with its own #defines (`get_variant`) and a chapter's modified copy of a
source (`kernel_from_source`). This module sits above configs: it asks configs which configuration a name
has and whether the compiled kernel fits; configs and the compiler never import it.
"""
from __future__ import annotations

from kernels import compiler, configs, registry
from kernels.errors import DeviceLimitError


def allow_dynamic_smem(kernel, nbytes: int) -> None:
    """Let `kernel` launch with `nbytes` of dynamic shared memory (opt-in above registry.STATIC_SMEM_LIMIT, 48 KiB)."""
    if nbytes > registry.STATIC_SMEM_LIMIT and kernel.max_dynamic_shared_size_bytes < nbytes:
        kernel.max_dynamic_shared_size_bytes = nbytes


def guard(kernel, spec: registry.KernelSpec) -> None:
    """Refuse, in Korean, a kernel whose configuration exceeds the active device or the real GPU.

    Checked before the launch with the numbers ptxas gave the loaded kernel, so that a learner never sees
    the raw CUDA error (too many resources, invalid argument) the launch would otherwise raise.
    """
    resources = configs.Resources(int(kernel.num_regs), int(kernel.shared_size_bytes))
    checked = []
    for limits in (configs.active_profile(), configs.current_limits()):
        if limits is None or limits in checked:
            continue
        checked.append(limits)
        result = configs.fit(spec, limits, resources)
        if not result.fits:
            raise DeviceLimitError(limit_message(spec, limits, result.problems))


def limit_message(spec: registry.KernelSpec, limits, problems: list[str]) -> str:
    """The Korean refusal: which kernel and configuration, which device, which limit."""
    profile = configs.active_profile()
    whose = f"장치 프로필(COURSE_DEVICE_PROFILE={profile.name})" if profile is limits else "이 GPU"
    shape = configs.config_text(spec)
    return (f"실행할 수 없는 구성입니다(device limit). 커널: {spec.name}"
            + (f" ({shape})" if shape != "-" else "")
            + f". 장치: {whose} {limits.title} (compute capability {limits.cc_text}). 넘는 한도: "
            + "; ".join(problems) + ". 커널을 실행하지 않았고, 장에서는 기록된 결과를 대신 보여 줍니다.")


def get_kernel(name: str):
    """The compiled cupy.RawKernel of a registry kernel, in the active device's configuration."""
    spec = configs.spec_for(name)
    kernel = compiler.load(spec)
    guard(kernel, spec)
    allow_dynamic_smem(kernel, spec.dynamic_smem)
    return kernel


def get_variant(file: str, name: str, defines: dict, dynamic_smem: int = 0, threads: int | None = None):
    """A kernel of `file` compiled with extra -D style defines (cached per process and device).

    Guarded like every launch: a variant that would not fit the active device (a tuner's configuration
    under COURSE_DEVICE_PROFILE=T4, say) raises DeviceLimitError. `threads` defaults to the registry's.
    """
    base = registry.KERNELS.get(name)
    block = (threads, 1) if threads else (base.block if base else (1, 1))
    spec = registry.KernelSpec(name, file, base.level if base else -1, "variant", name, block, (1, 1),
                               dynamic_smem=dynamic_smem, defines=tuple(sorted(defines.items())))
    kernel = compiler.load(spec)
    guard(kernel, spec)
    allow_dynamic_smem(kernel, dynamic_smem)
    return kernel


def kernel_from_source(source: str, name: str, dynamic_smem: int = 0, threads: int = 256):
    """A kernel compiled from a whole source text (a chapter's modified copy), for the active target, guarded."""
    kernel = compiler.function_from_source(source, name)
    spec = registry.KernelSpec(name, "", -1, "source", name, (threads, 1), (1, 1), dynamic_smem=dynamic_smem)
    guard(kernel, spec)
    allow_dynamic_smem(kernel, dynamic_smem)
    return kernel


def resources(name: str) -> dict:
    """Registers, shared and local memory of a compiled kernel, as the driver reports them."""
    k = get_kernel(name)
    return {
        "registers": int(k.num_regs),
        "smem_static": int(k.shared_size_bytes),
        "smem_dynamic": configs.spec_for(name).dynamic_smem,
        "local_bytes": int(k.local_size_bytes),
        "max_threads_per_block": int(k.max_threads_per_block),
    }
