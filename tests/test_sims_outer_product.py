"""Simulation 7 (outer-product tracer): hand-worked cases from course-spec §2.4 and C5."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from sims import SimInputError
from sims import outer_product as op
from sims._common import figure_json_bytes

ALLOWED_TRACES = {"scatter", "bar", "heatmap", "histogram", "box", "contour", "image"}


# ---------------------------------------------------------------------------- model

def test_t_table_matches_the_hand_worked_table():
    table = op.t_table()
    assert [m.tm for m in table] == [1, 2, 4, 8, 16]
    assert [m.floats_per_step for m in table] == [2, 4, 8, 16, 32]
    assert [m.bytes_per_step for m in table] == [8, 16, 32, 64, 128]
    assert [m.fmas_per_step for m in table] == [1, 4, 16, 64, 256]
    assert [m.flops_per_step for m in table] == [2, 8, 32, 128, 512]
    assert [m.arithmetic_intensity for m in table] == [0.25, 0.5, 1.0, 2.0, 4.0]
    assert [m.registers.accumulators for m in table] == [1, 4, 16, 64, 256]


def test_4x16_case():
    m = op.tile_metrics(4, 16)
    assert (m.floats_per_step, m.bytes_per_step) == (20, 80)
    assert (m.fmas_per_step, m.flops_per_step) == (64, 128)
    assert m.arithmetic_intensity == pytest.approx(1.6)
    # Same overhead base as 8x8 (course-spec C5): 64 + 20 + 24 = 108, 8x8 gives 104.
    assert m.registers.total == 108
    assert op.tile_metrics(8, 8).registers.total == 104
    # Same number of outputs, lower AI than the square tile.
    assert m.arithmetic_intensity < op.tile_metrics(8, 8).arithmetic_intensity


def test_register_estimate_is_below_the_measured_8x8_value():
    r = op.register_estimate(8, 8)
    assert (r.accumulators, r.fragments, r.overhead) == (64, 16, op.INDEX_OVERHEAD_REGISTERS)
    assert op.MEASURED_8X8_REGISTERS == 128
    assert r.total < op.MEASURED_8X8_REGISTERS
    assert r.gap_to_measured_8x8 == 24
    assert r.total > 90                       # the seed's "≈90" is too low (C5)
    assert not r.spills


def test_recorded_register_counts_are_used_when_present():
    bench = {"rows": [  # fixture rows, not results
        {"kernel": "k3", "level": 3, "variant": "basic", "registers": 100},
        {"kernel": "k3", "level": 3, "variant": "basic", "registers": 100},
        {"kernel": "k4", "level": 4, "variant": "db", "registers": 120},
        {"kernel": "k0", "level": 0, "variant": "naive", "registers": 32},
        {"kernel": "cublas", "level": None, "registers": None}]}
    measured = op.recorded_8x8_registers(bench)
    assert measured == {"L3 basic": 100, "L4 db": 120}
    lines = op._register_lines(op.tile_metrics(8, 8), measured)
    assert any("L3 basic 100" in line and "L4 db 120" in line for line in lines)
    assert op.recorded_8x8_registers(None) == {}
    fig = op.figure(benchmarks=bench)
    assert "L4 db 120" in fig.layout.title.text
    assert "재구성" in op.figure(benchmarks={}).layout.title.text


def test_16x16_spills():
    r = op.register_estimate(16, 16)
    assert r.total == 256 + 32 + 24
    assert r.total > op.MAX_REGISTERS_PER_THREAD
    assert r.spills
    assert any("스필" in line for line in op._register_lines(op.tile_metrics(16, 16)))
    lines = op._register_lines(op.tile_metrics(8, 8))
    assert any("2블록" in line and "25%" in line for line in lines)   # 104 → 13 × 256 per warp
    assert any("128" in line and "25%" in line for line in lines)   # the measured value


def test_ai_model_is_named_i():
    assert "(i)" in op.AI_MODEL_LABEL
    assert any("(i)" in line for line in op._metrics_lines(op.tile_metrics(8, 8)))


def test_grid_after_k_steps():
    state = op.outer_product_step(8, 8, 3)
    assert state.fma_counts.shape == (8, 8)
    assert (state.fma_counts == 4).all()
    assert state.floats_loaded == 4 * 16
    assert state.fmas_done == 4 * 64
    assert state.flops_done == 512
    last = op.outer_product_step(4, 16, op.BK - 1)
    assert last.fmas_done == op.BK * 64


def test_reuse_counts():
    m = op.tile_metrics(4, 16)
    assert (m.a_reuse, m.b_reuse) == (16, 4)


@given(st.integers(1, 16), st.integers(1, 16))
def test_ai_formula_properties(tm, tn):
    m = op.tile_metrics(tm, tn)
    assert m.arithmetic_intensity == pytest.approx(m.flops_per_step / m.bytes_per_step)
    assert m.arithmetic_intensity == pytest.approx(op.arithmetic_intensity(tn, tm))
    if tm == tn:
        assert m.arithmetic_intensity == pytest.approx(tm / 4)
    assert m.registers.spills == (tm * tn + tm + tn + 24 > 255)


@pytest.mark.parametrize("args", [
    (0, 8, 0), (8, 0, 0), (17, 8, 0), (8, 17, 0), (8, 8, 8), (8, 8, -1),
    ("8", 8, 0), (True, 8, 0), (8.5, 8, 0), (None, 8, 0),
])
def test_bad_parameters_raise_sim_input_error(args):
    with pytest.raises(SimInputError) as info:
        op.outer_product_step(*args)
    assert "받은 값" in str(info.value)


def test_message_names_the_term_and_value():
    with pytest.raises(SimInputError, match=r"TM.*1 이상.*받은 값: 0"):
        op.tile_metrics(0, 8)


# ---------------------------------------------------------------------------- views

def test_widget_reacts_and_shows_errors(tmp_path):
    w = op.widget(tm=8, tn=8, k=0, data_dir=tmp_path)
    first = w.output.value
    assert "k = 0" in first
    w.controls["k"].value = 5
    assert "k = 5" in w.output.value
    w.controls["tn"].value = 16
    assert w.output.value.count("<tr>") == 8 + 1
    w.controls["tm"].value = 0
    assert "입력 오류" in w.output.value and "TM" in w.output.value
    w.controls["tm"].value = 16
    assert "경고" in w.output.value           # 16x16 spills


def _types(fig):
    return {t.type for t in fig.data}


def test_figure_serialises_with_all_steps():
    fig = op.figure()
    assert _types(fig) <= ALLOWED_TRACES
    assert figure_json_bytes(fig) < 300_000
    data = json.loads(fig.to_json())
    slider = data["layout"]["sliders"][0]
    assert len(slider["steps"]) == op.BK
    buttons = data["layout"]["updatemenus"][0]["buttons"]
    assert [b["label"] for b in buttons] == ["1×1", "2×2", "4×4", "8×8", "4×16", "16×16"]
    # Each slider step restyles every preset's heatmap with that step's counts.
    heat = [i for i, t in enumerate(fig.data) if t.type == "heatmap"]
    assert slider["steps"][3]["args"][1] == heat
    z_8x8 = slider["steps"][3]["args"][0]["z"][3]
    assert z_8x8 == [[4] * 8] * 8
    # Exactly one heatmap visible at a time.
    assert sum(1 for i in heat if fig.data[i].visible) == 1
    for b in buttons:
        assert sum(1 for i in heat if b["args"][0]["visible"][i]) == 1


def test_figure_adds_a_non_preset_tile():
    fig = op.figure(tm=3, tn=5)
    labels = [b.label for b in fig.layout.updatemenus[0].buttons]
    assert labels[-1] == "3×5"


def test_figure_bad_parameters_give_an_error_figure():
    fig = op.figure(tm=0)
    assert len(fig.data) == 0
    assert "받은 값: 0" in fig.layout.title.text
    assert "받은 값" in op.figure(k=9).layout.annotations[0].text
