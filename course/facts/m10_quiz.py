"""Facts of module 10, continued: the quiz's words. The banks are data, not prose with {eval}: the ridge points
the banks of modules 4, 6 and 10 quote and the numbers and directions course/quiz/banks/m10.yaml states are checked
here against the same records as the chapter, so a re-recording that contradicts a question stops the build.

Every claim is declared on course.facts.m10's `f`; course.facts.m10 imports this module at its end.
"""
from __future__ import annotations

import re

from course.facts import quiz_text
from course.facts.m10_core import (BANDWIDTH_GBS, FLOPS, LANES_PER_SCHEDULER, PEAK_GFLOPS, RIDGE, SIZE, benchmark_of,
                              benchmark_record, cublas_profile, f, ffma_share, profile_of, stall_share_of, tiled_profile)
from sims import roofline as sim_roofline


def _number(text):
    return float(text.replace(",", ""))


RIDGE_QUESTIONS = (("m04-q08", 4), ("m06-q08", 6), ("m10-q03", 10))
RECORDED_RIDGE = re.compile(r"([\d,]+) GFLOP/s ÷ (?:측정한 복사 대역폭 )?([\d,]+) GB/s(?:\(측정한 복사 대역폭\))? ≈ ([\d.]+)")
QUOTIENT = re.compile(r"([\d,]+(?:\.\d+)?)(?: GFLOP/s)? ÷ ([\d,]+(?:\.\d+)?)(?: GB/s)? ≈ ([\d.]+)")
# The benchmark record's GPU as the banks name it ("NVIDIA H200" -> "H200"): its peak and measured copy bandwidth
DEVICE_SHORT = benchmark_record.provenance["device"].replace("NVIDIA ", "").split()[0]


@f.claims
def quiz_ridge_points(check):
    """Every ridge point the banks of modules 4, 6 and 10 quote: the recorded GPU's (benchmarks.json's peak and
    measured copy bandwidth, on the device the record names), and right as arithmetic."""
    for qid, module in RIDGE_QUESTIONS:
        text = quiz_text(module, qid)
        recorded_ridges = [m for m in RECORDED_RIDGE.findall(text) if _number(m[0]) != 19500]
        check(recorded_ridges and f"기록한 {DEVICE_SHORT}" in text,
              f"퀴즈 {qid}: 강좌가 기록한 {DEVICE_SHORT}의 꺾임점을 적는다")
        for peak, bw, ridge in recorded_ridges:
            check((peak, bw, ridge) == (f"{PEAK_GFLOPS:,.0f}", f"{BANDWIDTH_GBS:,.0f}", f"{RIDGE:.1f}"),
                  f"퀴즈 {qid}: {DEVICE_SHORT} 꺾임점 {peak} ÷ {bw} ≈ {ridge}는 기록의 "
                  f"{PEAK_GFLOPS:,.0f} ÷ {BANDWIDTH_GBS:,.0f} ≈ {RIDGE:.1f}와 같아야 한다")
        for a, b, q in QUOTIENT.findall(text):          # every "x ÷ y ≈ z" in the question is right as arithmetic
            digits = len(q.split(".")[1]) if "." in q else 0
            check(f"{_number(a) / _number(b):.{digits}f}" == q, f"퀴즈 {qid}: {a} ÷ {b} ≈ {q}")
        check("22.5" not in text and "3.35 TB/s" not in text and "≈ 20 FLOP/B" not in text and "≈ 22.8" not in text,
              f"퀴즈 {qid}: 예전의 꺾임점(22.5, 22.8, 데이터시트 20)이 남아 있다")
    for qid, module in (("m06-q08", 6), ("m10-q03", 10)):
        check("A100 40 GB(1,555 GB/s)" in quiz_text(module, qid), f"퀴즈 {qid}: 약 100은 A100 40 GB의 TF32 꺾임점이라고 밝힌다")
    check(f"{156000 / 1555:.0f}" == "100" and f"{156000 / 2039:.0f}" == "77", "퀴즈: TF32 꺾임점 100(40 GB)과 77(80 GB)")
    check("≈ 77" in quiz_text(10, "m10-q03") and "약 77" in quiz_text(6, "m06-q08"), "퀴즈: 80 GB의 TF32 꺾임점 약 77")


@f.claims
def quiz_numbers(check):
    """Other recorded numbers the bank of module 10 (course/quiz/banks/m10.yaml) quotes."""
    q04, q07 = quiz_text(10, "m10-q04"), quiz_text(10, "m10-q07")
    check(f"약 {PEAK_GFLOPS / 1000:.1f} TFLOP/s인 {DEVICE_SHORT}" in q04,
          f"퀴즈 m10-q04: 기록된 {DEVICE_SHORT}의 FP32 최대 약 {PEAK_GFLOPS / 1000:.1f} TFLOP/s")
    check(FLOPS / (3.2e-3) / 1e9 > 2 * 19500 and f"{FLOPS / 8.0e-3 / 1e9:,.0f}" == "17,180",
          "퀴즈 m10-q04: 8.0 ms → 17,180 GFLOP/s, 3.2 ms는 A100 최대의 두 배 넘음")
    check(f"레지스터 {tiled_profile['registers']:.0f}개로 이론 점유율이 {tiled_profile['theoretical_occupancy_pct']:.0f}%인 타일링"
          in q07 and profile_of[3]["theoretical_occupancy_pct"] == 25.0,
          "퀴즈 m10-q07: 타일링 커널은 레지스터 31개, 점유율 100%, 레지스터 블로킹은 25%")
    check(profile_of[3]["duration_ms"] * 3 < tiled_profile["duration_ms"], "퀴즈 m10-q07: 레지스터 블로킹이 타일링보다 훨씬 빠르다")
    check(f"FMA 파이프는 {profile_of[3]['fma_pipe_pct']:.1f}%" in q07 and profile_of[3]["fma_pipe_pct"] < 60
          and benchmark_of[4]["median_ms"] < benchmark_of[3]["median_ms"]
          and profile_of[4]["theoretical_occupancy_pct"] == profile_of[3]["theoretical_occupancy_pct"],
          "퀴즈 m10-q07: 레지스터 블로킹의 FMA 파이프(기록값)는 차지 않았고, 같은 점유율의 더블 버퍼링이 더 빠르다")
    q06 = quiz_text(10, "m10-q06")
    check(f"L1 데이터 파이프가 {profile_of[0]['l1_lsu_wavefronts_pct']:.0f}%" in q06
          and max(stall_share_of[0], key=stall_share_of[0].get) == "Long Scoreboard",
          "퀴즈 m10-q06: 나이브 커널은 Long Scoreboard가 가장 크고 L1 데이터 파이프가 거의 찼다(기록값)")
    check(90 < benchmark_of[4]["pct_cublas"] < 95 and 99 < benchmark_of[6]["pct_cublas"] < 101,
          "퀴즈 m10-q08: Level 4는 cuBLAS의 90%를 조금 넘고, Level 6은 같은 속도")
    check(88 < cublas_profile["issue_active_pct"] < 92 and profile_of[4]["dram_pct"] < 10,
          "퀴즈 m10-q08: cuBLAS의 발행 활성 약 90%, Level 4의 DRAM 처리량 한 자리 %")
    check(min(profile_of[6]["registers"], cublas_profile["registers"]) > 200
          and profile_of[6]["theoretical_occupancy_pct"] == cublas_profile["theoretical_occupancy_pct"] == 12.5,
          "퀴즈 m10-q08: Level 6과 cuBLAS는 레지스터 200개 초과, 이론 점유율 12.5%")


@f.claims
def quiz_q08_options(check):
    """m10-q08 states its options' directions in words (which are right, which are wrong and why); the
    records must agree (formerly tests/test_chapter_facts.py::test_m10_bank_claims_hold_on_the_records)."""
    l4, l6, cb = profile_of[4], profile_of[6], cublas_profile
    check(90 < benchmark_of[4]["pct_cublas"] < 95 and benchmark_of[6]["pct_cublas"] > 99,
          "퀴즈 m10-q08 문제: Level 4는 cuBLAS의 '90%를 조금 넘는' 데 머물고, Level 6은 '같은 속도'")
    check(ffma_share(l6) > ffma_share(l4), "퀴즈 m10-q08 (a): Level 6의 FFMA 비중이 Level 4보다 높다")
    check(l6["dram_bytes"] < l4["dram_bytes"] and l4["dram_pct"] < 10,
          "퀴즈 m10-q08 (b): DRAM 바이트가 준 것은 사실이지만 Level 4의 DRAM 처리량은 한 자리 %(틀린 이유)")
    check(cb["issue_active_pct"] - l4["issue_active_pct"] > ffma_share(cb) - ffma_share(l4),
          "퀴즈 m10-q08 (c): cuBLAS는 Level 4보다 주로 발행 활성을 올렸다")
    check(ffma_share(l6) - ffma_share(l4) > l6["issue_active_pct"] - l4["issue_active_pct"],
          "퀴즈 m10-q08 (c): Level 6은 Level 4보다 주로 FFMA 비중을 올렸다")
    check(abs(l6["fma_pipe_pct"] - cb["fma_pipe_pct"]) < 2, "퀴즈 m10-q08 (c): 두 커널의 FMA 파이프 사용률은 거의 같다")
    q8 = quiz_text(10, "m10-q08")
    check("FP32 레인이 32개" in q8 and LANES_PER_SCHEDULER["sm_90"] == 32 and "레인이 16개인 T4·A100" in q8
          and LANES_PER_SCHEDULER["sm_75"] == LANES_PER_SCHEDULER["sm_80"] == 16,
          "퀴즈 m10-q08 (f): 곱셈은 레인 32개인 H100의 것, T4·A100은 16개")
    check(cb["ffma_instructions"] == SIZE ** 3 + SIZE ** 2 and "ffma" in cb["function"],
          "퀴즈 m10-q08 (d): cuBLAS 커널의 FFMA는 4096³ + 4096², 이름에 ffma (텐서 코어가 아니다)")
    check(min(l6["registers"], cb["registers"]) > 200, "퀴즈 m10-q08 (e): Level 6과 cuBLAS는 레지스터 200개 초과")
    check(l6["theoretical_occupancy_pct"] == cb["theoretical_occupancy_pct"] == 12.5 < l4["theoretical_occupancy_pct"],
          "퀴즈 m10-q08 (e): 이론 점유율 12.5%로 Level 4보다 낮다(반대)")


@f.claims
def quiz_q07_reuse_and_q08_dram(check):
    """m10-q07's model answer counts reuse in values (8×) and in recorded instructions (LDS.128 makes it 20×), and
    the block-level intensity of model (ii); m10-q08 (b) says Level 6's fewer DRAM bytes are not the tile alone."""
    q07, q08 = quiz_text(10, "m10-q07"), quiz_text(10, "m10-q08")
    per_ffma = {k: e["smem_ld_instructions"] / (e["ffma_instructions"] / 32) for k, e in (("tiled", tiled_profile),
                                                                                          (3, profile_of[3]))}
    check(f"{per_ffma['tiled']:g}개에서" in q07 and f"{per_ffma[3]:g}개로" in q07
          and round(per_ffma["tiled"] / per_ffma[3]) == 20 and "20분의 1" in q07,
          "퀴즈 m10-q07: FFMA 하나당 공유 메모리 로드 명령 1.25개에서 0.0625개로 20분의 1(기록값)")
    check(sim_roofline.level_ai(2, "ii") == 4 and sim_roofline.level_ai(3, "ii") == 32 and "4에서 32 FLOP/B" in q07,
          "퀴즈 m10-q07: 블록 단위 글로벌 산술 강도 4에서 32 FLOP/B (모델 ii)")
    check("4사이클" not in q07, "퀴즈 m10-q07: 기록에 없는 FFMA 레이턴시 수치를 적지 않는다")
    check(profile_of[3]["dram_bytes"] < profile_of[6]["dram_bytes"] < profile_of[4]["dram_bytes"]
          and "Level 3은 Level 6보다도 적었다" in q08,
          "퀴즈 m10-q08 (b): Level 4와 같은 타일인 Level 3의 DRAM 바이트가 Level 6보다도 적다")
