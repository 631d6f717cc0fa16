"""Simulation 10 (a) roofline and (b) occupancy calculator.

The benchmark dicts below are small fixtures with made-up numbers for the code paths;
they are not results and appear nowhere in the book.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from sims import SimInputError
from sims import roofline as rl
from sims._common import figure_json_bytes

ALLOWED_TRACES = {"scatter", "bar", "heatmap", "histogram", "box", "contour", "image"}


def _row(kernel, level, gflops, size=4096, variant="", **extra):
    return {"kernel": kernel, "level": level, "variant": variant, "M": size, "N": size,
            "K": size, "median_ms": 1.0, "min_ms": 1.0, "max_ms": 1.0, "gflops": gflops, **extra}


FIXTURE_BENCH = {
    "device": "Fixture GPU H100", "date": "2000-01-01", "driver": "0", "cuda_runtime": "0",
    "cupy": "0", "command": "fixture", "git_commit": "0000000", "sm_count": 100,
    "clock_mhz": 1000, "fp32_lanes_per_sm": 128, "peak_gflops": 25600.0,
    "bandwidth_gbs": 1000.0,
    "rows": [_row("sgemm_naive", 0, 100.0), _row("sgemm_tiled", 2, 200.0),
             _row("sgemm_register_blocking", 3, 1000.0), _row("cublas", None, 2000.0),
             _row("sgemm_naive", 0, 50.0, size=1000)],
}
FIXTURE_PROFILES = {"device": "Fixture GPU H100",
                    "kernels": [{"kernel": "sgemm_tiled", "level": 2, "M": 4096, "N": 4096,
                                 "K": 4096, "dram_bytes": 2 * 4096 ** 3 / 50.0}]}
FIXTURE_REFERENCE = dict(FIXTURE_PROFILES, reference=[
    {"kernel": "cublas", "level": None, "M": 4096, "N": 4096, "K": 4096,
     "function": "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma",
     "dram_bytes": 2 * 4096 ** 3 / 400.0}])


# ---------------------------------------------------------------------------- roofs

def test_h100_peak_and_ridge():
    roof = rl.h100_roof()
    assert roof.peak_gflops == pytest.approx(132 * 128 * 1.98 * 2)      # ≈ 66.9 TFLOP/s
    assert roof.peak_gflops == pytest.approx(66_908.16)
    assert roof.bandwidth_gbs == 3350.0
    assert roof.bandwidth_source == "데이터시트"
    assert roof.ridge_ai == pytest.approx(19.97, abs=0.01)


def test_a100_reference():
    a = rl.A100_REFERENCE
    assert (a.peak_gflops, a.bandwidth_gbs) == (19500.0, 2039.0)
    assert a.ridge_ai == pytest.approx(9.56, abs=0.01)
    assert "측정 아님" in a.name


def test_attainable():
    a = rl.A100_REFERENCE
    assert rl.attainable_gflops(0.25, a) == pytest.approx(0.25 * 2039)        # on the slope
    assert rl.attainable_gflops(8, a) == pytest.approx(16312)                 # C7
    assert rl.attainable_gflops(a.ridge_ai, a) == pytest.approx(19500)
    assert rl.attainable_gflops(100, a) == 19500
    with pytest.raises(SimInputError):
        rl.attainable_gflops(0, a)
    with pytest.raises(SimInputError):
        rl.attainable_gflops(-1, a)


def test_recorded_device_roof_uses_measured_bandwidth():
    roof = rl.recorded_device_roof(FIXTURE_BENCH)
    assert roof.peak_gflops == 25600.0
    assert roof.bandwidth_gbs == 1000.0
    assert "측정" in roof.bandwidth_source
    no_bw = dict(FIXTURE_BENCH, bandwidth_gbs=None, peak_gflops=None)
    roof = rl.recorded_device_roof(no_bw)
    assert roof.peak_gflops == pytest.approx(100 * 128 * 1.0 * 2)
    assert roof.bandwidth_source == "데이터시트"           # an H100 with no copy measured
    assert rl.recorded_device_roof(None).name == "H100"


def test_fp32_peak_formula():
    assert rl.fp32_peak_gflops(108, 64, 1410) == pytest.approx(19491.84)
    with pytest.raises(SimInputError):
        rl.fp32_peak_gflops(0, 64, 1410)


# ---------------------------------------------------------------------------- AI models

def test_level_ai_models_d1():
    assert [rl.level_ai(lv, "i") for lv in range(6)] == [0.25, 0.4, 0.25, 2.0, 2.0, 2.0]
    assert [rl.level_ai(lv, "ii") for lv in range(6)] == [0.25, 0.4, 4.0, 32.0, 32.0, 32.0]
    # Level 6: an 8 x 16 thread tile (256 FLOP per 24 floats) in a 128 x 256 block
    assert rl.level_ai(6, "i") == pytest.approx(256 / 96)
    assert rl.level_ai(6, "ii") == pytest.approx(128 * 256 / (2 * 384))
    assert rl.level_ai(3, "iv") == pytest.approx(682.67, abs=0.01)
    assert rl.level_ai(3, "iii") is None
    assert rl.level_ai(2, "iii", dram_bytes=2 * 4096 ** 3 / 10) == pytest.approx(10)


def test_ai_formulas():
    assert rl.ai_thread_registers(1, 4) == pytest.approx(0.4)
    assert rl.ai_block_global(16, 16) == 4.0
    assert rl.ai_block_global(128, 128) == 32.0
    assert rl.ai_compulsory(4096, 4096, 4096) == pytest.approx(4096 / 6)
    for bad in [(0, 4), (4, -1)]:
        with pytest.raises(SimInputError):
            rl.ai_block_global(*bad)
    with pytest.raises(SimInputError):
        rl.level_ai(7, "i")
    with pytest.raises(SimInputError):
        rl.level_ai(2, "v")


# ---------------------------------------------------------------------------- records

def test_points_and_cublas_from_fixture():
    assert rl.benchmark_sizes(FIXTURE_BENCH)[0] == (4096, 4096, 4096)
    pts = rl.roofline_points(FIXTURE_BENCH, "ii")
    assert [(p.level, p.ai, p.gflops) for p in pts] == [(0, 0.25, 100.0), (2, 4.0, 200.0),
                                                        (3, 32.0, 1000.0)]
    assert rl.cublas_gflops(FIXTURE_BENCH) == 2000.0
    assert rl.roofline_points(FIXTURE_BENCH, "iii") == []
    measured = rl.roofline_points(FIXTURE_BENCH, "iii", profiles=FIXTURE_PROFILES)
    assert [(p.kernel, round(p.ai, 6)) for p in measured] == [("sgemm_tiled", 50.0)]
    small = rl.roofline_points(FIXTURE_BENCH, "i", size=(1000, 1000, 1000))
    assert [p.gflops for p in small] == [50.0]
    assert rl.roofline_points(None, "i") == [] and rl.cublas_gflops(None) is None


def test_level_tiles_are_the_registrys():
    from kernels import registry

    six = registry.LEVEL6
    assert rl.LEVEL_TILES[6] == {"thread": (six["TM"], six["TN"]), "block": (six["BM"], six["BN"])}
    for level in (3, 4, 5):
        spec = registry.KERNELS[registry.LEVEL_REPRESENTATIVE[level]]
        assert rl.LEVEL_TILES[level]["block"] == spec.tile
    assert rl.MAX_LEVEL == max(registry.LEVEL_REPRESENTATIVE)


def test_reference_tile_from_the_kernel_name():
    assert rl.reference_block_tile(FIXTURE_REFERENCE["reference"][0]["function"]) == (256, 128)
    assert rl.reference_block_tile("some_kernel_without_a_tile") is None
    assert rl.reference_block_tile(None) is None


def test_reference_points_follow_the_model():
    bench = dict(FIXTURE_BENCH, rows=[r for r in FIXTURE_BENCH["rows"] if r["kernel"] != "cublas"]
                 + [_row("cublas", None, 2000.0, variant="cuBLAS SGEMM (FP32)", min_ms=0.9, max_ms=1.2)])
    assert rl.reference_points(bench, "i", profiles=FIXTURE_REFERENCE) == []        # thread tile unknown
    (ii,) = rl.reference_points(bench, "ii", profiles=FIXTURE_REFERENCE)
    assert ii.level is None and ii.ai == pytest.approx(256 * 128 / (2 * 384)) and ii.gflops == 2000.0
    assert ii.label == "cuBLAS SGEMM (FP32)" and ii.series == "cublas"
    (iii,) = rl.reference_points(bench, "iii", profiles=FIXTURE_REFERENCE)
    assert iii.ai == pytest.approx(400.0)
    assert rl.reference_points(bench, "iv", profiles={})[0].ai == pytest.approx(4096 / 6)
    assert rl.reference_points(bench, "ii", profiles=FIXTURE_PROFILES) == []     # no reference profile
    assert rl.reference_points(None, "ii") == []
    # the row keeps the median of the medians; its min/max give the range drawn as a bar
    flop = 2 * 4096 ** 3
    assert rl.cublas_range(bench) == pytest.approx((flop / 1.2e6, flop / 0.9e6))
    assert ii.gflops_range == pytest.approx((flop / 1.2e6, flop / 0.9e6))
    with pytest.raises(SimInputError):
        rl.reference_points(bench, "v")


def test_hover_quotes_the_recorded_pct_of_cublas():
    """The % of cuBLAS a point shows is the one timed in alternation, not its GFLOP/s over the cuBLAS row."""
    bench = dict(FIXTURE_BENCH, rows=FIXTURE_BENCH["rows"] + [_row("sgemm_warp_tiling", 6, 2100.0,
                                                                   pct_cublas=99.5)])
    fig = rl.figure(model="ii", benchmarks=bench, profiles={})
    (l6,) = [t for t in fig.data if t.name == "Level 6 측정" and t.visible is True]
    assert "cuBLAS 대비 99.5%" in l6.hovertext[0] and "105.0%" not in l6.hovertext[0]
    assert l6.marker.symbol[0] == "pentagon"
    (l3,) = [t for t in fig.data if t.name == "Level 3 측정" and t.visible is True]
    assert "cuBLAS 대비 50.0%" in l3.hovertext[0]          # no recorded %: from the same run's cuBLAS


def test_reference_point_on_the_figure():
    bench = dict(FIXTURE_BENCH, rows=[r for r in FIXTURE_BENCH["rows"] if r["kernel"] != "cublas"]
                 + [_row("cublas", None, 2000.0, variant="cuBLAS SGEMM (FP32)", min_ms=0.9, max_ms=1.2),
                    _row("sgemm_warp_tiling", 6, 2100.0)])
    fig = rl.figure(model="ii", benchmarks=bench, profiles=FIXTURE_REFERENCE)
    refs = [t for t in fig.data if t.legendgroup == "cublas"]
    assert len(refs) == 3                                  # (ii), (iii), (iv); none under (i)
    shown = [t for t in refs if t.visible is True]
    assert len(shown) == 1 and shown[0].marker.symbol == rl.REFERENCE_SYMBOL
    level_symbols = {s for t in fig.data if (t.name or "").startswith("Level") for s in t.marker.symbol}
    assert rl.REFERENCE_SYMBOL not in level_symbols
    assert shown[0].error_y.arrayminus[0] == pytest.approx(2000.0 - 2 * 4096 ** 3 / 1.2e6)
    assert "중앙값들의 중앙값" in shown[0].hovertext[0]
    # Level 6 (128 x 256) and cuBLAS (256 x 128) share one AI: spread apart, the reference to the right
    (l6,) = [t for t in fig.data if t.name == "Level 6 측정" and t.visible is True]
    assert l6.x[0] < 256 * 128 / 768 < shown[0].x[0]
    with_i = rl.figure(model="i", benchmarks=bench, profiles=FIXTURE_REFERENCE)
    assert not any(t.visible is True for t in with_i.data if t.legendgroup == "cublas")


def test_load_recorded_handles_missing_and_broken_files(tmp_path):
    assert rl.load_recorded("benchmarks.json", tmp_path) is None
    (tmp_path / "benchmarks.json").write_text("{not json", encoding="utf-8")
    assert rl.load_recorded("benchmarks.json", tmp_path) is None
    (tmp_path / "benchmarks.json").write_text(json.dumps(FIXTURE_BENCH), encoding="utf-8")
    assert rl.load_recorded("benchmarks.json", tmp_path)["device"] == "Fixture GPU H100"


# ---------------------------------------------------------------------------- occupancy

@pytest.mark.parametrize("regs", range(81, 129))
def test_a7_any_81_to_128_registers_gives_25_percent(regs):
    r = rl.occupancy(256, regs, 0, "sm_90")
    assert (r.blocks_per_sm, r.active_warps, r.occupancy_pct) == (2, 16, 25.0)
    assert r.limiting == ("registers",)


def test_register_granularity_cases():
    assert rl.occupancy(256, 80).occupancy_pct == 37.5
    assert rl.occupancy(256, 96).occupancy_pct == 25.0         # not 33.3 %
    assert rl.occupancy(256, 96).registers_per_warp == 3072
    assert rl.occupancy(256, 81).registers_per_warp == 2816    # 81 × 32 rounded to 256
    assert rl.occupancy(256, 255).occupancy_pct == 12.5


def test_d5_level2_is_100_percent():
    for arch in ("sm_80", "sm_90"):
        r = rl.occupancy(256, 32, 2176, arch)
        assert r.occupancy_pct == 100.0
        assert r.blocks_per_sm == 8
    assert rl.occupancy(256, 32, 2176, "sm_86").occupancy_pct == 100.0   # 6 blocks × 8 = 48


def test_shared_memory_limits():
    r = rl.occupancy(256, 32, 48 * 1024, "sm_90")
    assert r.smem_allocated_per_block == 48 * 1024 + 1024
    assert r.limits["smem"] == 233472 // 50176 == 4
    assert r.limiting == ("smem",)
    assert r.occupancy_pct == 50.0
    assert not r.needs_dynamic_smem
    assert rl.occupancy(256, 32, 49153, "sm_90").needs_dynamic_smem
    assert rl.occupancy(256, 32, 100, "sm_90").smem_allocated_per_block == 1152   # 128 B units
    assert rl.occupancy(256, 128, 24576, "sm_90").occupancy_pct == 25.0      # Level 5, 3 stages


def test_sm86_limits():
    r = rl.occupancy(128, 16, 0, "sm_86")
    assert r.limits["blocks"] == 16 and r.limits["warps"] == 12
    assert r.active_warps == 48 and r.occupancy_pct == 100.0


@pytest.mark.parametrize("args", [
    (1025, 32, 0), (0, 32, 0), (256, 256, 0), (256, 0, 0), (256, 32, -1),
    (256, 32, 228 * 1024), (256, 32, 0, "sm_70"), (1024, 72, 0), (256.5, 32, 0),
])
def test_occupancy_bad_parameters(args):
    with pytest.raises(SimInputError):
        rl.occupancy(*args)


def test_occupancy_messages():
    with pytest.raises(SimInputError, match=r"1024 이하.*받은 값: 2048"):
        rl.occupancy(2048, 32)
    with pytest.raises(SimInputError, match="실행할 수 없습니다"):
        rl.occupancy(1024, 72)


@given(st.sampled_from([32, 64, 96, 128, 256, 512, 1024]), st.integers(1, 56),
       st.sampled_from(list(rl.ARCHS)))
def test_occupancy_properties(threads, regs, arch):
    r = rl.occupancy(threads, regs, 0, arch)
    assert 0 < r.occupancy_pct <= 100
    assert r.active_warps == r.blocks_per_sm * r.warps_per_block
    more = rl.occupancy(threads, min(255, regs + 8), 0, arch)
    assert more.occupancy_pct <= r.occupancy_pct


# ---------------------------------------------------------------------------- views

def _types(fig):
    return {t.type for t in fig.data}


def test_roofline_figure_without_records(tmp_path):
    fig = rl.figure(data_dir=tmp_path)
    assert _types(fig) <= ALLOWED_TRACES
    assert figure_json_bytes(fig) < 300_000
    notes = " ".join(a.text for a in fig.layout.annotations)
    assert "없어" in notes and "benchmarks.json" in notes
    assert not fig.layout.updatemenus
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    names = " ".join(t.name for t in fig.data)
    assert "A100" in names and "데이터시트" in names


def test_roofline_figure_with_fixture():
    fig = rl.figure(model="ii", benchmarks=FIXTURE_BENCH, profiles={})
    assert _types(fig) <= ALLOWED_TRACES
    labels = [b.label for b in fig.layout.updatemenus[0].buttons]
    assert labels == ["(i) 스레드", "(ii) 블록", "(iv) 필수 최소"]      # no (iii): no DRAM bytes
    visible_points = [t for t in fig.data if t.visible is True and t.mode == "markers"]
    assert [t.name for t in visible_points] == ["Level 0 측정", "Level 2 측정", "Level 3 측정"]
    assert [list(t.x) for t in visible_points] == [[0.25], [4.0], [32.0]]
    assert "산술 강도 0.25 FLOP/B" in visible_points[0].hovertext[0]


def test_points_sharing_an_ai_are_dodged_but_hover_keeps_the_true_ai():
    bench = dict(FIXTURE_BENCH, rows=FIXTURE_BENCH["rows"] + [_row("sgemm_async_copy", 5, 1200.0)])
    fig = rl.figure(model="ii", benchmarks=bench, profiles={})
    pts = {t.name: t for t in fig.data if t.visible is True and t.mode == "markers"}
    x3, x5 = pts["Level 3 측정"].x[0], pts["Level 5 측정"].x[0]
    assert x3 < 32.0 < x5 and x5 / x3 == pytest.approx(1.12 ** 1)
    assert "산술 강도 32 FLOP/B" in pts["Level 5 측정"].hovertext[0]
    assert any("cuBLAS" in t.name for t in fig.data)
    with_dram = rl.figure(model="iii", benchmarks=FIXTURE_BENCH, profiles=FIXTURE_PROFILES)
    assert "(iii) 측정 DRAM" in [b.label for b in with_dram.layout.updatemenus[0].buttons]


def test_roofline_figure_error():
    fig = rl.figure(model="v", benchmarks={}, profiles={})
    assert len(fig.data) == 0 and "받은 값" in fig.layout.title.text


def test_roofline_widget(tmp_path):
    w = rl.widget(data_dir=tmp_path)
    assert "기록된 벤치마크 결과가 없습니다" in w.output.value
    w.controls["ai"].value = 4.0
    assert "13,400" in w.output.value                # 4 × 3,350 on the H100 slope
    w.controls["ai"].value = -1.0
    assert "입력 오류" in w.output.value
    (tmp_path / "benchmarks.json").write_text(json.dumps(FIXTURE_BENCH), encoding="utf-8")
    w = rl.widget(data_dir=tmp_path)
    assert "sgemm_tiled" in w.output.value
    w.controls["model"].value = "i"
    assert "0.25" in w.output.value


def test_occupancy_widget():
    w = rl.occupancy_widget()
    assert "25.0%" in w.output.value
    w.controls["registers_per_thread"].value = 32
    assert "100.0%" in w.output.value
    w.controls["threads_per_block"].value = 2048
    assert "입력 오류" in w.output.value
    w.controls["threads_per_block"].value = 256
    w.controls["smem_per_block"].value = 60000
    assert "cudaFuncAttributeMaxDynamicSharedMemorySize" in w.output.value


def test_occupancy_figure():
    fig = rl.occupancy_figure()
    assert _types(fig) <= ALLOWED_TRACES
    assert figure_json_bytes(fig) < 300_000
    assert len(fig.layout.updatemenus[0].buttons) == 3
    assert "받은 값" in rl.occupancy_figure(arch="sm_70").layout.title.text
