"""The recorded results the book shows without a GPU: complete, self-consistent, with provenance."""
from __future__ import annotations

import json

import pytest

from kernels import registry
from kernels.record import (AWKWARD_KERNELS, AWKWARD_SHAPES, DATA_DIR, LARGE_MIN_LEVEL, LARGE_SIZE, PAIR_SIZES,
                            PAIRS)

PROVENANCE = ("device", "driver", "cuda_runtime", "cupy", "date", "command", "git_commit")
ROW_FIELDS = ("kernel", "level", "variant", "M", "N", "K", "median_ms", "min_ms", "max_ms", "gflops", "gbs",
              "pct_peak", "pct_cublas", "rel_error", "registers", "smem_static", "local_bytes")


def load(name: str) -> dict:
    path = DATA_DIR / name
    if not path.exists():
        pytest.fail(f"{path} is missing: record it on a GPU (see README)")
    return json.loads(path.read_text(encoding="utf-8"))


def test_benchmarks_have_provenance_and_every_kernel_at_every_size():
    data = load("benchmarks.json")
    for key in PROVENANCE + ("peak_gflops", "sm_count", "fp32_lanes_per_sm", "clock_mhz", "bandwidth_gbs"):
        assert data.get(key), key
    sizes = sorted({r["M"] for r in data["rows"]})
    assert {1024, 2048, 4096, LARGE_SIZE} <= set(sizes)
    for n in sizes:
        at_n = {r["kernel"] for r in data["rows"] if r["M"] == r["N"] == r["K"] == n}
        benchmarked = registry.benchmarked_kernels()
        expected = set(benchmarked) if n != LARGE_SIZE else \
            {name for name in benchmarked if registry.get(name).level >= LARGE_MIN_LEVEL}
        assert at_n == expected | {"cublas"}, n


def test_awkward_shapes_record_the_staged_path_and_its_cost():
    data = load("benchmarks.json")
    rows = data["awkward_rows"]
    shapes = {(r["M"], r["N"], r["K"]) for r in rows}
    assert shapes == set(AWKWARD_SHAPES)
    for r in rows:
        if r["kernel"] == "cublas":
            continue
        assert r["kernel"] in AWKWARD_KERNELS and r["rel_error"] < 1e-5
        spec = registry.get(r["kernel"])
        assert set(r["staged"]) <= {"A", "B", "C"}
        if "A" not in spec.vec4 and r["N"] % 4 == 0:
            assert not r["staged"], r["kernel"]   # A in 4-byte copies: any K, no staging at all
        else:
            assert r["staged"], r["kernel"]       # K or N not a multiple of 4 breaks a float4 rule
            # the kernel alone on the padded buffers, timed in its own alternation: not slower than the staged
            # path (its copies included) beyond the two measurements' noise
            assert r["kernel_only_ms"] <= 1.05 * r["median_ms"], r["kernel"]


def test_benchmark_rows_are_complete_and_consistent():
    data = load("benchmarks.json")
    cublas = {r["M"]: r for r in data["rows"] if r["kernel"] == "cublas"}
    for r in data["rows"]:
        if r["kernel"] == "cublas":
            assert r["level"] is None
            continue
        for field in ROW_FIELDS:
            assert r.get(field) is not None, (r["kernel"], field)
        assert r["min_ms"] <= r["median_ms"] <= r["max_ms"]
        assert r["gflops"] == pytest.approx(registry.flops(r["M"], r["N"], r["K"]) / (r["median_ms"] * 1e6), rel=1e-6)
        assert r["pct_peak"] == pytest.approx(100 * r["gflops"] / data["peak_gflops"], rel=1e-6)
        assert r["rel_error"] < 1e-5, r["kernel"]
        assert r["local_bytes"] == 0, r["kernel"]
        assert r["level"] == registry.get(r["kernel"]).level
        # % of cuBLAS was measured in alternation; it must at least agree with the cuBLAS row's range.
        c = cublas[r["M"]]
        assert 100 * c["min_ms"] / r["median_ms"] * 0.9 <= r["pct_cublas"] <= 100 * c["max_ms"] / r["median_ms"] * 1.1


def test_peak_is_computed_from_device_properties():
    data = load("benchmarks.json")
    expected = data["sm_count"] * data["fp32_lanes_per_sm"] * data["clock_mhz"] * 2 / 1e3
    assert data["peak_gflops"] == pytest.approx(expected)


def test_profiles_cover_every_kernel_with_the_chapter_metrics():
    data = load("profiles.json")
    for key in PROVENANCE + ("tool", "ncu_options"):
        assert data.get(key), key
    assert "--clock-control none" in data["ncu_options"]
    names = {k["kernel"] for k in data["kernels"]}
    assert names == set(registry.profiled_kernels())
    for k in data["kernels"] + data["reference"]:
        for key in ("sm_pct", "mem_pct", "dram_pct", "achieved_occupancy_pct", "registers", "duration_ms",
                    "sectors_per_request", "dram_bytes", "issue_active_pct", "instructions", "ffma_instructions"):
            assert k.get(key) is not None, (k["kernel"], key)
        assert "Long Scoreboard" in k["stalls"] and "Barrier" in k["stalls"]
    naive = next(k for k in data["kernels"] if k["kernel"] == "sgemm_naive")
    assert naive["sectors_per_request"] == pytest.approx(2.0, abs=0.05)   # the A6 evidence module 4 quotes
    cublas = next(k for k in data["reference"] if k["kernel"] == "cublas")
    assert "gemm" in cublas["function"] and cublas["block_size"] > 0


def test_async_tuning_sweep_has_provenance_and_the_shipped_choice():
    data = load("async_tuning.json")
    for key in PROVENANCE:
        assert data.get(key), key
    stages = {r["STAGES"] for r in data["rows"] if r["STAGES"] is not None}
    assert {2, 3, 4} <= stages
    assert all(r["rel_error"] < 1e-5 for r in data["rows"])
    assert any(r["kernel"] == "sgemm_double_buffer" for r in data["rows"])   # Level 4 timed in the same run
    assert data["chosen"] == registry.LEVEL5


def test_level6_tuning_has_provenance_and_the_shipped_choice():
    data = load("level6_tuning.json")
    for key in PROVENANCE + ("rule",):
        assert data.get(key), key
    assert data["chosen"] == registry.LEVEL6
    for entry in data["configs"]:
        assert {r["M"] for r in entry["rows"]} == {2048, 4096, 8192}
        assert all(r["rel_error"] < 1e-5 for r in entry["rows"]) and entry["awkward_rel_error"] < 1e-5
    scored = [e for e in data["configs"] if e["score"] is not None]
    best = max(scored, key=lambda e: e["score"])
    chosen = next(e for e in scored if e["config"] == data["chosen"])
    # The shipped shape is the best, or within the recorded keep margin of it (run-to-run noise).
    assert best["score"] <= chosen["score"] * (1 + data["keep_margin"])


def test_pairwise_comparisons_were_timed_in_alternation():
    data = load("benchmarks.json")
    pairs = {(r["new"], r["old"], r["M"]) for r in data["pairs"]}
    for n in PAIR_SIZES:
        for new, old in PAIRS:
            assert (new, old, n) in pairs
    for r in data["pairs"]:
        assert r["speedup"] == pytest.approx(r["old_ms"] / r["new_ms"])


def _nulls(node, path=""):
    if node is None:
        return [path]
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in _nulls(v, f"{path}.{k}")]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _nulls(v, f"{path}[{i}]")]
    return []


def test_profiles_hold_no_null_and_count_cp_async():
    data = load("profiles.json")
    assert _nulls(data) == []
    rows = {(k["kernel"], tuple(sorted((k.get("defines") or {}).items()))): k for k in data["kernels"] + data["reference"]}
    for (name, _), k in rows.items():
        for key in ("ldgsts_sectors", "ldgsts_requests"):
            assert isinstance(k.get(key), (int, float)), (name, key)
        spec = registry.KERNELS.get(name)
        if spec is not None:
            assert (k["ldgsts_requests"] > 0) == spec.async_copy, name
    # On the H100 the global-load counters include the cp.async requests: the LDGSTS part never exceeds them.
    for (name, _), k in rows.items():
        assert k["ldgsts_requests"] <= k["global_ld_requests"] and k["ldgsts_sectors"] <= k["global_ld_sectors"], name
    for supplement in data.get("supplements", []):
        for key in PROVENANCE + ("tool", "keys", "profiled"):
            assert supplement.get(key), key


def test_variants_were_checked_and_timed_against_their_bases():
    from kernels.variants import VARIANTS

    data = load("variants.json")
    for key in PROVENANCE + ("method",):
        assert data.get(key), key
    assert set(data["variants"]) == set(VARIANTS)
    for row in data["rows"]:
        assert row["correct"] and row["nonfinite"] == 0 and row["rel_error_vs_base"] < 1e-5, row
        assert row["time_ratio"] == pytest.approx(row["variant_ms"] / row["base_ms"], rel=1e-3)
    assert {r["variant"] for r in data["rows"]} == set(VARIANTS)


def test_source_stalls_record_names_its_run():
    data = load("source_stalls.json")
    for key in ("device", "driver", "date", "command", "method", "tool"):
        assert data.get(key), key
    k = data["kernels"][0]
    assert k["kernel"] == "sgemm_async_copy_vec" and k["samples"] > 0 and k["depbar"]
    assert sum(k["stall_totals"].values()) <= k["samples"] * 1.01
