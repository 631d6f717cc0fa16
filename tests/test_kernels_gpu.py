"""GPU suite: every kernel against cuBLAS (run on a GPU machine with `make gpu-test`).

Every kernel takes every shape: random shapes in random layouts (contiguous, padded rows, a start
4 bytes past an aligned address, transposed views), the issue's required shapes with and without
that offset, alpha/beta mixes, NaN-poisoned C with beta = 0, and pipeline tails. Every kernel runs in the
active device's configuration: this GPU's, or with COURSE_DEVICE_PROFILE=T4 (say) the T4's, compiled to PTX
for compute_75 so that the cp.async fallback runs (tools/gpu/check_device_profiles.sh runs the suite once per class).
"""
from __future__ import annotations

import random
import zlib

import pytest

from kernels import registry
from kernels.__main__ import random_shapes
from kernels.check import ALPHA_BETA_CASES, REQUIRED_SHAPES, awkward_shapes, check

pytestmark = pytest.mark.gpu

RANDOM_SHAPES_PER_KERNEL = 200   # x 14 kernels
ALL = sorted(registry.KERNELS)
LAYOUTS = ({}, {"ld_pad": 3}, {"ld_pad": 4}, {"offset": 1}, {"transposed": True}, {"offset": 1, "ld_pad": 5})


def _assert_ok(r, layout=None):
    where = f"{r.kernel} {r.M}x{r.N}x{r.K} alpha={r.alpha} beta={r.beta} layout={layout or {}}"
    assert r.non_finite == 0, f"{where}: {r.non_finite} NaN/Inf outputs (unwritten or C read with beta=0)"
    assert r.ok, f"{where}: rel.err {r.rel_error:.2e}"


def _failures(results) -> str:
    bad = [(r, layout) for r, layout in results if not r.ok or r.non_finite]
    return "; ".join(f"{r.M}x{r.N}x{r.K} a={r.alpha} b={r.beta} {layout}: err {r.rel_error:.1e} "
                     f"nonfinite {r.non_finite}" for r, layout in bad[:5])


@pytest.mark.parametrize("name", ALL)
def test_random_shapes_and_layouts(name):
    """200 random shapes per kernel, each with a random layout and alpha/beta pair."""
    seed = zlib.crc32(name.encode()) % 1000
    rng = random.Random(seed)
    results = []
    for i, (M, N, K) in enumerate(random_shapes(RANDOM_SHAPES_PER_KERNEL, seed)):
        layout = rng.choice(LAYOUTS)
        alpha, beta = rng.choice(ALPHA_BETA_CASES)
        results.append((check(name, M, N, K, alpha, beta, seed=100 + i, **layout), layout))
    assert not _failures(results), f"{name}: " + _failures(results)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("offset", [0, 1])
def test_required_shapes(name, offset):
    """The issue's shapes, also with every pointer 4 bytes past an aligned address."""
    for i, (M, N, K) in enumerate(REQUIRED_SHAPES):
        _assert_ok(check(name, M, N, K, seed=200 + i, offset=offset), {"offset": offset})


@pytest.mark.parametrize("name", ALL)
def test_awkward_shapes(name):
    for i, (M, N, K) in enumerate(awkward_shapes()):
        _assert_ok(check(name, M, N, K, seed=300 + i))


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("alpha,beta", ALPHA_BETA_CASES)
def test_alpha_beta(name, alpha, beta):
    _assert_ok(check(name, 136, 260, 72, alpha=alpha, beta=beta, seed=7))


@pytest.mark.parametrize("name", ALL)
def test_leading_dimension_views(name):
    """A, B and C as views into wider buffers (lda > K, ldb > N, ldc > N), aligned and not."""
    for pad in (3, 4):
        _assert_ok(check(name, 67, 132, 36, seed=11, ld_pad=pad), {"ld_pad": pad})
        _assert_ok(check(name, 67, 132, 36, alpha=0.5, beta=-1.0, seed=12, ld_pad=pad), {"ld_pad": pad})


@pytest.mark.parametrize("name", ALL)
def test_transposed_views(name):
    """Column-major views (a transpose) are copied, not refused; C is written back through its view."""
    _assert_ok(check(name, 45, 70, 33, seed=13, transposed=True), {"transposed": True})
    _assert_ok(check(name, 45, 70, 33, alpha=2.0, beta=0.5, seed=14, transposed=True), {"transposed": True})


@pytest.mark.parametrize("name", ALL)
def test_large_square(name):
    _assert_ok(check(name, 1024, 1024, 1024, seed=3))


@pytest.mark.parametrize("name", ["sgemm_async_copy", "sgemm_async_copy_vec", "sgemm_warp_tiling",
                                  "sgemm_double_buffer"])
def test_pipeline_tails(name):
    """K from 1 to several K tiles, with and without a partial tile: prologue, tail and partial tile."""
    for K in (1, 3, 4, 8, 12, 16, 24, 31, 32, 33, 40, 63, 64, 65, 96, 97, 128, 129, 200):
        _assert_ok(check(name, 130, 260, K, seed=K))


def test_beta_zero_never_reads_c():
    """With beta = 0 a NaN-filled C must come back finite for every kernel."""
    for name in ALL:
        r = check(name, 128, 128, 64, alpha=1.0, beta=0.0, seed=5)
        assert r.non_finite == 0, name


def test_staged_path_is_reported_and_direct_path_is_not():
    import cupy

    from kernels import launch

    A = cupy.ones((64, 33), dtype=cupy.float32)
    B = cupy.ones((33, 30), dtype=cupy.float32)
    staged = launch.prepare("sgemm_warp_tiling", A, B)
    assert set(staged.staged) == {"B", "C"} and staged.plan.kernel_N == 32
    C = staged()
    assert C.shape == (64, 30) and C.flags.c_contiguous
    assert float(abs(C - 33.0).max()) == 0.0
    direct = launch.prepare("sgemm_warp_tiling", cupy.ones((64, 32), dtype=cupy.float32),
                            cupy.ones((32, 32), dtype=cupy.float32))
    assert direct.staged == ()
    for name in ALL:
        if not registry.get(name).vec4:
            assert launch.prepare(name, A, B).staged == (), name


def test_launch_errors_on_gpu():
    import cupy

    from kernels import KernelInputError, run

    A = cupy.ones((64, 32), dtype=cupy.float32)
    B = cupy.ones((32, 64), dtype=cupy.float32)
    with pytest.raises(KernelInputError, match="float32"):
        run("sgemm_naive", A.astype(cupy.float64), B)
    with pytest.raises(KernelInputError, match="shape"):
        run("sgemm_naive", A, B[:16])
    with pytest.raises(KernelInputError, match="aliasing"):
        sq = cupy.ones((32, 32), dtype=cupy.float32)
        run("sgemm_tiled", sq, sq, sq)
    with pytest.raises(KernelInputError, match="beta"):
        run("sgemm_tiled", A, B, None, beta=1.0)
    with pytest.raises(KernelInputError, match="같은 메모리"):
        broadcast = cupy.broadcast_to(cupy.zeros((1, 64), dtype=cupy.float32), (64, 64))
        run("sgemm_tiled", A, B, broadcast)


def test_second_bench_compiles_nothing():
    from kernels import bench, compiler

    bench.bench(["sgemm_naive", "sgemm_tiled"], [256], reps=2, warmup=1, show_progress=False)
    before = compiler.compile_count
    rows = bench.bench(["sgemm_naive", "sgemm_tiled"], [256], reps=2, warmup=1, show_progress=False)
    assert compiler.compile_count == before
    assert {r.kernel for r in rows} == {"cublas", "sgemm_naive", "sgemm_tiled"}
    assert all(r.rel_error is not None and r.rel_error < 1e-5 for r in rows)


def test_bench_records_the_staged_path():
    from kernels import bench

    rows = bench.bench(["sgemm_warp_tiling"], [(255, 255, 255)], reps=2, warmup=1, show_progress=False)
    row = next(r for r in rows if r.kernel == "sgemm_warp_tiling")
    assert row.staged == ["B", "C"] and row.extra["kernel_only_ms"] > 0 and row.rel_error < 1e-5


def test_bench_rotates_over_copies_larger_than_the_l2():
    """A small product: operand copies that together exceed twice the L2, several calls per event pair, the
    rows saying both; the timing protocol (kernels/timing.py) in the record's provenance."""
    from kernels import bench, record, timing

    rows = bench.bench(["sgemm_tiled"], [256], reps=3, warmup=1, show_progress=False)
    per_set = 4 * 3 * 256 * 256
    for r in rows:
        assert r.copies > 1 and (r.copies * per_set > timing.L2_MULTIPLE * timing.l2_bytes()
                                 or r.copies == timing.MAX_COPIES), r.kernel
        assert 1 <= r.calls <= timing.MAX_CALLS and r.reps == (3 if r.kernel != "cublas" else 1)
        assert r.as_row()["copies"] == r.copies and r.min_ms <= r.median_ms <= r.max_ms
    assert record.provenance("test")["timing"] == timing.PROTOCOL


def test_bench_timers_accept_one_callable_or_one_per_copy():
    import cupy

    from kernels import bench

    xs = [cupy.zeros(1 << 20, dtype=cupy.float32) for _ in range(3)]
    t = bench.time_callable([lambda x=x: x.fill(1.0) for x in xs], warmup=1, reps=3)
    assert (t.reps, t.copies) == (3, 3) and t.median_ms > 0
    first, second = bench.interleaved_timings(lambda: xs[0].fill(2.0), [lambda x=x: x.fill(3.0) for x in xs],
                                              warmup=1, reps=4)
    assert (first.copies, second.copies, first.reps, second.reps) == (1, 3, 4, 4)
    assert float(xs[1][0]) == 3.0


def test_the_hold_hides_the_host_launch_cost():
    """A tiny kernel: events around each call also count the host's launch cost; back-to-back calls behind a
    hold count the GPU's time only, so the protocol's median is lower."""
    import cupy

    from kernels import timing

    x = cupy.zeros(32, dtype=cupy.float32)
    tiny = {"tiny": lambda: cupy.add(x, 1.0, out=x)}
    old = timing.per_call(tiny, rounds=30)["tiny"]
    new = timing.alternate({"tiny": [tiny["tiny"]]}, rounds=9)["tiny"]
    assert new.calls == timing.MAX_CALLS
    assert new.median_ms < old.median_ms, (new.median_ms, old.median_ms)


def test_resources_match_registry():
    """Registers, static and dynamic shared memory of each kernel in the active device's configuration."""
    from kernels import configs, loader

    for name in registry.KERNELS:
        spec = configs.spec_for(name)
        res = loader.resources(name)
        assert res["local_bytes"] == 0, f"{name} spills to local memory"
        assert res["registers"] <= 255
        assert res["smem_static"] >= spec.static_smem, name
        assert res["smem_static"] <= spec.static_smem + 1024, name   # sm_90 may add 1 KiB reserved
        assert res["smem_dynamic"] == spec.dynamic_smem


def test_peak_from_device_properties():
    from kernels.device import info

    d = info()
    assert d["peak_gflops"] == pytest.approx(d["sm_count"] * d["fp32_lanes_per_sm"] * d["clock_mhz"] * 2e-3)
    assert d["peak_gflops"] > 1000


# ----------------------------------------------------------------------------- configurations per device

def test_launches_use_the_active_configuration():
    import cupy

    from kernels import configs, launch

    A = cupy.ones((300, 40), dtype=cupy.float32)
    B = cupy.ones((40, 520), dtype=cupy.float32)
    for name in registry.configurable():
        spec = configs.spec_for(name)
        prepared = launch.prepare(name, A, B)
        assert prepared.plan.shared_mem == spec.dynamic_smem and prepared.block == (*spec.block, 1), name
        assert prepared.grid == spec.grid(300, 520), name
        assert float(abs(prepared() - 40.0).max()) == 0.0, name
    profile = configs.active_profile()
    if profile is None:   # no profile: this GPU's limits chose the configuration
        assert configs.active_limits() == configs.current_limits()
        if configs.current_limits().cc == (9, 0):   # an H100 or H200 keeps the tuned, shipped source
            assert all(configs.spec_for(n) == registry.KERNELS[n] for n in registry.configurable())
    else:
        assert configs.active_limits() == profile


def test_a_configuration_too_big_for_the_gpu_is_refused_in_korean(monkeypatch):
    """The H100's configuration on a (pretended) T4: a Korean DeviceLimitError before any launch, and a
    chapter's measurement cell falls back to the recorded results with that note."""
    import cupy

    from course.page import measure_or_recorded
    from kernels import configs, devices, launch
    from kernels.errors import DeviceLimitError

    monkeypatch.setenv("COURSE_DEVICE_PROFILE", "H100")
    monkeypatch.setattr(configs, "current_limits", lambda: devices.profile("T4"))
    A = cupy.ones((64, 32), dtype=cupy.float32)
    with pytest.raises(DeviceLimitError, match="sgemm_warp_tiling.*공유 메모리"):
        launch.run("sgemm_warp_tiling", A, A.T.copy())
    results = measure_or_recorded(["sgemm_warp_tiling"], sizes=(1024,), reps=2)
    assert not results.live and "sgemm_warp_tiling" in results.why_recorded and results.rows


# ----------------------------------------------------------------------------- every shape cuBLAS takes

TALL = (4_200_000, 3, 16)   # 262,500 rows of 16-row tiles: four times what grid y holds


@pytest.fixture(scope="module")
def tall_operands():
    """shape -> (A, B, cuBLAS's A @ B, a finite C0), each made once for every kernel that asks."""
    from kernels.check import random_matrix, reference

    made = {}

    def get(M, N, K):
        if (M, N, K) not in made:
            A, B = random_matrix(M, K, 41), random_matrix(K, N, 42)
            made[(M, N, K)] = (A, B, reference(A, B, None, 1.0, 0.0), random_matrix(M, N, 43))
        return made[(M, N, K)]

    return get


def _tall_shapes(spec) -> list[tuple[int, int, int]]:
    """4,200,000 x 3 x 16, its transpose, and the shape whose long side is one tile row past 65,536 tiles for this
    kernel's tile (so that Levels 3-6, with 128-row tiles, fold too: 4,200,000 rows are only 32,813 of them)."""
    rows, cols = spec.tile
    along_y = cols if spec.grid_rows_from_x else rows
    long = 65_536 * along_y + 100
    own = (3, long, 16) if spec.grid_rows_from_x else (long, 3, 16)
    return [TALL, (TALL[1], TALL[0], TALL[2]), own]


@pytest.mark.parametrize("name", ALL)
def test_tall_products_run_on_every_level(name, tall_operands):
    """4,200,000 x 3 x 16, 3 x 4,200,000 x 16 and a C past 65,536 tiles along grid y, against cuBLAS: the tiles
    continue grid y in z (Level 7 lays its tiles along x), every element is written (C starts as NaN with
    beta = 0), and beta != 0 reads C where it should."""
    import cupy

    from kernels import launch
    from kernels.check import REL_TOLERANCE, compare

    spec = registry.get(name)
    for M, N, K in _tall_shapes(spec):
        A, B, ab, C0 = tall_operands(M, N, K)
        for alpha, beta in ((1.0, 0.0), (-1.5, 0.25)):
            C = cupy.full((M, N), cupy.nan, dtype=cupy.float32) if beta == 0.0 else C0.copy()
            prepared = launch.prepare(name, A, B, C, alpha, beta)
            x, y, z = prepared.grid
            assert x <= 2**31 - 1 and y <= 65535 and z <= 65535, (name, prepared.grid)
            if not spec.dispatch:
                rows, cols = spec.tile
                tiles_y = -(-prepared.plan.kernel_N // cols) if spec.grid_rows_from_x else -(-M // rows)
                assert (z > 1) == (tiles_y > 65535) and y * z >= tiles_y, (name, M, N, prepared.grid)
            prepared()
            expected = alpha * ab + (beta * C0 if beta else 0.0)
            err, _, bad = compare(C, expected)
            assert bad == 0 and err <= REL_TOLERANCE, f"{name} {M}x{N}x{K} a={alpha} b={beta}: {bad} NaN/Inf, err {err:.1e}"


@pytest.mark.parametrize("name", [n for n in ALL if not registry.get(n).dispatch])
def test_folded_grid_positions_past_the_last_tile_write_nothing(name, monkeypatch):
    """With grid y lowered to 3 blocks, small C's fold into z, the last z plane holding positions past the last
    tile (1000 rows: 63 tiles of 16 -> 3 x 21, 8 tiles of 128 -> 3 x 3; 300 columns for the strided mapping)."""
    monkeypatch.setattr(registry, "GRID_Y_FOLD", 3)
    for i, (M, N, K) in enumerate([(1000, 70, 33), (100, 300, 20), (37, 300, 70)]):
        for alpha, beta in ((1.0, 0.0), (0.5, -1.0)):
            _assert_ok(check(name, M, N, K, alpha=alpha, beta=beta, seed=600 + i), {"grid_y_max": 3})


def _poisoned(rows, cols, seed, specials, **layout):
    """random_matrix with +-Inf and NaN at a few places."""
    import cupy

    from kernels.check import random_matrix

    X = random_matrix(rows, cols, seed, **layout)
    for (r, c), v in zip(((0, 0), (rows // 2, cols // 3), (rows - 1, cols - 1)), specials):
        X[r, c] = cupy.float32(v)
    return X


@pytest.mark.parametrize("name", ALL)
def test_alpha_zero_reads_neither_a_nor_b(name):
    """BLAS: with alpha = 0, A and B are not read, so an Inf or NaN in them leaves C = beta * C finite (0 x Inf would
    be NaN); with beta = 0 too, C becomes zeros without being read (it starts as NaN). Also through a transposed C
    and through the unpacked launch (kernel, grid, block, args, C)."""
    import cupy

    from kernels import launch

    inf, nan = float("inf"), float("nan")
    for layout in ({}, {"transposed": True}, {"offset": 1}):
        A = _poisoned(67, 45, 1, (inf, nan, -inf), **layout)
        B = _poisoned(45, 70, 2, (-inf, inf, nan), **layout)
        C = _poisoned(67, 70, 3, (), **layout)
        C0 = C.copy()
        launch.run(name, A, B, C, alpha=0.0, beta=0.5)
        assert bool(cupy.array_equal(C, cupy.float32(0.5) * C0)), (name, layout)
        C.fill(cupy.nan)
        launch.run(name, A, B, C, alpha=0.0, beta=0.0)
        assert not bool(cupy.any(C != 0)), (name, layout)
    fresh = launch.run(name, A, B, alpha=0.0)
    assert fresh.shape == (67, 70) and not bool(cupy.any(fresh != 0)), name
    C = C0.copy()
    kernel, grid, block, args, out = launch.prepare(name, A, B, C, 0.0, 2.0)
    kernel(grid, block, args)
    assert out is C and bool(cupy.array_equal(C, cupy.float32(2.0) * C0)), name
