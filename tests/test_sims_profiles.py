"""Simulation 10 (c): SOL quadrant, stall meanings and the corrected mock exercise.

FIXTURE_PROFILES is a small made-up dict for the code paths, not a measurement.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from sims import SimInputError
from sims import profiles as pr
from sims._common import figure_json_bytes

ALLOWED_TRACES = {"scatter", "bar", "heatmap", "histogram", "box", "contour", "image"}

FIXTURE_PROFILES = {
    "device": "Fixture GPU", "date": "2000-01-01",
    "kernels": [
        {"kernel": "sgemm_naive", "level": 0, "M": 4096, "N": 4096, "K": 4096,
         "sm_pct": 30.0, "mem_pct": 70.0, "dram_pct": 20.0, "achieved_occupancy_pct": 90.0,
         "theoretical_occupancy_pct": 100.0, "registers": 32, "smem_static": 0,
         "stalls": {"Long Scoreboard": 50.0, "LG Throttle": 20.0},
         "sectors_per_request": 2.0, "smem_ld_wavefronts": None, "smem_ld_ideal": None,
         "dram_bytes": 1.0e9, "duration_ms": 10.0},
        {"kernel": "broken", "level": 1, "sm_pct": None, "mem_pct": 10.0},
    ],
}
FIXTURE_BENCH = {"device": "Fixture GPU", "rows": [
    {"kernel": "cublas", "level": None, "M": 4096, "N": 4096, "K": 4096, "gflops": 20000.0}]}


# ---------------------------------------------------------------------------- SOL

@pytest.mark.parametrize("sm, mem, quadrant", [
    (5, 20, "latency"), (12.3, 64.7, "memory"), (80, 30, "compute"), (71.8, 78.3, "balanced"),
    (60, 60, "balanced"), (59.9, 60, "memory"), (60, 59.9, "compute"), (0, 0, "latency"),
])
def test_classify_sol(sm, mem, quadrant):
    assert pr.classify_sol(sm, mem) == quadrant


def test_threshold_is_the_seeds_60_percent():
    assert pr.SOL_THRESHOLD_PCT == 60.0
    assert set(pr.QUADRANTS) == {"latency", "memory", "compute", "balanced"}
    assert pr.QUADRANTS["latency"] == "지연 시간 한계(latency bound)"
    assert pr.QUADRANTS["memory"].startswith("메모리 한계")
    assert pr.QUADRANTS["compute"].startswith("연산 한계")
    assert pr.QUADRANTS["balanced"].startswith("균형")


@pytest.mark.parametrize("args", [(-1, 50), (50, 101), ("a", 5), (float("nan"), 5), (True, 5)])
def test_classify_bad_values(args):
    with pytest.raises(SimInputError, match="받은 값"):
        pr.classify_sol(*args)


@given(st.floats(0, 100), st.floats(0, 100))
def test_quadrant_agrees_with_the_decision_tree(sm, mem):
    path = pr.decision_path(sm, mem, {"Long Scoreboard": 10.0})
    assert path.quadrant == pr.classify_sol(sm, mem)
    if path.quadrant == "memory":
        assert path.recommendation == "reuse"
    if path.quadrant == "latency":
        assert path.recommendation == "latency"


def test_decision_tree_stall_branch():
    assert pr.decision_path(80, 80, {"Long Scoreboard": 20}).recommendation == "async"
    assert pr.decision_path(80, 80, {"Barrier": 20, "Math Pipe Throttle": 40}).recommendation == "sync"
    assert pr.decision_path(80, 30, {"Math Pipe Throttle": 40}).recommendation == "instr"
    with pytest.raises(SimInputError):
        pr.decision_path(80, 80, {"Wait": 140})


# ---------------------------------------------------------------------------- stall meanings (A8)

def test_stall_meanings_are_nsight_computes():
    meaning = {k: v[0] for k, v in pr.STALL_REASONS.items()}
    assert "고정 지연" in meaning["Wait"] and "동기화" not in meaning["Wait"]
    assert "__syncthreads" in meaning["Barrier"]
    assert "로컬/글로벌" in meaning["LG Throttle"] and "큐" in meaning["LG Throttle"]
    assert "공유 메모리" in meaning["MIO Throttle"]
    assert "공유 메모리" in meaning["Short Scoreboard"]
    assert "글로벌" in meaning["Long Scoreboard"]
    assert "최적" not in meaning["Math Pipe Throttle"]
    for name in ("Long Scoreboard", "Barrier", "Wait", "Math Pipe Throttle", "MIO Throttle",
                 "Short Scoreboard", "LG Throttle", "Not Selected", "Selected"):
        assert name in pr.STALL_REASONS


# ---------------------------------------------------------------------------- mocks

def test_mocks_are_self_consistent():
    for key, mock in pr.MOCK_KERNELS.items():
        card = mock.card
        assert card.source == "mock"
        path = pr.decision_path(card.sm_pct, card.mem_pct, card.stalls)
        assert path.recommendation == mock.expected_next, key
        assert len(mock.evidence) >= 3
        assert mock.corrections
        assert QUAD[key] == card.quadrant


QUAD = {"A": "memory", "B": "balanced", "C": "latency"}


def test_mock_a_fields():
    a = pr.MOCK_KERNELS["A"].card
    assert a.smem_per_block == 2 * 16 * 16 * 4                   # D6: the course's Level 2
    assert a.registers == 32 and a.theoretical_occupancy_pct == 100.0     # D5
    assert a.sectors_per_request == 4.0                          # E3/A9: not 1.0
    assert all(not op.endswith(".128") for op, _ in a.sass_top)
    assert a.mem_pct >= pr.SOL_THRESHOLD_PCT > a.sm_pct
    assert "Not Selected" not in a.stalls                        # F8
    assert pr.MOCK_KERNELS["A"].expected_level == 2


def test_mock_b_fields():
    b = pr.MOCK_KERNELS["B"].card
    assert b.registers == 96 and b.theoretical_occupancy_pct == 25.0      # A7
    assert b.smem_per_block == 2 * (128 * 16 + 16 * 128) * 4            # D6: 2 stages, BK 16
    assert b.sectors_per_request == 16.0                                 # E3
    ops = [op for op, _ in b.sass_top]
    assert "LDS.128" in ops and "LDGSTS" not in ops                     # E4: unpadded tiles
    assert pr.MOCK_KERNELS["B"].expected_level == 4
    assert any("A8" in c for c in pr.MOCK_KERNELS["B"].corrections)


def test_mock_c_fields():
    c = pr.MOCK_KERNELS["C"].card
    assert c.sectors_per_request == 2.0                                  # E2: measured naive
    assert c.smem_per_block == 0
    assert pr.MOCK_KERNELS["C"].expected_level == 0
    assert any("E2" in x for x in pr.MOCK_KERNELS["C"].corrections)


def test_percent_of_cublas_needs_a_measured_figure():
    assert pr.percent_of_cublas(14520, 20000) == pytest.approx(72.6)
    with pytest.raises(SimInputError):
        pr.percent_of_cublas(14520, 0)
    with pytest.raises(SimInputError):
        pr.percent_of_cublas(14520, None)
    # mocks never get a % of cuBLAS, even when a measured cuBLAS is recorded (C8)
    for cublas in (None, 20000.0):
        lines = pr._card_lines(pr.MOCK_KERNELS["B"].card, cublas)
        assert any("모의 데이터" in line for line in lines)
        assert any("계산하지 않음" in line for line in lines)
        assert not any("72.6%" in line for line in lines)
    measured = pr.recorded_cards(FIXTURE_PROFILES)[0]
    lines = pr._card_lines(measured, 20000.0)
    assert any(f"{100 * measured.gflops / 20000:.1f}%" in line for line in lines)


# ---------------------------------------------------------------------------- exercise

@pytest.mark.parametrize("key, level, quadrant, step", [
    ("A", 2, "memory", "reuse"), ("B", 4, "balanced", "async"), ("C", 0, "latency", "latency"),
])
def test_expected_answers_are_accepted(key, level, quadrant, step):
    feedback = pr.check_answers(key, level, quadrant, step)
    assert [f.correct for f in feedback] == [True, True, True]


def test_wrong_answers_get_specific_feedback():
    fb = pr.check_answers("B", 5, "compute", "sync")
    assert [f.correct for f in fb] == [False, False, False]
    assert "LDGSTS" in fb[0].message
    assert "고정 지연" in fb[2].message
    fb = pr.check_answers("C", level=1, next_step="coalesce")
    assert "LDG.E.128" in fb[0].message
    assert fb[1].correct is None
    assert "코얼레싱된" in fb[2].message
    assert pr.check_answers("A")[0].correct is None


@pytest.mark.parametrize("kwargs", [
    {"kernel": "D"}, {"kernel": "A", "level": 9}, {"kernel": "A", "quadrant": "fast"},
    {"kernel": "A", "next_step": "magic"},
])
def test_check_answers_bad_input(kwargs):
    with pytest.raises(SimInputError):
        pr.check_answers(**kwargs)


FIXTURE_WITH_REFERENCE = dict(FIXTURE_PROFILES, reference=[
    {"kernel": "cublas", "level": None, "M": 4096, "N": 4096, "K": 4096, "sm_pct": 85.0, "mem_pct": 55.0,
     "registers": 254.0, "block_size": 256.0, "smem_static": 0.0, "smem_dynamic": 67584.0,
     "smem_ld_instructions": 100.0, "smem_ld_wavefronts": 330.0, "smem_ld_bank_conflicts": 0.0,
     "stalls": {"Selected": 1.0, "Not Selected": 0.75, "Short Scoreboard": 0.2},
     "duration_ms": 5.0}])


def test_level_six_is_an_answer_with_its_own_feedback():
    assert pr.LEVEL_NAMES[6].startswith("Level 6")
    fb = pr.check_answers("B", level=6)
    assert fb[0].correct is False and "12.5%" in fb[0].message


def test_reference_card_follows_the_recorded_kernels():
    cards = pr.recorded_cards(FIXTURE_WITH_REFERENCE)
    assert [c.key for c in cards] == ["rec:sgemm_naive", "rec:cublas"]
    ref = cards[-1]
    assert ref.title == "측정: cuBLAS (라이브러리 커널)" and ref.level is None
    assert ref.registers == 254 and isinstance(ref.registers, int)
    assert ref.smem_per_block == 67584 and ref.block_size == 256         # static + dynamic
    assert ref.smem_wavefront_ratio == "로드 명령당 3.30 (그중 뱅크 충돌 0.0%)"
    assert ref.quadrant == "compute"
    assert sum(ref.stalls.values()) == pytest.approx(100.0)              # shares, as for every card


def test_measured_cards_are_compared_with_the_profiled_cublas():
    """A card's time comes from the profiler: it is set against cuBLAS's kernel in the same record when there
    is one (not against the benchmark's cuBLAS, timed another way), and cuBLAS's own card gets no %."""
    ref = pr.reference_gflops(FIXTURE_WITH_REFERENCE)
    assert ref == pytest.approx(2 * 4096 ** 3 / 5e6)
    assert pr.cublas_for_cards(FIXTURE_WITH_REFERENCE, FIXTURE_BENCH) == (ref, pr.CUBLAS_PROFILE_LABEL)
    assert pr.cublas_for_cards(FIXTURE_PROFILES, FIXTURE_BENCH) == (20000.0, pr.CUBLAS_BENCH_LABEL)
    naive, cublas = pr.recorded_cards(FIXTURE_WITH_REFERENCE)
    lines = pr._card_lines(naive, ref, pr.CUBLAS_PROFILE_LABEL)
    assert any(f"같은 프로파일 기록의 cuBLAS 커널({ref:,.0f})의 50.0%" in line for line in lines)
    (perf,) = [line for line in pr._card_lines(cublas, ref) if line.startswith("성능")]
    assert "cuBLAS 자신" in perf and "%" not in perf
    fig = pr.figure(kernel="rec:sgemm_naive", profiles=FIXTURE_WITH_REFERENCE, benchmarks=FIXTURE_BENCH)
    labels = [b.label for b in fig.layout.updatemenus[0].buttons]
    assert labels[-2:] == ["측정: L0 sgemm_naive", "측정: cuBLAS (라이브러리 커널)"]
    texts = [t.text[0] for t in fig.data if t.type == "scatter" and t.visible is True and t.mode == "text"]
    assert any("같은 프로파일 기록의 cuBLAS 커널" in t for t in texts)


def test_recorded_cards():
    cards = pr.recorded_cards(FIXTURE_PROFILES)
    assert [c.key for c in cards] == ["rec:sgemm_naive"]               # broken entry skipped
    card = cards[0]
    assert card.source == "measured" and card.quadrant == "memory"
    assert card.gflops == pytest.approx(2 * 4096 ** 3 / 1e7)
    assert pr.recorded_cards(None) == []


# ---------------------------------------------------------------------------- views

def _types(fig):
    return {t.type for t in fig.data}


def test_figure_with_mocks_only(tmp_path):
    fig = pr.figure(data_dir=tmp_path)
    assert _types(fig) <= ALLOWED_TRACES
    assert figure_json_bytes(fig) < 300_000
    data = json.loads(fig.to_json())
    kernels, answers = data["layout"]["updatemenus"]
    assert [b["label"] for b in kernels["buttons"]] == ["모의 커널 A", "모의 커널 B", "모의 커널 C"]
    assert [b["label"] for b in answers["buttons"]] == ["정답 보기", "정답 숨기기"]
    # the answer buttons restyle only the text colour of the answer traces
    shown, hidden = answers["buttons"]
    assert set(shown["args"][0]["textfont.color"]) == {"#1e4d2b", "#5a3d00"}
    assert hidden["args"][0] == {"textfont.color": "rgba(0,0,0,0)"}
    idx = shown["args"][1]
    assert len(idx) == 6
    assert all("1단계 답" in fig.data[i].text[0] for i in idx[0::2])
    assert all("고친 점" in fig.data[i].text[0] for i in idx[1::2])
    assert all(fig.data[i].textfont.color == "rgba(0,0,0,0)" for i in idx)
    notes = " ".join(a.text for a in fig.layout.annotations)
    assert "60%" in notes and "profiles.json" in notes
    assert len(fig.layout.shapes) == 2


def test_figure_with_recorded_profiles():
    fig = pr.figure(kernel="rec:sgemm_naive", profiles=FIXTURE_PROFILES,
                    benchmarks=FIXTURE_BENCH, show_answers=True)
    labels = [b.label for b in fig.layout.updatemenus[0].buttons]
    assert labels[-1] == "측정: L0 sgemm_naive"
    assert "측정" in fig.layout.title.text
    texts = [t.text[0] for t in fig.data if t.type == "scatter" and t.visible is True
             and t.mode == "text"]
    assert any("모델의 판정" in t for t in texts)
    card = [t.text[0] for t in fig.data if t.type == "scatter" and t.visible is True
            and t.mode == "text"]
    assert any("cuBLAS 측정값" in t for t in card)


def test_figure_bad_kernel():
    fig = pr.figure(kernel="Z", profiles={}, benchmarks={})
    assert len(fig.data) == 0 and "받은 값" in fig.layout.title.text


def test_widget_gives_feedback():
    w = pr.widget(data_dir="/nonexistent")
    assert "모의 데이터" in w.card.value
    w.controls["kernel"].value = "B"
    assert "96" in w.card.value
    w.controls["level"].value = 4
    w.controls["quadrant"].value = "balanced"
    w.controls["next_step"].value = "sync"
    w.controls["check"].click()
    assert "정답" in w.output.value and "고정 지연" in w.output.value
    w.controls["kernel"].value = "C"
    assert w.output.value == ""
