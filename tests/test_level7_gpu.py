"""Level 7 on a GPU: every path the dispatcher can take, against cuBLAS (run with `make gpu-test`).

Paths: every tile in the form each listed GPU gets (its ring), every split count the dispatcher may
choose, B in 16-byte and in 4-byte copies, C stored as float4 and element by element, and the path
below compute capability 8.0 (PTX for compute_75: no cp.async), on shapes that cut every tile, every
K tile and every K slice. Inputs are never zeros; with beta = 0, C starts as NaN (it must not be read);
errors are relative Frobenius norms against cuBLAS with TF32 off (kernels/check.py).
"""
from __future__ import annotations

import random

import pytest

from kernels import devices, launch, level7, registry
from kernels import level7_model as model
from kernels.check import ALPHA_BETA_CASES, REL_TOLERANCE, REQUIRED_SHAPES, compare, random_matrix, reference
from kernels.errors import KernelInputError

pytestmark = pytest.mark.gpu

# Shapes that cut the 128- and 64-row tiles, the 256- and 128-column tiles, the K tiles (8, 16, 32) and
# the slices, with N odd (the straddling 16-byte group of B), N = 1 and K = 1.
SHAPES = REQUIRED_SHAPES + [(130, 261, 300), (64, 128, 1024), (257, 4, 129), (2, 1, 700), (200, 300, 1)]
SPLITS = (1, 2, 3, 4, 8, 16)
LAYOUTS = ({}, {"offset": 1}, {"ld_pad": 3}, {"ld_pad": 4}, {"transposed": True})


def forms() -> list[tuple[str, model.Candidate]]:
    """Every (listed GPU, tile in the ring that GPU gets), one entry per distinct compiled form."""
    seen, out = set(), []
    for limits in devices.PROFILES.values():
        for cand in model.candidates(limits):
            key = (cand.tile.name, cand.BK, cand.STAGES)
            if key not in seen:
                seen.add(key)
                out.append((limits.name, cand))
    return out


def _check(launch_obj, C, ref_ab, C0, alpha, beta, where):
    launch_obj()
    expected = alpha * ref_ab + (beta * C0 if beta != 0.0 else 0.0)
    err, _, non_finite = compare(C, expected)
    assert non_finite == 0, f"{where}: {non_finite} NaN/Inf outputs (unwritten, or C read with beta = 0)"
    assert err <= REL_TOLERANCE, f"{where}: rel.err {err:.2e}"


def _run_case(M, N, K, seed, alpha, beta, layout=None, **force):
    """One launch, forced or dispatched, checked against cuBLAS; returns the launch."""
    import cupy

    layout = layout or {}
    A = random_matrix(M, K, seed, **layout)
    B = random_matrix(K, N, seed + 1, **layout)
    C = random_matrix(M, N, seed + 2, **layout)
    C0 = C.copy()
    ab = reference(A, B, None, 1.0, 0.0)
    if beta == 0.0:
        C.fill(cupy.nan)
    prepared = level7.prepare(A, B, C, alpha, beta, **force)
    where = f"{M}x{N}x{K} a={alpha} b={beta} {layout} {prepared.describe()} force={force}"
    _check(prepared, C, ab, C0, alpha, beta, where)
    return prepared


def _split_or_one(K: int, split: int, cand: model.Candidate) -> int:
    """`split` when it cuts K into exactly that many slices of `cand`'s K tiles (what a forced split must do),
    else 1."""
    return split if split in level7.valid_splits(K, cand, limit=split) else 1


@pytest.mark.parametrize("profile,cand", forms(), ids=lambda x: x.name if hasattr(x, "name") else str(x))
def test_every_form_every_split_both_b_widths(profile, cand, monkeypatch):
    """Each compiled form a listed GPU gets, run here with that GPU's limits, at every split it may take; a split
    that cannot cut K into that many slices is refused in Korean before anything runs."""
    import cupy

    monkeypatch.setenv(devices.PROFILE_ENV, profile)
    for i, (M, N, K) in enumerate(SHAPES):
        for split in SPLITS:
            if split not in level7.valid_splits(K, cand, limit=split):
                A, B = cupy.ones((M, K), dtype=cupy.float32), cupy.ones((K, N), dtype=cupy.float32)
                with pytest.raises(KernelInputError, match="split|K slice"):
                    level7.prepare(A, B, tile=cand.tile.name, split=split)
                continue
            for b16 in (None, False):
                alpha, beta = ALPHA_BETA_CASES[(i + split) % len(ALPHA_BETA_CASES)]
                prepared = _run_case(M, N, K, 10 * i + split, alpha, beta, tile=cand.tile.name, split=split, b16=b16)
                assert (prepared.choice.candidate.BK, prepared.choice.candidate.STAGES) == (cand.BK, cand.STAGES)


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_layouts_take_the_direct_path_where_they_can(layout):
    """Offset views and padded rows need no staging (4-byte B copies, element-wise C stores); only a
    transposed (not row-major) operand is copied."""
    for i, (M, N, K) in enumerate(SHAPES):
        for split in (1, 3):
            split = _split_or_one(K, split, level7.plan_for(M, N, K).candidate)
            prepared = _run_case(M, N, K, 300 + i, 1.5, 0.5, layout, split=split)
            # A transposed view is copied, unless it is one row or one column (then it is row-major too).
            not_row_major = layout.get("transposed") and any(r > 1 and c > 1 for r, c in ((M, K), (K, N), (M, N)))
            assert bool(prepared.staged) == bool(not_row_major), prepared.describe()
            if layout.get("offset"):
                assert not prepared.b16, prepared.describe()    # B starts 4 bytes past a 16-byte boundary


def test_padded_rows_with_odd_n_use_16_byte_copies_of_the_group_inside():
    """ld_pad = 4 with N odd: rows stay 16-byte aligned, and the last group of B straddles N."""
    prepared = _run_case(129, 257, 63, 7, 1.0, 0.0, {"ld_pad": 3}, split=2)
    assert prepared.plan.ldb == 260 and prepared.b16


def test_the_dispatcher_on_random_shapes_and_layouts():
    rng = random.Random(7)
    for i in range(150):
        M, N, K = rng.randint(1, 700), rng.randint(1, 700), rng.randint(1, 3000)
        alpha, beta = rng.choice(ALPHA_BETA_CASES)
        _run_case(M, N, K, 500 + i, alpha, beta, rng.choice(LAYOUTS))


@pytest.mark.parametrize("tile,b16", [("128x256", True), ("128x128", False), ("64x128", True)])
def test_below_sm80_path_compiled_as_compute_75_ptx(tile, b16):
    """The T4's path (cp.async compiles to plain loads and stores), translated by this GPU's driver."""
    for i, (M, N, K) in enumerate([(33, 65, 17), (129, 260, 300), (200, 132, 1025)]):
        for split in (1, 3):
            split = _split_or_one(K, split, model.ring_for(model.TILE_BY_NAME[tile], level7.device_model()[0]))
            _run_case(M, N, K, 700 + i, -1.5, 0.25 if split == 3 else 0.0, tile=tile, split=split,
                      b16=b16 if N % 4 == 0 else False, ptx_arch="compute_75")


def test_results_are_bitwise_identical_run_to_run():
    """No float atomics: the reduction adds the slices in a fixed order, so C is the same to the last bit."""
    import cupy

    for M, N, K, split in [(300, 400, 5000, 8), (128, 4096, 4096, 8), (1000, 1023, 1025, 1)]:
        A, B = random_matrix(M, K, 1), random_matrix(K, N, 2)
        C0 = random_matrix(M, N, 3)
        results = []
        for _ in range(3):
            C = C0.copy()
            level7.prepare(A, B, C, 0.75, 0.5, split=split)()
            results.append(C.view(cupy.uint32).copy())
        assert all(bool(cupy.array_equal(results[0], r)) for r in results[1:]), (M, N, K, split)


def test_registry_path_runs_the_dispatcher_and_unpacks_like_every_level():
    import cupy

    A, B = random_matrix(128, 4096, 1), random_matrix(4096, 1024, 2)
    C = cupy.full((128, 1024), cupy.nan, dtype=cupy.float32)
    prepared = launch.prepare("sgemm_shape_aware", A, B, C)
    assert isinstance(prepared, level7.ShapeAwareLaunch) and prepared.split > 1
    kernel, grid, block, args, out = prepared
    kernel(grid, block, args)
    err, _, bad = compare(out, reference(A, B, None, 1.0, 0.0))
    assert bad == 0 and err <= REL_TOLERANCE
    assert registry.get("sgemm_shape_aware").dispatch == "level7"


def test_the_zoo_shapes_are_correct_with_the_dispatchers_choice():
    """The shapes tools/record_shapes.py times, at the configuration it records (skipping the largest)."""
    for i, (M, N, K) in enumerate(model.ZOO):
        if M * N * K <= 2 * 4096**3:
            _run_case(M, N, K, 900 + i, 1.0, 0.0)


# ----------------------------------------------------------------------------- every shape cuBLAS takes

def _big_random(rows: int, cols: int, seed: int):
    """Uniform(-1, 1) float32, row-major, drawn 2^28 elements at a time (each draw well inside int32)."""
    import cupy

    flat = cupy.empty(rows * cols, dtype=cupy.float32)
    step = 2**28
    for i, start in enumerate(range(0, flat.size, step)):
        n = min(step, flat.size - start)
        flat[start:start + n] = cupy.random.default_rng(seed * 1000 + i).uniform(-1.0, 1.0, size=n, dtype=cupy.float32)
    return flat.reshape(rows, cols)


def _reference_in_pieces(A, B, pieces: int = 4):
    """cuBLAS's A @ B computed a block of rows (or of columns, for a wide B) at a time."""
    import cupy

    M, N = A.shape[0], B.shape[1]
    out = cupy.empty((M, N), dtype=cupy.float32)
    if M >= N:
        step = -(-M // pieces)
        for r in range(0, M, step):
            out[r:r + step] = reference(A[r:r + step], B, None, 1.0, 0.0)
    else:
        step = -(-N // pieces)
        for c in range(0, N, step):
            out[:, c:c + step] = reference(A, cupy.ascontiguousarray(B[:, c:c + step]), None, 1.0, 0.0)
    return out


def _same_bits(X, Y) -> bool:
    import cupy

    return bool(cupy.array_equal(X.view(cupy.uint32), Y.view(cupy.uint32)))


def _check_big(A, B, ref, where: str, repeats: int = 2, **force):
    """Level 7 on operands above 2^31 elements against cuBLAS, then bitwise the same C on every repeat."""
    import cupy

    M, N = A.shape[0], B.shape[1]
    results = []
    for _ in range(repeats):
        C = cupy.full((M, N), cupy.nan, dtype=cupy.float32)
        prepared = level7.prepare(A, B, C, **force)
        prepared()
        results.append(C)
    err, _, bad = compare(results[0], ref)
    assert bad == 0 and err <= REL_TOLERANCE, f"{where} {prepared.describe()}: {bad} NaN/Inf, err {err:.1e}"
    assert all(_same_bits(results[0], r) for r in results[1:]), f"{where} {prepared.describe()}: runs differ"
    return prepared


def test_an_operand_above_2_31_elements():
    """A with 2^31 + 65,536 elements (M = 2^31/1024 + 64, K = 1024: about 8.6 GB): 64-bit offsets into A, C and the
    workspace, with the dispatcher's choice, one K slice and three (the reduction over slabs of 2.1 million rows)."""
    M, N, K = 2**31 // 1024 + 64, 8, 1024
    A, B = _big_random(M, K, 1), random_matrix(K, N, 2)
    assert A.size > 2**31
    ref = _reference_in_pieces(A, B)
    chosen = _check_big(A, B, ref, "dispatcher")
    assert not chosen.staged
    for tile, split in (("64x128", 1), ("128x256", 3)):
        prepared = _check_big(A, B, ref, f"{tile} split {split}", tile=tile, split=split)
        assert prepared.split == split and prepared.grid == model.grid(prepared.choice.tiles_m, 1, split)


@pytest.mark.parametrize("b16", [True, False])
def test_a_b_above_2_31_elements_with_rows_past_the_32_bit_step(b16):
    """B 32 x 80,000,000 (2.56e9 elements, about 10 GB): a thread's B copies lie up to 28 rows apart, 28 x ldb past
    int32, so the copier's steps must be 64-bit (size_t b_step), with 16-byte and 4-byte copies."""
    M, N, K = 2, 80_000_000, 32
    A, B = random_matrix(M, K, 3), _big_random(K, N, 4)
    assert B.size > 2**31 and 28 * N > 2**31
    ref = _reference_in_pieces(A, B)
    prepared = _check_big(A, B, ref, f"wide B b16={b16}", tile="128x256", split=1, b16=b16)
    assert prepared.b16 == b16


def test_a_c_past_65535_tile_rows_on_grid_x():
    """M = 4,194,305 in 64-row tiles is 65,537 tile rows, one more than grid.y holds: Level 7 lays its tiles along
    grid.x, forced or chosen, one K slice or two, bitwise the same on every run."""
    M, N, K = 4_194_305, 5, 256
    A, B = _big_random(M, K, 5), random_matrix(K, N, 6)
    ref = _reference_in_pieces(A, B)
    for split in (1, 2):
        prepared = _check_big(A, B, ref, f"64x128 split {split}", repeats=3, tile="64x128", split=split)
        assert prepared.grid == (65_537, 1, split)
    _check_big(A, B, ref, "dispatcher")


def test_forced_choices_past_the_limits_are_refused_before_launching():
    import cupy

    A, B = random_matrix(64, 300, 7), random_matrix(300, 64, 8)
    C = cupy.full((64, 64), 7.0, dtype=cupy.float32)
    for force, words in ((dict(split=70_000), "grid.z"), (dict(split=400), "split > K"),
                         (dict(tile="64x128", split=8), "7조각만"), (dict(split=0), "1 이상"),
                         (dict(tile="256x256"), "tile")):
        with pytest.raises(KernelInputError, match=words):
            level7.prepare(A, B, C, **force)
    assert bool((C == 7.0).all())   # nothing ran


@pytest.mark.parametrize("force", [{}, {"split": 3}, {"tile": "64x128", "split": 1}], ids=str)
def test_alpha_zero_with_inf_in_a(force):
    """BLAS: alpha = 0 reads neither A nor B, so Inf and NaN there leave C = beta * C (finite), and C = 0 with
    beta = 0 (C starting as NaN), on the dispatcher's path and on forced ones (no GEMM, no reduction)."""
    import cupy

    A, B = random_matrix(300, 700, 9), random_matrix(700, 260, 10)
    A[5, 7], A[100, 0], B[3, 3] = cupy.inf, -cupy.inf, cupy.nan
    C0 = random_matrix(300, 260, 11)
    C = C0.copy()
    level7.run(A, B, C, 0.0, 0.75, **force)
    assert bool(cupy.array_equal(C, cupy.float32(0.75) * C0)), force
    C.fill(cupy.nan)
    level7.run(A, B, C, 0.0, 0.0, **force)
    assert not bool(cupy.any(C != 0)), force
    C = C0.copy()
    launch.run("sgemm_shape_aware", A, B, C, alpha=0.0, beta=-2.0)
    assert bool(cupy.array_equal(C, cupy.float32(-2.0) * C0))


# ----------------------------------------------------------------------------- the streaming path (M or N <= 16)

def _stream_case(M, N, K, name, split, seed, alpha=1.0, beta=0.0, layout=None, b16=None, ptx_arch=None):
    prepared = _run_case(M, N, K, seed, alpha, beta, layout, tile=name, split=split, b16=b16, ptx_arch=ptx_arch)
    assert isinstance(prepared, level7.StreamLaunch) and prepared.choice.candidate.tile.name == name
    return prepared


def _stream_splits(K: int, cand: model.Candidate) -> list[int]:
    ok = level7.valid_splits(K, cand, limit=16)
    return sorted({ok[0], ok[len(ok) // 2], ok[-1]})


@pytest.mark.parametrize("name", model.STREAM_NAMES)
def test_stream_every_small_size_odd_k_and_splits(name):
    """Small side 1 .. 16 (every bucket, with 3, 5, 13 inside one), odd K (1 and 4133 included), the big side odd
    (the 4-byte path) and a multiple of 4 (float4), every bucket at one, a middle and the most slices; C NaN."""
    big_sides = (1029, 260)
    for i, small in enumerate((1, 2, 3, 4, 5, 8, 13, 16)):
        for j, K in enumerate((1, 37, 4133)):
            big = big_sides[(i + j) % 2]
            M, N = (small, big) if name == "stream-B" else (big, small)
            cand = model.stream_candidate(name, M, N, level7.device_model()[0])
            for split in _stream_splits(K, cand):
                alpha, beta = ALPHA_BETA_CASES[(i + j + split) % len(ALPHA_BETA_CASES)]
                p = _stream_case(M, N, K, name, split, 40 * i + 7 * j + split, alpha, beta)
                wide = p.plan.ldb if name == "stream-B" else p.plan.lda
                assert p.b16 == (wide % 4 == 0), p.describe()


@pytest.mark.parametrize("name", model.STREAM_NAMES)
@pytest.mark.parametrize("layout", [{"offset": 1}, {"ld_pad": 3}, {"ld_pad": 4}], ids=str)
def test_stream_views_with_leading_dimensions(name, layout):
    """Views: 4 bytes in (4-byte loads, element-wise C), padded rows (16-byte loads where ld % 4 == 0)."""
    M, N = (5, 777) if name == "stream-B" else (777, 5)
    for split in (1, 3):
        p = _stream_case(M, N, 1100, name, split, 77 + split, 1.5, 0.5, layout)
        assert not p.staged
        if layout.get("offset"):
            assert not p.b16


@pytest.mark.parametrize("name", model.STREAM_NAMES)
def test_stream_alpha_zero_and_forced_widths(name):
    import cupy

    M, N, K = (3, 300, 600) if name == "stream-B" else (300, 3, 600)
    A, B = random_matrix(M, K, 5), random_matrix(K, N, 6)
    A[0, 0], B[0, 0] = cupy.inf, cupy.nan
    C0 = random_matrix(M, N, 7)
    C = C0.copy()
    level7.run(A, B, C, 0.0, 0.5, tile=name, split=2)
    assert bool(cupy.array_equal(C, cupy.float32(0.5) * C0))
    _stream_case(M, N, K, name, 2, 9, 2.0, -1.0, b16=False)          # 4-byte loads on aligned rows
    _stream_case(M, N, K, name, 1, 9, 1.0, 0.0, ptx_arch="compute_75")  # the T4's code path


def test_stream_results_are_bitwise_identical_run_to_run():
    import cupy

    for M, N, K, name, split in [(13, 4100, 5000, "stream-B", 4), (4100, 13, 5000, "stream-A", 4),
                                 (1, 4096, 4096, "stream-B", 16)]:
        A, B, C0 = random_matrix(M, K, 1), random_matrix(K, N, 2), random_matrix(M, N, 3)
        results = []
        for _ in range(3):
            C = C0.copy()
            level7.prepare(A, B, C, 0.75, 0.5, tile=name, split=split)()
            results.append(C.view(cupy.uint32).copy())
        assert all(bool(cupy.array_equal(results[0], r)) for r in results[1:]), (M, N, K, split)


def test_the_dispatcher_streams_decode_shapes():
    for M, N, K in [(1, 4096, 4096), (4096, 8, 11008), (16, 1000, 3000), (3000, 7, 1000)]:
        p = _run_case(M, N, K, 3, 1.0, 0.0)
        assert isinstance(p, level7.StreamLaunch), p.describe()
