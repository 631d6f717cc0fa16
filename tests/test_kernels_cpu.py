"""Kernel package checks that need no GPU: registry, sources, launcher validation, SASS."""
from __future__ import annotations

import re
from collections import Counter
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
    assert [registry.LEVEL_REPRESENTATIVE[lvl] for lvl in range(7)]
    files = registry.files()
    for expected in ("sgemm_naive.cu", "sgemm_coalesced.cu", "sgemm_tiled.cu", "sgemm_register_blocking.cu",
                     "sgemm_double_buffer.cu", "sgemm_async_copy.cu", "sgemm_warp_tiling.cu"):
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
    assert "issue_partial_tile" in source.region("sgemm_async_copy.cu", "prologue")
    assert "struct TileCopier" in source.region("sgemm_common.cuh", "tile-copier")
    assert "cp.async.cg.shared.global" in source.region("sgemm_common.cuh", "cp-async-helpers")
    for name in ("shape", "swizzle", "warp-micro-kernel", "store-warp-tile", "kernel", "fragment-pipeline"):
        assert source.region("sgemm_warp_tiling.cu", name)
    assert "block_y()" in source.region("sgemm_naive.cu", "mapping")
    first, last = source.region_lines("sgemm_naive.cu", "mapping")
    assert 0 < first <= last


def test_grid_shapes():
    assert registry.get("sgemm_naive").grid(1000, 1000) == (63, 63, 1)
    assert registry.get("sgemm_naive_strided").grid(100, 40) == (7, 3, 1)
    assert registry.get("sgemm_coalesced").grid(16, 128) == (2, 1, 1)
    assert registry.get("sgemm_register_blocking").grid(129, 4096) == (32, 2, 1)
    assert registry.get("sgemm_warp_tiling").grid(129, 4096) == (16, 2, 1)   # 128 x 256 block tiles
    assert registry.get("sgemm_warp_tiling").block == (256, 1)


def test_static_shared_memory_under_48k():
    for spec in registry.KERNELS.values():
        assert spec.static_smem <= registry.STATIC_SMEM_LIMIT, spec.name


SM90_SMEM_PER_SM = 228 * 1024      # shared memory of one H100 SM
SM90_SMEM_PER_BLOCK = 227 * 1024   # the most one block may ask for (after opting in)


def test_dynamic_shared_memory_fits_the_blocks_per_sm_the_kernels_are_built_for():
    l5 = registry.get("sgemm_async_copy_vec")
    assert l5.dynamic_smem == registry.level5_smem(registry.LEVEL5)
    assert 2 * (l5.dynamic_smem + 1024) <= SM90_SMEM_PER_SM     # two blocks per SM, as in Levels 3-4
    l6 = registry.get("sgemm_warp_tiling")
    assert l6.dynamic_smem == registry.level6_smem(registry.LEVEL6) <= SM90_SMEM_PER_BLOCK
    assert l6.threads == registry.level6_threads(registry.LEVEL6) == 256


def _macro_defaults(file: str, prefix: str) -> dict:
    text = source.read_source(file)
    return {m.group(1): int(m.group(2))
            for m in re.finditer(rf"#ifndef {prefix}(\w+)\n#define {prefix}\w+ (\d+)\n#endif", text)}


def test_tuned_shapes_in_the_sources_match_the_registry():
    """The .cu macro defaults are what the registry (and so the launcher) assumes."""
    l5 = _macro_defaults("sgemm_async_copy.cu", "L5_")
    assert {k: l5[k] for k in registry.LEVEL5} == registry.LEVEL5
    l6 = _macro_defaults("sgemm_warp_tiling.cu", "L6_")
    assert {k: l6[k] for k in registry.LEVEL6} == registry.LEVEL6


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
    (lambda a, b, c: (a, b, op("C", (64, 48), ptr=a.ptr)), "aliasing"),
    (lambda a, b, c: (a, b, op("C", (64, 48), strides=(0, 4), ptr=1 << 28)), "같은 메모리"),
    (lambda a, b, c: (a, b, op("C", (64, 48), strides=(64, 4), ptr=1 << 28)), "같은 메모리"),
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


REQUIRED_SHAPES = [(1, 1, 1), (7, 5, 3), (33, 65, 17), (1000, 1023, 1025), (129, 257, 63)]


@pytest.mark.parametrize("name", sorted(registry.KERNELS))
@pytest.mark.parametrize("offset", [0, 4])
def test_no_kernel_refuses_the_required_shapes(name, offset):
    """Every kernel takes these shapes, also with every pointer 4 bytes past an aligned address."""
    spec = registry.get(name)
    for M, N, K in REQUIRED_SHAPES:
        a = op("A", (M, K), ptr=(1 << 20) + offset)
        b = op("B", (K, N), ptr=(1 << 34) + offset)
        c = op("C", (M, N), ptr=(1 << 40) + offset)
        for p in (plan(spec, a, b, c, 1.0, 0.5), plan(spec, a, b, None)):
            assert (p.M, p.N, p.K) == (M, N, K)
            assert p.kernel_N % 4 == 0 or not spec.vec4
            if not spec.vec4:
                assert not p.staged, name   # row-major operands need no staging without float4


def test_staging_decisions():
    l6 = registry.get("sgemm_warp_tiling")
    l4 = registry.get("sgemm_double_buffer")
    a, b, c = operands(M=64, N=48, K=32)
    assert not plan(l6, a, b, c).staged and not plan(l4, a, b, c).staged
    # K not a multiple of 4: Level 4 reads A (and pads K) through float4; Level 6 copies A 4 bytes at a time.
    a, b, c = operands(M=64, N=48, K=30)
    p4, p6 = plan(l4, a, b, c), plan(l6, a, b, c)
    assert p4.staged_operands == ("A", "B") and p4.kernel_K == 32 and p4.lda == 32
    assert not p6.staged and p6.kernel_K == 30
    # N not a multiple of 4: B and C are padded to 52 columns; C is copied back.
    a, b, c = operands(M=64, N=50, K=32)
    p6 = plan(l6, a, b, c)
    assert p6.staged_operands == ("B", "C") and p6.kernel_N == 52 and (p6.ldb, p6.ldc) == (52, 52)
    assert p6.grid == l6.grid(64, 52)
    assert all("N(50)" in s.reason for s in p6.staged)
    # A misaligned B: only B is staged.
    a, b, c = operands()
    shifted = Operand("B", b.shape, b.dtype, b.strides, b.ptr + 4, b.nbytes)
    p6 = plan(l6, a, shifted, c)
    assert p6.staged_operands == ("B",) and "16바이트" in p6.staged[0].reason
    # Without float4 nothing about alignment matters.
    assert not plan(NAIVE, a, shifted, c).staged


def test_non_row_major_operands_are_copied_not_refused():
    a, b, c = operands(M=64, N=48, K=32)
    transposed = Operand("A", (64, 32), np.dtype(np.float32), (4, 256), a.ptr, a.nbytes)   # a column-major view
    p = plan(NAIVE, transposed, b, c)
    assert p.staged_operands == ("A",) and p.lda == 32 and "row-major" in p.staged[0].reason
    strided_cols = Operand("B", (32, 48), np.dtype(np.float32), (384, 8), b.ptr, 2 * b.nbytes)
    assert plan(NAIVE, a, strided_cols, c).staged_operands == ("B",)
    c_t = Operand("C", (64, 48), np.dtype(np.float32), (4, 256), c.ptr, c.nbytes)
    assert plan(registry.get("sgemm_warp_tiling"), a, b, c_t).staged_operands == ("C",)
    single_row = Operand("A", (1, 32), np.dtype(np.float32), (4, 4), a.ptr, 128)   # any row stride is fine
    assert not plan(NAIVE, single_row, b, op("C", (1, 48), ptr=1 << 28)).staged


INT32_MAX = 2**31 - 1
TALL = (4_200_000, 3, 16)   # M x N x K: 262,500 rows of 16-row tiles, four times what grid y holds


def test_operands_above_2_31_elements_are_planned_with_64_bit_offsets():
    """Levels 0-4 index every operand with size_t offsets: only M, N, K and the leading dimensions must fit int."""
    a = op("A", (3_000_000, 1024), ptr=0)            # 3.07e9 elements
    b = op("B", (1024, 16), ptr=1 << 40)
    for name in ("sgemm_naive", "sgemm_tiled", "sgemm_register_blocking", "sgemm_double_buffer"):
        p = plan(registry.get(name), a, b, None)
        assert (p.M, p.lda) == (3_000_000, 1024), name
    # Levels 5 and 6 step their cp.async sources through a tile in int: 128 x lda must fit, whatever M is.
    assert plan(registry.get("sgemm_warp_tiling"), a, b, None).lda == 1024
    with pytest.raises(KernelInputError, match="int32") as err:
        plan(NAIVE, op("A", (INT32_MAX + 1, 4), ptr=0), op("B", (4, 16), ptr=1 << 40), None)
    assert "M 값(2,147,483,648)" in str(err.value)
    wide_rows = Operand("A", (2, 4), np.dtype(np.float32), (4 * (INT32_MAX + 1), 4), 0, 16)   # lda = 2^31
    with pytest.raises(KernelInputError, match="lda 값"):
        plan(NAIVE, wide_rows, op("B", (4, 16), ptr=1 << 40), None)


@pytest.mark.parametrize("name,level", [("sgemm_async_copy_vec", 5), ("sgemm_warp_tiling", 6)])
def test_levels_with_32_bit_tile_offsets_name_their_limit(name, level):
    spec = registry.get(name)
    long_rows = op("A", (2, 20_000_000), ptr=0)                 # 128 x lda = 2.56e9
    with pytest.raises(KernelInputError) as err:
        plan(spec, long_rows, op("B", (20_000_000, 4), ptr=1 << 40), None)
    text = str(err.value)
    assert f"Level {level}" in text and "128×lda" in text and "Level 7(sgemm_shape_aware)" in text
    assert "split the product" in text and "20,000,000" in text
    wide_b = op("B", (4, 80_000_000), ptr=1 << 40)              # BK x ldb = 2.56e9
    with pytest.raises(KernelInputError, match=r"32×ldb"):
        plan(spec, op("A", (2, 4), ptr=0), wide_b, None)
    level7 = registry.get("sgemm_shape_aware")
    assert plan(level7, long_rows, op("B", (20_000_000, 4), ptr=1 << 40), None).lda == 20_000_000
    assert plan(level7, op("A", (2, 4), ptr=0), wide_b, None).ldb == 80_000_000


def test_grid_folds_y_into_z_past_65535_tiles():
    assert registry.fold(65_535) == (65_535, 1)
    assert registry.fold(65_536) == (32_768, 2)
    assert registry.fold(262_500) == (52_500, 5)
    assert registry.fold(131_071) == (43_691, 3)
    for blocks in (1, 65_535, 65_536, 262_500, 1_000_003, 16_777_216):
        y, z = registry.fold(blocks)
        assert y <= registry.GRID_YZ_MAX and z <= registry.GRID_YZ_MAX and y * z >= blocks
        assert y * z - blocks < z          # the last z plane holds fewer than z extra positions
    assert registry.fold(7, y_max=3) == (3, 3)
    assert NAIVE.grid(*TALL[:2]) == (1, 52_500, 5)
    assert registry.get("sgemm_naive_strided").grid(3, 4_200_000) == (1, 52_500, 5)   # its columns on y
    assert registry.get("sgemm_naive_strided").grid(4_200_000, 3) == (262_500, 1, 1)  # its rows on x


@pytest.mark.parametrize("name", sorted(registry.KERNELS))
def test_every_kernel_plans_a_tall_product(name):
    """4,200,000 x 3 x 16 and its transpose on every level: no refusal, and a grid the GPU accepts."""
    from kernels import devices, level7
    from kernels import level7_model as model

    spec = registry.get(name)
    for M, N, K in (TALL, (3, 4_200_000, 16)):
        p = plan(spec, op("A", (M, K), ptr=0), op("B", (K, N), ptr=1 << 40), op("C", (M, N), ptr=1 << 42))
        if spec.dispatch:
            choice = level7.plan_for(M, N, K, devices.profile("H100"), 3350.0)
            grid = model.grid(choice.tiles_m, choice.tiles_n, choice.split)
            assert grid[0] == choice.tiles_m * choice.tiles_n
        else:
            grid = p.grid
            rows, cols = spec.tile
            along_m, along_n = (grid[0], grid[1] * grid[2]) if spec.grid_rows_from_x else (grid[1] * grid[2], grid[0])
            assert along_m * rows >= M and along_n * cols >= p.kernel_N
        x, y, z = grid
        assert x <= registry.GRID_X_MAX and y <= registry.GRID_YZ_MAX and z <= registry.GRID_YZ_MAX, (name, grid)


def test_grid_limits_that_remain_are_refused_in_korean(monkeypatch):
    vec = registry.get("sgemm_register_blocking")
    # M = 2^31 - 1 in 128-row tiles: the rows the grid covers pass int32 inside the kernel.
    with pytest.raises(KernelInputError, match="int32") as err:
        plan(vec, op("A", (INT32_MAX, 4), ptr=0), op("B", (4, 4), ptr=1 << 40), None)
    assert "Level 3" in str(err.value) and "split the product" in str(err.value)
    # Lowering the fold point (as the sanitizer scripts do) folds small grids into z, past 3 blocks of z too.
    monkeypatch.setattr(registry, "GRID_Y_FOLD", 3)
    p = plan(NAIVE, op("A", (100, 8), ptr=0), op("B", (8, 20), ptr=1 << 40), None)
    assert p.grid == (2, 3, 3)
    assert plan(NAIVE, op("A", (1000, 8), ptr=0), op("B", (8, 20), ptr=1 << 40), None).grid == (2, 3, 21)


def test_levels_0_to_6_read_the_folded_y_index():
    """Every kernel of Levels 0-6 takes its y position from block_y() (y continued in z), never blockIdx.y alone."""
    helper = source.region("sgemm_common.cuh", "tall-grid")
    assert "return blockIdx.z * gridDim.y + blockIdx.y;" in helper
    for file in registry.files():
        text = re.sub(r"//[^\n]*", "", source.read_source(file))   # code only, not comments
        if file == registry.get("sgemm_shape_aware").file:
            assert "blockIdx.y" not in text and "gridDim.y" not in text   # Level 7: tiles along x
            continue
        assert "block_y()" in text, file
        assert "blockIdx.y" not in text, f"{file} reads blockIdx.y without the z continuation"
    assert "tiles_m = gridDim.y * gridDim.z" in source.region("sgemm_warp_tiling.cu", "swizzle")


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
        reserved = RESERVED_SMEM[arch] if spec.static_smem or spec.dynamic_smem else 0
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
    # The same instructions; only the denormal mode differs: CuPy compiles C++ with -ftz=true (FFMA.FTZ),
    # while the inline PTX fma.rn.f32 asks for IEEE denormals (FFMA).
    def without_ftz(counts):
        out = Counter()
        for op, n in counts.items():
            out[op.replace(".FTZ", "")] += n
        return out

    assert without_ftz(plain.counts) == without_ftz(ptx.counts)
    assert "FFMA.FTZ" in plain.counts and "FFMA" in ptx.counts


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
    for name in ("sgemm_async_copy", "sgemm_async_copy_vec", "sgemm_warp_tiling"):
        s = summaries[(name, arch)]
        assert s.ldgsts > 0 and s.ldgdepbar > 0 and s.depbar > 0, name
        assert not s.sts_widths, f"{name} stores tiles through registers"
        assert set(s.lds_widths) == {"128"}, f"{name} reads shared memory other than as LDS.128"
    for name in ("sgemm_async_copy", "sgemm_async_copy_vec"):
        assert summaries[(name, arch)].registers <= 128, name   # two 256-thread blocks per SM
    four = summaries[("sgemm_async_copy", arch)].counts
    sixteen = summaries[("sgemm_async_copy_vec", arch)].counts
    assert any(op.startswith("LDGSTS") and not op.endswith(".128") for op in four)
    assert not any(op.startswith("LDGSTS") and op.endswith(".128") for op in four)
    # A still arrives in 4-byte copies (it must be transposed), B in 16-byte .cg (BYPASS) copies.
    assert any(op.startswith("LDGSTS") and not op.endswith(".128") for op in sixteen)
    assert any(op.startswith("LDGSTS") and "BYPASS" in op and op.endswith(".128") for op in sixteen)
    assert summaries[("sgemm_async_copy", arch)].ldgsts > summaries[("sgemm_async_copy_vec", arch)].ldgsts


def _ffma_share_per_k_step(s) -> float:
    """FFMA per shared load: the micro-kernel's ratio (64:4 for 8 x 8, 128:6 for 8 x 16)."""
    return s.ffma / s.lds_widths["128"]


@pytest.mark.parametrize("arch", ARCHS)
def test_warp_tiling_micro_kernel(summaries, arch):
    l6, l5 = summaries[("sgemm_warp_tiling", arch)], summaries[("sgemm_async_copy_vec", arch)]
    cfg = registry.LEVEL6
    assert l6.registers <= 255 and l6.registers > 128 + 24   # 128 accumulators + fragments: one block per SM
    assert l6.ffma >= cfg["BK"] * cfg["TM"] * cfg["TN"]       # one whole K tile unrolled
    assert any(op.startswith("LDGSTS") and "BYPASS" in op and op.endswith(".128") for op in l6.counts)
    assert _ffma_share_per_k_step(l6) > _ffma_share_per_k_step(l5) > 15


def test_async_copy_fallback_below_sm80_uses_ldg_sts():
    for name in ("sgemm_async_copy_vec", "sgemm_warp_tiling"):
        s = sass.summarize(name, "sm_75")
        assert s.ldgsts == 0 and s.ldg_128 > 0 and s.sts_widths.get("128", 0) > 0, name
        assert s.ldg_32 > 0 and s.sts_widths.get("32", 0) > 0, name   # A: 4-byte loads and stores


def test_ahead_of_time_compile_matches_cupy_options():
    """CuPy compiles with -ftz=true; the SASS shown without a GPU must be compiled the same way."""
    assert "-ftz=true" in compiler.AOT_EXTRA_OPTIONS
    assert any(op.startswith("FFMA.FTZ") for op in sass.summarize("sgemm_tiled", "sm_90").counts)


def test_not_unrolling_the_micro_kernel_moves_the_accumulators_to_local_memory():
    text = compiler.expanded_source("sgemm_register_blocking.cu").replace("#pragma unroll\n", "#pragma unroll 1\n")
    s = sass.summarize("sgemm_register_blocking", "sm_90", source=text)
    assert s.stack > 0 and s.spills > 0


def test_bad_architecture_name_is_refused():
    from kernels.errors import CompileError

    with pytest.raises(CompileError, match="sm_80"):
        compiler.compile_cubin("sgemm_naive.cu", "hopper")


def test_poisoned_run_poisons_before_the_run_and_reports_unwritten_elements(monkeypatch):
    """check.poisoned_run (the tools' check before timing): C is NaN-filled before the kernel runs, and an
    output the kernel left NaN turns the relative error into NaN and is counted."""
    pytest.importorskip("cupy")
    from kernels import check

    events, unwritten = [], [0]

    class FakeC:
        def fill(self, value):
            events.append(("fill", value != value))   # NaN is the only value unequal to itself

    def compare(C, ref):
        events.append(("compare", ref))
        return 1e-7, 0.0, unwritten[0]

    monkeypatch.setattr(check, "compare", compare)
    C = FakeC()
    assert check.poisoned_run(lambda: events.append(("run",)), C, "ref") == (1e-7, 0)
    assert events == [("fill", True), ("run",), ("compare", "ref")]
    unwritten[0] = 3                                  # three outputs the kernel never wrote
    err, bad = check.poisoned_run(lambda: None, C, "ref")
    assert bad == 3 and err != err
