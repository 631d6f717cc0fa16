"""Timing the kernels against cuBLAS on the same device, in the same run.

Times follow kernels/timing.py: per round one CUDA event pair around back-to-back calls queued behind a hold kernel,
rotating over operand copies larger than twice the L2; the subjects alternate by round; median over rounds.
Each kernel is first checked on one copy (NaN-poisoned C, against cuBLAS). Derived metrics:
  GFLOP/s  = 2MNK / t
  GB/s     = minimum bytes (A, B read once, C written once) / t
  % peak   = GFLOP/s over SMs x FP32 lanes x clock x 2 of this device
  % cuBLAS = cuBLAS median time / kernel median time, measured in alternation (same conditions)
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np

from kernels import check, configs, launch, loader, registry, timing
from kernels.device import info
from kernels.timing import Timing


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
    calls: int = 1          # back-to-back calls per event pair (kernels/timing.py)
    copies: int = 1         # operand copies the calls rotated over
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


def _calls(subject) -> list[Callable[[], None]]:
    """One callable, or a list/tuple of them (one per operand copy)."""
    return list(subject) if isinstance(subject, (list, tuple)) else [subject]


def time_callable(fn, warmup: int, reps: int) -> Timing:
    """GPU milliseconds per call of `fn()` (or of a list of callables, one per operand copy, rotated over), by
    kernels/timing.py's protocol: `reps` rounds, each an event pair around back-to-back calls behind a hold."""
    return timing.alternate({"fn": _calls(fn)}, rounds=reps, warmup=warmup)["fn"]


def _row(name, spec, M, N, K, t: Timing, peak, cublas_ms, rel_error, res, staged=()) -> BenchRow:
    flops = registry.flops(M, N, K)
    gflops = flops / (t.median_ms * 1e6)
    return BenchRow(staged=list(staged),
        kernel=name, level=spec.level if spec else None, variant=spec.variant if spec else "cuBLAS SGEMM (FP32)",
        M=M, N=N, K=K, median_ms=t.median_ms, min_ms=t.min_ms, max_ms=t.max_ms, reps=t.reps,
        gflops=gflops, gbs=registry.min_bytes(M, N, K) / (t.median_ms * 1e6),
        pct_peak=100 * gflops / peak if peak else None,
        pct_cublas=100 * cublas_ms / t.median_ms if cublas_ms else None,
        rel_error=rel_error, calls=t.calls, copies=t.copies, **(res or {}),
    )


def interleaved_timings(first, second, warmup: int, reps: int) -> tuple[Timing, Timing]:
    """Time two subjects in alternation (kernels/timing.py: `reps` rounds, the turn order rotating by round).

    Each subject is a callable, or a list of callables doing the same work on different operand copies (the
    calls then rotate over them). A GPU's clock drifts with temperature and power; alternating the two
    measurements exposes both to the same conditions, so their ratio (here: % of cuBLAS) stays meaningful.
    """
    times = timing.alternate({"first": _calls(first), "second": _calls(second)}, rounds=reps, warmup=warmup)
    return times["first"], times["second"]


def cublas_calls(copies: Sequence[tuple]) -> list[Callable[[], None]]:
    """cuBLAS on each operand copy (A_i, B_i, C_i), writing C_i."""
    import cupy

    return [lambda A=A, B=B, C=C: cupy.matmul(A, B, out=C) for A, B, C in copies]


def bench_size(names: Iterable[str], M: int, N: int, K: int, warmup: int = 3, reps: int = 20,
               seed: int = 0, progress=None) -> list[BenchRow]:
    """Each kernel at one size, checked against cuBLAS on one operand copy, then timed in alternation with
    cuBLAS over all copies (kernels/timing.py)."""
    import cupy

    peak = info()["peak_gflops"]
    check._require_tf32_off()
    copies = timing.operand_copies(M, N, K, seed)
    A0, B0, C0 = copies[0]
    ref = cupy.matmul(A0, B0)
    cublas = cublas_calls(copies)
    rows: list[BenchRow] = []
    cublas_times: list[Timing] = []
    for name in names:
        spec = configs.spec_for(name)   # the active device's configuration of the kernel
        launches = [launch.prepare(name, A, B, C) for A, B, C in copies]
        first = launches[0]
        rel_error, _ = check.poisoned_run(first, C0, ref)   # every element must be written by this kernel
        # On the staged path a launch includes the copies into and out of the padded buffers:
        # the time a caller of run() waits for.
        t_cublas, t = interleaved_timings(cublas, launches, warmup, reps)
        cublas_times.append(t_cublas)
        res = {k: v for k, v in loader.resources(name).items() if k in RESOURCE_FIELDS}
        row = _row(name, spec, M, N, K, t, peak, t_cublas.median_ms, rel_error, res, first.staged)
        if spec.family:
            row.extra.update(config=dict(spec.config), config_text=configs.config_text(spec))
        if first.staged:   # the kernel alone on the padded buffers, to show what staging costs
            alone = [lambda p=p: p.kernel(p.grid, p.block, p.args, shared_mem=p.plan.shared_mem) for p in launches]
            _, t_kernel = interleaved_timings(cublas, alone, warmup, reps)
            row.extra.update(kernel_only_ms=t_kernel.median_ms, padded_N=first.plan.kernel_N,
                             padded_K=first.plan.kernel_K)
        rows.append(row)
        if progress is not None:
            progress.update(1)
        del launches, first
    if cublas_times:   # one cuBLAS row per size: the median of the medians measured beside each kernel
        t = Timing.of([c.median_ms for c in cublas_times], cublas_times[-1].calls, len(copies))
        rows.insert(0, _row("cublas", None, M, N, K, t, peak, t.median_ms, 0.0, None))
    del copies, cublas, ref, A0, B0, C0
    cupy.get_default_memory_pool().free_all_blocks()
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

    For each square size n: NaN-poisoned C on one operand copy, relative error against cuBLAS, then `reps`
    rounds in alternation with cuBLAS over all copies (kernels/timing.py). `tile` is (rows, columns) of C per
    block, as in the registry.
    """
    import cupy

    kernel = loader.get_variant(file, name, defines, dynamic_smem, block[0] * block[1])
    rows = []
    for n in sizes:
        copies = timing.operand_copies(n, n, n, seed)
        grid = (-(-n // tile[1]), -(-n // tile[0]), 1)
        dims = tuple(np.int32(v) for v in (n, n, n, n, n, n)) + (np.float32(1.0), np.float32(0.0))
        launches = [lambda args=(A, B, C, *dims): kernel(grid, (*block, 1), args, shared_mem=dynamic_smem)
                    for A, B, C in copies]
        A0, B0, C0 = copies[0]
        C_ref = cupy.matmul(A0, B0)
        err, _ = check.poisoned_run(launches[0], C0, C_ref)
        t_cublas, t = interleaved_timings(cublas_calls(copies), launches, warmup, reps)
        rows.append({
            "kernel": name, "defines": dict(defines), "M": n, "N": n, "K": n,
            "median_ms": t.median_ms, "min_ms": t.min_ms, "max_ms": t.max_ms, "reps": t.reps,
            "calls": t.calls, "copies": t.copies,
            "gflops": registry.flops(n, n, n) / (t.median_ms * 1e6),
            "cublas_ms": t_cublas.median_ms, "pct_cublas": 100 * t_cublas.median_ms / t.median_ms,
            "rel_error": err,
            "registers": int(kernel.num_regs), "smem_static": int(kernel.shared_size_bytes),
            "smem_dynamic": dynamic_smem, "local_bytes": int(kernel.local_size_bytes),
        })
        del copies, launches, A0, B0, C0, C_ref
        cupy.get_default_memory_pool().free_all_blocks()
    return rows
