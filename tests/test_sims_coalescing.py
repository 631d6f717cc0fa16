"""Simulations 4 and 5: warp global-memory requests, sectors, float4 (sims/coalescing.py)."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings, strategies as st

from sims import SimInputError
from sims import coalescing as co

ALLOWED_TRACES = {"scatter", "bar", "heatmap", "histogram", "box", "contour", "image"}
MAX_FIGURE_JSON = 300_000


# ----------------------------------------------------------------------------- seed 8x8 case

def seed_request(matrix, **kw):
    # The seed's exercise: M = N = K = 8, lda = ldb = 8, one 16x16 block, warp 0, k = 0.
    return co.naive_warp_request(matrix, M=8, N=8, K=8, ld=kw.pop("ld", 8), bdx=16, bdy=16,
                                 warp=0, k=kw.pop("k", 0), **kw)


def test_seed_b_is_one_sector_and_upper_tx_are_out_of_bounds():
    req = seed_request("B")
    by_tid = {t.tid: t for t in req.threads}
    assert [by_tid[i].element for i in range(8)] == list(range(8))
    assert all(not by_tid[i].in_bounds and by_tid[i].address is None for i in range(8, 16))
    # ty = 1 (T16..T23) repeats the ty = 0 addresses: broadcast pairs, no new sector.
    assert [by_tid[16 + i].address for i in range(8)] == [by_tid[i].address for i in range(8)]
    assert req.broadcast_groups == tuple((i, 16 + i) for i in range(8))
    assert req.sectors == (0,) and req.sectors_per_request == 1
    assert req.lines_per_request == 1 and req.active_threads == 16


def test_seed_a_is_two_sectors_of_one_line():
    req = seed_request("A")
    assert req.sectors == (0, 1)
    # Course-spec F2: the two 32-B pieces are sectors of the same 128-B line.
    assert req.lines == (0,)
    groups = {req.threads[g[0]].element: g for g in req.broadcast_groups}
    assert groups == {0: tuple(range(8)), 8: tuple(range(16, 24))}  # tx >= 8 make no access
    assert groups[8] and req.threads[16].address - req.threads[0].address == 32


def test_lda_4096_puts_the_two_a_addresses_16_kib_apart():
    req = seed_request("A", ld=4096)
    assert req.threads[16].address - req.threads[0].address == 4096 * 4 == 16_384
    assert req.sectors_per_request == 2 and req.lines_per_request == 2


def test_naive_kernel_at_4096_averages_two_sectors_per_request():
    avg = co.naive_average_sectors(4096, 4096, 4096, bdx=16, bdy=16)
    assert avg.a_sectors_per_request == 2.0  # two rows, 16 KiB apart
    assert avg.b_sectors_per_request == 2.0  # 16 consecutive floats = 64 B, aligned
    assert avg.overall == 2.0                # Nsight Compute on H100 measured 2.00
    assert avg.a_requests == avg.b_requests == 4096 * 8


def test_seed_block_average_counts_only_issued_requests():
    avg = co.naive_average_sectors(8, 8, 8, bdx=16, bdy=16)
    # Warps 4..7 hold rows 8..15, all out of bounds: they issue nothing.
    assert (avg.a_requests, avg.b_requests) == (4 * 8, 4 * 8)
    assert (avg.a_sectors_per_request, avg.b_sectors_per_request, avg.overall) == (2.0, 1.0, 1.5)


# ----------------------------------------------------------------------------- mapping

def test_worked_example_block_3_7_thread_5_11():
    # Course-spec 2.1 example 1: block (3, 7), thread (5, 11) -> row 123, col 53.
    t = co.naive_thread_access(11 * 16 + 5, matrix="B", M=200, N=200, K=8, ld=200, bdx=16,
                               bdy=16, bx=3, by=7, k=2)
    assert (t.tx, t.ty, t.row, t.col) == (5, 11, 2, 53)
    assert t.address == (2 * 200 + 53) * 4
    a = co.naive_thread_access(11 * 16 + 5, matrix="A", M=200, N=200, K=8, ld=8, bdx=16,
                               bdy=16, bx=3, by=7, k=2)
    assert (a.row, a.col, a.element) == (123, 2, 123 * 8 + 2)


def test_thread_fields_for_a_non_square_block_and_partial_warp():
    req = co.naive_warp_request("B", M=64, N=64, K=4, ld=64, bdx=10, bdy=5, bx=1, by=2,
                                warp=1, k=3)
    assert [t.tid for t in req.threads] == list(range(32, 50))  # 50 threads: warp 1 is short
    t = req.threads[0]
    assert (t.tx, t.ty) == (2, 3)
    assert t.address == (3 * 64 + 1 * 10 + 2) * 4
    assert (t.sector, t.line) == (t.address // 32, t.address // 128)


def test_vectorised_average_matches_single_requests():
    kw = dict(M=20, N=12, K=6, bdx=8, bdy=8, bx=1, by=2)
    avg = co.naive_average_sectors(**kw, lda=9, ldb=13, ks=[0, 2, 5])
    for matrix, ld, expected in (("A", 9, avg.a_sectors_per_request),
                                 ("B", 13, avg.b_sectors_per_request)):
        counts = [co.naive_warp_request(matrix, ld=ld, warp=w, k=k, **kw)
                  for k in (0, 2, 5) for w in range(2)]
        issued = [r.sectors_per_request for r in counts if r.issues_request]
        assert expected == pytest.approx(sum(issued) / len(issued))


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(M=-1), "M(rows)"),
    (dict(bdx=64, bdy=32), "블록 크기(block size)는 1024 스레드 이하"),
    (dict(matrix="A", K=8, ld=4), "leading dimension"),
    (dict(k=8), "단계 k(step)"),
    (dict(warp=8), "워프 번호(warp index)"),
    (dict(matrix="C"), "행렬(matrix)"),
    (dict(bx=1), "blockIdx.x"),
    (dict(M=2.5), "정수"),
])
def test_bad_naive_inputs_raise_a_korean_sim_input_error(kwargs, fragment):
    params = dict(matrix="B", M=8, N=8, K=8, bdx=16, bdy=16) | kwargs
    with pytest.raises(SimInputError) as err:
        co.naive_warp_request(**params)
    assert fragment in str(err.value) and "받은 값" in str(err.value)
    assert isinstance(err.value, ValueError)


# ----------------------------------------------------------------------------- simulation 5

@pytest.mark.parametrize("mapping, width, lda, sectors", [
    ("col", 4, 4096, 4),    # 32 lanes x 4 B = 128 B
    ("col", 16, 4096, 16),  # 32 lanes x 16 B = 512 B
    ("row", 4, 4096, 32),   # each lane in its own row: one sector each
    ("row", 16, 4096, 32),
    ("row", 4, 8, 32),      # rows exactly one sector apart
    ("row", 4, 4, 16),      # rows packed: lanes 16 B apart
])
def test_sectors_per_request_table(mapping, width, lda, sectors):
    strip = co.strip_load(mapping, width, 0, lda)
    assert strip.sectors_per_request == sectors
    assert all(r.sectors_per_request == sectors for r in strip.requests)


def test_float4_cuts_instructions_and_requests_not_bytes():
    narrow, wide = co.strip_load("col", 4), co.strip_load("col", 16)
    assert (narrow.mnemonic, narrow.instructions, narrow.request_count) == ("LDG.E", 4, 4)
    assert (wide.mnemonic, wide.instructions, wide.request_count) == ("LDG.E.128", 1, 1)
    assert narrow.total_sectors == wide.total_sectors == 16
    assert narrow.moved_bytes == wide.moved_bytes == narrow.useful_bytes == 512
    assert narrow.efficiency == wide.efficiency == 1.0


def test_strided_strip_wastes_bytes_float4_or_not():
    narrow, wide = co.strip_load("row", 4), co.strip_load("row", 16)
    assert (narrow.total_sectors, narrow.moved_bytes) == (128, 4096)
    assert (wide.total_sectors, wide.moved_bytes) == (32, 1024)
    assert narrow.distinct_sectors == wide.distinct_sectors == 32
    assert wide.efficiency == 0.5


def test_offset_of_one_float_costs_a_fifth_sector():
    strip = co.strip_load("col", 4, base_offset=1)
    assert strip.sectors_per_request == 5 and strip.fault is None


@pytest.mark.parametrize("mapping, base, lda, bad_lanes", [
    ("col", 1, 4096, 32),
    ("col", 2, 4096, 32),
    ("row", 0, 4097, 24),  # lane i starts at i*4097 floats: aligned only when 4 | i
])
def test_misaligned_float4_is_reported_as_a_fault(mapping, base, lda, bad_lanes):
    req = co.vector_warp_request(mapping, 16, base, lda)
    assert len(req.misaligned_tids) == bad_lanes
    assert "misaligned address" in req.fault
    assert "misaligned address" in co.strip_load(mapping, 16, base, lda).fault
    assert co.strip_load(mapping, 4, base, lda).fault is None  # 32-bit loads never fault


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(width_bytes=8), "access width"),
    (dict(mapping="diag"), "mapping"),
    (dict(base_offset=-1), "base offset"),
    (dict(mapping="row", base_offset=2, lda=5), "leading dimension"),
])
def test_bad_vector_inputs(kwargs, fragment):
    with pytest.raises(SimInputError, match=fragment):
        co.strip_load(**kwargs)


# ----------------------------------------------------------------------------- properties

naive_configs = st.fixed_dictionaries({
    "matrix": st.sampled_from(["A", "B"]),
    "M": st.integers(1, 70), "N": st.integers(1, 70), "K": st.integers(1, 9),
    "bdx": st.integers(1, 40), "bdy": st.integers(1, 25),
    "ld_extra": st.integers(0, 5000),
    "pick": st.floats(0, 0.999),
})


@settings(max_examples=120, deadline=None, derandomize=True)
@given(naive_configs)
def test_request_invariants_hold_for_any_naive_configuration(cfg):
    cols = cfg["K"] if cfg["matrix"] == "A" else cfg["N"]
    warps = math.ceil(cfg["bdx"] * cfg["bdy"] / 32)
    gx, gy = math.ceil(cfg["N"] / cfg["bdx"]), math.ceil(cfg["M"] / cfg["bdy"])
    pick = cfg["pick"]
    req = co.naive_warp_request(cfg["matrix"], cfg["M"], cfg["N"], cfg["K"],
                                cols + cfg["ld_extra"], cfg["bdx"], cfg["bdy"],
                                int(pick * gx), int(pick * gy), int(pick * warps),
                                int(pick * cfg["K"]))
    n = req.sectors_per_request
    assert (n >= 1) == req.issues_request
    assert n <= req.active_threads  # an aligned 4-B access lies in one sector
    assert n * 32 >= req.useful_bytes  # sectors carry at least the distinct bytes asked for
    assert math.ceil(n / 4) <= req.lines_per_request <= n
    grouped = sum(len(g) for g in req.broadcast_groups)
    distinct_addresses = req.active_threads - grouped + len(req.broadcast_groups)
    assert req.useful_bytes == 4 * distinct_addresses


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.sampled_from(["col", "row"]), st.sampled_from([4, 16]), st.integers(0, 64),
       st.integers(0, 5000))
def test_strip_invariants(mapping, width, base, lda_extra):
    strip = co.strip_load(mapping, width, base, base + 4 + lda_extra)
    assert strip.instructions * width == 16  # 4 floats per lane either way
    for req in strip.requests:
        assert 1 <= req.sectors_per_request <= 32 * math.ceil(width / 32 + 1)
        assert req.sectors_per_request * 32 >= req.useful_bytes == 32 * width
    if strip.fault is None:
        narrow = co.strip_load(mapping, 4, base, base + 4 + lda_extra)
        # float4 reads the same data: the sectors it occupies do not change.
        assert strip.distinct_sectors == narrow.distinct_sectors


# ----------------------------------------------------------------------------- widget views

def test_widget_reacts_to_controls_and_shows_errors():
    w = co.widget()
    assert "섹터(sector) 1개" in w.output.value
    w.controls["matrix"].value = "A"
    assert "섹터(sector) 2개" in w.output.value and "라인(line) 1개" in w.output.value
    w.controls["ld"].value = 4096
    assert "라인(line) 2개" in w.output.value
    w.controls["bdx"].value = 2000
    assert "sim-error" in w.output.value and "blockDim.x" in w.output.value
    w.controls["bdx"].value = 16
    assert "sim-error" not in w.output.value


def test_float4_widget_shows_mnemonic_and_fault():
    w = co.float4_widget()
    assert "LDG.E × 4" in w.output.value
    w.controls["width_bytes"].value = 16
    assert "LDG.E.128 × 1" in w.output.value and "섹터 16개" in w.output.value
    w.controls["base_offset"].value = 1
    assert "misaligned address" in w.output.value
    w.controls["lda"].value = -5
    assert "sim-error" in w.output.value


# ----------------------------------------------------------------------------- figure views

def _check_static(fig):
    payload = fig.to_json()
    assert len(payload.encode()) < MAX_FIGURE_JSON
    assert {t.type for t in fig.data} <= ALLOWED_TRACES
    return json.loads(payload)


def _step_titles(fig):
    return [[s["args"][1]["title.text"] for s in b["args"][1]["sliders"][0]["steps"]]
            for b in fig.layout.updatemenus[0].buttons]


def test_coalescing_figure_has_buttons_slider_and_model_titles():
    fig = co.figure()
    _check_static(fig)
    labels = [b.label for b in fig.layout.updatemenus[0].buttons]
    assert labels == ["B 읽기 · ldb=8", "B 읽기 · ldb=4096", "A 읽기 · lda=8", "A 읽기 · lda=4096"]
    assert [s.label for s in fig.layout.sliders[0].steps] == [str(k) for k in range(8)]
    titles = _step_titles(fig)
    assert all("섹터(sector) 1개" in t for t in titles[0])
    assert "섹터(sector) 2개, 128 B 라인(line) 1개" in titles[2][0]
    assert "섹터(sector) 2개, 128 B 라인(line) 2개" in titles[3][0]
    # Initial state = B, k = 0, shown as a 2 x 16 warp grid with x marks out of bounds.
    z, text = fig.data[0].z, fig.data[0].text
    assert len(z) == 2 and len(z[0]) == 16 and text[0][8] == "×" and text[1][3] == "3"


def test_coalescing_figure_starts_where_asked():
    fig = co.figure(matrix="A", ld=4096, k=3)
    menu = fig.layout.updatemenus[0]
    # lda = 4096 is both the given and the far value: one A button, not two.
    assert [b.label for b in menu.buttons][menu.active] == "A 읽기 · lda=4096"
    assert len(menu.buttons) == 3 and fig.layout.sliders[0].active == 3
    assert fig.layout.title.text.startswith("A 읽기, k=3")


@pytest.mark.parametrize("kwargs", [dict(k=99), dict(bdx=2000), dict(matrix="A", ld=2)])
def test_coalescing_figure_states_bad_input(kwargs):
    fig = co.figure(**kwargs)
    assert "입력 오류" in fig.layout.title.text and len(fig.data) == 0
    fig.to_json()


def test_float4_figure_groups_and_fault_steps():
    fig = co.float4_figure()
    _check_static(fig)
    buttons = fig.layout.updatemenus[0].buttons
    assert [b.label for b in buttons] == ["열 · LDG.E", "열 · LDG.E.128", "행 · LDG.E", "행 · LDG.E.128"]
    titles = _step_titles(fig)
    assert len(titles[0]) == len(co.DEFAULT_VECTOR_STEPS)
    assert "요청 1개당 섹터 4개" in titles[0][0]
    assert "요청 1개당 섹터 16개" in titles[1][0]
    assert "misaligned address" in titles[1][1]  # float4 at offset 1 float
    assert "요청 1개당 섹터 32개" in titles[2][0]
    assert "misaligned address" in titles[3][3]  # row mapping, lda 4097
    assert list(fig.data[1].y) == [4, 4, 16]  # initial: instructions, requests, sectors


def test_float4_figure_bad_input():
    fig = co.float4_figure(width_bytes=8)
    assert "access width" in fig.layout.title.text


@pytest.mark.browser
def test_static_figure_controls_work_in_the_site_plotly_bundle(figure_page):
    """Click a menu button and a slider step in Chromium with the site's own plotly.js."""
    fig = co.figure()
    page, errors = figure_page(fig)
    page.locator("g.updatemenu-button").nth(3).click()  # A, lda = 4096
    rail = page.locator("rect.slider-rail-touch-rect").first.bounding_box()
    label = page.locator("g.slider-labels text, g.slider-label-group text").nth(2).bounding_box()
    page.mouse.click(label["x"] + label["width"] / 2, rail["y"] + rail["height"] / 2)
    page.wait_for_timeout(200)
    title = page.evaluate("() => document.getElementById('g').layout.title.text")
    expected = co.request_summary(co.naive_warp_request("A", ld=4096, k=2), "A", 2)
    assert title.startswith(expected) and not errors
