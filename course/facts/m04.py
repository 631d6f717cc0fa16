"""Facts of module 4 (m04_naive.md): the recorded benchmark and Nsight Compute numbers its text
quotes, and simulation 4's prediction of sectors per request. The asserts at the end guard the text's
directional sentences and the recorded numbers the quiz bank quotes."""
from __future__ import annotations

import json
import re

from course.facts import Facts
from course.page import recorded
from kernels.record import DATA_DIR
from sims import coalescing

f = Facts("m04")

N4 = 4096
MIN_BYTES = 3 * N4 * N4 * 4            # minimum bytes: read A and B once, write C once
THREAD_BYTES = 2 * N4 * N4 * N4 * 4    # total bytes all threads request in the K loop
FLOPS = 2 * N4 ** 3

bench = recorded()                      # book/data/benchmarks.json (recorded results)
bprov = bench.provenance
naive_b = {n: bench.at("sgemm_naive", n) for n in (1024, 2048, 4096)}
strided_b = bench.at("sgemm_naive_strided", N4)
cublas_b = bench.at("cublas", N4)

prof = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
profile = {k["kernel"]: k for k in prof["kernels"]}
naive_p = profile["sgemm_naive"]
strided_p = profile["sgemm_naive_strided"]


def g(name, value, fmt):
    """One fact of the text: the value formatted as it is printed."""
    f[name] = format(value, fmt)


# Benchmark record (benchmarks.json)
g("b_device", bprov["device"], "s")
g("b_date", str(bprov["date"])[:10], "s")
g("naive_pct_cublas_4096", naive_b[4096]["pct_cublas"], ".1f")
g("naive_pct_cublas_1024", naive_b[1024]["pct_cublas"], ".1f")
g("naive_gflops_4096", naive_b[4096]["gflops"], ",.0f")
g("naive_ms_4096", naive_b[4096]["median_ms"], ".1f")
g("naive_pct_peak_4096", naive_b[4096]["pct_peak"], ".1f")
g("cublas_ms_4096", cublas_b["median_ms"], ".2f")
g("strided_ms_4096", strided_b["median_ms"], ".1f")
g("strided_pct_cublas_4096", strided_b["pct_cublas"], ".1f")
g("strided_slowdown", strided_b["median_ms"] / naive_b[4096]["median_ms"], ".1f")
g("peak_tflops", bprov["peak_gflops"] / 1000, ".1f")
g("sm_count", bprov["sm_count"], "d")
g("fp32_lanes", bprov["fp32_lanes_per_sm"], "d")
g("clock_mhz", bprov["clock_mhz"], ",.0f")
g("bandwidth_tbs", bprov["bandwidth_gbs"] / 1000, ".2f")
g("ridge_h100", bprov["peak_gflops"] / bprov["bandwidth_gbs"], ".1f")

# Nsight Compute record (profiles.json)
g("p_device", prof["device"], "s")
g("p_date", str(prof["date"])[:10], "s")
m = re.search(r"\d{4}\.\d+\.\d+", prof.get("tool", ""))
g("p_tool", m.group(0) if m else prof.get("tool", "?"), "s")
g("naive_spr", naive_p["sectors_per_request"], ".2f")
g("strided_spr", strided_p["sectors_per_request"], ".2f")
g("sm_pct", naive_p["sm_pct"], ".0f")
g("mem_pct", naive_p["mem_pct"], ".0f")
g("dram_pct", naive_p["dram_pct"], ".0f")
g("occupancy_pct", naive_p["achieved_occupancy_pct"], ".1f")
stalls = naive_p["stalls"]
stall_total = sum(stalls.values())
g("stall_total", stall_total, ".1f")
g("ls_cycles", stalls["Long Scoreboard"], ".1f")
g("lg_cycles", stalls["LG Throttle"], ".1f")
g("ls_share", 100 * stalls["Long Scoreboard"] / stall_total, ".0f")
g("lg_share", 100 * stalls["LG Throttle"] / stall_total, ".0f")
l1_bytes = naive_p["global_ld_sectors"] * 32
g("l1_sector_gb", l1_bytes / 1e9, ",.0f")
g("dram_gb", naive_p["dram_bytes"] / 1e9, ".1f")
g("dram_read_gb", naive_p["dram_read_bytes"] / 1e9, ".1f")
g("dram_over_min", naive_p["dram_bytes"] / MIN_BYTES, ".0f")
g("dram_share_of_l1", 100 * naive_p["dram_read_bytes"] / l1_bytes, ".0f")
dram_ai = FLOPS / naive_p["dram_bytes"]
g("dram_ai", dram_ai, ".1f")
g("dram_roof_tflops", dram_ai * bprov["bandwidth_gbs"] / 1000, ".1f")
g("naive_tflops_4096", naive_b[4096]["gflops"] / 1000, ".1f")

# Model from simulation 4 (sims.coalescing)
avg = coalescing.naive_average_sectors(N4, N4, N4, bdx=16, bdy=16)
g("model_spr", avg.overall, ".2f")
g("model_spr_a", avg.a_sectors_per_request, ".2f")
g("model_spr_b", avg.b_sectors_per_request, ".2f")

# Qualitative facts the text relies on (a re-recording that contradicts one stops the build)
naive_gf = {n: naive_b[n]["gflops"] for n in (1024, 4096)}
cublas_1024 = bench.at("cublas", 1024)
assert naive_b[1024]["pct_cublas"] > naive_b[4096]["pct_cublas"] and naive_gf[1024] <= 1.05 * naive_gf[4096] \
    and cublas_1024["gflops"] < 0.7 * cublas_b["gflops"], \
    "본문: 1024³의 cuBLAS 대비 비율이 높은 것은 나이브 커널이 빨라져서가 아니라 cuBLAS가 작은 문제에서 느려서"
assert naive_p["sectors_per_request"] < 4 and abs(avg.overall - naive_p["sectors_per_request"]) < 0.05, \
    "본문: 요청당 섹터는 완전히 코얼레싱된 32비트 로드의 4보다 적고, 모델과 측정이 같다"
assert strided_p["sectors_per_request"] == (16 + 1) / 2 and strided_b["median_ms"] > 3 * naive_b[4096]["median_ms"], \
    "본문: 반례는 (16 + 1) / 2 섹터/요청, 나이브 커널보다 몇 배 느리다"
assert l1_bytes == THREAD_BYTES / 2, "본문: 스레드 요청에서 L1 섹터로 내려오며 절반이 된다 (브로드캐스트)"
assert naive_p["dram_read_bytes"] < 0.1 * l1_bytes and naive_p["dram_bytes"] > 50 * MIN_BYTES, \
    "본문: DRAM까지 가는 읽기는 L1 섹터의 일부지만 최소량의 수십 배"
assert naive_p["mem_pct"] > 85 and naive_p["dram_pct"] < 30, "본문: 메모리 처리량은 거의 꽉 찼는데 DRAM은 한가하다"
assert abs(naive_p["l1_lsu_wavefronts_pct"] - naive_p["mem_pct"]) < 0.5, "본문: 가장 바쁜 메모리 단위는 L1의 LSU 데이터 경로"
assert abs(naive_p["sm_pct"] - naive_p["lsu_issue_pct"]) < 1 and naive_p["fma_pipe_pct"] < 15, \
    "본문: SM 처리량은 LSU 파이프에 내는 명령의 비율이 정하고, FMA 유닛은 바쁘지 않다"
_order = sorted((k for k in stalls if k != "Selected"), key=lambda k: -stalls[k])
assert _order[:2] == ["Long Scoreboard", "LG Throttle"], "본문: 스톨 1, 2위가 Long Scoreboard와 LG Throttle"
assert naive_p["achieved_occupancy_pct"] > 95, "본문: 달성 점유율은 거의 최대"
assert dram_ai * bprov["bandwidth_gbs"] > 3 * naive_b[4096]["gflops"], "본문: DRAM 대역폭은 이 커널의 천장이 아니다"
assert 0.25 < bprov["peak_gflops"] / bprov["bandwidth_gbs"] / 10, "본문: 스레드당 0.25 FLOP/B는 꺾임점보다 한참 낮다"

# The quiz's numbers (course/banks/m04.yaml): every recorded number a question quotes
from course.facts import quiz_text   # noqa: E402


def _quiz(qid):
    return quiz_text(4, qid)


_q8 = _quiz("m04-q08")
for _quoted in (f"메모리 처리량은 {naive_p['mem_pct']:.0f}%", f"DRAM({naive_p['dram_pct']:.0f}%)",
                f"LSU 데이터 경로({naive_p['l1_lsu_wavefronts_pct']:.0f}%)",
                f"Long Scoreboard({100 * stalls['Long Scoreboard'] / stall_total:.0f}%)",
                f"LG Throttle({100 * stalls['LG Throttle'] / stall_total:.0f}%)",
                f"{naive_p['achieved_occupancy_pct']:.1f}%", f"요청당 섹터 수는 {naive_p['sectors_per_request']:.1f}"):
    assert _quoted in _q8, f"퀴즈 m04-q08: 기록과 맞는 값 '{_quoted}'"
assert f"{naive_p['sectors_per_request']:.1f}" == "2.0" and "2.0으로" in _quiz("m04-q05"), "퀴즈 m04-q05: 요청당 섹터 2.0"
