"""GPU suite: every kernel against cuBLAS (run on a GPU machine with `make gpu-test`)."""
from __future__ import annotations

import zlib

import pytest

from kernels import registry
from kernels.__main__ import random_shapes
from kernels.check import ALPHA_BETA_CASES, awkward_shapes, check

pytestmark = pytest.mark.gpu

RANDOM_SHAPES_PER_KERNEL = 16   # x 13 kernels = 208 random shapes in total
ALL = sorted(registry.KERNELS)


def _assert_ok(r):
    assert r.non_finite == 0, f"{r.kernel} {r.M}x{r.N}x{r.K}: {r.non_finite} NaN/Inf outputs (unwritten or C read with beta=0)"
    assert r.ok, f"{r.kernel} {r.M}x{r.N}x{r.K} alpha={r.alpha} beta={r.beta}: rel.err {r.rel_error:.2e}"


@pytest.mark.parametrize("name", ALL)
def test_random_shapes(name):
    spec = registry.get(name)
    for i, (M, N, K) in enumerate(random_shapes(RANDOM_SHAPES_PER_KERNEL, spec.vec4, seed=zlib.crc32(name.encode()) % 1000)):
        _assert_ok(check(name, M, N, K, seed=100 + i))


@pytest.mark.parametrize("name", ALL)
def test_awkward_shapes(name):
    for i, (M, N, K) in enumerate(awkward_shapes(registry.get(name))):
        _assert_ok(check(name, M, N, K, seed=200 + i))


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("alpha,beta", ALPHA_BETA_CASES)
def test_alpha_beta(name, alpha, beta):
    _assert_ok(check(name, 136, 260, 72, alpha=alpha, beta=beta, seed=7))


@pytest.mark.parametrize("name", ALL)
def test_leading_dimension_views(name):
    """A, B and C as views into wider buffers (lda > K, ldb > N, ldc > N)."""
    pad = 4 if registry.get(name).vec4 else 3
    _assert_ok(check(name, 67, 132, 36, seed=11, ld_pad=pad))
    _assert_ok(check(name, 67, 132, 36, alpha=0.5, beta=-1.0, seed=12, ld_pad=pad))


@pytest.mark.parametrize("name", ALL)
def test_large_square(name):
    _assert_ok(check(name, 1024, 1024, 1024, seed=3))


@pytest.mark.parametrize("name", ["sgemm_async_copy", "sgemm_async_copy_vec", "sgemm_double_buffer"])
@pytest.mark.parametrize("K", [4, 8, 12, 16, 20, 24, 32, 40])
def test_pipeline_tails(name, K):
    """1 to 5 K tiles: the prologue and the tail of the pipeline are all that run."""
    _assert_ok(check(name, 130, 132, K, seed=K))


def test_beta_zero_never_reads_c():
    """With beta = 0 a NaN-filled C must come back finite for every kernel."""
    for name in ALL:
        r = check(name, 128, 128, 64, alpha=1.0, beta=0.0, seed=5)
        assert r.non_finite == 0, name


def test_launch_errors_on_gpu():
    import cupy

    from kernels import KernelInputError, run

    A = cupy.ones((64, 32), dtype=cupy.float32)
    B = cupy.ones((32, 64), dtype=cupy.float32)
    with pytest.raises(KernelInputError, match="float32"):
        run("sgemm_naive", A.astype(cupy.float64), B)
    with pytest.raises(KernelInputError, match="shape"):
        run("sgemm_naive", A, B[:16])
    with pytest.raises(KernelInputError, match="16바이트"):
        buf = cupy.ones(64 * 33, dtype=cupy.float32)[1:1 + 64 * 32].reshape(64, 32)
        run("sgemm_coalesced", buf, B)
    with pytest.raises(KernelInputError, match="4의 배수"):
        run("sgemm_register_blocking", cupy.ones((8, 6), dtype=cupy.float32), cupy.ones((6, 8), dtype=cupy.float32))
    with pytest.raises(KernelInputError, match="aliasing"):
        sq = cupy.ones((32, 32), dtype=cupy.float32)
        run("sgemm_tiled", sq, sq, sq)
    with pytest.raises(KernelInputError, match="beta"):
        run("sgemm_tiled", A, B, None, beta=1.0)


def test_second_bench_compiles_nothing():
    from kernels import bench, compiler

    bench.bench(["sgemm_naive", "sgemm_tiled"], [256], reps=2, warmup=1, show_progress=False)
    before = compiler.compile_count
    rows = bench.bench(["sgemm_naive", "sgemm_tiled"], [256], reps=2, warmup=1, show_progress=False)
    assert compiler.compile_count == before
    assert {r.kernel for r in rows} == {"cublas", "sgemm_naive", "sgemm_tiled"}
    assert all(r.rel_error is not None and r.rel_error < 1e-5 for r in rows)


def test_resources_match_registry():
    from kernels import compiler

    for name, spec in registry.KERNELS.items():
        res = compiler.resources(name)
        assert res["local_bytes"] == 0, f"{name} spills to local memory"
        assert res["registers"] <= 255
        assert res["smem_static"] >= spec.static_smem, name
        assert res["smem_static"] <= spec.static_smem + 1024, name   # sm_90 may add 1 KiB reserved


def test_peak_from_device_properties():
    from kernels.device import info

    d = info()
    assert d["peak_gflops"] == pytest.approx(d["sm_count"] * d["fp32_lanes_per_sm"] * d["clock_mhz"] * 2e-3)
    assert d["peak_gflops"] > 1000
