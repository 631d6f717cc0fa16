"""Level 7 without a GPU: the cost model by hand, every form on every listed GPU, SASS facts, records."""
from __future__ import annotations

import math
import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from kernels import devices, launch, level7, registry, sass, source
from kernels import level7_model as model
from kernels.errors import KernelInputError
from kernels.launch import Operand, plan
from test_book_data import PROVENANCE  # the keys every recorded file carries
from test_book_data import load as _load

H100 = devices.profile("H100")
H100_GBS = 3350.0
SPEC = registry.get(level7.NAME)


def _cand(limits, tile_name):
    return model.ring_for(model.TILE_BY_NAME[tile_name], limits)


# ----------------------------------------------------------------------------- the model, by hand

def test_h100_peak_per_sm_and_the_rings_it_gets():
    assert model.sm_peak_gflops(H100) == pytest.approx(128 * 1980 * 2 / 1e3)        # 506.88 GFLOP/s
    got = {c.tile.name: (c.BK, c.STAGES, c.resident) for c in model.candidates(H100)}
    # 128x256: 4 x 32 x 388 x 4 B = 198,656 B, one block; 128x128: 3 x 32 x 260 x 4 = 99,840 B, two blocks in
    # 228 KiB (with 1 KiB reserved each); 64x128: 4 x 16 x 196 x 4 = 50,176 B, four blocks.
    assert got == {"128x256": (32, 4, 1), "128x128": (32, 3, 2), "64x128": (16, 4, 4)}


@pytest.mark.parametrize("name,expected", [
    ("T4", {"128x256": (8, 3, 1), "128x128": (8, 3, 2), "64x128": (8, 3, 3)}),          # 64 KiB per SM
    ("RTX3090", {"128x256": (16, 4, 1), "128x128": (16, 3, 2), "64x128": (8, 3, 4)}),   # 100 KiB per SM
    ("L4", {"128x256": (16, 4, 1), "128x128": (16, 3, 2), "64x128": (8, 3, 4)}),
    ("A100-40GB", {"128x256": (32, 3, 1), "128x128": (16, 4, 2), "64x128": (16, 3, 4)}),  # 164 KiB per SM
])
def test_each_gpu_gets_the_deepest_ring_that_keeps_its_blocks(name, expected):
    got = {c.tile.name: (c.BK, c.STAGES, c.resident) for c in model.candidates(devices.profile(name))}
    assert got == expected


def test_rounds_by_hand():
    # Blocks go one per SM first: the busiest SM gets ceil(blocks / SMs), `resident` at a time.
    assert model.rounds(128, 4, 132) == (1,)               # 128 blocks on 132 SMs: one each, one round
    assert model.rounds(512, 4, 132) == (4,)               # four each, all at once
    assert model.rounds(1880, 4, 132) == (4, 4, 4, 3)      # 15 on the busiest SM: three full rounds and 3
    assert model.rounds(2048, 1, 132) == (1,) * 16         # 8192^3 in 128 x 256 tiles: 15.5 -> 16 waves


def test_waves_and_fill_by_hand():
    big = _cand(H100, "128x256")
    p = model.predict(1024, 1024, 1024, big, 1, H100, H100_GBS)
    assert (p.tiles_m, p.tiles_n, p.blocks, p.slots, p.waves) == (8, 4, 32, 132, 1)
    assert p.wave_fill == pytest.approx(32 / 132)
    p = model.predict(1024, 1024, 1024, big, 4, H100, H100_GBS)
    assert (p.k_per_split, p.blocks, p.waves) == (256, 128, 1)
    # M = 513: five tile rows, the fifth holding one row of C; 160 blocks need two waves of 132.
    p = model.predict(513, 8192, 8192, big, 1, H100, H100_GBS)
    assert (p.tiles_m, p.blocks, p.waves) == (5, 160, 2)
    assert p.tile_fill == pytest.approx(513 / 640) and p.wave_fill == pytest.approx(160 / 264)
    two = _cand(H100, "128x128")
    p = model.predict(4095, 4097, 4099, two, 1, H100, H100_GBS)
    assert (p.tiles_m, p.tiles_n, p.slots, p.rounds) == (32, 33, 264, (2, 2, 2, 2)) and p.wave_fill == 1.0


def test_time_terms_by_hand():
    big, small = _cand(H100, "128x256"), _cand(H100, "64x128")
    rates = {"128x256": model.Rate(efficiency=0.5, overhead_us=10.0), "64x128": model.Rate(0.5, 0.0)}
    kw = dict(calibration=rates, launch_us=5.0, reduce_launch_us=3.0, hiding_warps=0.75, last_wave=1.0)
    p = model.predict(1024, 1024, 1024, big, 1, H100, H100_GBS, **kw)
    # one round of one block: 2 x 128 x 256 x 1024 FLOP at half of 506.88 GFLOP/s = 264.79 us, plus 10 us
    assert p.gemm_us == pytest.approx(5.0 + 10.0 + 2 * 128 * 256 * 1024 / (0.5 * 506.88 * 1e3))
    assert p.total_us == p.gemm_us and p.reduce_us == 0.0
    slower_last = model.predict(1024, 1024, 1024, big, 1, H100, H100_GBS, **{**kw, "last_wave": 0.8})
    assert slower_last.gemm_us - 15.0 == pytest.approx((p.gemm_us - 15.0) / 0.8)
    # one 4-warp block alone on an SM hides latency as 4 / 4.75 does, against 16 / 16.75 for four blocks
    lone = model.predict(1024, 1024, 1024, small, 1, H100, H100_GBS, **kw)
    assert model.hiding(1, small) == pytest.approx((4 / 4.75) / (16 / 16.75))
    assert lone.gemm_us == pytest.approx(5.0 + 2 * 64 * 128 * 1024 / (0.5 * model.hiding(1, small) * 506.88e3))
    p = model.predict(1024, 1024, 1024, big, 4, H100, H100_GBS, **kw, workspace_bandwidth=2.0)
    # four slabs of 1024 x 1024 floats written and read back: 32 MiB at 2 x 3350 GB/s, plus the launch
    assert p.reduce_us == pytest.approx(3.0 + 2 * 4 * 1024 * 1024 * 4 / (2 * 3350 * 1e3))
    assert p.gemm_us == pytest.approx(5.0 + 10.0 + 2 * 128 * 256 * 256 / (0.5 * 506.88 * 1e3))


def test_copy_width_and_ring_terms_by_hand():
    big = _cand(H100, "128x256")
    rates = {"128x256": model.Rate(efficiency=0.5, overhead_us=10.0, narrow_b=1.1)}
    kw = dict(calibration=rates, launch_us=5.0, hiding_warps=0.75, last_wave=1.0)
    loop = 2 * 128 * 256 * 1024 / (0.5 * 506.88 * 1e3)
    # N = 1024: B's rows allow 16-byte copies; forced narrow (or N = 1023) the main loop takes 1.1 x as long
    assert model.predict(1024, 1024, 1024, big, 1, H100, H100_GBS, **kw).gemm_us == pytest.approx(15.0 + loop)
    assert model.predict(1024, 1024, 1024, big, 1, H100, H100_GBS, **kw, b16=False).gemm_us == pytest.approx(
        15.0 + 1.1 * loop)
    assert model.predict(1024, 1023, 1024, big, 1, H100, H100_GBS, **kw).gemm_us == pytest.approx(15.0 + 1.1 * loop)
    # the ring: 0.01 us per row of K it holds (4 x 32 = 128), and a BK 16 x 3 ring (48 rows) in flight as
    # 48 / (48 + 32) against 128 / (128 + 32) for the deepest one
    shallow = model.Candidate(big.tile, 16, 3, 1)
    assert model.ring_depth(big) == 128 and model.ring_depth(shallow) == 48
    assert model.depth_speed(shallow, 32.0) == pytest.approx((48 / 80) / (128 / 160))
    assert model.depth_speed(big, 32.0) == 1.0 and model.depth_speed(shallow) == 1.0     # neutral by default
    p = model.predict(1024, 1024, 1024, shallow, 1, H100, H100_GBS, **kw, ring_fill_us=0.01, ring_half_k=32.0)
    assert p.gemm_us == pytest.approx(15.0 + 0.48 + loop / model.depth_speed(shallow, 32.0))


def test_rings_a_shape_may_choose_keep_the_blocks_per_sm():
    got = {c.name: c.resident for c in model.ring_candidates(H100)}
    assert got == {"128x256 BK32x4": 1, "128x256 BK32x3": 1, "128x256 BK16x4": 1, "128x256 BK16x3": 1,
                   "128x256 BK8x3": 1, "128x128 BK32x3": 2, "128x128 BK16x4": 2, "128x128 BK16x3": 2,
                   "128x128 BK8x3": 2, "64x128 BK16x4": 4, "64x128 BK16x3": 4, "64x128 BK8x3": 4}
    a100 = {c.name for c in model.ring_candidates(devices.profile("A100-40GB"))}
    assert "128x128 BK32x3" not in a100 and "128x128 BK16x4" in a100      # 32 x 3 fits one 128x128 block only
    for limits in devices.PROFILES.values():     # the tile's own ring (ring_for) comes first among its rings
        rings = model.ring_candidates(limits)
        for own in model.candidates(limits):
            assert next(c for c in rings if c.tile == own.tile) == own, (limits.name, own.name)
    every = model.predictions(3000, 5000, 2000, H100, H100_GBS, every_ring=True)
    one = model.predictions(3000, 5000, 2000, H100, H100_GBS)
    assert len(every) > len(one) and {(p.candidate.tile.name, p.split) for p in every} >= {
        (p.candidate.tile.name, p.split) for p in one}
    if not model.RINGS_PER_SHAPE:             # until a sweep fits the ring terms, each tile keeps its own ring
        assert all((p.candidate.BK, p.candidate.STAGES, p.candidate.resident) ==
                   (lambda c: (c.BK, c.STAGES, c.resident))(_cand(H100, p.candidate.tile.name)) for p in one)


def test_slices_workspace_and_what_is_allowed():
    assert model.slices(300, 32, 8) == (64, 5)      # 10 K tiles in 8 slices: 2 tiles deep, so only 5 exist
    assert model.slices(4096, 32, 8) == (512, 8)
    assert model.slices(1, 32, 16) == (32, 1)
    assert model.workspace_ld(4097) == 4100 and model.workspace_bytes(513, 4097, 3) == 3 * 513 * 4100 * 4
    assert model.workspace_bytes(513, 4097, 1) == 0
    big = _cand(H100, "128x256")
    assert model.allowed(1, 1, 1, big, 1)
    assert not model.allowed(1000, 1000, 300, big, 8)          # would make 5 slices, not 8
    assert not model.allowed(1000, 1000, 160, big, 2)          # slices 96 deep: shorter than 128
    assert model.allowed(1000, 1000, 256, big, 2)
    assert not model.allowed(8192, 8192, 8192, big, 2)         # 512 MiB of partial tiles
    small = model.Candidate(model.TILE_BY_NAME["64x128"], 16, 4, 4)
    assert model.allowed(64 * 65536 + 1, 4, 4, small, 1)       # 65,537 tile rows: the tiles lie along grid.x
    assert model.grid(65_537, 1, 1) == (65_537, 1, 1) and model.grid(8, 4, 3) == (32, 1, 3)
    assert not model.allowed(2**30, 2**30, 4, small, 1)        # 2^47 tiles: past grid.x
    assert not model.allowed(2**31 - 1, 4, 4, small, 1)        # tile rows past int32 inside the kernel


def test_choice_is_the_fastest_prediction():
    for shape in model.ZOO:
        found = model.predictions(*shape, H100, H100_GBS)
        assert found[0] == model.choose(*shape, H100, H100_GBS)
        assert all(a.total_us <= b.total_us + 1e-6 for a, b in zip(found, found[1:]))


# The dispatcher's choice for the zoo on the H100, with the recorded calibration (a change to the model or its
# constants shows up here, and tools/record_shapes.py must be rerun).
ZOO_CHOICE_H100 = {
    (1024, 1024, 1024): ("64x128", 2), (2048, 2048, 2048): ("128x256", 1), (4096, 4096, 4096): ("128x256", 1),
    (8192, 8192, 8192): ("128x256", 1), (4096, 11008, 4096): ("128x256", 1), (4096, 4096, 11008): ("128x256", 1),
    (8192, 8192, 1024): ("128x256", 1), (1024, 1024, 16384): ("128x256", 8), (513, 8192, 8192): ("64x128", 8),
    (128, 4096, 4096): ("64x128", 8), (4095, 4097, 4099): ("128x128", 1), (3000, 5000, 2000): ("64x128", 1),
}


def test_the_dispatchers_choice_for_the_zoo_is_stable():
    got = {s: (p.candidate.tile.name, p.split) for s in model.ZOO for p in [model.choose(*s, H100, H100_GBS)]}
    assert got == ZOO_CHOICE_H100


def test_a_gpu_too_small_for_every_form_gets_a_korean_error():
    tiny = devices.DeviceLimits(name="tiny", title="tiny", cc=(7, 5), sm_count=4, smem_per_block_optin=16 * 1024,
                                smem_per_sm=16 * 1024, smem_reserved_per_block=0, max_threads_per_sm=1024,
                                max_blocks_per_sm=16, clock_mhz=1000.0)
    assert model.candidates(tiny) == []
    with pytest.raises(ValueError):
        model.choose(64, 64, 64, tiny, 100.0)
    with pytest.raises(KernelInputError, match="공유 메모리"):
        level7.plan_for(64, 64, 64, tiny, 100.0)


def test_waves_text_reads_the_terms():
    p = model.choose(128, 4096, 4096, H100, H100_GBS)
    text = model.waves_text(p)
    assert f"{p.blocks} blocks" in text and f"{p.waves} wave" in text and str(p.slots) in text


# ----------------------------------------------------------------------------- registry, sources, launcher

def _macro_defaults() -> dict:
    text = source.read_source(level7.FILE)
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"#ifndef L7_(\w+)\n#define L7_\w+ (\d+)\n#endif", text)}


def test_file_defaults_registry_and_dispatcher_agree():
    assert _macro_defaults() == level7.DEFAULTS
    assert {k: level7.DEFAULTS[k] for k in registry.LEVEL7_DEFAULT} == registry.LEVEL7_DEFAULT
    big = _cand(H100, "128x256")
    assert level7.defines(big, True) == {}                     # the H100's large form is the file itself
    assert SPEC.dynamic_smem == big.smem_bytes == 198_656 and SPEC.threads == big.tile.threads
    assert level7.defines(_cand(H100, "128x128"), False) == {
        "L7_BN": 128, "L7_WM": 32, "L7_TN": 8, "L7_STAGES": 3, "L7_B16": 0, "L7_MIN_BLOCKS": 2}
    assert (SPEC.level, SPEC.chapter, SPEC.dispatch, SPEC.benchmarked, SPEC.profiled) == (7, 12, "level7", False, False)
    assert level7.NAME not in registry.benchmarked_kernels()
    assert level7.NAME not in registry.LEVEL_REPRESENTATIVE.values()


def test_regions_the_chapter_will_quote_exist():
    for name in ("design", "shape", "partial-copy", "slice-copier", "slice", "ring", "guarded-store", "epilogue",
                 "reduce", "kernel"):
        assert source.region(level7.FILE, name)
    assert "fixed order" in source.region(level7.FILE, "reduce")
    assert "blockIdx.z * k_per_split" in source.region(level7.FILE, "slice")


def _op(label, shape, ptr, strides=None):
    rows, cols = shape
    return Operand(label, shape, np.dtype(np.float32), strides or (cols * 4, 4), ptr, rows * cols * 4)


@pytest.mark.parametrize("offset", [0, 4])
def test_awkward_sizes_and_offsets_are_never_staged(offset):
    """Edges are predicated in the kernel and misaligned B takes 4-byte copies: nothing is copied."""
    for M, N, K in [(4095, 4097, 4099), (513, 8192, 8192), (1, 1, 1), (7, 5, 3), (1000, 1023, 1025)]:
        p = plan(SPEC, _op("A", (M, K), (1 << 20) + offset), _op("B", (K, N), (1 << 36) + offset),
                 _op("C", (M, N), (1 << 40) + offset))
        assert not p.staged and (p.kernel_N, p.kernel_K) == (N, K)
    transposed = Operand("A", (64, 32), np.dtype(np.float32), (4, 256), 1 << 20, 64 * 32 * 4)
    assert plan(SPEC, transposed, _op("B", (32, 48), 1 << 36), None).staged_operands == ("A",)


# ----------------------------------------------------------------------------- a (tile, split) forced by hand

def _forced(M, N, K, tile="64x128", split=1, **kw):
    return level7.forced(M, N, K, tile, split, limits=H100, bandwidth_gbs=H100_GBS, **kw)


def test_forced_path_takes_a_tall_c_on_grid_x():
    """M = 4,194,305 in 64-row tiles is 65,537 tile rows: one past what grid.y holds, fine along grid.x."""
    p = _forced(4_194_305, 8, 16)
    assert (p.tiles_m, p.tiles_n) == (65_537, 1)
    x, y, z = model.grid(p.tiles_m, p.tiles_n, p.split)
    assert x == 65_537 <= model.GRID_X_MAX and y == z == 1


@pytest.mark.parametrize("kwargs,words", [
    (dict(M=64, N=64, K=4096, split=70_000), ("split 70,000은", "grid.z", "65,535")),
    (dict(M=64, N=64, K=3, split=8), ("split > K", "K(3)")),
    (dict(M=64, N=64, K=300, split=8), ("K = 300을", "7조각만", "1, 2, 3, 4, 5, 7")),
    (dict(M=64, N=64, K=300, split=0), ("1 이상의 정수",)),
    (dict(M=64, N=64, K=300, split=True), ("1 이상의 정수",)),
    (dict(M=64, N=64, K=300, split=2.5), ("1 이상의 정수",)),
    (dict(M=64, N=64, K=300, tile="32x32"), ("tile", "128x256, 128x128, 64x128")),
    (dict(M=2**30, N=2**30, K=16), ("grid.x", "2,147,483,647을", "split the product")),
    (dict(M=2**31 - 1, N=4, K=16), ("int32",)),
    (dict(M=4096, N=4096, K=4096, split=8, free_bytes=2**28), ("workspace", "536,870,912 B", "268,435,456 B")),
])
def test_forced_path_refuses_what_the_dispatcher_would_refuse(kwargs, words):
    """Before anything is allocated or launched: a Korean KernelInputError with the English term."""
    with pytest.raises(KernelInputError) as err:
        _forced(**kwargs)
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_forced_path_allows_what_only_the_dispatchers_speed_rules_forbid():
    """A slice shallower than MIN_SLICE_K or a workspace above WORKSPACE_LIMIT_BYTES is slow, not wrong: forcing it
    still runs (the tests and the tuner reach every path), while the dispatcher never picks it."""
    big = _cand(H100, "128x256")
    assert not model.allowed(64, 64, 160, big, 2) and _forced(64, 64, 160, "128x256", 2).split == 2
    assert not model.allowed(8192, 8192, 8192, big, 2) and _forced(8192, 8192, 8192, "128x256", 2).split == 2
    assert level7.valid_splits(300, big) == [1, 2, 3, 4, 5, 10]
    assert level7.valid_splits(1, big) == [1]


def test_the_dispatcher_names_the_grid_when_no_tile_fits_the_shape():
    with pytest.raises(KernelInputError, match="grid.x"):
        level7.plan_for(2**30, 2**30, 64, H100, H100_GBS)


def test_level7_source_uses_64_bit_steps_and_tiles_along_x():
    text = source.read_source(level7.FILE)
    copier = source.region(level7.FILE, "slice-copier")
    assert "size_t a_step, b_step;" in copier and "b_step = static_cast<size_t>(B_ROW_STEP) * ldb;" in copier
    assert "const int pid = blockIdx.x;" in source.region(level7.FILE, "swizzle")
    assert "blockIdx.y" not in re.sub(r"//[^\n]*", "", text)
    # Level 7 has no 32-bit offset limit: operands above 2^31 elements are planned (no staging, no refusal).
    p = plan(SPEC, _op("A", (2**31 // 1024 + 64, 1024), 1 << 20), _op("B", (1024, 8), 1 << 40), None)
    assert p.M * p.lda > 2**31 and not p.staged


def test_b_copy_width_rule():
    assert level7.b_rows_allow_16(1 << 20, 4096)
    assert not level7.b_rows_allow_16(1 << 20, 4097)            # N = 4097: rows drift off 16-byte boundaries
    assert not level7.b_rows_allow_16((1 << 20) + 4, 4096)      # a view 4 bytes in


# ----------------------------------------------------------------------------- every form, compiled per cc

def _forms() -> dict:
    """(arch, tile, BK, STAGES) -> (profile names, candidate) for the rings of every listed GPU (every ring a
    shape may choose once the model chooses rings per shape)."""
    out: dict = {}
    for limits in devices.PROFILES.values():
        for cand in (model.ring_candidates if model.RINGS_PER_SHAPE else model.candidates)(limits):
            key = (limits.arch, cand.tile.name, cand.BK, cand.STAGES)
            out.setdefault(key, ([], cand))[0].append(limits.name)
    return out


FORMS = _forms()
B4_FORMS = [key for key in FORMS if key[0] == "sm_90"]     # the 4-byte B path, checked on the H100's forms


def _compile(job):
    (arch, *_), cand, b16 = job
    text = level7.source_for(cand, b16)
    return job, sass.summarize(level7.NAME, arch, text), sass.main_loop(level7.NAME, arch, text)


@pytest.fixture(scope="module")
def compiled():
    jobs = [(key, cand, True) for key, (_, cand) in FORMS.items()]
    jobs += [(key, FORMS[key][1], False) for key in B4_FORMS]
    with ThreadPoolExecutor(2) as pool:     # NVRTC and cuobjdump release the GIL
        return {(job[0], job[2]): (summary, loop) for job, summary, loop in pool.map(_compile, jobs)}


def test_every_form_fits_every_gpu_that_gets_it(compiled):
    """Registers as ptxas allocated them for that cc: no spills, within the launch-bounds budget, and the
    occupancy the model assumed (blocks per SM) holds with the real count."""
    for (arch, tile, bk, stages), (profiles, cand) in FORMS.items():
        s, _ = compiled[((arch, tile, bk, stages), True)]
        where = f"{tile} BK{bk}x{stages} on {arch}"
        assert s.spills == 0 and s.local_bytes == 0 and s.stack == 0, where
        assert s.registers <= cand.register_cap, where
        for name in profiles:
            limits = devices.profile(name)
            occ = devices.occupancy(limits, cand.tile.threads, s.registers, cand.smem_bytes + s.smem_static)
            assert occ["blocks_per_sm"] >= cand.resident, (where, name, occ)
            assert cand.smem_bytes <= limits.smem_per_block_optin, (where, name)


def test_cp_async_from_sm80_and_none_below(compiled):
    for ((arch, tile, bk, stages), b16), (s, _) in compiled.items():
        where = f"{tile} BK{bk}x{stages} b16={b16} on {arch}"
        if arch == "sm_75":
            assert s.ldgsts == 0 and s.ldgdepbar == 0 and s.sts_widths, where     # loads and stores through registers
            continue
        assert s.ldgsts > 0 and s.ldgdepbar > 0 and not s.sts_widths, where
        wide = [op for op in s.counts if op.startswith("LDGSTS") and ".128" in op]
        assert bool(wide) == b16, (where, sorted(op for op in s.counts if op.startswith("LDGSTS")))
        assert set(s.lds_widths) == {"128"}, where                                  # fragments: LDS.128 only


def test_main_loop_holds_one_whole_k_tile_of_ffma(compiled):
    for ((arch, tile, bk, stages), b16), (_, loop) in compiled.items():
        t = model.TILE_BY_NAME[tile]
        ffma = sum(inst.startswith("FFMA") for _, inst in loop)
        assert ffma == bk * t.TM * t.TN, f"{tile} BK{bk} on {arch}: {ffma} FFMA in the main loop"


def test_four_byte_b_copies_issue_four_times_as_many_b_copies(compiled):
    for key in B4_FORMS:
        def ldgsts(b16):
            return sum(inst.startswith("LDGSTS") for _, inst in compiled[(key, b16)][1])
        t, bk = model.TILE_BY_NAME[key[1]], key[2]
        a_copies = t.BM * bk // t.threads       # one float of A per copy (it is transposed on arrival)
        b_copies = t.BN * bk // t.threads       # in floats: 16-byte copies carry four
        assert ldgsts(True) == a_copies + b_copies // 4 and ldgsts(False) == a_copies + b_copies, key


# ----------------------------------------------------------------------------- recorded results



def test_calibration_in_the_code_is_the_recorded_fit():
    data = _load("level7_tuning.json")
    for key in PROVENANCE:
        assert data.get(key), key
    fit = data["fit"]
    for tile, rate in model.CALIBRATION.items():
        assert rate.efficiency == pytest.approx(fit["calibration"][tile]["efficiency"], rel=1e-3), tile
        assert rate.overhead_us == pytest.approx(fit["calibration"][tile]["overhead_us"], rel=1e-3, abs=1e-3), tile
        # a fit made before the copy-width term has none: neutral
        assert rate.narrow_b == pytest.approx(fit["calibration"][tile].get("narrow_b", 1.0), rel=1e-3), tile
    for name, key in (("LAUNCH_US", "launch_us"), ("REDUCE_LAUNCH_US", "reduce_launch_us"),
                      ("WORKSPACE_BANDWIDTH", "workspace_bandwidth"), ("HIDING_WARPS", "hiding_warps"),
                      ("LAST_WAVE", "last_wave")):
        assert getattr(model, name) == pytest.approx(fit[key], rel=1e-3, abs=1e-3), name
    # the ring terms, neutral in a fit made before them (no sweep over the rings)
    assert model.RING_FILL_US == pytest.approx(fit.get("ring_fill_us", 0.0), rel=1e-3, abs=1e-4)
    assert model.RING_HALF_K == pytest.approx(fit.get("ring_half_k", 0.0), rel=1e-3, abs=1e-3)
    assert model.RINGS_PER_SHAPE == fit.get("rings_per_shape", False)
    assert fit["median_abs_error"] < 0.03
    assert all(r["rel_error"] < 1e-5 for r in data["rows"])
    for c in data["choices"]:
        assert c["regret"] >= 1.0


def test_shape_zoo_record_is_complete():
    data = _load("shapes.json")
    for key in PROVENANCE + ("sm_count", "peak_gflops"):
        assert data.get(key), key
    # A record rebuilt from its run's log (the JSON did not come back) says so and keeps the log.
    rebuilt = data.get("reconstructed_from_log")
    assert not rebuilt or (rebuilt["why"] and rebuilt["checked"] and data["log"])
    kernels = [registry.LEVEL_REPRESENTATIVE[lv] for lv in sorted(registry.LEVEL_REPRESENTATIVE)] + [level7.NAME]
    assert data["kernels"] == kernels and [tuple(s) for s in data["zoo"]] == list(model.ZOO)
    d = data["level7_device"]
    limits = devices.DeviceLimits(**{**d["limits"], "cc": tuple(int(v) for v in d["limits"]["cc"].split("."))})
    for shape in model.ZOO:
        at = {r["kernel"]: r for r in data["rows"] if (r["M"], r["N"], r["K"]) == shape}
        assert set(at) == {"cublas", *kernels}, shape
        for name, r in at.items():
            if "min_ms" in r or name == "cublas" or not rebuilt:
                assert r["min_ms"] <= r["median_ms"] <= r["max_ms"], (shape, name)
            assert r["gflops"] == pytest.approx(2.0 * math.prod(shape) / (r["median_ms"] * 1e6), rel=1e-6)
            if name != "cublas":
                assert (r["rel_error"] is None and rebuilt) or r["rel_error"] < 1e-5, (shape, name)
                assert r["pct_cublas"] == pytest.approx(100 * r["cublas_ms"] / r["median_ms"], rel=1e-6)
        l7 = at[level7.NAME]
        assert not l7["staged"], shape                                  # no operand copied, whatever the shape
        expected = model.choose(*shape, limits, d["bandwidth_gbs"])
        assert (l7["choice"]["tile"], l7["choice"]["split"]) == (expected.candidate.tile.name, expected.split)
    ratios = data["summary"]["level7_over_cublas"]
    assert set(ratios) == {"x".join(map(str, s)) for s in model.ZOO}
    assert data["summary"]["geometric_mean"] == pytest.approx(
        math.exp(sum(math.log(v) for v in ratios.values()) / len(ratios)))


def test_experiments_record_both_questions():
    data = _load("level7_experiments.json")
    for key in PROVENANCE:
        assert data.get(key), key
    rotated = [r for r in data["rows"] if r["variant"].get("knobs") == {"ROTATE": 1}]
    narrow = [r for r in data["rows"] if r["variant"].get("b16") is False]
    assert rotated and narrow
    for r in data["rows"]:
        assert all(e < 1e-5 for e in r["rel_errors"]), r
        assert r["speedup"] == pytest.approx(r["shipped_ms"] / r["variant_ms"])


# ----------------------------------------------------------------------------- the streaming path (M or N <= 16)

H200 = devices.profile("H200")


@pytest.mark.parametrize("limits", [H100, H200], ids=lambda d: d.name)
def test_the_model_streams_decode_shapes_and_not_the_zoo(limits):
    assert model.choose(1, 4096, 4096, limits).candidate.tile.name == "stream-B"
    assert model.choose(4096, 8, 11008, limits).candidate.tile.name == "stream-A"
    for shape in model.ZOO:
        assert not model.choose(*shape, limits).is_stream, shape
    assert model.stream_candidates(17, 17, limits) == []          # neither side small enough


def test_stream_prediction_by_hand():
    cand = model.stream_candidate("stream-B", 1, 4096, H100)
    assert (cand.tile.rows, cand.tile.BM, cand.tile.BN, cand.BK) == (1, 1, 128, 256)
    kw = dict(efficiency={"stream-B": 0.5}, launch_us=3.0, fill_blocks=2, reduce_launch_us=1.0, workspace_bandwidth=2.0)
    p = model.predict_stream(1, 4096, 4096, cand, 8, H100, H100_GBS, **kw)
    moved = 4 * (4096 + 4096 * 4096 + 8 * 4096)
    assert p.moved_bytes == moved and (p.blocks, p.k_per_split) == (256, 512)
    # 256 blocks on 132 SMs: the busiest streams 2 (enough to draw its share: fill 1) at half of 3350 / 132 GB/s
    assert p.gemm_us == pytest.approx(3.0 + moved / 256 * 2 / (3350 * 0.5 / 132 * 1e3))
    assert p.reduce_us == pytest.approx(1.0 + 2 * 8 * 4096 * 4 / (3350 * 2.0 * 1e3))
    one = model.predict_stream(1, 4096, 4096, cand, 1, H100, H100_GBS, **kw)   # 32 blocks, one per SM: fill 1/2
    assert one.gemm_us == pytest.approx(3.0 + 4 * (4096 + 4096 * 4096 + 4096) / 32 / (3350 * 0.5 / 132 * 0.5 * 1e3))
    assert model.stream_rows(1) == 1 and model.stream_rows(3) == 4 and model.stream_rows(13) == 16
    assert "stream-B (1 rows) x split 8" in model.waves_text(p)


@pytest.mark.parametrize("kwargs,words", [
    (dict(M=17, N=4096, K=64, tile="stream-B"), ("stream-B", "M = 17", "16 이하")),
    (dict(M=4096, N=32, K=64, tile="stream-A"), ("stream-A", "N = 32")),
    (dict(M=4, N=4096, K=600, tile="stream-B", split=4), ("3조각만",)),
    (dict(M=4, N=4096, K=600, tile="stream-B", split=0), ("1 이상의 정수",)),
    (dict(M=4, N=4096, K=64, tile="stream-C"), ("stream-B", "tile")),
])
def test_forced_stream_refusals_are_korean(kwargs, words):
    with pytest.raises(KernelInputError) as err:
        _forced(**kwargs)
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_forced_stream_prediction():
    p = _forced(8, 11008, 4096, "stream-B", 4)
    assert p.is_stream and p.split == 4 and p.candidate.tile.rows == 8


def _stream_forms() -> list:
    return [(name, rows, b16) for name in model.STREAM_NAMES for rows in model.STREAM_MIN_BLOCKS for b16 in (True, False)]


def test_every_stream_form_fits_every_listed_gpu():
    """Registers as ptxas allocates them per cc: no spills, within the launch bounds; the static shared memory the
    model assumes; at least the blocks per SM the launch bounds promise, on every listed GPU."""
    archs = sorted({d.arch for d in devices.PROFILES.values()})

    def job(key):
        arch, (name, rows, b16) = key
        tile = model.stream_tile(name, rows)
        text = level7.compiler.variant_source(level7.FILE, {"L7S_ROWS": rows, "L7S_B16": int(b16),
                                                            "L7S_MIN_BLOCKS": tile.min_blocks})
        kernel = level7.STREAM_KERNELS[name]
        res = sass.resource_usage(level7.FILE, arch, text)[kernel]
        spills = sum(n for op, n in sass.opcodes(sass.disassemble(level7.FILE, arch, text)[kernel]).items()
                     if op.startswith(("LDL", "STL")))
        return key, tile, res, spills

    with ThreadPoolExecutor(2) as pool:
        found = list(pool.map(job, [(a, f) for a in archs for f in _stream_forms()]))
    for (arch, form), tile, res, spills in found:
        assert spills == 0 and res["local_bytes"] == 0, (arch, form, res)
        assert res["registers"] <= tile.register_cap, (arch, form, res)
        reserved = sass.SYSTEM_SMEM_BYTES if arch >= "sm_90" and res["smem_static"] else 0
        assert res["smem_static"] - reserved == tile.smem_static, (arch, form, res)
        for limits in devices.PROFILES.values():
            if limits.arch != arch:
                continue
            occ = devices.occupancy(limits, tile.threads, res["registers"], tile.smem_static)
            assert occ["blocks_per_sm"] >= min(tile.min_blocks, limits.max_threads_per_sm // tile.threads), (form, limits.name)
            assert model.stream_candidate(form[0], rows := tile.rows, rows, limits) is not None


def test_stream_regions_exist_and_use_no_atomics():
    for name in ("stream-design", "stream-shape", "stream-b", "stream-a"):
        assert source.region(level7.FILE, name)
    text = source.region(level7.FILE, "stream-b") + source.region(level7.FILE, "stream-a")
    assert "atomic" not in text and "fixed order" in source.region(level7.FILE, "stream-design")
