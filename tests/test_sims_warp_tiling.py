"""Simulation 11 (warp tiling): hand-worked cases of the lane layout, the bank model of the fragment
loads, the partition of the block tile, the wave count, and the two views."""
from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings, strategies as st

from kernels import registry
from kernels.source import read_source
from sims import SimInputError
from sims import warp_tiling as wt
from sims._common import figure_json_bytes

HANGUL = re.compile(r"[가-힣]")


# ---------------------------------------------------------------------------- the kernel's shape

def test_shipped_shape_is_the_kernels():
    level6 = registry.LEVEL6
    assert wt.SHIPPED == {k.lower(): level6[k] for k in ("BM", "BN", "WM", "WN", "TM", "TN")}
    cfg = wt.warp_tiling()
    assert (cfg.lanes_m, cfg.lanes_n, cfg.warps, cfg.threads) == (8, 4, 8, 256)
    assert cfg.threads == registry.level6_threads(level6)
    assert cfg.pitch_a == 132 and cfg.pitch_b == 256


def test_the_model_follows_the_kernels_formulas():
    """If the kernel changes how lanes map to rows and columns, this model must change with it."""
    src = read_source("sgemm_warp_tiling.cu")
    for piece in ("tr = lane / l6::LANES_N, tc = lane % l6::LANES_N",      # LANE_ORDER 0
                  "tr = lane % l6::LANES_M, tc = lane / l6::LANES_M",      # LANE_ORDER 1
                  "wm0 = (warp / l6::WARPS_N) * l6::WM, wn0 = (warp % l6::WARPS_N) * l6::WN",
                  "a_off = wm0 + tr * 4, b_off = wn0 + tc * 4",
                  "row + (i / 4) * l6::LANES_M * 4 + i % 4",
                  "col + j * l6::LANES_N * 4",
                  "As + k * l6::PITCH_A + a_off + i * l6::LANES_M * 4",
                  "Bs + k * l6::PITCH_B + b_off + j * l6::LANES_N * 4"):
        assert piece in src, piece
    assert "PITCH_A = BM + 4" in read_source("sgemm_common.cuh")


# ---------------------------------------------------------------------------- lane layout

def test_lanes_0_and_5_by_hand():
    cfg = wt.warp_tiling()
    assert wt.lane_position(cfg, 0) == (0, 0)
    assert wt.thread_rows(cfg, 0, 0) == (0, 1, 2, 3, 32, 33, 34, 35)
    assert wt.thread_cols(cfg, 0, 0) == (0, 1, 2, 3, 16, 17, 18, 19, 32, 33, 34, 35, 48, 49, 50, 51)
    # lane 5: tr = 5 // 4 = 1, tc = 5 % 4 = 1
    assert wt.lane_position(cfg, 5) == (1, 1)
    assert wt.thread_rows(cfg, 0, 5) == (4, 5, 6, 7, 36, 37, 38, 39)
    assert wt.thread_cols(cfg, 0, 5)[:4] == (4, 5, 6, 7) and wt.thread_cols(cfg, 0, 5)[-1] == 55
    assert wt.lane_text(cfg, 5) == "레인 5 (tr=1, tc=1): 행 4–7, 36–39, 열 4–7, 20–23, 36–39, 52–55 → C 원소 128개"


def test_warp_origins_and_other_warps():
    cfg = wt.warp_tiling()
    assert [wt.warp_origin(cfg, w) for w in range(8)] == [
        (0, 0), (0, 64), (0, 128), (0, 192), (64, 0), (64, 64), (64, 128), (64, 192)]
    assert wt.thread_rows(cfg, 5, 0)[0] == 64 and wt.thread_cols(cfg, 5, 0)[0] == 64


def test_lane_order_rows():
    cfg = wt.warp_tiling(lane_order="rows")
    assert [wt.lane_position(cfg, lane) for lane in (0, 1, 7, 8, 31)] == [(0, 0), (1, 0), (7, 0), (0, 1), (7, 3)]


def test_contiguous_layout_by_hand():
    cfg = wt.warp_tiling(layout="contiguous")
    assert wt.thread_rows(cfg, 0, 5) == tuple(range(8, 16))
    assert wt.thread_cols(cfg, 0, 5) == tuple(range(16, 32))


@pytest.mark.parametrize("label, kwargs", wt.PRESETS)
def test_every_preset_partitions_the_block_tile(label, kwargs):
    cfg = wt.warp_tiling(**{**wt.SHIPPED, **kwargs})
    owner = wt.owner_map(cfg)
    assert owner.shape == (128, 256)
    counts = {t: int((owner == t).sum()) for t in range(cfg.threads)}
    assert set(counts.values()) == {cfg.tm * cfg.tn}
    lanes = wt.warp_lane_map(cfg, 3)
    assert lanes.shape == (64, 64) and lanes.min() == 0 and lanes.max() == 31


@settings(deadline=None)   # a loaded CI host once took 330 ms for one example: timing is not what this checks
@given(st.sampled_from([(4, 8), (8, 4), (8, 8), (8, 16), (16, 8), (4, 16), (16, 4), (16, 16)]),
       st.sampled_from(["columns", "rows"]), st.sampled_from(["interleaved", "contiguous"]))
def test_any_valid_shape_is_a_partition(tile, order, layout):
    tm, tn = tile
    for wm, wn in ((32, 32), (32, 64), (64, 32), (64, 64), (32, 128), (128, 32), (64, 128), (128, 64)):
        if wm % tm or wn % tn or (wm // tm) * (wn // tn) != 32:
            continue
        cfg = wt.warp_tiling(bm=2 * wm, bn=2 * wn, wm=wm, wn=wn, tm=tm, tn=tn, lane_order=order, layout=layout)
        owner = wt.owner_map(cfg)
        assert (owner >= 0).all() and len(set(owner.ravel().tolist())) == cfg.threads


# ---------------------------------------------------------------------------- banks

def test_shipped_loads_are_conflict_free_by_hand():
    cfg = wt.warp_tiling()
    loads = wt.step_loads(cfg, k=0)
    assert [(x.operand, x.group) for x in loads] == [("A", 0), ("A", 1), ("B", 0), ("B", 1), ("B", 2), ("B", 3)]
    a0 = loads[0]
    # lanes with the same tr read the same float4: 8 distinct float4 = words 0..31, one per bank
    assert a0.distinct_float4 == 8 and a0.request.distinct_words == 32
    assert [len(ws) for ws in a0.request.words_per_bank] == [1] * 32
    assert a0.request.threads[5].words == (4, 5, 6, 7)
    assert len(a0.request.broadcast_groups) == 8 and all(len(t) == 4 for _, t in a0.request.broadcast_groups)
    b0 = loads[2]
    assert b0.distinct_float4 == 4 and b0.request.distinct_words == 16
    # half-warp model: each half-warp reads 4 float4 (16 words, one per bank): 1 + 1 wavefronts
    assert b0.request.wavefronts == b0.request.ideal_wavefronts == 2
    assert a0.request.wavefronts == a0.request.ideal_wavefronts == 2
    assert all(x.conflict_free for x in loads)
    assert cfg.lds_per_step == 6 and cfg.ffma_per_step == 128


def test_k_shifts_every_lane_alike():
    cfg = wt.warp_tiling()
    a1 = wt.fragment_load(cfg, "A", 0, k=1)
    assert a1.request.threads[0].words == (132, 133, 134, 135)     # pitch BM + 4
    assert a1.conflict_free and a1.request.wavefronts == 2
    b3 = wt.fragment_load(cfg, "B", 3, k=7)
    assert b3.request.threads[0].words[0] == 7 * 256 + 48 and b3.conflict_free


def test_contiguous_layout_conflicts_only_on_b():
    """Under the half-warp model only the B read of the contiguous counter-example conflicts: a half-warp's
    four A float4 start 8 words apart (words 0-31, one per bank); its four B float4 start 16 words apart
    (0, 16, 32, 48), so banks 0-3 and 16-19 hold two words each. (The whole-warp model would also call
    A a 2-way conflict: 8 float4 from word 0 to 59.)"""
    cfg = wt.warp_tiling(layout="contiguous")
    for load in wt.step_loads(cfg):
        if load.operand == "A":
            assert load.conflict_free and load.request.wavefronts == 2 and "충돌 없음" in load.summary
        else:
            assert (load.request.wavefronts, load.request.ideal_wavefronts) == (4, 2)
            assert "2-way" in load.summary


@pytest.mark.parametrize("kwargs", [{"lane_order": "rows"}, {"tm": 16, "tn": 8}])
def test_the_tuners_other_conflict_free_layouts(kwargs):
    cfg = wt.warp_tiling(**{**wt.SHIPPED, **kwargs})
    assert all(x.conflict_free for x in wt.step_loads(cfg))


def test_model_agrees_with_the_recorded_conflict_counter():
    """Nsight Compute's shared-load bank-conflict counter for Level 6 (if recorded) is zero too."""
    from sims.roofline import load_recorded

    profiles = load_recorded("profiles.json")
    entry = next((k for k in (profiles or {}).get("kernels", []) if k.get("kernel") == "sgemm_warp_tiling"), None)
    if entry is None:
        pytest.skip("no recorded profile of sgemm_warp_tiling")
    assert entry["smem_ld_bank_conflicts"] == 0
    assert all(x.conflict_free for x in wt.step_loads(wt.warp_tiling()))


def test_ffma_per_lds():
    assert wt.ffma_per_lds(8, 16) == pytest.approx(128 / 6)
    assert wt.ffma_per_lds(8, 8) == 16.0
    with pytest.raises(SimInputError):
        wt.ffma_per_lds(6, 8)


# ---------------------------------------------------------------------------- waves

@pytest.mark.parametrize("n, blocks, waves, last", [(1024, 32, 1, 32), (2048, 128, 1, 128),
                                                     (4096, 512, 4, 116), (8192, 2048, 16, 68)])
def test_waves_of_the_shipped_tile(n, blocks, waves, last):
    w = wt.waves(n, n)
    assert (w.blocks, w.waves, w.last_wave_blocks) == (blocks, waves, last)
    assert w.efficiency == pytest.approx(blocks / (waves * 132))


def test_awkward_shape_and_smaller_tiles_and_split_k():
    assert wt.waves(1000, 1023).blocks == 8 * 4
    small = wt.waves(1024, 1024, 128, 128, blocks_per_sm=2)
    assert (small.blocks, small.slots, small.busy_sms) == (64, 264, 64)
    split = wt.waves(1024, 1024, split_k=4)
    assert split.blocks == 128 and split.efficiency == pytest.approx(128 / 132)
    assert "split-K 4" in split.summary


# ---------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, words", [
    ({"tm": 6}, ["4의 배수", "6×16"]),
    ({"tm": 16}, ["32개", "4×4"]),
    ({"wm": 36}, ["나누어떨어져야", "36×64"]),
    ({"lane_order": "diagonal"}, ["레인 순서", "diagonal"]),
    ({"layout": "swizzled"}, ["배치", "swizzled"]),
    ({"bm": 0}, ["BM", "받은 값: 0"]),
    ({"tn": "16"}, ["TN", "정수"]),
])
def test_bad_shapes_raise_korean_errors(kwargs, words):
    with pytest.raises(SimInputError) as info:
        wt.warp_tiling(**kwargs)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_bad_lane_warp_operand_and_sizes():
    cfg = wt.warp_tiling()
    for call in (lambda: wt.lane_position(cfg, 32), lambda: wt.warp_origin(cfg, 8),
                 lambda: wt.fragment_load(cfg, "C"), lambda: wt.fragment_load(cfg, "A", group=2),
                 lambda: wt.waves(0, 10), lambda: wt.waves(10, 10, split_k=0)):
        with pytest.raises(SimInputError, match="받은 값|operand"):
            call()


# ---------------------------------------------------------------------------- views

def test_figure_states_controls_and_size():
    fig = wt.figure()
    data = json.loads(fig.to_json())
    layout = data["layout"]
    assert figure_json_bytes(fig) < 300_000
    menu, slider = layout["updatemenus"][0], layout["sliders"][0]
    assert HANGUL.search(menu["name"]) and HANGUL.search(slider["name"])
    assert [b["label"] for b in menu["buttons"]] == [label for label, _ in wt.PRESETS]
    assert len(slider["steps"]) == 32
    # one heatmap visible per menu option
    heat = [i for i, t in enumerate(fig.data) if t.type == "heatmap"]
    for button in menu["buttons"]:
        assert sum(button["args"][0]["visible"][i] for i in heat) == 1
    # slider step 5 moves the shipped preset's marker to lane 5's 128 elements
    step = slider["steps"][5]["args"]
    xs, ys = step[0]["x"][0], step[0]["y"][0]
    assert len(xs) == 128 and (4, 4) == (min(xs), min(ys)) and max(ys) == 39
    # the contiguous counter-example shows bars of 2 (the conflict) in the B panel only
    bars = {t.name: t for t in fig.data if t.type == "bar" and "가상" in t.name}
    assert len(bars) == 2
    assert [max(t.y) for name, t in sorted(bars.items())] == [1, 2]      # A, then B
    shipped_bars = [t for t in fig.data if t.type == "bar" and t.name.startswith("기본 구성")]
    assert all(max(t.y) == 1 for t in shipped_bars)
    assert "충돌 없음" in layout["title"]["text"]


def test_figure_bad_parameters_give_an_error_figure():
    fig = wt.figure(active=9)
    assert len(fig.data) == 0 and "받은 값: 9" in fig.layout.title.text
    fig = wt.figure(presets=(("나쁜 배치", {"tm": 6}),))
    assert "4의 배수" in fig.layout.title.text


def test_widget_reacts_and_shows_errors():
    pytest.importorskip("ipywidgets")
    box = wt.widget()
    for key, control in box.controls.items():
        assert HANGUL.search(control.tooltip or ""), key
    assert "레인 0 (tr=0, tc=0)" in box.output.value and "충돌 없음" in box.output.value
    box.controls["lane"].value = 5
    assert "레인 5 (tr=1, tc=1)" in box.output.value
    box.controls["layout"].value = "contiguous"
    assert "2-way" in box.output.value
    box.controls["tm"].value = 16
    assert "입력 오류" in box.output.value and "32개" in box.output.value


# ---------------------------------------------------------------------------- block order and traffic

def test_swizzle_follows_the_kernel():
    src = read_source("sgemm_warp_tiling.cu")
    for piece in ("per_group = l6::GROUP * tiles_n", "first_m = (pid / per_group) * l6::GROUP",
                  "rows = min(tiles_m - first_m, l6::GROUP)", "tile_m = first_m + in_group % rows",
                  "tile_n = in_group / rows"):
        assert piece in src, piece


def test_swizzle_by_hand_and_as_a_permutation():
    # 4096³: 32 tile rows, 16 tile columns, GROUP 8 walks 8 rows down a column, then the next column
    assert [wt.swizzled_tile(p, 32, 16, 8) for p in (0, 1, 7, 8, 127, 128)] == [
        (0, 0), (1, 0), (7, 0), (0, 1), (7, 15), (8, 0)]
    # GROUP 1 is the plain row-major launch order
    assert [wt.swizzled_tile(p, 32, 16, 1) for p in (0, 15, 16)] == [(0, 0), (0, 15), (1, 0)]
    # a last group with fewer rows (13 = 8 + 5)
    assert wt.swizzled_tile(8 * 5, 13, 5, 8) == (8, 0) and wt.swizzled_tile(8 * 5 + 5, 13, 5, 8) == (8, 1)
    for tiles_m, tiles_n, group in ((32, 16, 8), (13, 5, 8), (7, 3, 16), (4, 4, 1)):
        seen = {wt.swizzled_tile(p, tiles_m, tiles_n, group) for p in range(tiles_m * tiles_n)}
        assert seen == {(r, c) for r in range(tiles_m) for c in range(tiles_n)}
    with pytest.raises(SimInputError):
        wt.swizzled_tile(512, 32, 16, 8)


def test_wave_footprints_by_hand():
    g1 = wt.wave_footprints(4096, 4096, 4096, group=1)
    g8 = wt.wave_footprints(4096, 4096, 4096, group=8)
    assert len(g1) == len(g8) == 4 and [fp.blocks for fp in g8] == [132, 132, 132, 116]
    # first wave: GROUP 1 covers 132 / 16 = 8¼ tile rows (9 distinct) and all 16 columns;
    # GROUP 8 covers the 8 rows of group 0 plus 4 rows of group 1 (12 distinct), all 16 columns
    assert (g1[0].tile_rows, g1[0].tile_cols, g8[0].tile_rows, g8[0].tile_cols) == (9, 16, 12, 16)
    assert g8[0].a_bytes == 12 * 128 * 4096 * 4 and g8[0].b_bytes == 4096 * 4096 * 4
    # at 8192³ the swizzle shrinks what a wave needs; at 4096³ it does not
    assert wt.operand_traffic(8192, 8192, 8192, group=8) < 0.7 * wt.operand_traffic(8192, 8192, 8192, group=1)
    assert wt.operand_traffic(4096, 4096, 4096, group=8) > wt.operand_traffic(4096, 4096, 4096, group=1)


def test_traffic_model_against_the_recorded_dram_reads():
    """The wave model's operand bytes for the shipped kernel (GROUP 8) and for cuBLAS's 256×128 tile
    (row-major launch assumed) against Nsight Compute's DRAM reads at 4096³, within 10% (if recorded)."""
    from sims.roofline import load_recorded

    profiles = load_recorded("profiles.json") or {}
    mine = next((k for k in profiles.get("kernels", []) if k.get("kernel") == "sgemm_warp_tiling"), None)
    if mine is None:
        pytest.skip("no recorded profile of sgemm_warp_tiling")
    model = wt.operand_traffic(4096, 4096, 4096, 128, 256, registry.LEVEL6["GROUP"], 132)
    assert model == pytest.approx(mine["dram_read_bytes"], rel=0.10)
