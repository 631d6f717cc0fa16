"""Timing the kernels against cuBLAS on the same device, in the same run.

Each measurement: a warm-up, then `reps` launches each bracketed by CUDA events; we keep the
median (robust to the odd slow launch), min and max. Derived metrics:
  GFLOP/s  = 2MNK / t
  GB/s     = minimum bytes (A, B read once, C written once) / t
  % peak   = GFLOP/s over SMs x FP32 lanes x clock x 2 of this device
  % cuBLAS = cuBLAS median time / kernel median time, measured in alternation (same conditions)
"""
from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field
from typing import Iterable

import numpy as np

from kernels import check, compiler, configs, launch, registry
from kernels.device import info


@dataclass
class Timing:
    median_ms: float
    min_ms: float
    max_ms: float
    reps: int

    @classmethod
    def of(cls, samples: list[float]) -> "Timing":
        return cls(statistics.median(samples), min(samples), max(samples), len(samples))


@dataclass
class BenchRow:
    kernel: str
    level: int | None
    variant: str
    M: int
    N: int
    K: int
    median_ms: float
    min_ms: float
    max_ms: float
    reps: int
    gflops: float
    gbs: float
    pct_peak: float | None
    pct_cublas: float | None
    rel_error: float | None
    registers: int | None = None
    staged: list = field(default_factory=list)   # operands the launcher staged (empty: direct launch)
    smem_static: int | None = None
    smem_dynamic: int | None = None
    local_bytes: int | None = None
    extra: dict = field(default_factory=dict)

    def as_row(self) -> dict:
        row = asdict(self)
        row.pop("extra")
        row.update(self.extra)
        return row


RESOURCE_FIELDS = ("registers", "smem_static", "smem_dynamic", "local_bytes")


def time_callable(fn, warmup: int, reps: int) -> Timing:
    """Median/min/max milliseconds of `fn()` measured with CUDA events around each call."""
    import cupy

    for _ in range(warmup):
        fn()
    cupy.cuda.get_current_stream().synchronize()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    samples = []
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(cupy.cuda.get_elapsed_time(start, end))
    return Timing.of(samples)


def _row(name, spec, M, N, K, t: Timing, peak, cublas_ms, rel_error, res, staged=()) -> BenchRow:
    flops = registry.flops(M, N, K)
    gflops = flops / (t.median_ms * 1e6)
    return BenchRow(staged=list(staged),
        kernel=name, level=spec.level if spec else None, variant=spec.variant if spec else "cuBLAS SGEMM (FP32)",
        M=M, N=N, K=K, median_ms=t.median_ms, min_ms=t.min_ms, max_ms=t.max_ms, reps=t.reps,
        gflops=gflops, gbs=registry.min_bytes(M, N, K) / (t.median_ms * 1e6),
        pct_peak=100 * gflops / peak if peak else None,
        pct_cublas=100 * cublas_ms / t.median_ms if cublas_ms else None,
        rel_error=rel_error, **(res or {}),
    )


def interleaved_timings(first, second, warmup: int, reps: int) -> tuple[Timing, Timing]:
    """Time two callables in alternation (first, second, first, ...).

    A GPU's clock drifts with temperature and power; alternating the two measurements exposes
    both to the same conditions, so their ratio (here: % of cuBLAS) stays meaningful.
    """
    import cupy

    for _ in range(warmup):
        first()
        second()
    cupy.cuda.get_current_stream().synchronize()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(reps):
        for fn, out in ((first, samples[0]), (second, samples[1])):
            start.record()
            fn()
            end.record()
            end.synchronize()
            out.append(cupy.cuda.get_elapsed_time(start, end))
    return Timing.of(samples[0]), Timing.of(samples[1])


def bench_size(names: Iterable[str], M: int, N: int, K: int, warmup: int = 3, reps: int = 20,
               seed: int = 0, progress=None) -> list[BenchRow]:
    """Each kernel at one size, timed in alternation with cuBLAS, and checked against it first."""
    import cupy

    peak = info()["peak_gflops"]
    A = check.random_matrix(M, K, seed)
    B = check.random_matrix(K, N, seed + 1)
    C = cupy.empty((M, N), dtype=cupy.float32)
    C_ref = cupy.empty((M, N), dtype=cupy.float32)
    check._require_tf32_off()

    def cublas():
        cupy.matmul(A, B, out=C_ref)

    ref = cupy.matmul(A, B)
    rows: list[BenchRow] = []
    cublas_samples: list[float] = []
    for name in names:
        spec = configs.spec_for(name)   # the active device's configuration of the kernel
        prepared = launch.prepare(name, A, B, C)
        kernel, grid, block, kargs, _ = prepared
        C.fill(cupy.nan)   # poison: every element must be written by this kernel
        kernel(grid, block, kargs)
        rel_error, _, non_finite = check.compare(C, ref)
        if non_finite:
            rel_error = float("nan")
        # On the staged path `kernel` includes the copies into and out of the padded buffers:
        # the time a caller of run() waits for.
        t_cublas, t = interleaved_timings(cublas, lambda: kernel(grid, block, kargs), warmup, reps)
        cublas_samples.append(t_cublas.median_ms)
        res = {k: v for k, v in compiler.resources(name).items() if k in RESOURCE_FIELDS}
        row = _row(name, spec, M, N, K, t, peak, t_cublas.median_ms, rel_error, res, prepared.staged)
        if spec.family:
            row.extra.update(config=dict(spec.config), config_text=configs.config_text(spec))
        if prepared.staged:   # the kernel alone on the padded buffers, to show what staging costs
            _, t_kernel = interleaved_timings(
                cublas, lambda: prepared.kernel(grid, block, prepared.args, shared_mem=prepared.plan.shared_mem),
                warmup, reps)
            row.extra.update(kernel_only_ms=t_kernel.median_ms, padded_N=prepared.plan.kernel_N,
                             padded_K=prepared.plan.kernel_K)
        rows.append(row)
        if progress is not None:
            progress.update(1)
    if cublas_samples:   # one cuBLAS row per size: the median of the medians measured beside each kernel
        median = statistics.median(cublas_samples)
        t = Timing(median, min(cublas_samples), max(cublas_samples), len(cublas_samples))
        rows.insert(0, _row("cublas", None, M, N, K, t, peak, median, 0.0, None))
    return rows


def bench(names: Iterable[str], sizes: Iterable[int | tuple[int, int, int]], warmup: int = 3, reps: int = 20,
          show_progress: bool = True) -> list[BenchRow]:
    """Benchmark kernels at square sizes (n) or (M, N, K) triples, with a progress bar."""
    names = list(names)
    shapes = [s if isinstance(s, tuple) else (s, s, s) for s in sizes]
    for n in names:
        registry.get(n)   # fail fast on a typo, before any GPU work
    bar = _progress(len(names) * len(shapes), show_progress)
    rows: list[BenchRow] = []
    try:
        for M, N, K in shapes:
            if bar is not None:
                bar.set_description(f"{M}×{N}×{K}")
            rows += bench_size(names, M, N, K, warmup, reps, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    return rows


def _progress(total: int, show: bool):
    if not show:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="kernel", leave=False)


def format_table(rows: list[BenchRow | dict]) -> str:
    """A plain-text table a learner can read at a glance."""
    dicts = [r.as_row() if isinstance(r, BenchRow) else r for r in rows]
    head = f"{'kernel':<31} {'M×N×K':>16} {'median ms':>10} {'GFLOP/s':>10} {'GB/s':>8} {'%peak':>6} {'%cuBLAS':>8} {'rel.err':>9} {'regs':>5}"
    lines = [head, "-" * len(head)]
    for r in dicts:
        shape = f"{r['M']}×{r['N']}×{r['K']}"
        pct_peak = f"{r['pct_peak']:.1f}" if r.get("pct_peak") is not None else "-"
        pct_cublas = f"{r['pct_cublas']:.1f}" if r.get("pct_cublas") is not None else "-"
        err = f"{r['rel_error']:.1e}" if r.get("rel_error") is not None else "-"
        regs = str(r["registers"]) if r.get("registers") is not None else "-"
        lines.append(f"{r['kernel']:<31} {shape:>16} {r['median_ms']:>10.3f} {r['gflops']:>10.0f} {r['gbs']:>8.0f} "
                     f"{pct_peak:>6} {pct_cublas:>8} {err:>9} {regs:>5}")
    return "\n".join(lines)


def variant_rows(file: str, name: str, defines: dict, block: tuple, tile: tuple, dynamic_smem: int,
                 sizes, reps: int = 20, warmup: int = 3, seed: int = 0) -> list[dict]:
    """One compile-time variant of a kernel file (extra #defines), checked and timed against cuBLAS.

    For each square size n: NaN-poisoned C, relative error against cuBLAS, then `reps` timings in
    alternation with cuBLAS. `tile` is (rows, columns) of C per block, as in the registry.
    """
    import cupy

    kernel = compiler.get_variant(file, name, defines, dynamic_smem, block[0] * block[1])
    rows = []
    for n in sizes:
        A, B = check.random_matrix(n, n, seed), check.random_matrix(n, n, seed + 1)
        C = cupy.empty((n, n), dtype=cupy.float32)
        C_ref = cupy.matmul(A, B)
        grid = (-(-n // tile[1]), -(-n // tile[0]), 1)
        args = (A, B, C, *(np.int32(v) for v in (n, n, n, n, n, n)), np.float32(1.0), np.float32(0.0))

        def launch():
            kernel(grid, (*block, 1), args, shared_mem=dynamic_smem)

        C.fill(cupy.nan)
        launch()
        err, _, non_finite = check.compare(C, C_ref)
        t_cublas, t = interleaved_timings(lambda: cupy.matmul(A, B, out=C_ref), launch, warmup, reps)
        rows.append({
            "kernel": name, "defines": dict(defines), "M": n, "N": n, "K": n,
            "median_ms": t.median_ms, "min_ms": t.min_ms, "max_ms": t.max_ms, "reps": t.reps,
            "gflops": registry.flops(n, n, n) / (t.median_ms * 1e6),
            "cublas_ms": t_cublas.median_ms, "pct_cublas": 100 * t_cublas.median_ms / t.median_ms,
            "rel_error": err if not non_finite else float("nan"),
            "registers": int(kernel.num_regs), "smem_static": int(kernel.shared_size_bytes),
            "smem_dynamic": dynamic_smem, "local_bytes": int(kernel.local_size_bytes),
        })
        del A, B, C, C_ref
    return rows
