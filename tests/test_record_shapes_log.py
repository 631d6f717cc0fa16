"""tools/record_shapes.py's printed lines read back (--from-log): every timed line carries its rounds, the calls per
event pair of the kernel and of cuBLAS, and the operand copies, so a record rebuilt from a log keeps them; a log
from before the timing protocol (no calls or copies) yields no rows and is refused."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import record_shapes  # noqa: E402
from kernels.timing import Timing  # noqa: E402


def _line(name: str, M: int, N: int, K: int, t: Timing, t_cb: Timing) -> str:
    gflops = 2.0 * M * N * K / (t.median_ms * 1e6)
    return record_shapes.log_line(name, t, t_cb, {"gflops": gflops, "pct_cublas": 100 * t_cb.median_ms / t.median_ms})


def test_a_printed_line_reads_back_with_its_calls_and_copies():
    t, t_cb = Timing(0.125, 0.12, 0.13, 9, calls=16, copies=32), Timing(0.1, 0.1, 0.1, 9, calls=20, copies=32)
    log = "\n".join(["256x256x256", _line("sgemm_tiled", 256, 256, 256, t, t_cb)])
    rows = record_shapes.rows_from_log(log, None, 0.0, 1e5)
    cublas, tiled = rows
    assert tiled["kernel"] == "sgemm_tiled" and tiled["median_ms"] == pytest.approx(0.125)
    assert (tiled["reps"], tiled["calls"], tiled["copies"]) == (9, 16, 32)
    assert tiled["pct_cublas"] == pytest.approx(80.0) and "cublas_calls" not in tiled
    assert cublas["kernel"] == "cublas" and (cublas["calls"], cublas["copies"]) == (20, 32)
    assert cublas["median_ms"] == pytest.approx(0.1)


def test_a_log_from_before_the_protocol_gives_no_rows():
    old = "256x256x256\n  sgemm_tiled                  0.125 ms    0.3 TFLOP/s   80.0% cuBLAS reps 20"
    assert record_shapes.rows_from_log(old, None, 0.0, 1e5) == []
