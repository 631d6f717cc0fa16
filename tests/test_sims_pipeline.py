"""Simulations 8 (double-buffer timeline) and 9 (cp.async pipeline state machine)."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings, strategies as st

from sims import SimInputError
from sims import pipeline as pl
from sims._common import figure_json_bytes

ALLOWED_TRACES = {"scatter", "bar", "heatmap", "histogram", "box", "contour", "image"}
times = st.floats(min_value=0.01, max_value=1000, allow_nan=False, allow_infinity=False)


# ======================================================================= Sim 8 model

def test_two_buffers_load_bound_hand_case():
    r = pl.double_buffer_schedule(6, 4, num_tiles=8, stages=2)
    assert r.total_time == 6 + 4 + 7 * 6          # fill, drain, 7 tiles at max(L, C)
    assert r.compute_busy == 32
    assert r.compute_idle == 20                    # 6 (fill) + 7 × (6 − 4)
    assert r.steady_time_per_tile == 6
    assert r.steady_idle_per_tile == 2


def test_two_buffers_compute_bound_hand_case():
    r = pl.double_buffer_schedule(2, 4, num_tiles=8, stages=2)
    assert r.total_time == 2 + 8 * 4
    assert r.compute_idle == 2                     # only the pipeline fill
    assert r.steady_time_per_tile == 4
    assert r.steady_idle_per_tile == 0


def test_one_buffer_is_serial():
    r = pl.double_buffer_schedule(6, 4, num_tiles=8, stages=1)
    assert r.total_time == 80
    assert r.compute_idle == 48
    assert r.steady_time_per_tile == 10
    assert r.steady_idle_per_tile == 6
    ends = [iv.end for iv in r.intervals]
    starts = [iv.start for iv in r.intervals]
    assert starts[1:] == ends[:-1]                 # load, compute, load, ... back to back


def test_two_buffer_gantt_rules():
    r = pl.double_buffer_schedule(5, 3, num_tiles=6, stages=2)
    loads = {iv.tile: iv for iv in r.loads}
    computes = {iv.tile: iv for iv in r.computes}
    for t in range(6):
        assert computes[t].start >= loads[t].end   # data before compute
        assert computes[t].buffer == loads[t].buffer == t % 2
    for t in range(5):
        # next load overlaps this compute and is issued when it starts
        assert loads[t + 1].start == computes[t].start
        assert computes[t + 1].start == max(computes[t].end, loads[t + 1].end)
    ordered = sorted(r.loads, key=lambda iv: iv.start)
    assert all(a.end <= b.start for a, b in zip(ordered, ordered[1:]))   # one load unit


def test_single_tile():
    for stages in (1, 2):
        r = pl.double_buffer_schedule(3, 2, num_tiles=1, stages=stages)
        assert r.total_time == 5
        assert len(r.intervals) == 2


@settings(max_examples=150, deadline=None)
@given(times, times, st.integers(1, 40))
def test_schedule_properties(t_load, t_compute, n):
    one = pl.double_buffer_schedule(t_load, t_compute, n, 1)
    two = pl.double_buffer_schedule(t_load, t_compute, n, 2)
    assert two.total_time <= one.total_time + 1e-9
    assert two.compute_idle >= -1e-9 and one.compute_idle >= -1e-9
    assert math.isclose(two.total_time, t_load + t_compute + (n - 1) * max(t_load, t_compute),
                        rel_tol=1e-9)
    assert math.isclose(one.total_time, n * (t_load + t_compute), rel_tol=1e-9)
    assert two.steady_idle_per_tile == max(0.0, t_load - t_compute)
    assert two.steady_time_per_tile == max(t_load, t_compute)


@pytest.mark.parametrize("kwargs", [
    {"t_load": -1, "t_compute": 4}, {"t_load": 0, "t_compute": 4},
    {"t_load": 4, "t_compute": -0.5}, {"t_load": float("nan"), "t_compute": 4},
    {"t_load": float("inf"), "t_compute": 4}, {"t_load": True, "t_compute": 4},
    {"t_load": "3", "t_compute": 4}, {"t_load": 3, "t_compute": 4, "stages": 3},
    {"t_load": 3, "t_compute": 4, "stages": 0}, {"t_load": 3, "t_compute": 4, "num_tiles": 0},
])
def test_sim8_bad_parameters(kwargs):
    with pytest.raises(SimInputError, match="받은 값"):
        pl.double_buffer_schedule(**kwargs)


def test_smem_per_stage():
    # The shipped ring: BK 32, As[k][m] with a pitch of 128 + 4 floats, Bs[k][n] with 128.
    assert pl.smem_bytes_per_stage() == 32 * (132 + 128) * 4 == 33280
    assert 2 * pl.smem_bytes_per_stage() == 66560          # two stages: over the 48 KiB static limit
    assert 2 * pl.smem_bytes_per_stage() == 4 * pl.smem_bytes_per_stage(bk=16)
    assert 3 * pl.smem_bytes_per_stage(bk=32) == 99840
    assert pl.smem_bytes_per_stage(bk=8, pad_a=0) == 8192  # Level 4's unpadded 8-deep tile


def test_smem_per_stage_matches_the_kernel_registry():
    from kernels import registry

    cfg = registry.LEVEL5
    assert cfg["STAGES"] * pl.smem_bytes_per_stage(bk=cfg["BK"]) == registry.level5_smem(cfg)
    assert registry.level5_smem(cfg) == registry.get("sgemm_async_copy_vec").dynamic_smem


# ======================================================================= Sim 9 model

def _main(trace):
    return [s for s in trace.steps if s.phase == "main"]


def test_seed_prologue():
    trace = pl.async_pipeline_trace(3, 12, True, "seed")
    pro = [s for s in trace.steps if s.phase == "prologue"]
    assert [s.label for s in pro] == ["프롤로그 s=0", "프롤로그 s=1"]
    assert [b.state for b in pro[0].buffers] == ["L", "_", "_"]
    assert [b.state for b in pro[1].buffers] == ["L", "L", "_"]
    assert [g.index for g in pro[1].pending] == [0, 1]


def test_seed_trace_kt_0_to_5():
    trace = pl.async_pipeline_trace(3, 12, True, "seed")
    main = _main(trace)
    for kt in range(6):
        step = main[kt]
        assert step.compute_buffer == kt % 3
        assert step.prefetch_tile == kt + 2
        assert step.prefetch_buffer == (kt + 2) % 3
        assert step.wait_n == 2
        # after wait_group(2): {G(kt+1), G(kt+2)} may still be pending
        assert [g.index for g in step.pending_after_wait] == [kt + 1, kt + 2]
        assert step.buffers[kt % 3].state == "C"
        assert step.buffers_after_wait[kt % 3].state == "R"
        assert not step.hazards
    kt5 = main[5]
    assert (kt5.compute_buffer, kt5.prefetch_tile, kt5.prefetch_buffer) == (2, 7, 1)


def test_seed_ring_summary_kt_0_to_8():
    main = _main(pl.async_pipeline_trace(3, 16, True, "seed"))[:9]
    assert [s.compute_buffer for s in main] == [0, 1, 2, 0, 1, 2, 0, 1, 2]
    assert [s.prefetch_tile for s in main] == list(range(2, 11))
    assert [s.prefetch_buffer for s in main] == [2, 0, 1, 2, 0, 1, 2, 0, 1]


def test_seed_tail_hazard_b1():
    n = 8
    trace = pl.async_pipeline_trace(3, n, False, "seed")
    assert trace.hazard_iterations == [n - 2, n - 1]
    h = trace.hazards[0]
    assert (h.kind, h.tile, h.buffer, h.group) == ("RAW", 6, 0, 6)
    assert "G6" in h.message and "버퍼 0" in h.message and "타일 6" in h.message
    fixed = pl.async_pipeline_trace(3, n, True, "seed")
    assert fixed.is_safe


def test_shipped_default_is_safe_and_matches_the_kernel():
    trace = pl.async_pipeline_trace()            # S = 3, 8 tiles, empty commits
    assert trace.is_safe
    main = _main(trace)
    assert all(s.wait_n == 1 for s in main)
    # every iteration commits, so at the wait of iteration kt, groups 0..kt+1 exist
    for s in main:
        assert len(s.committed) == s.index + 3
        assert s.guaranteed_count == s.index + 1
    assert main[-1].committed[-1].tiles == ()    # tail groups are empty
    assert "빈 그룹" in main[-1].committed[-1].label


def test_shipped_two_stage_ring_waits_for_everything_yet_overlaps():
    # The Level 5 kernel ships S = 2: wait_group(0) at the top of iteration kt finds the prologue's
    # group and kt more, all guaranteed; the copy of tile kt + 1, issued after the barrier, is still
    # loading while tile kt is computed.
    trace = pl.async_pipeline_trace(2, 6, True, "shipped")
    assert trace.is_safe and trace.wait_n == 0
    for step in _main(trace):
        assert step.wait_n == 0 and step.guaranteed_count == step.index + 1
        assert not step.pending_after_wait                       # nothing left in flight after the wait
        if step.index + 1 < 6:
            assert step.prefetch_tile == step.index + 1 and step.prefetch_buffer == (step.index + 1) % 2
            assert [b.state for b in step.buffers][step.prefetch_buffer] == "L"
            assert [g.tiles for g in step.pending] == [(step.index + 1,)]
        else:
            assert step.prefetch_tile is None


@pytest.mark.parametrize("mode", pl.MODES)
def test_empty_commits_are_always_safe(mode):
    for s in range(2, 5):
        for n in range(1, 17):
            assert pl.async_pipeline_trace(s, n, True, mode).is_safe, (mode, s, n)


def test_shipped_without_empty_commits_exact_hazard_condition():
    # At the wait of iteration kt, min(n, kt+S-1) groups exist; wait_group(S-2) then covers
    # tile kt only if kt < min(n, kt+S-1) - (S-2), i.e. kt <= n-S+1. So the last S-2
    # iterations are flagged: S = 2 (wait_group(0)) never is.
    for s in range(2, 5):
        for n in range(1, 17):
            trace = pl.async_pipeline_trace(s, n, False, "shipped")
            assert trace.hazard_iterations == list(range(max(0, n - s + 2), n)), (s, n)
            assert trace.is_safe == (s == 2)


def test_seed_without_empty_commits_exact_hazard_condition():
    # Commit before the wait: min(n, kt+S) groups, wait_group(S-1) covers kt iff kt <= n-S.
    for s in range(2, 5):
        for n in range(1, 17):
            trace = pl.async_pipeline_trace(s, n, False, "seed")
            assert trace.hazard_iterations == list(range(max(0, n - s + 1), n)), (s, n)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.integers(1, 16), st.booleans(), st.sampled_from(pl.MODES))
def test_trace_invariants(s, n, empty, mode):
    trace = pl.async_pipeline_trace(s, n, empty, mode)
    main = _main(trace)
    assert [st_.compute_tile for st_ in main] == list(range(n))
    assert all(h.kind == "RAW" for h in trace.hazards)       # no write-after-read race
    for step in trace.steps:
        states = [b.state for b in step.buffers]
        assert states.count("C") == (1 if step.phase == "main" else 0)
        assert set(states) <= {"L", "R", "C", "_"}
        # a hazard is exactly a compute on a group no wait guaranteed
        for h in step.hazards:
            assert h.group is None or h.group >= step.guaranteed_count
    # each tile is loaded exactly once, into stage tile % S
    issued = [(x.prefetch_tile, x.prefetch_buffer) for x in trace.steps
              if x.prefetch_tile is not None]
    assert issued == [(t, t % s) for t in range(n)]


def test_wait_guarantee_text():
    text = pl.wait_guarantee_text(2, 5)
    assert "이 스레드가 커밋한 그룹 중 가장 최근 2개를 제외한 모든 그룹 완료" in text
    assert "G0–G2" in text
    assert "G0 완료" in pl.wait_guarantee_text(1, 2)
    assert "없음" in pl.wait_guarantee_text(2, 2)


def test_frames_show_the_buffer_life_cycle():
    trace = pl.async_pipeline_trace(3, 4, True, "shipped")
    frames = trace.frames
    assert len(frames) == 2 + 2 * 4
    states = [[b.state for b in f.buffers] for f in frames]
    assert states[2] == ["R", "L", "_"]          # kt=0 after wait: tile 0 ready
    assert states[3] == ["C", "L", "L"]          # kt=0 compute, tile 2 issued
    assert states[4] == ["_", "R", "L"]          # kt=1 after wait: buffer 0 released
    assert frames[2].actions[0].startswith("wait_group(1)")
    assert frames[3].actions[-1].startswith("연산")


def test_group_intervals_mark_the_hazard_group():
    trace = pl.async_pipeline_trace(3, 4, False, "shipped")
    kinds = {iv.resource: iv.kind for iv in pl.group_intervals(trace)}
    assert kinds["G3(타일 3)"] == "group-hazard"
    assert kinds["G0(타일 0)"] == "group"
    safe = pl.async_pipeline_trace(3, 4, True, "shipped")
    assert {iv.kind for iv in pl.group_intervals(safe)} <= {"group", "group-empty"}
    for iv in pl.group_intervals(safe):
        assert iv.end > iv.start


@pytest.mark.parametrize("args", [
    (5, 8, True, "shipped"), (1, 8, True, "shipped"), (3, 0, True, "shipped"),
    (3, 17, True, "shipped"), (3, 8, "yes", "shipped"), (3, 8, True, "other"),
    (3.5, 8, True, "shipped"),
])
def test_sim9_bad_parameters(args):
    with pytest.raises(SimInputError):
        pl.async_pipeline_trace(*args)


def test_num_stages_message():
    with pytest.raises(SimInputError, match=r"NUM_STAGES.*4 이하.*받은 값: 5"):
        pl.async_pipeline_trace(num_stages=5)


# ======================================================================= views

def _types(fig):
    return {t.type for t in fig.data}


def test_sim8_widget():
    w = pl.widget(t_load=6, t_compute=4, num_tiles=8)
    assert "52" in w.output.value and "80" in w.output.value
    w.controls["t_load"].value = 2.0
    assert "34" in w.output.value
    w.controls["t_compute"].value = -1.0
    assert "입력 오류" in w.output.value
    w.controls["t_compute"].value = 4.0
    assert "입력 오류" not in w.output.value


def test_sim8_figure():
    fig = pl.figure(t_compute=4, num_tiles=8)
    assert _types(fig) <= ALLOWED_TRACES
    assert figure_json_bytes(fig) < 300_000
    data = json.loads(fig.to_json())
    steps = data["layout"]["sliders"][0]["steps"]
    assert len(steps) == 8
    assert [b["label"] for b in data["layout"]["updatemenus"][0]["buttons"]] == ["1버퍼", "2버퍼"]
    # the T_load = 6 step (1.5 × T_compute) carries the 2-buffer schedule of the model
    step = next(s for s in steps if s["label"] == "6")
    update = step["args"][0]
    model = pl.double_buffer_schedule(6, 4, 8, 2)
    assert update["base"][3] == [iv.start for iv in model.computes]
    assert "총 52" in step["args"][1]["title.text"]
    # bars use a base (Gantt), and only one buffer count is visible
    assert all(t.base is not None for t in fig.data)
    assert sum(bool(t.visible) for t in fig.data) == 2


def test_sim8_figure_errors():
    fig = pl.figure(t_compute=0)
    assert len(fig.data) == 0 and "받은 값" in fig.layout.title.text
    assert "받은 값" in pl.figure(t_load_values=[1, -2]).layout.title.text


def test_sim9_widget():
    w = pl.async_widget()
    assert "위험 없음" in w.output.value
    w.controls["empty_commits"].value = False
    assert "위험" in w.output.value and "kt = 7" in w.output.value
    w.controls["mode"].value = "seed"
    assert "kt = 6, 7" in w.output.value
    w.controls["step"].value = 3                   # kt=0, compute frame
    assert "kt=0 연산" in w.output.value and "모든 단계 보기" in w.output.value
    w.controls["num_stages"].value = 5
    assert "입력 오류" in w.output.value and "NUM_STAGES" in w.output.value
    w.controls["num_stages"].value = 2
    w.controls["num_tiles"].value = 1
    assert w.controls["step"].max == 2 and w.controls["step"].value <= 2
    assert "입력 오류" not in w.output.value


def test_sim9_figure():
    fig = pl.async_figure(num_tiles=8)
    assert _types(fig) <= ALLOWED_TRACES
    assert figure_json_bytes(fig) < 300_000
    data = json.loads(fig.to_json())
    menu = data["layout"]["updatemenus"][0]["buttons"]
    assert len(menu) == 8
    assert any("원 자료" in b["label"] and "끔" in b["label"] for b in menu)
    steps = data["layout"]["sliders"][0]["steps"]
    assert len(steps) == max(len(pl.async_pipeline_trace(s, 8, e, m).frames)
                             for m, s, e in [("shipped", 4, True)])
    # hazard cells are coloured in the unsafe configurations
    heatmaps = [t for t in fig.data if t.type == "heatmap"]
    unsafe = [h for h in heatmaps if "끔" in h.name and "S=2" not in h.name]
    assert all(any(4 in row for row in h.z) for h in unsafe)
    assert not any(4 in row for h in heatmaps if "켬" in h.name for row in h.z)
    # the default configuration is the shipped kernel's ring (S = 2, wait_group 0), safe
    assert "S=2" in fig.layout.title.text and "위험 없음" in fig.layout.title.text
    assert "S=2" in menu[0]["label"] and "S=3" in menu[2]["label"]


def test_sim9_figure_with_16_tiles_stays_small():
    assert figure_json_bytes(pl.async_figure(num_tiles=16)) < 300_000


def test_sim9_figure_errors():
    fig = pl.async_figure(num_tiles=0)
    assert len(fig.data) == 0 and "받은 값" in fig.layout.title.text
    assert len(pl.async_figure(configs=[("shipped", 5, True)]).data) == 0
