"""Facts of module 5 (m05_coalescing.md): the recorded Nsight Compute and benchmark numbers its
text quotes, and the SASS counts of Levels 0 and 1."""
from __future__ import annotations

import json

from course.facts import Facts
from course.page import recorded
from kernels import sass
from kernels.record import DATA_DIR

f = Facts("m05")

PROFILES = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
PROF = {k["kernel"]: k for k in PROFILES["kernels"]}
BENCH = recorded()
SIZES = (1024, 2048, 4096)
SHORT = {"sgemm_naive": "naive", "sgemm_naive_strided": "strided", "sgemm_coalesced": "coal"}


def g(key, text):
    f[key] = text


# Nsight Compute (4096³): sectors per request, duration, SOL, stalls, DRAM bytes
for name, short in SHORT.items():
    p = PROF[name]
    g(f"spr_{short}", f"{p['sectors_per_request']:.1f}")
    g(f"dur_{short}", f"{p['duration_ms']:.1f}")
    g(f"sm_{short}", f"{p['sm_pct']:.1f}")
    g(f"mem_{short}", f"{p['mem_pct']:.1f}")
    g(f"dram_{short}", f"{p['dram_pct']:.1f}")
    g(f"dramgb_{short}", f"{p['dram_bytes'] / 1e9:.2f}")
    g(f"ls_{short}", f"{p['stalls']['Long Scoreboard']:.1f}")
    g(f"lg_{short}", f"{p['stalls']['LG Throttle']:.1f}")
    g(f"occ_{short}", f"{p['theoretical_occupancy_pct']:.0f}")
    g(f"regs_{short}", f"{p['registers']:.0f}")

naive, strided, coal = (PROF[n] for n in SHORT)
g("l1_ratio_strided", f"{strided['global_ld_sectors'] / naive['global_ld_sectors']:.2f}")
g("dram_ratio_strided", f"{strided['dram_bytes'] / naive['dram_bytes']:.2f}")
g("dur_ratio_strided", f"{strided['duration_ms'] / naive['duration_ms']:.1f}")
g("req_ratio_coal", f"{naive['global_ld_requests'] / coal['global_ld_requests']:.1f}")
g("sect_ratio_coal", f"{naive['global_ld_sectors'] / coal['global_ld_sectors']:.2f}")
g("instr_ratio_coal", f"{naive['instructions'] / coal['instructions']:.1f}")
g("ncu_date", str(PROFILES["date"])[:10])
g("ncu_device", PROFILES["device"])

# benchmarks.json (recorded run times): % of cuBLAS, speed ratios
for name, short in SHORT.items():
    for n in SIZES:
        row = BENCH.at(name, n)
        g(f"pc_{short}_{n}", f"{row['pct_cublas']:.1f}")
        g(f"gf_{short}_{n}", f"{row['gflops']:,.0f}")
for n in SIZES:
    g(f"gf_cublas_{n}", f"{BENCH.at('cublas', n)['gflops']:,.0f}")
    g(f"speedup_{n}", f"{BENCH.at('sgemm_naive', n)['median_ms'] / BENCH.at('sgemm_coalesced', n)['median_ms']:.2f}")
    g(f"slowdown_{n}", f"{BENCH.at('sgemm_naive_strided', n)['median_ms'] / BENCH.at('sgemm_naive', n)['median_ms']:.1f}")
g("bench_device", BENCH.provenance["device"])
g("bench_date", str(BENCH.provenance["date"])[:10])

# Check the qualitative facts the text relies on against the records (a contradicting re-recording stops the build).
for n in SIZES:
    assert BENCH.at("sgemm_coalesced", n)["median_ms"] < BENCH.at("sgemm_naive", n)["median_ms"]
    assert BENCH.at("sgemm_naive", n)["median_ms"] < BENCH.at("sgemm_naive_strided", n)["median_ms"]
assert BENCH.at("cublas", 4096)["gflops"] > 1.5 * BENCH.at("cublas", 1024)["gflops"]
assert BENCH.at("sgemm_coalesced", 4096)["pct_cublas"] < BENCH.at("sgemm_coalesced", 1024)["pct_cublas"]
assert strided["stalls"]["LG Throttle"] > strided["stalls"]["Long Scoreboard"]
assert coal["stalls"]["Long Scoreboard"] > 10 * max(coal["stalls"]["LG Throttle"], 0.1)
assert max(p["dram_pct"] for p in (naive, strided, coal)) < 50 < min(p["mem_pct"] for p in (naive, strided, coal))
_ns = sorted(naive["stalls"].items(), key=lambda kv: -kv[1])
assert [_ns[0][0], _ns[1][0]] == ["Long Scoreboard", "LG Throttle"]

_sass = {name: sass.summarize(name, "sm_90") for name in ("sgemm_naive", "sgemm_coalesced")}
g("sass_ldg32_naive", str(_sass["sgemm_naive"].ldg_32))
g("sass_ldg128_coal", str(_sass["sgemm_coalesced"].ldg_128))
g("sass_ffma_coal", str(_sass["sgemm_coalesced"].ffma))
assert _sass["sgemm_naive"].ldg_128 == 0 and _sass["sgemm_coalesced"].ldg_32 == 0
assert _sass["sgemm_coalesced"].ldg_128 > 0 and _sass["sgemm_coalesced"].local_bytes == 0
_ops = _sass["sgemm_coalesced"].counts
assert _ops["LDG.E.128.CONSTANT"] > 0 and _ops["LDG.E.128"] > 0
for n in (1024, 4096):
    g(f"pk_cublas_{n}", f"{BENCH.at('cublas', n)['pct_peak']:.1f}")

# More of the text's directions and matches (a contradicting re-recording stops the build)
_pc = [BENCH.at("sgemm_coalesced", n)["pct_cublas"] for n in SIZES]
assert _pc[0] > _pc[1] > _pc[2], "본문: Level 1의 cuBLAS 대비 비율은 크기가 커질수록 떨어진다"
_gf = [BENCH.at("sgemm_coalesced", n)["gflops"] for n in SIZES]
assert max(_gf) / min(_gf) < 1.3, "본문: Level 1의 처리량은 크기에 따라 크게 달라지지 않는다"
assert BENCH.at("cublas", 1024)["pct_peak"] < BENCH.at("cublas", 4096)["pct_peak"] - 10, \
    "본문: 작은 행렬에서는 cuBLAS도 제 속도를 다 내지 못한다"
assert all(BENCH.at("sgemm_naive_strided", n)["median_ms"] > 3 * BENCH.at("sgemm_naive", n)["median_ms"] for n in SIZES), \
    "본문: 반례는 나이브 커널보다 훨씬(몇 배) 느리다"
assert naive["sectors_per_request"] == 2.0 and strided["sectors_per_request"] == (16 + 1) / 2 and \
    abs(coal["sectors_per_request"] - 34 / 5) < 0.05, "본문: 측정한 요청당 섹터가 모델(2.0, 8.5, 6.8)과 같다"
assert abs(naive["global_ld_requests"] / coal["global_ld_requests"] - 32 / 5) < 0.1 and \
    abs(naive["global_ld_sectors"] / coal["global_ld_sectors"] - 64 / 34) < 0.05, \
    "본문: 요청은 32/5 = 6.4배, 섹터는 64/34 ≈ 1.88배 줄어든다 (모델과 측정)"
assert abs(strided["dram_bytes"] / naive["dram_bytes"] - 1) < 0.05 and \
    strided["global_ld_sectors"] > 3 * naive["global_ld_sectors"], "본문: 반례의 DRAM 바이트는 거의 같고 L1 섹터는 몇 배"
assert strided["sm_pct"] < 20 and strided["mem_pct"] > 90, "본문: 반례의 SM 처리량은 낮고 메모리(캐시 경로)는 바쁘다"
assert coal["mem_pct"] < naive["mem_pct"] and coal["duration_ms"] < naive["duration_ms"] and \
    coal["stalls"]["LG Throttle"] < 0.1 and naive["instructions"] > 2 * coal["instructions"], \
    "본문: Level 1은 명령과 LG Throttle을 줄였고, 메모리 처리량과 시간도 내려왔다"
assert coal["registers"] > naive["registers"] and coal["theoretical_occupancy_pct"] < naive["theoretical_occupancy_pct"], \
    "본문: 레지스터가 늘어 이론 점유율이 내려갔다"

# The quiz's numbers (course/banks/m05.yaml)
from course.facts import quiz_text       # noqa: E402

assert f"요청당 섹터 수는 {naive['sectors_per_request']:.1f}" in quiz_text(5, "m05-q08"), "퀴즈 m05-q08: 요청당 2.0섹터"
