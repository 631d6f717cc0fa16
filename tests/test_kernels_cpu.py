"""Kernel package checks that need no GPU: registry, sources, launcher validation, SASS."""
from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

from kernels import compiler, registry, sass, source
from kernels.errors import KernelInputError
from kernels.launch import Operand, plan

ARCHS = ("sm_80", "sm_90")
# ptxas reports 1 KiB of system shared memory on sm_90 for kernels that use shared memory at all.
RESERVED_SMEM = {"sm_80": 0, "sm_90": 1024}


# ----------------------------------------------------------------------------- registry and sources

def test_every_registered_kernel_is_defined_in_its_file():
    for spec in registry.KERNELS.values():
        text = source.read_source(spec.file)
        assert re.search(rf'extern "C" __global__[^{{;]*\b{spec.name}\s*\(', text), spec.name


def test_every_extern_c_kernel_is_registered():
    for file in registry.files():
        for name in re.findall(r'extern "C" __global__[^({]*?\b(sgemm_\w+)\s*\(', source.read_source(file)):
            assert name in registry.KERNELS, f"{file} defines {name} but the registry does not know it"


def test_each_level_has_its_file_and_representative():
    assert [registry.LEVEL_REPRESENTATIVE[lvl] for lvl in range(6)]
    files = registry.files()
    for expected in ("sgemm_naive.cu", "sgemm_coalesced.cu", "sgemm_tiled.cu", "sgemm_register_blocking.cu",
                     "sgemm_double_buffer.cu", "sgemm_async_copy.cu"):
        assert expected in files
    for lvl, name in registry.LEVEL_REPRESENTATIVE.items():
        assert registry.get(name).level == lvl


def test_regions_are_well_formed_and_quoted_regions_exist():
    for file in [*registry.files(), "sgemm_common.cuh"]:
        found = source.regions(file)
        assert found, file
        assert all(body.strip() for body in found.values())
    assert "acc += a_row[k]" in source.region("sgemm_naive.cu", "k-loop")
    assert "cp_async_commit();" in source.region("sgemm_async_copy.cu", "pipeline-loop")
    first, last = source.region_lines("sgemm_naive.cu", "mapping")
    assert 0 < first <= last


def test_grid_shapes():
    assert registry.get("sgemm_naive").grid(1000, 1000) == (63, 63, 1)
    assert registry.get("sgemm_naive_strided").grid(100, 40) == (7, 3, 1)
    assert registry.get("sgemm_coalesced").grid(16, 128) == (2, 1, 1)
    assert registry.get("sgemm_register_blocking").grid(129, 4096) == (32, 2, 1)


def test_static_shared_memory_under_48k():
    for spec in registry.KERNELS.values():
        assert spec.static_smem <= registry.STATIC_SMEM_LIMIT, spec.name


def test_flop_and_byte_counts():
    assert registry.flops(4096, 4096, 4096) == 137_438_953_472
    assert registry.min_bytes(2, 3, 4) == 4 * (8 + 12 + 6)
    assert registry.compulsory_intensity(4096, 4096, 4096) == pytest.approx(682.67, rel=1e-3)


def test_unknown_kernel_name_lists_known_names():
    with pytest.raises(KernelInputError, match="sgemm_naive"):
        registry.get("sgemm_fast")


# ----------------------------------------------------------------------------- launcher validation

def op(label="A", shape=(64, 32), dtype=np.float32, strides=None, ptr=1 << 20, nbytes=None):
    strides = strides or (shape[1] * 4, 4) if len(shape) == 2 else (4,)
    return Operand(label, shape, np.dtype(dtype), strides, ptr, nbytes or int(np.prod(shape)) * 4)


def operands(M=64, N=48, K=32, **kw):
    a = op("A", (M, K), ptr=1 << 20)
    b = op("B", (K, N), ptr=1 << 24)
    c = op("C", (M, N), ptr=1 << 28)
    return a, b, c


NAIVE = registry.get("sgemm_naive")
VEC = registry.get("sgemm_register_blocking")


def test_plan_accepts_valid_input():
    a, b, c = operands(M=1000, N=1000, K=1000)
    p = plan(NAIVE, a, b, c, 1.0, 0.5)
    assert (p.M, p.N, p.K, p.lda, p.ldb, p.ldc) == (1000, 1000, 1000, 1000, 1000, 1000)
    assert p.grid == (63, 63, 1) and p.block == (16, 16, 1)


@pytest.mark.parametrize("mutate,pattern", [
    (lambda a, b, c: (op("A", (64, 32), np.float64), b, c), "float32"),
    (lambda a, b, c: (op("A", (64, 32, 2)), b, c), "2차원"),
    (lambda a, b, c: (op("A", (0, 32)), b, c), "0보다"),
    (lambda a, b, c: (a, op("B", (31, 48), ptr=1 << 24), c), "shape mismatch"),
    (lambda a, b, c: (a, b, op("C", (64, 47), ptr=1 << 28)), "C의 shape"),
    (lambda a, b, c: (op("A", (64, 32), strides=(128, 8)), b, c), "column stride"),
    (lambda a, b, c: (op("A", (64, 32), strides=(64, 4)), b, c), "leading dimension"),
    (lambda a, b, c: (a, b, op("C", (64, 48), ptr=a.ptr)), "aliasing"),
])
def test_plan_refuses_bad_input_with_a_clear_message(mutate, pattern):
    a, b, c = mutate(*operands())
    with pytest.raises(KernelInputError, match=pattern):
        plan(NAIVE, a, b, c)


def test_plan_refuses_beta_without_c_and_non_numeric_scalars():
    a, b, _ = operands()
    with pytest.raises(KernelInputError, match="beta"):
        plan(NAIVE, a, b, None, 1.0, 1.0)
    with pytest.raises(KernelInputError, match="alpha"):
        plan(NAIVE, a, b, None, True, 0.0)
    with pytest.raises(KernelInputError, match="beta"):
        plan(NAIVE, a, b, None, 1.0, "0.5")


def test_vec4_rules():
    a, b, c = operands(M=65, N=48, K=32)
    assert plan(VEC, a, b, c).grid == (1, 1, 1)
    a, b, c = operands(M=64, N=50, K=32)
    with pytest.raises(KernelInputError, match="N = 50"):
        plan(VEC, a, b, c)
    a, b, c = operands()
    misaligned = Operand("B", b.shape, b.dtype, b.strides, b.ptr + 4, b.nbytes)
    with pytest.raises(KernelInputError, match="16바이트"):
        plan(VEC, a, misaligned, c)
    # The same shapes are fine for a kernel without float4 loads.
    assert plan(NAIVE, a, misaligned, c).M == 64


def test_int32_and_grid_limits():
    a = op("A", (3_000_000, 1024), ptr=0)
    b = op("B", (1024, 16), ptr=1 << 40)
    with pytest.raises(KernelInputError, match="int32"):
        plan(NAIVE, a, b, None)
    a = op("A", (1_100_000, 4), ptr=0)
    b = op("B", (4, 16), ptr=1 << 40)
    with pytest.raises(KernelInputError, match="grid.y"):
        plan(NAIVE, a, b, None)


def test_numpy_input_gets_a_hint():
    with pytest.raises(KernelInputError, match="cupy.asarray"):
        Operand.of(np.ones((2, 2), np.float32), "A")
    with pytest.raises(KernelInputError, match="cupy.ndarray"):
        Operand.of([[1.0]], "A")
    fake = SimpleNamespace(shape=(2, 2), dtype=np.float32, strides=(8, 4), data=SimpleNamespace(ptr=64), nbytes=16)
    assert Operand.of(fake, "A").ptr == 64


# ----------------------------------------------------------------------------- SASS without a GPU

@pytest.fixture(scope="module")
def summaries():
    return {(name, arch): sass.summarize(name, arch) for arch in ARCHS for name in registry.KERNELS}


@pytest.mark.parametrize("arch", ARCHS)
def test_no_kernel_spills_and_shared_memory_matches(summaries, arch):
    for name, spec in registry.KERNELS.items():
        s = summaries[(name, arch)]
        assert s.spills == 0 and s.local_bytes == 0, f"{name} spills on {arch}"
        reserved = RESERVED_SMEM[arch] if spec.static_smem else 0
        assert s.smem_static == spec.static_smem, name
        assert s.smem_reported - reserved == spec.static_smem, name


@pytest.mark.parametrize("arch", ARCHS)
def test_level0_uses_32bit_loads_and_no_shared_memory(summaries, arch):
    s = summaries[("sgemm_naive", arch)]
    assert s.ldg_32 > 0 and s.ldg_128 == 0
    assert not s.lds_widths and not s.sts_widths


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", ["sgemm_coalesced", "sgemm_register_blocking", "sgemm_double_buffer"])
def test_float4_levels_emit_ldg_e_128(summaries, arch, name):
    s = summaries[(name, arch)]
    assert s.ldg_128 > 0 and s.ldg_32 == 0
    assert any(op.startswith("LDG.E.128") for op in s.counts)


@pytest.mark.parametrize("arch", ARCHS)
def test_tiled_inner_loop_and_ptx_variant_give_identical_ffma(summaries, arch):
    plain, ptx = summaries[("sgemm_tiled", arch)], summaries[("sgemm_tiled_ptx", arch)]
    assert plain.lds_widths and plain.ffma >= 16   # 16 FMAs per tile, unrolled
    assert plain.ffma == ptx.ffma
    assert plain.counts == ptx.counts


@pytest.mark.parametrize("arch", ARCHS)
def test_register_blocking_micro_kernel(summaries, arch):
    s = summaries[("sgemm_register_blocking", arch)]
    assert s.ffma >= 8 * 64   # 8 k steps x 64 FMAs per K tile
    assert s.registers <= 128  # two 256-thread blocks per SM
    assert s.lds_widths.get("128", 0) >= 32 and "32" not in s.lds_widths
    padded = summaries[("sgemm_register_blocking_padded", arch)]
    assert "32" in padded.lds_widths or "64" in padded.lds_widths   # misaligned rows lose LDS.128


@pytest.mark.parametrize("arch", ARCHS)
def test_async_copy_uses_ldgsts_and_no_register_staging(summaries, arch):
    for name in ("sgemm_async_copy", "sgemm_async_copy_vec"):
        s = summaries[(name, arch)]
        assert s.ldgsts > 0 and s.ldgdepbar > 0 and s.depbar > 0, name
        assert not s.sts_widths, f"{name} stores tiles through registers"
        assert s.registers <= 128
    four = summaries[("sgemm_async_copy", arch)].counts
    sixteen = summaries[("sgemm_async_copy_vec", arch)].counts
    assert any(op.startswith("LDGSTS") and not op.endswith(".128") for op in four)
    assert any(op.startswith("LDGSTS") and "BYPASS" in op and op.endswith(".128") for op in sixteen)


def test_async_copy_fallback_below_sm80_uses_ldg_sts():
    s = sass.summarize("sgemm_async_copy_vec", "sm_75")
    assert s.ldgsts == 0 and s.ldg_128 > 0 and s.sts_widths.get("128", 0) > 0


def test_not_unrolling_the_micro_kernel_moves_the_accumulators_to_local_memory():
    text = compiler.expanded_source("sgemm_register_blocking.cu").replace("#pragma unroll\n", "#pragma unroll 1\n")
    s = sass.summarize("sgemm_register_blocking", "sm_90", source=text)
    assert s.stack > 0 and s.spills > 0


def test_bad_architecture_name_is_refused():
    from kernels.errors import CompileError

    with pytest.raises(CompileError, match="sm_80"):
        compiler.compile_cubin("sgemm_naive.cu", "hopper")
