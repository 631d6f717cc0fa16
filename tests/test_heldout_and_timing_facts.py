"""Module 10's timing section and module 12's held-out and memory-bound sections, on fixtures that follow the
record tools' schemas (tests/fixtures/timing_protocols.json, tests/fixtures/level7_heldout.json): the facts
computed from the rows, the claims holding there, and the claims failing on a record that contradicts them."""
from __future__ import annotations

import copy
import json
import math

import pytest

from conftest import REPO
from course.facts import Check
from course.facts import m10_timing, m12_heldout
from course.facts.m12 import tuning

FIXTURES = REPO / "tests" / "fixtures"


@pytest.fixture()
def heldout():
    return json.loads((FIXTURES / "level7_heldout.json").read_text(encoding="utf-8"))


@pytest.fixture()
def protocols():
    return json.loads((FIXTURES / "timing_protocols.json").read_text(encoding="utf-8"))


def _heldout_failures(record):
    check = Check("m12")
    m12_heldout.heldout_claims(record, tuning, check, complete=False)
    return check.failures


def _timing_failures(record):
    check = Check("m10")
    m10_timing.timing_claims(record, check)
    return check.failures


def test_the_intensity_of_a_decode_shape_is_about_half_its_m():
    assert m12_heldout.intensity(1, 4096, 4096) == pytest.approx(0.5, rel=1e-3)
    for M in (1, 8, 16, 64):
        exact = m12_heldout.intensity(M, 4096, 14336)
        assert exact == pytest.approx((M / 2) / (1 + M / 4096 + M / 14336))
        assert exact < M / 2
    assert m12_heldout.crossover_m(16.0) == 33      # (M/2)/(1 + 2M/4096) first reaches 16 at M = 33


def test_heldout_facts_are_computed_from_the_rows(heldout):
    facts = m12_heldout.heldout_facts(heldout, tuning)
    assert set(m12_heldout.RECORD_FACTS) <= set(facts)
    speeds = [r["cublas_ms"] / r["level7_ms"] for r in heldout["rows"]]
    assert facts["ho_geomean"] == f"{math.exp(sum(map(math.log, speeds)) / len(speeds)):.3f}"
    assert facts["ho_worst"] == f"{min(speeds):.3f}"
    assert facts["mb_n"] == str(sum(min(r["M"], r["N"]) <= 16 for r in heldout["rows"]))
    assert facts["ho_n_regret"] == str(len(heldout["rows"]))
    assert facts["regret_direction"] in ("더 컸습니다", "더 작았습니다", "거의 같았습니다")


def test_heldout_claims_hold_on_the_fixture(heldout):
    assert _heldout_failures(heldout) == []


@pytest.mark.parametrize("spoil,fragment", [
    (lambda r: r["rows"].append(dict(r["rows"][0], M=4096, N=4096, K=4096)), "ZOO"),
    (lambda r: r["rows"][0].update(bytes_min=1), "bytes_min"),
    (lambda r: r["rows"][0].update(level7_ms=r["rows"][0]["level7_ms"] / 3), "DRAM 대역폭을 넘지"),
    (lambda r: r["rows"].append({"M": 1000, "N": 3001, "K": 777, "choice": {}, "rel_error": 1.0}), "결과가 맞았다"),
    (lambda r: r.update(rows=[x for x in r["rows"] if min(x["M"], x["N"]) > 16]), "16 이하인 모양이 있다"),
])
def test_heldout_claims_fail_on_a_record_that_contradicts_them(heldout, spoil, fragment):
    record = copy.deepcopy(heldout)
    spoil(record)
    failures = _heldout_failures(record)
    assert any(fragment in f for f in failures), failures


def test_without_the_heldout_record_every_fact_says_so_and_a_claim_fails():
    facts = m12_heldout.heldout_facts(None, tuning)
    assert all(facts[name] == m12_heldout.MISSING for name in m12_heldout.RECORD_FACTS)
    failures = _heldout_failures(None)
    assert len(failures) == 1 and "level7_heldout.json" in failures[0]


def test_the_heldout_table_puts_the_memory_bound_rows_first(heldout):
    rows = m12_heldout.heldout_table_rows(heldout)
    bound = [r["dram"] != "—" for r in rows]
    assert bound == sorted(bound, reverse=True) and any(bound) and not all(bound)
    assert rows[0]["choice"].startswith("stream") and "×" in rows[0]["choice"]


def test_timing_facts_are_computed_from_the_rows(protocols):
    facts = m10_timing.timing_facts(protocols)
    row = next(r for r in protocols["rows"] if (r["M"], r["N"], r["K"]) == m10_timing.TINY)
    assert facts["tiny_old_speed"] == f"{row['per_call']['cublas_ms'] / row['per_call']['level7_ms']:.2f}"
    assert facts["tiny_full_cb_us"] == f"{1000 * row['full']['cublas_ms']:.1f}"
    assert facts["tiny_hold_cb"].endswith("줄었습니다") and facts["tiny_rot_cb"] == "거의 그대로였습니다"
    assert facts["mid_rot_cb"].endswith("늘었습니다") and facts["mid_mib"] == "12"
    assert facts["t_l2_multiple"] == "2" and facts["tiny_mib"] == "64"


def test_timing_claims_hold_on_the_fixture_and_fail_when_the_hold_does_not_help(protocols):
    assert _timing_failures(protocols) == []
    spoiled = copy.deepcopy(protocols)
    row = next(r for r in spoiled["rows"] if (r["M"], r["N"], r["K"]) == m10_timing.TINY)
    row["hold_only"]["cublas_ms"] = 2 * row["per_call"]["cublas_ms"]
    assert any("홀드" in f for f in _timing_failures(spoiled))


def test_timing_claims_fail_when_a_warm_l2_does_not_help_or_per_call_agrees(protocols):
    spoiled = copy.deepcopy(protocols)
    mid = next(r for r in spoiled["rows"] if (r["M"], r["N"], r["K"]) == m10_timing.MID)
    mid["full"]["cublas_ms"] = mid["hold_only"]["cublas_ms"]
    assert any("1024³" in f for f in _timing_failures(spoiled))
    spoiled = copy.deepcopy(protocols)
    big = next(r for r in spoiled["rows"] if (r["M"], r["N"], r["K"]) == m10_timing.BIG)
    big["per_call"] = dict(big["full"])
    assert any("호출마다 재면" in f for f in _timing_failures(spoiled))


def test_a_record_missing_a_protocol_is_named_in_korean(protocols):
    del protocols["rows"][0]["rotation_only"]
    with pytest.raises(KeyError, match="방식의 시간이 없습니다"):
        m10_timing.protocol_rows(protocols)


def test_the_change_phrase_follows_the_data():
    assert m10_timing.change_phrase(10, 5) == "50% 줄었습니다"
    assert m10_timing.change_phrase(10, 12) == "20% 늘었습니다"
    assert m10_timing.change_phrase(10, 10.1) == "거의 그대로였습니다"
