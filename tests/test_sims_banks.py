"""Simulation 6: shared-memory bank conflicts of one warp request (sims/banks.py)."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from sims import SimInputError
from sims import banks as bk

ALLOWED_TRACES = {"scatter", "bar", "heatmap", "histogram", "box", "contour", "image"}


def nonempty_banks(req):
    return {b: ws for b, ws in enumerate(req.words_per_bank) if ws}


# ----------------------------------------------------------------------------- seed scenario

SEED = dict(rows=16, cols=16, bdx=1, bdy=16, expression="load [ty][k]", k=5)


def test_seed_column_read_is_an_8_way_conflict_on_banks_5_and_21():
    req = bk.bank_request(**SEED)
    assert [t.words[0] for t in req.threads] == [16 * r + 5 for r in range(16)]
    banks = nonempty_banks(req)
    assert set(banks) == {5, 21}
    assert all(len(ws) == 8 for ws in banks.values())
    assert (req.wavefronts, req.ideal_wavefronts, req.conflict_ways) == (8, 1, 8.0)
    assert req.broadcast_groups == ()


def test_seed_column_with_padding_one_hits_16_different_banks():
    req = bk.bank_request(**SEED, padding=1)
    assert [t.banks[0] for t in req.threads] == [5, 22, 7, 24, 9, 26, 11, 28, 13, 30, 15, 0,
                                                  17, 2, 19, 4]
    assert req.pitch == 17 and req.wavefronts == 1 and req.conflict_ways == 1.0


def test_real_block_reading_down_a_column_reproduces_the_seed_conflict():
    # Block 16x16, s[tx][k]: tx plays the role of the seed's ty; ty = 0/1 broadcast.
    req = bk.bank_request(expression="load [tx][k]", k=5)
    assert req.wavefronts == 8 and req.distinct_words == 16
    assert len(req.broadcast_groups) == 16
    assert bk.bank_request(expression="load [tx][k]", k=5, padding=1).wavefronts == 1


# ----------------------------------------------------------------------------- real 16x16 kernel

@pytest.mark.parametrize("padding", [0, 1])
@pytest.mark.parametrize("k", [0, 5, 15])
def test_a_tile_load_is_a_two_word_broadcast(padding, k):
    req = bk.bank_request(expression="load [ty][k]", k=k, padding=padding)
    assert req.distinct_words == 2 and req.wavefronts == 1 and req.ideal_wavefronts == 1
    groups = dict(req.broadcast_groups)
    assert groups == {k: tuple(range(16)), (16 + padding) + k: tuple(range(16, 32))}
    if padding == 0:
        assert set(nonempty_banks(req)) == {k, (k + 16) % 32}


@pytest.mark.parametrize("padding", [0, 1])
def test_b_tile_load_is_sixteen_consecutive_words(padding):
    req = bk.bank_request(expression="load [k][tx]", k=5, padding=padding)
    assert req.distinct_words == 16 and req.wavefronts == 1


def test_tile_store_unpadded_is_conflict_free():
    req = bk.bank_request(expression="store [ty][tx]")
    assert sorted(w for t in req.threads for w in t.words) == list(range(32))
    assert (req.wavefronts, req.ideal_wavefronts, req.kind) == (1, 1, "store")


def test_tile_store_with_padding_one_is_a_two_way_conflict():
    req = bk.bank_request(expression="store [ty][tx]", padding=1)
    # T31 = (tx 15, ty 1) writes word 17 + 15 = 32, bank 0, next to word 0 of T0.
    assert req.threads[31].words == (32,)
    assert req.words_per_bank[0] == (0, 32)
    assert (req.wavefronts, req.ideal_wavefronts, req.conflict_ways) == (2, 1, 2.0)
    assert set(req.threads_in_bank(0)) == {0, 31}


# ----------------------------------------------------------------------------- float4

def test_32_consecutive_float4_cost_4_wavefronts_without_conflict():
    req = bk.bank_request(rows=4, cols=32, bdx=8, bdy=4, width_bytes=16,
                          expression="store [ty][tx]")
    assert req.distinct_words == 128
    assert (req.wavefronts, req.ideal_wavefronts, req.conflict_ways) == (4, 4, 1.0)
    assert req.fault is None


def test_16_float4_at_a_32_byte_stride_are_a_two_way_conflict():
    req = bk.bank_request(rows=16, cols=8, width_bytes=16, expression="load [tx][k]", k=0)
    assert req.distinct_words == 64
    assert set(nonempty_banks(req)) == {b + o for b in (0, 8, 16, 24) for o in range(4)}
    # Each half-warp (ty = 0, then ty = 1) reads the same 16 float4: 4 words per bank where 2 would do;
    # the second half-warp cannot share the first one's words (no broadcast across passes).
    assert [p.wavefronts for p in req.passes] == [4, 4] and req.pass_ideal == 2
    assert (req.wavefronts, req.ideal_wavefronts, req.conflict_ways) == (8, 4, 2.0)
    # Padding by 4 floats (one float4) keeps alignment and spreads the rows over all banks.
    padded = bk.bank_request(rows=16, cols=8, padding=4, width_bytes=16,
                             expression="load [tx][k]", k=0)
    assert (padded.wavefronts, padded.ideal_wavefronts, padded.fault) == (4, 4, None)


# ----------------------------------------------------------------------------- the half-warp model of LDS.128

def test_128_bit_requests_are_served_per_half_warp_and_32_bit_per_warp():
    wide = bk.bank_request(width_bytes=16, expression="load [ty][k]", k=1)
    assert [p.tids for p in wide.passes] == [tuple(range(16)), tuple(range(16, 32))]
    narrow = bk.bank_request(expression="load [ty][k]", k=1)
    assert [p.tids for p in narrow.passes] == [tuple(range(32))]
    # Module 6's Level 2: each half-warp reads one float4 of As (a broadcast), so 1 + 1 = 2 wavefronts;
    # the rejected whole-warp pass would say 1, half of what Nsight measures.
    assert (wide.wavefronts, wide.ideal_wavefronts) == (2, 2)
    assert bk.bank_request(width_bytes=16, expression="load [ty][k]", k=1, service="warp").wavefronts == 1


def test_broadcast_stays_inside_a_half_warp():
    req = bk.bank_request(width_bytes=16, expression="load [ty][k]", k=0)
    assert dict(req.broadcast_groups) == {0: tuple(range(16)), 16: tuple(range(16, 32))}
    # Module 7's B read: both half-warps read the same 16 float4 (256 B, tx only). Each half-warp pays 2;
    # whole-warp service would share them (2 in all), the record says 4 (book/appendix/models.md).
    same = bk.bank_request(rows=16, cols=64, width_bytes=16, expression="load [k][tx]", k=0)
    assert [p.wavefronts for p in same.passes] == [2, 2] and same.broadcast_groups == ()
    assert (same.wavefronts, same.ideal_wavefronts) == (4, 4)
    assert bk.bank_request(rows=16, cols=64, width_bytes=16, expression="load [k][tx]", k=0,
                           service="warp").wavefronts == 2


def test_service_must_be_known():
    with pytest.raises(SimInputError, match="service"):
        bk.bank_request(service="quarter-warp")


def test_float4_with_padding_one_is_a_misaligned_fault():
    req = bk.bank_request(rows=16, cols=8, padding=1, width_bytes=16,
                          expression="load [tx][k]", k=0)
    assert req.misaligned_tids and 0 not in req.misaligned_tids
    assert "misaligned address" in req.fault
    assert "misaligned address" in bk.request_summary(req)


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize("kwargs, fragment", [
    (dict(padding=9), "패딩(padding"),
    (dict(padding=-1), "패딩(padding"),
    (dict(width_bytes=8), "element width"),
    (dict(bdx=64, bdy=32), "블록 크기(block size)는 1024 스레드 이하"),
    (dict(warp=8), "워프 번호(warp index)"),
    (dict(expression="load [k][k]"), "access expression"),
    (dict(k=16), "k 스텝(k-step)"),
    (dict(rows=-4), "rows"),
    (dict(bdx=32, bdy=16, expression="store [ty][tx]"), "배열 범위"),
    (dict(cols=6, width_bytes=16), "4의 배수"),
])
def test_bad_inputs_raise_sim_input_error(kwargs, fragment):
    with pytest.raises(SimInputError) as err:
        bk.bank_request(**kwargs)
    assert fragment in str(err.value)


# ----------------------------------------------------------------------------- properties

configs = st.fixed_dictionaries({
    "rows": st.integers(1, 40), "cols4": st.integers(1, 12), "padding": st.integers(0, 8),
    "width_bytes": st.sampled_from([4, 16]), "bdx": st.integers(1, 40),
    "bdy": st.integers(1, 25), "expression": st.sampled_from(list(bk.EXPRESSIONS)),
    "pick": st.floats(0, 0.999),
})


@settings(max_examples=200, deadline=None, derandomize=True)
@given(configs)
def test_wavefront_invariants(cfg):
    width = bk.WIDTH_WORDS[cfg["width_bytes"]]
    cols = 4 * cfg["cols4"]
    # Make the array large enough for every thread of the block so the access is legal.
    rows, cols = max(cfg["rows"], cfg["bdx"], cfg["bdy"]), max(cols, 4 * math.ceil(
        max(cfg["bdx"], cfg["bdy"]) * width / 4))
    warps = math.ceil(cfg["bdx"] * cfg["bdy"] / 32)
    k_limit = rows if cfg["expression"] == "load [k][tx]" else cols // width
    req = bk.bank_request(rows, cols, cfg["padding"], cfg["width_bytes"], cfg["bdx"],
                          cfg["bdy"], int(cfg["pick"] * warps), cfg["expression"],
                          int(cfg["pick"] * k_limit))
    assert req.active_threads >= 1
    assert 1 <= req.wavefronts <= req.active_threads * width
    assert req.ideal_wavefronts <= req.wavefronts
    assert req.distinct_words <= req.active_threads * width
    assert req.conflict_ways >= 1
    # Every bank lists only its own words, each word once.
    for bank, words in enumerate(req.words_per_bank):
        assert all(w % 32 == bank for w in words) and len(set(words)) == len(words)
    assert (req.fault is None) == (not req.misaligned_tids)


# ----------------------------------------------------------------------------- views

def test_widget_updates_and_reports_errors():
    w = bk.widget()
    assert "충돌 없음" in w.output.value
    w.controls["expression"].value = "store [ty][tx]"
    w.controls["padding"].value = 1
    assert "2-way 뱅크 충돌" in w.output.value and "웨이브프론트(wavefront) 2개" in w.output.value
    w.controls["bdx"].value = 32
    assert "sim-error" in w.output.value and "배열 범위" in w.output.value
    w.controls["bdx"].value = 16
    w.controls["width_bytes"].value = 16
    assert "sim-error" in w.output.value  # 16 floats per row hold only 4 float4


def test_figure_scenarios_padding_slider_and_titles():
    fig = bk.figure()
    payload = fig.to_json()
    assert len(payload.encode()) < 300_000
    assert {t.type for t in fig.data} <= ALLOWED_TRACES
    menu = fig.layout.updatemenus[0]
    assert len(menu.buttons) == len(bk.SCENARIOS)
    steps = {b.label: b["args"][1]["sliders"][0]["steps"] for b in menu.buttons}
    seed = steps[bk.SCENARIOS["seed"][0]]
    assert [s["label"] for s in seed] == ["+0", "+1"]
    assert "8-way" in seed[0]["args"][1]["title.text"]
    assert "충돌 없음" in seed[1]["args"][1]["title.text"]
    store = steps[bk.SCENARIOS["tile_store"][0]]
    assert "웨이브프론트(wavefront) 1개" in store[0]["args"][1]["title.text"]
    assert "2-way" in store[1]["args"][1]["title.text"]
    float4 = steps[bk.SCENARIOS["float4_column"][0]]
    assert [s["label"] for s in float4] == ["+0", "+1", "+4"]
    assert "misaligned address" in float4[1]["args"][1]["title.text"]
    assert float4[2]["args"][0]["y"][0].count(2) == 32  # padded by 4: every bank holds 2 words
    # Initial state: the seed's 8-way conflict, bars at banks 5 and 21.
    assert [i for i, y in enumerate(fig.data[0].y) if y] == [5, 21]


def test_figure_custom_setting_and_errors():
    fig = bk.figure(expression="store [ty][tx]", padding=1)
    assert fig.layout.updatemenus[0].buttons[0].label == "지정한 설정"
    assert "2-way" in fig.layout.title.text
    assert "2-way" in bk.figure(scenario="tile_store", padding=1).layout.title.text
    for bad in (dict(scenario="nope"), dict(padding=12, expression="store [ty][tx]"),
                dict(scenario="seed", padding=4)):
        broken = bk.figure(**bad)
        assert "입력 오류" in broken.layout.title.text
        broken.to_json()


@pytest.mark.browser
def test_static_figure_menu_and_slider_in_the_site_plotly_bundle(figure_page):
    fig = bk.figure()
    page, errors = figure_page(fig)
    page.locator("g.updatemenu-header-group").first.click()
    page.locator("g.updatemenu-dropdown-button").nth(4).click()  # the real kernel's store
    page.wait_for_timeout(200)
    rail = page.locator("rect.slider-rail-touch-rect").first.bounding_box()
    label = page.locator("g.slider-labels text, g.slider-label-group text").nth(1).bounding_box()
    page.mouse.click(label["x"] + label["width"] / 2, rail["y"] + rail["height"] / 2)
    page.wait_for_timeout(200)
    state = page.evaluate("() => { const g = document.getElementById('g');"
                          " return [g.layout.title.text, g.data[0].y]; }")
    expected = bk.bank_request(expression="store [ty][tx]", padding=1)
    assert state[0].startswith(bk.request_summary(expected))
    assert state[1] == [len(ws) for ws in expected.words_per_bank] and not errors
