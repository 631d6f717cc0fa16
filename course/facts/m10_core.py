"""Facts of module 10 (m10_profiling.md), the core: the recorded benchmark, Nsight Compute and tuning numbers its
text quotes, the measured roofline ceilings, and the SASS counts of Levels 0-6 (from the SASS record,
course.facts.recorded_sass, read in course.facts.m10_steps: nothing is compiled at import).

Levels 0-6 are the registry's representative kernels; "CB" is cuBLAS's own kernel, profiled in the same
record (profiles.json "reference"). Level-against-level speed comes from benchmarks.json "pairs" (the two
kernels timed in direct alternation) or from % of cuBLAS (each kernel timed in alternation with cuBLAS):
a kernel's median time alone drifts with the GPU's clock from one kernel's run to the next.

The chapter imports the records and a few helpers by name (profile_of, benchmark_of, occupancy_of, ...);
the claims functions next to the values guard the text's directional sentences and the numbers the quiz
banks quote.

Two sibling modules hold the rest of the chapter's facts and claims, on the same `f`: course.facts.m10_steps
(the SASS record and what the steps between levels do with it: FFMA and barrier counts, the shared loads
Nsight Compute counts, the barrier wait, Level 5's per-instruction samples, Level 6's less unrolled loop) and
course.facts.m10_quiz (the numbers and directions the quiz banks state), with m10_timing (the timing protocol's
section). They import this module; course.facts.m10, which the chapter imports, loads all of them.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from course.facts import Facts
from course.page import recorded
from kernels import registry, timing
from kernels.device import fp32_lanes
from kernels.devices import PROFILES
from kernels.devices import occupancy as occupancy_rule
from kernels.record import DATA_DIR
from sims import profiles as sim_profiles
from sims import roofline as sim_roofline

f = Facts("m10")

SIZE = 4096                              # M = N = K of the profiles and of the level-to-level comparisons
FLOPS = 2 * SIZE ** 3                    # 137,438,953,472
REPRESENTATIVE = registry.LEVEL_REPRESENTATIVE      # representative kernel of each level
LEVELS = sorted(REPRESENTATIVE)
LEVELS_AND_CUBLAS = LEVELS + ["CB"]      # every profiled kernel the tables compare, cuBLAS's last
MAIN_PATH = [lv for lv in LEVELS if registry.KERNELS[REPRESENTATIVE[lv]].chapter <= 10]   # Levels 0-5
LEVEL5 = registry.LEVEL5                 # Level 5's ring settings (BK, STAGES, EARLY_BARRIER)
LEVEL6 = registry.LEVEL6                 # Level 6's tiles (BM, BN, BK, WM, WN, TM, TN, STAGES, ...)

benchmark_record = recorded()            # book/data/benchmarks.json
bench_provenance = benchmark_record.provenance
profile_record = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
_profiled = {k["kernel"]: k for k in profile_record["kernels"]}
cublas_profile = next(e for e in profile_record["reference"] if e["kernel"] == "cublas")   # same record
tuning_record = json.loads((DATA_DIR / "async_tuning.json").read_text(encoding="utf-8"))

cublas_bench = benchmark_record.at("cublas", SIZE)
profile_of = {lv: _profiled[REPRESENTATIVE[lv]] for lv in LEVELS} | {"CB": cublas_profile}   # Nsight, 4096³
benchmark_of = {lv: benchmark_record.at(REPRESENTATIVE[lv], SIZE) for lv in LEVELS} | {"CB": cublas_bench}
async_4byte_profile = _profiled["sgemm_async_copy"]          # Level 5's variant with 4-byte copies of B
tiled_profile = _profiled["sgemm_tiled"]

KERNEL_LABEL = {0: "L0 나이브", 1: "L1 float4", 2: "L2 타일링", 3: "L3 레지스터 블로킹", 4: "L4 더블 버퍼",
                5: "L5 cp.async 16 B", 6: "L6 워프 타일링", "CB": "cuBLAS 커널"}
# The source material's claims (A100, never measured): SOL position (SM %, memory %) and % of cuBLAS
SEED_SOL_CLAIMS = {0: (5, 20), 1: (10, 50), 2: (30, 60), 3: (60, 70), 4: (75, 80), 5: (85, 85)}
SEED_PCT_CUBLAS_CLAIMS = {0: (1, 5), 1: (5, 10), 2: (20, 40), 3: (50, 70), 4: (70, 85), 5: (85, 95)}

PEAK_GFLOPS = bench_provenance["peak_gflops"]
BANDWIDTH_GBS = bench_provenance["bandwidth_gbs"]
RIDGE = PEAK_GFLOPS / BANDWIDTH_GBS

# The stall reasons the chapter's bars show, in order, and the short names of their facts (L4_ssb, CB_ns_raw ...)
STALL_REASONS_SHOWN = ["Long Scoreboard", "LG Throttle", "Barrier", "MIO Throttle", "Short Scoreboard", "Wait",
                       "Math Pipe Throttle", "No Instruction", "Dispatch Stall", "Not Selected", "Selected"]
STALL_FACT_KEYS = {"Long Scoreboard": "ls", "LG Throttle": "lg", "Barrier": "bar", "MIO Throttle": "mio",
                   "Short Scoreboard": "ssb", "Wait": "wait", "Math Pipe Throttle": "math",
                   "No Instruction": "noi", "Dispatch Stall": "disp", "Not Selected": "ns", "Selected": "sel"}
PASSIVE_STALLS = ("Selected", "Not Selected")   # a warp that issues, or could have: nothing to act on
SMSP_PER_SM = 4                          # warp schedulers per SM (sm_80, sm_90)
MAX_WARPS = 64                           # resident warps per SM (sm_90)


def fact_prefix(key) -> str:
    """The prefix of a profiled kernel's facts: L0 … L6, or CB for cuBLAS's kernel."""
    return f"L{key}" if key != "CB" else "CB"


def stall_shares(stalls):
    """Stall values (mean warps per issue cycle) as shares (%) of their total. Returns (shares, total)."""
    total = sum(v for v in stalls.values() if v)
    return {k: 100 * v / total for k, v in stalls.items() if v}, total


def format_intensity(x) -> str:
    """An arithmetic intensity (FLOP/B) with as many digits as its size deserves."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}" if x >= 1 else f"{x:.2f}"


def ffma_share(e):
    """Share (%) of FFMA among the warp instructions a kernel executed."""
    return 100 * e["ffma_instructions"] / 32 / e["instructions"]


def shared_memory_bytes(e) -> int:
    """Shared memory per block: static plus dynamic."""
    return int((e.get("smem_static") or 0) + (e.get("smem_dynamic") or 0))


def warps_launched(e) -> int:
    return int(e["grid_size"] * e["block_size"]) // 32


def speed_phrase(old_ms, new_ms):
    """Old time → new time as one Korean phrase (the data decides the direction)."""
    r = old_ms / new_ms
    if r >= 1.03:
        return f"{r:.2f}배 빨라졌습니다"
    if r <= 1 / 1.03:
        return f"{1 / r:.2f}배 느려졌습니다"
    return f"거의 같은 속도였습니다(차이 {abs(r - 1) * 100:.1f}%)"


def paired_speedup(new, old, n):
    """Speed-up of new over old, the two timed in direct alternation (benchmarks.json "pairs")."""
    return next(p["speedup"] for p in bench_provenance["pairs"] if p["new"] == new and p["old"] == old and p["M"] == n)


def stall_card(entry):
    """A profile entry as simulation 10's measurement card shows it: stalls as shares (%), below 0.5% dropped."""
    card = dict(entry)
    card["stalls"] = {k: round(v, 1) for k, v in stall_shares(entry["stalls"])[0].items() if v >= 0.5}
    return card


# ---------------------------------------------------------------------------------------------------------
# Provenance and device
f.set("p_device", profile_record["device"])
f.set("p_date", str(profile_record["date"])[:10])
f.set("p_tool", profile_record["tool"].split()[1])
f.set("p_opts", profile_record["ncu_options"])
f.set("p_cmd", profile_record["command"])
f.set("b_device", bench_provenance["device"])
f.set("b_date", str(bench_provenance["date"])[:10])
f.set("b_tf32", bench_provenance.get("tf32", "?"), "s")
f.set("sm_count", bench_provenance["sm_count"], "d")
f.set("lanes", bench_provenance["fp32_lanes_per_sm"], "d")
f.set("clock_mhz", bench_provenance["clock_mhz"], ",.0f")
f.set("peak_gflops", PEAK_GFLOPS, ",.0f")
f.set("peak_tflops", PEAK_GFLOPS / 1000, ".1f")
f.set("bw_gbs", BANDWIDTH_GBS, ",.0f")
f.set("bw_tbs", BANDWIDTH_GBS / 1000, ".2f")
f.set("ridge", RIDGE, ".1f")
f.set("bw_method", bench_provenance.get("bandwidth_method", "?"), "s")
f.set("n_levels", len(LEVELS), "d")
f.set("last_level", LEVELS[-1], "d")
f.set("main_last", MAIN_PATH[-1], "d")


@f.claims
def profiler_run(check):
    check(profile_record["ncu_options"] == "--clock-control none --launch-skip 1 --launch-count 1",
          "본문이 옵션을 그대로 적는다")


# The seed benchmark runner's formula (SMs × 64 lanes × 1.5 GHz × 2) applied to the recorded device
seed_peak_gflops = bench_provenance["sm_count"] * 64 * 1.5 * 2
f.set("seed_peak_tflops", seed_peak_gflops / 1000, ".1f")
f.set("cublas_vs_seed_peak", 100 * cublas_bench["gflops"] / seed_peak_gflops, ".0f")


@f.claims
def the_source_runners_peak(check):
    """"A100(108 SM) ... 흔히 쓰는 19.5 TFLOP/s", "sm_86, sm_89, sm_90 are 128 lanes per SM", "less than half"."""
    a100 = PROFILES["A100-40GB"]
    a100_peak = a100.sm_count * fp32_lanes(a100.cc) * a100.clock_mhz * 2 / 1e6
    check(a100.sm_count == 108 and f"{a100_peak:.1f}" == "19.5" and 108 * 64 * 1.5 * 2 / 1e3 > a100_peak,
          "본문: A100은 108 SM, FP32 최대 19.5 TFLOP/s이고 원 자료의 식(20.7)이 그보다 높다")
    check({d.arch for d in PROFILES.values() if fp32_lanes(d.cc) == 128} == {"sm_86", "sm_89", "sm_90"},
          "본문: SM당 128 레인은 sm_86, sm_89, sm_90")
    check(seed_peak_gflops < PEAK_GFLOPS / 2, "본문: 원 자료의 식을 기록된 장치에 쓰면 실제 최대의 절반도 안 된다")

# cuBLAS in the benchmark: its row is the median of the medians timed beside each kernel; min_ms and
# max_ms are the lowest and highest of those medians (the GPU's clock drifts from one kernel's run to the next)
f.set("cublas_ms", cublas_bench["median_ms"], ".2f")
f.set("cublas_ms_lo", cublas_bench["min_ms"], ".2f")
f.set("cublas_ms_hi", cublas_bench["max_ms"], ".2f")
f.set("cublas_gflops", cublas_bench["gflops"], ",.0f")
f.set("cublas_tflops", cublas_bench["gflops"] / 1000, ".1f")
f.set("cublas_pct_peak", cublas_bench["pct_peak"], ".0f")
f.set("cublas_pct_peak_lo", 100 * FLOPS / (cublas_bench["max_ms"] * 1e6) / PEAK_GFLOPS, ".0f")
f.set("cublas_pct_peak_hi", 100 * FLOPS / (cublas_bench["min_ms"] * 1e6) / PEAK_GFLOPS, ".0f")
f.set("cublas_reps", cublas_bench["reps"], "d")
# nvidia-smi before and after the benchmark run: "1980 MHz, 59, 424.30 W, 0x0000000000000000" (clock, temperature,
# power, clock-limit reasons)
GPU_STATE = {when: [v.strip() for v in bench_provenance["gpu_state"][when].split(",")] for when in ("before", "after")}
f.set("b_smi_clock", int(GPU_STATE["before"][0].split()[0]), ",d")
f.set("cublas_spread_pct", 100 * (cublas_bench["max_ms"] / cublas_bench["min_ms"] - 1), ".1f")


@f.claims
def cublas_medians_agree(check):
    """The cuBLAS medians, one per kernel's window, lie within 1% of each other (GPU time per call, kernels/timing.py),
    and the GPU's state before and after the run shows its maximum clock and no clock-limit reason."""
    check(cublas_bench["max_ms"] < 1.01 * cublas_bench["min_ms"], "본문: cuBLAS의 중앙값들이 1% 안에 모였다")
    check(GPU_STATE["before"][0] == GPU_STATE["after"][0] == f"{bench_provenance['clock_mhz']:.0f} MHz"
          and all(int(GPU_STATE[w][3], 16) == 0 for w in GPU_STATE),
          "본문: 측정 앞뒤의 SM 클럭은 두 번 다 최대 클럭이고 클럭 제한 사유가 없다")
    check(bench_provenance.get("timing") == timing.PROTOCOL, "본문: benchmarks.json은 강좌의 방식(kernels/timing.py)으로 잰 기록")


# Arithmetic beside the quiz (C1): 4096³ in 3.2 ms
f.set("c1_pct_peak", 100 * FLOPS / (3.2 * 1e6) / PEAK_GFLOPS, ".0f")
f.set("c1_pct_cublas", 100 * cublas_bench["median_ms"] / 3.2, ".0f")


@f.claims
def quiz_arithmetic_beside_the_formulas(check):
    """The quiz arithmetic beside the formulas (A100 figures are the source's; the H100's are the record's)."""
    check(f"{FLOPS / 3.2e-3 / 1e9:,.0f}" == "42,950" and f"{FLOPS / 3.2e-3 / 19.5e12:.1f}" == "2.2"
          and f"{FLOPS / 19.5e12 * 1e3:.2f}" == "7.05" and f"{108 * 64 * 1.5 * 2 / 1000:.1f}" == "20.7",
          "본문: 42,950 GFLOP/s, A100 최대의 2.2배, 최소 7.05 ms, 108 × 64 × 1.5 × 2 ≈ 20.7")


# ---------------------------------------------------------------------------------------------------------
# Per profiled kernel: Levels 0-6 and cuBLAS (CB)
PROFILE_FIELDS = [("sm_pct", ".0f"), ("mem_pct", ".0f"), ("dram_pct", ".0f"), ("issue_active_pct", ".0f"),
                  ("achieved_occupancy_pct", ".0f"), ("theoretical_occupancy_pct", ".1f"), ("registers", ".0f"),
                  ("duration_ms", ".2f"), ("l1_lsu_wavefronts_pct", ".0f"), ("lsu_issue_pct", ".0f"),
                  ("fma_pipe_pct", ".0f")]
stall_share_of = {key: stall_shares(profile_of[key]["stalls"])[0] for key in LEVELS_AND_CUBLAS}
stall_total_of = {key: stall_shares(profile_of[key]["stalls"])[1] for key in LEVELS_AND_CUBLAS}
for key, profile in profile_of.items():
    prefix = fact_prefix(key)
    for name, fmt in PROFILE_FIELDS:
        f.set(f"{prefix}_{name}", profile[name], fmt)
    f.set(f"{prefix}_smem", shared_memory_bytes(profile), ",d")
    f.set(f"{prefix}_spr", profile["sectors_per_request"], ".1f")
    f.set(f"{prefix}_instr", profile["instructions"] / 1e9, ".2f")
    f.set(f"{prefix}_instr_eok", profile["instructions"] / 1e8, ",.0f")
    f.set(f"{prefix}_ldsinst_eok", profile["smem_ld_instructions"] / 1e8, ".2f")
    f.set(f"{prefix}_ffma_share", ffma_share(profile), ".0f")
    f.set(f"{prefix}_stall_total", stall_total_of[key], ".1f")
    for reason, short in STALL_FACT_KEYS.items():
        f.set(f"{prefix}_{short}", stall_share_of[key].get(reason, 0.0), ".0f")
        f.set(f"{prefix}_{short}_raw", profile["stalls"].get(reason) or 0.0, ".2f")
    f.set(f"{prefix}_dram_ai", format_intensity(FLOPS / profile["dram_bytes"]))
    f.set(f"{prefix}_dram_gb", profile["dram_bytes"] / 1e9, ".2f")
    f.set(f"{prefix}_warps_per_smsp", profile["achieved_occupancy_pct"] / 100 * MAX_WARPS / SMSP_PER_SM, ".0f")

# Per level: the benchmark (4096³, each kernel timed in alternation with cuBLAS)
for lv in LEVELS:
    row = benchmark_of[lv]
    f.set(f"L{lv}_ms", row["median_ms"], ".2f")
    f.set(f"L{lv}_gflops", row["gflops"], ",.0f")
    f.set(f"L{lv}_tflops", row["gflops"] / 1000, ".1f")
    f.set(f"L{lv}_pctc", row["pct_cublas"], ".0f")
    f.set(f"L{lv}_pctp", row["pct_peak"], ".0f")


@f.claims
def sol_and_stalls(check):
    """The SOL quadrants and stall bars, Levels 0-6 and cuBLAS (the build stops if a re-recording contradicts one)."""
    p, share, total = profile_of, stall_share_of, stall_total_of
    check(p[2]["duration_ms"] > 1.03 * p[1]["duration_ms"], "본문: Level 2가 Level 1보다 느리다")
    check(benchmark_of[2]["median_ms"] > 1.03 * benchmark_of[1]["median_ms"], "본문: Level 2가 Level 1보다 느리다")
    check(p[3]["duration_ms"] * 3 < p[2]["duration_ms"], "본문: Level 3은 Level 2보다 몇 배 빠르다")
    check(abs(p[0]["l1_lsu_wavefronts_pct"] - p[0]["mem_pct"]) < 1, "본문: 나이브의 메모리 %는 L1 LSU 데이터 파이프")
    check(abs(p[0]["lsu_issue_pct"] - p[0]["sm_pct"]) < 2, "본문: 나이브의 SM %는 LSU 명령 파이프")
    check(all(p[k]["sm_pct"] > p[k]["mem_pct"] for k in (3, 4, 5, 6, "CB")),
          "본문: Level 3–6과 cuBLAS는 SM %가 메모리 %를 앞선다")
    check([sim_profiles.classify_sol(p[k]["sm_pct"], p[k]["mem_pct"]) for k in (6, "CB")] == ["compute"] * 2,
          "본문: Level 6과 cuBLAS는 연산 한계 사분면")
    check(all(share[k].get("Math Pipe Throttle", 0) < 5 for k in LEVELS_AND_CUBLAS),
          "본문: Math Pipe Throttle은 몇 %를 넘지 않는다")
    check(all(share[k]["Long Scoreboard"] < 5 for k in (4, 5, 6, "CB")),
          "본문: Level 4–6과 cuBLAS에는 Long Scoreboard가 거의 없다")
    check(p[3]["duration_ms"] > 1.1 * p[4]["duration_ms"], "본문: Level 4는 Level 3보다 크게 빠르다")
    check(benchmark_of[3]["median_ms"] > 1.1 * benchmark_of[4]["median_ms"], "본문: Level 4는 Level 3보다 크게 빠르다")
    check(abs((total[3] / total[4]) / (p[3]["duration_ms"] / p[4]["duration_ms"]) - 1) < 0.1,
          "본문: 스톨 합계 비율 ≈ 시간 비율")
    check(p[4]["stalls"]["Short Scoreboard"] < p[3]["stalls"]["Short Scoreboard"], "본문: Short Scoreboard도 줄었다")
    check(all(max(share[k], key=share[k].get) == "Not Selected" for k in (3, 4, 5)),
          "본문: Level 3–5에서 가장 큰 몫은 Not Selected")
    check(all(share[k]["Not Selected"] + share[k]["Selected"] > 50 for k in (4, 5)),
          "본문: Level 4–5는 Not Selected + Selected > 절반")
    check(top_active_stalls(5, 2) == ["Barrier", "Dispatch Stall"], "본문: Level 5에서 그다음으로 큰 것은 Barrier와 Dispatch Stall")
    check(all(max(share[k], key=share[k].get) == "Selected" for k in (6, "CB")),
          "본문: Level 6과 cuBLAS에서 가장 큰 몫은 Selected")
    check(max(total[6], total["CB"]) < min(total[k] for k in LEVELS_AND_CUBLAS if k not in (6, "CB")),
          "본문: Level 6과 cuBLAS의 합계가 가장 작다")
    check(top_active_stalls(6) == ["No Instruction"] and top_active_stalls("CB") == ["Short Scoreboard"],
          "본문: 가장 큰 능동 스톨은 Level 6에서 No Instruction, cuBLAS에서 Short Scoreboard")
    check(top_active_stalls(4) == ["Short Scoreboard"] and top_active_stalls(4, 2)[1] == "Barrier",
          "본문: Level 4에서 Not Selected·Selected 다음은 Short Scoreboard와 Barrier")
    # Stall total ≈ warps per scheduler ÷ issue-active fraction (every kernel, within 10%)
    for key in LEVELS_AND_CUBLAS:
        e = p[key]
        estimate = e["achieved_occupancy_pct"] / 100 * MAX_WARPS / SMSP_PER_SM / (e["issue_active_pct"] / 100)
        check(abs(estimate / total[key] - 1) < 0.1, f"본문: 스톨 합계 ≈ 스케줄러당 워프 ÷ 발행 활성 ({key})")
    check(p[6]["achieved_occupancy_pct"] / 100 * MAX_WARPS / SMSP_PER_SM < 2.5
          and p["CB"]["achieved_occupancy_pct"] / 100 * MAX_WARPS / SMSP_PER_SM < 2.5,
          "본문: Level 6과 cuBLAS는 스케줄러당 워프 2개")


def top_active_stalls(key, n=1):
    """The n largest stall reasons a kernel can act on (not Selected / Not Selected)."""
    active = ((k, v) for k, v in stall_share_of[key].items() if k not in PASSIVE_STALLS)
    return [k for k, _ in sorted(active, key=lambda kv: -kv[1])][:n]


@f.claims
def further_sol_and_stall_sentences(check):
    p = profile_of
    check(abs(p[2]["l1_lsu_wavefronts_pct"] - p[2]["mem_pct"]) < 1 and abs(p[2]["lsu_issue_pct"] - p[2]["sm_pct"]) < 2,
          "본문: Level 2도 같은 모양(메모리 % = L1 데이터 파이프, SM % = LSU 명령 파이프)")
    check(p[3]["lsu_issue_pct"] < p[2]["lsu_issue_pct"] and p[3]["fma_pipe_pct"] > 2 * p[2]["fma_pipe_pct"],
          "본문: Level 3에서 LSU 명령 파이프는 내려가고 FMA 파이프가 올라온다")
    check(sim_profiles.classify_sol(p[5]["sm_pct"], p[5]["mem_pct"]) == "balanced", "본문: Level 5도 균형 사분면")
    check(all(p[k]["fma_pipe_pct"] > max(p[k]["l1_lsu_wavefronts_pct"], p[k]["lsu_issue_pct"]) for k in (6, "CB"))
          and min(p[6]["fma_pipe_pct"], p["CB"]["fma_pipe_pct"]) > max(p[k]["fma_pipe_pct"] for k in LEVELS if k != 6),
          "본문: Level 6과 cuBLAS에서는 FMA 파이프가 가장 높다")
    check(stall_share_of[1]["Long Scoreboard"] > 90 and not p[1]["stalls"]["LG Throttle"],
          "본문: Level 1은 Long Scoreboard가 거의 전부, LG Throttle 사라짐")
    check(all(not p[1]["stalls"][k] and p[2]["stalls"][k] > 0.5
              for k in ("MIO Throttle", "Barrier", "Short Scoreboard")),
          "본문: Level 2에서 MIO Throttle, Barrier, Short Scoreboard가 새로 나타난다")
    check(sim_profiles.classify_sol(p[1]["sm_pct"], p[1]["mem_pct"]) == "memory", "본문: Level 1은 메모리 한계 사분면")
    check(abs(p[1]["l1_lsu_wavefronts_pct"] - p[1]["mem_pct"]) < 1 and p[1]["dram_pct"] < 5,
          "본문: Level 1의 메모리 %는 L1 데이터 파이프이고 DRAM은 한가하다(트리의 L1 가지)")
    check(p[2]["l1_lsu_wavefronts_pct"] > p[1]["l1_lsu_wavefronts_pct"] + 10 and p[2]["instructions"] > p[1]["instructions"],
          "본문: Level 2에서 L1 데이터 파이프는 더 바빠지고 워프 명령은 늘었다")
    check(top_active_stalls(3, 3) == ["Short Scoreboard", "Long Scoreboard", "Barrier"],
          "본문: Level 3에서 눈에 띄는 능동 스톨은 Short Scoreboard, Long Scoreboard, Barrier")

    def to_latency_corner(e):
        """How far a kernel's SOL point is from the latency quadrant (both below the 60% line)."""
        return max(0.0, e["sm_pct"] - 60) + max(0.0, e["mem_pct"] - 60)

    check(all(sim_profiles.classify_sol(p[k]["sm_pct"], p[k]["mem_pct"]) != "latency" for k in LEVELS_AND_CUBLAS),
          "본문: 4096³의 대표 커널 가운데 지연 시간 한계 구석에 든 것은 없다")
    check(sorted(LEVELS_AND_CUBLAS, key=lambda k: to_latency_corner(p[k]))[:2] == [3, 1]
          and p[3]["issue_active_pct"] > 50,
          "본문: 경계에 가장 가까운 것은 Level 3, 그다음이 Level 1; Level 3은 발행 활성이 높다")
    check([sim_profiles.classify_sol(p[lv]["sm_pct"], p[lv]["mem_pct"]) for lv in (0, 2, 4)] == ["balanced"] * 3,
          "본문: Level 0, 2, 4는 60% 기준으로 균형 사분면")


@f.claims
def what_the_sol_and_stall_tables_say(check):
    """The SOL paragraph on Level 3 and Levels 6/cuBLAS, and the stall table's row on Not Selected."""
    p = profile_of
    check(p[3]["lsu_issue_pct"] < p[3]["fma_pipe_pct"] and p[3]["sm_pct"] > p[3]["l1_lsu_wavefronts_pct"]
          and all(abs(p[3][k] - 60) < 6 for k in ("issue_active_pct", "fma_pipe_pct")),
          "본문: Level 3에서 가장 바쁜 유닛은 명령 발행과 FMA 파이프이고, 둘 다 60% 안팎")
    check(all(p[k]["issue_active_pct"] > p[k]["fma_pipe_pct"] for k in (6, "CB")),
          "본문: Level 6과 cuBLAS의 발행 활성은 FMA 파이프보다 높다(괄호 속 값)")
    # Not Selected accrues in issue cycles only: Level 3's largest share sits beside cycles with no ready warp
    ready_3 = p[3]["issue_active_pct"] / 100 * (1 + p[3]["stalls"]["Not Selected"])
    check(max(stall_share_of[3], key=stall_share_of[3].get) == "Not Selected" and 100 - p[3]["issue_active_pct"] > 30
          and ready_3 > 1, "본문(표): Not Selected가 가장 큰 Level 3에서도 준비된 워프가 없는 사이클이 30%를 넘는다")
    check(p[0]["l1_hit_rate_pct"] > 80 and p[1]["l1_hit_rate_pct"] > 80 and p[2]["l1_hit_rate_pct"] < 10,
          "본문: 나이브와 Level 1은 L1 캐시가 데이터 대부분을 내주고(적중률 80% 초과), Level 2는 그렇지 않다")
    check(p[0]["global_ld_requests"] == 2 * p[0]["ffma_instructions"] / 32,
          "본문: 나이브 커널은 FMA 하나에 로드 명령 둘을 낸다(글로벌 로드 요청 = 2 × 워프 FFMA)")


@f.absence("그런 실행의 SOL은 기록에 없습니다")
def no_profile_of_a_small_matrix(check):
    sizes = {(e["M"], e["N"], e["K"]) for e in profile_record["kernels"] + profile_record["reference"]}
    check(sizes == {(SIZE, SIZE, SIZE)}, f"본문: 프로파일은 4096³뿐이다 ({sorted(sizes)})")


@f.claims
def decision_tree_on_level0(check):
    """Simulation 10's card of Level 0, as the chapter builds it (stall_card)."""
    level0 = stall_card(profile_of[0])
    check(sim_profiles.decision_path(level0["sm_pct"], level0["mem_pct"], level0["stalls"]).recommendation == "async",
          "본문: 단순한 트리는 Level 0에 cp.async를 권한다")


# ---------------------------------------------------------------------------------------------------------
# The bar sizes beyond 4096³ (benchmarks.json) and where cuBLAS still wins
for lv in (3, 4, 5, 6):
    f.set(f"L{lv}_pctc_8192", benchmark_record.at(REPRESENTATIVE[lv], 8192)["pct_cublas"], ".0f")
f.set("L6_pctc_2048", benchmark_record.at(REPRESENTATIVE[6], 2048)["pct_cublas"], ".0f")
f.set("L6_pctc_1024", benchmark_record.at(REPRESENTATIVE[6], 1024)["pct_cublas"], ".0f")
f.set("L4_pctc_1024", benchmark_record.at(REPRESENTATIVE[4], 1024)["pct_cublas"], ".0f")
f.set("L4_pctc_2048", benchmark_record.at(REPRESENTATIVE[4], 2048)["pct_cublas"], ".0f")
f.set("L5_pctc_2048", benchmark_record.at(REPRESENTATIVE[5], 2048)["pct_cublas"], ".0f")
_grid_x, _grid_y, _ = registry.KERNELS[REPRESENTATIVE[6]].grid(1024, 1024)
level6_blocks_1024 = _grid_x * _grid_y
f.set("L6_blocks_1024", level6_blocks_1024, "d")
level6_awkward = next(r for r in bench_provenance["awkward_rows"]
                      if r["kernel"] == REPRESENTATIVE[6] and (r["M"], r["N"], r["K"]) == (1000, 1023, 1025))
f.set("L6_pctc_awk", level6_awkward["pct_cublas"], ".0f")


@f.claims
def level6_against_cublas_by_size(check):
    for n in (SIZE, 8192):
        check(benchmark_record.at(REPRESENTATIVE[6], n)["pct_cublas"] > 99, "본문: Level 6은 4096³·8192³에서 cuBLAS와 같은 속도")
    at_2048 = {lv: benchmark_record.at(REPRESENTATIVE[lv], 2048)["pct_cublas"] for lv in (4, 5, 6)}
    check(at_2048[6] < 95 and max(at_2048.values()) - min(at_2048.values()) < 2,
          "본문: 2048³에서 Level 6은 cuBLAS의 95% 아래이고, Level 4·5와 2%p 안 (같은 자리)")
    rows = [benchmark_record.at(REPRESENTATIVE[lv], n) for lv in MAIN_PATH for n in (SIZE, 8192)]
    check(max(r["pct_cublas"] for r in rows if r is not None) < 96,         # Levels 0-2 have no 8192³ row
          "본문: Level 0–5 중 어느 것도 4096³·8192³에서 cuBLAS에 이르지 못한다")
    check(benchmark_record.at(REPRESENTATIVE[6], 1024)["pct_cublas"] < 50
          < benchmark_record.at(REPRESENTATIVE[4], 1024)["pct_cublas"],
          "본문: 1024³에서 Level 6은 cuBLAS의 절반도 안 되고 Level 4보다 느리다")
    check(level6_blocks_1024 < bench_provenance["sm_count"] / 2, "본문: 1024³에서 Level 6의 블록은 SM 수의 절반에도 못 미친다")
    check(level6_awkward["pct_cublas"] < 50, "본문: 어색한 크기에서도 cuBLAS가 이긴다")
    check(abs(benchmark_of[6]["gflops"] / cublas_bench["gflops"] - 1) < 0.01, "본문: Level 6의 점은 cuBLAS의 선에 거의 붙어 있다 (1% 안)")
    check(benchmark_of[6]["pct_cublas"] == max(benchmark_of[lv]["pct_cublas"] for lv in LEVELS),
          "본문: 가장 빠른 둘은 Level 6과 cuBLAS")


# Measured % of cuBLAS against the source's claimed ranges: above, inside, below
f.set("seed_l5_lo", SEED_PCT_CUBLAS_CLAIMS[5][0], "d")
f.set("seed_l5_hi", SEED_PCT_CUBLAS_CLAIMS[5][1], "d")
f.set("seed_l4_hi", SEED_PCT_CUBLAS_CLAIMS[4][1], "d")


@f.claims
def against_the_seed_ranges(check):
    side = {lv: ("위" if benchmark_of[lv]["pct_cublas"] > hi else "아래" if benchmark_of[lv]["pct_cublas"] < lo else "안")
            for lv, (lo, hi) in SEED_PCT_CUBLAS_CLAIMS.items()}
    check([side[lv] for lv in (0, 1, 2, 4, 5)] == ["위", "위", "아래", "위", "안"],
          "본문: 나이브·L1은 주장보다 높고, L2는 낮고, L4는 높고, L5는 범위 안")
    check(benchmark_of[2]["pct_cublas"] < benchmark_of[1]["pct_cublas"], "본문: Level 2는 Level 1보다도 낮다")


# ---------------------------------------------------------------------------------------------------------
# Level against level, timed in direct alternation (benchmarks.json "pairs")
for n in (SIZE, 8192):
    f.set(f"x45_{n}", paired_speedup(REPRESENTATIVE[5], REPRESENTATIVE[4], n), ".3f")
    f.set(f"x45_4b_{n}", paired_speedup("sgemm_async_copy", REPRESENTATIVE[4], n), ".3f")
    f.set(f"x56_{n}", paired_speedup(REPRESENTATIVE[6], REPRESENTATIVE[5], n), ".3f")
    f.set(f"x45_{n}_pct", 100 * abs(paired_speedup(REPRESENTATIVE[5], REPRESENTATIVE[4], n) - 1), ".1f")
    f.set(f"x45_4b_{n}_pct", 100 * (1 - paired_speedup("sgemm_async_copy", REPRESENTATIVE[4], n)), ".1f")
    f.set(f"x56_{n}_pct", 100 * (paired_speedup(REPRESENTATIVE[6], REPRESENTATIVE[5], n) - 1), ".1f")


@f.claims
def level4_to_5_parity(check):
    """Level 4 → 5: parity (16 B), the 4-byte variant a little slower; what the profile says changed."""
    p4, p5 = profile_of[4], profile_of[5]
    for n in (SIZE, 8192):
        check(abs(paired_speedup(REPRESENTATIVE[5], REPRESENTATIVE[4], n) - 1) < 0.01,
              "본문: Level 5(16 B)는 Level 4와 같은 속도(1% 안)")
        check(0.95 < paired_speedup("sgemm_async_copy", REPRESENTATIVE[4], n) < 0.99,
              "본문: 4 B 변형은 Level 4보다 조금(1–5%) 느리다")
        check(paired_speedup(REPRESENTATIVE[6], REPRESENTATIVE[5], n) > 1.03, "본문: Level 6은 Level 5보다 빠르다")
    check(abs(benchmark_of[5]["pct_cublas"] - benchmark_of[4]["pct_cublas"]) < 1, "본문: cuBLAS 대비로도 Level 4와 5는 같다")
    check(abs(p5["duration_ms"] / p4["duration_ms"] - 1) < 0.01, "본문: 프로파일러 아래에서도 같은 시간")
    check(p5["instructions"] < p4["instructions"], "본문: Level 5가 워프 명령을 덜 냈다")
    check(ffma_share(p5) > ffma_share(p4) + 2, "본문: FFMA 비중은 Level 5가 높다")
    check(p5["issue_active_pct"] < p4["issue_active_pct"] - 2, "본문: 발행 활성은 Level 5가 낮다")
    check(abs(p5["fma_pipe_pct"] - p4["fma_pipe_pct"]) < 2, "본문: FMA 파이프는 거의 같다")
    check(stall_share_of[5]["Short Scoreboard"] < stall_share_of[4]["Short Scoreboard"], "본문: Short Scoreboard 비중은 줄었다")
    check(p5["smem_st_instructions"] == 0 == profile_of[6]["smem_st_instructions"], "본문: Level 5–6에는 STS가 없다")


# ---------------------------------------------------------------------------------------------------------
# DRAM roofs of the naive and tiled kernels (arithmetic intensity from measured DRAM bytes × measured bandwidth)
for lv in (0, 2):
    _dram_roof_gflops = min(PEAK_GFLOPS, FLOPS / profile_of[lv]["dram_bytes"] * BANDWIDTH_GBS)
    f.set(f"L{lv}_dram_roof_tflops", _dram_roof_gflops / 1000, ".1f")
f.set("L3_roof_ii_raw_tflops", sim_roofline.level_ai(3, "ii") * BANDWIDTH_GBS / 1000, ".1f")
f.set("L6_ai_i", sim_roofline.level_ai(6, "i"), ".2f")
f.set("L6_ai_ii", sim_roofline.level_ai(6, "ii"), ".1f")
cublas_tile = sim_roofline.reference_block_tile(cublas_profile["function"])
f.set("cb_tile", f"{cublas_tile[0]}×{cublas_tile[1]}")
f.set("L6_tile", "×".join(str(v) for v in registry.KERNELS[REPRESENTATIVE[6]].tile))
f.set("L3_tile", "×".join(str(v) for v in registry.KERNELS[REPRESENTATIVE[3]].tile))
f.set("L6_thread_tile", f"{LEVEL6['TM']}×{LEVEL6['TN']}")

# Model (iii) arithmetic intensity of the fast kernels: the lowest and the highest, and whose
_dram_intensity = {k: FLOPS / profile_of[k]["dram_bytes"] for k in (3, 4, 5, 6, "CB")}
_lowest, _highest = min(_dram_intensity, key=_dram_intensity.get), max(_dram_intensity, key=_dram_intensity.get)
_WHO = {k: f"Level {k}" for k in LEVELS} | {"CB": "cuBLAS"}
f.set("dram_ai_min", format_intensity(_dram_intensity[_lowest]))
f.set("dram_ai_min_who", _WHO[_lowest])
f.set("dram_ai_max", format_intensity(_dram_intensity[_highest]))
f.set("dram_ai_max_who", _WHO[_highest])


@f.claims
def roofline(check):
    """The roofline sentences on the H100's numbers, and the ridge point: one figure everywhere, peak FP32
    (device properties) ÷ measured copy bandwidth, both from the record's provenance; the chapter prints
    f.ridge, the figure uses the same roof, and the banks of modules 4, 6 and 10 quote it (quiz_ridge_points)."""
    roof = sim_roofline.recorded_device_roof(bench_provenance)
    check(abs(roof.ridge_ai - RIDGE) < 1e-9 and roof.peak_gflops == PEAK_GFLOPS and roof.bandwidth_gbs == BANDWIDTH_GBS,
          "본문: 그림의 꺾임점이 본문의 꺾임점(기록된 최대 ÷ 측정 대역폭)과 같다")
    a100 = sim_roofline.A100_REFERENCE
    check(f"{a100.ridge_ai:.1f}" == "9.6" == f"{19500 / 2039:.1f}"
          and (a100.peak_gflops, a100.bandwidth_gbs) == (19500.0, 2039.0),
          "본문: 원 자료의 A100 수치 19.5 TFLOP/s, 2,039 GB/s, 꺾임점 ≈ 9.6")
    check(sim_roofline.level_ai(3, "ii") * BANDWIDTH_GBS > PEAK_GFLOPS,
          "본문: 모델 (ii)에서 Level 3–5의 DRAM 경사면도 FP32 지붕보다 높다")
    check(benchmark_of[0]["gflops"] > sim_roofline.level_ai(0, "ii") * BANDWIDTH_GBS,
          "본문: 모델 (i)·(ii)로 바꾸면 경사면 위에 놓이는 점이 있다")
    measured_ai = {k: sim_roofline.ai_measured_dram(SIZE, SIZE, SIZE, e["dram_bytes"]) for k, e in profile_of.items()}
    check(all(benchmark_of[k]["gflops"] <= sim_roofline.attainable_gflops(measured_ai[k], roof) for k in measured_ai),
          "본문: 모델 (iii)에서 지붕 위에 놓이는 점은 하나도 없다")
    check(all(FLOPS / profile_of[k]["dram_bytes"] > 3 * RIDGE for k in (3, 4, 5, 6, "CB")),
          "본문: Level 3–6과 cuBLAS는 꺾임점 한참 오른쪽")
    check(profile_of[6]["dram_bytes"] < profile_of[4]["dram_bytes"], "본문: Level 6의 DRAM 바이트가 더 적다")
    check(profile_of[3]["dram_bytes"] < profile_of[6]["dram_bytes"]
          and registry.KERNELS[REPRESENTATIVE[3]].tile == registry.KERNELS[REPRESENTATIVE[4]].tile,
          "본문: Level 4와 같은 블록 타일인 Level 3은 Level 6보다도 DRAM 바이트가 적다")


# ---------------------------------------------------------------------------------------------------------
# Change in instruction counts
f.set("instr_ratio_01", profile_of[0]["instructions"] / profile_of[1]["instructions"], ".1f")
f.set("instr_ratio_23", profile_of[2]["instructions"] / profile_of[3]["instructions"], ".1f")
f.set("instr_drop_45", 100 * (1 - profile_of[5]["instructions"] / profile_of[4]["instructions"]), ".0f")
f.set("instr_drop_46", 100 * (1 - profile_of[6]["instructions"] / profile_of[4]["instructions"]), ".0f")
f.set("instr_drop_56", 100 * (1 - profile_of[6]["instructions"] / profile_of[5]["instructions"]), ".0f")
# Level 5 → 6 under the profiler: time = instructions ÷ issue rate, so the time ratio is the product of the two
INSTR_RATIO_56 = profile_of[5]["instructions"] / profile_of[6]["instructions"]
ISSUE_RATIO_56 = profile_of[6]["issue_active_pct"] / profile_of[5]["issue_active_pct"]
TIME_RATIO_56 = profile_of[5]["duration_ms"] / profile_of[6]["duration_ms"]
f.set("instr_ratio_56", INSTR_RATIO_56, ".3f")
f.set("issue_ratio_56", ISSUE_RATIO_56, ".3f")
f.set("t56_x", TIME_RATIO_56, ".3f")


@f.claims
def level5_to_6_in_instructions_and_issue(check):
    check(abs(INSTR_RATIO_56 * ISSUE_RATIO_56 / TIME_RATIO_56 - 1) < 0.02,
          "본문: 시간의 비는 명령 수의 비와 발행 활성의 비의 곱과 거의 같다")
    check(1 < INSTR_RATIO_56 < ISSUE_RATIO_56 and INSTR_RATIO_56 ** 2 < INSTR_RATIO_56 * ISSUE_RATIO_56,
          "본문: 그 배율에서 명령이 준 몫은 절반이 못 된다(발행 활성의 몫이 더 크다)")
    check(stall_share_of[6]["Barrier"] < 1 < stall_share_of[5]["Barrier"],
          "본문: Barrier의 비중이 Level 5에서 Level 6으로 거의 사라졌다")

# Step-by-step change in time under the profiler (same run: profiles.json)
for old, new in [(0, 1), (1, 2), (0, 2), (2, 3), (3, 4)]:
    f.set(f"t{old}{new}", speed_phrase(profile_of[old]["duration_ms"], profile_of[new]["duration_ms"]))
f.set("t23_x", profile_of[2]["duration_ms"] / profile_of[3]["duration_ms"], ".1f")

# Level 5's 4-byte variant
f.set("a4_spr", async_4byte_profile["sectors_per_request"], ".0f")
f.set("a4_req_ratio", async_4byte_profile["global_ld_requests"] / profile_of[5]["global_ld_requests"], ".1f")
f.set("a4_sec_ratio", async_4byte_profile["global_ld_sectors"] / profile_of[5]["global_ld_sectors"], ".2f")
f.set("a4_issue", async_4byte_profile["issue_active_pct"], ".0f")
f.set("a4_regs", async_4byte_profile["registers"], ".0f")


# ---------------------------------------------------------------------------------------------------------
# Copies of one K tile and the sectors they touch, from the tile shapes (not measured): A always in 4-byte
# copies (a warp: 4 rows × 8 consecutive k = 4 sectors), B in copies of b_width floats along a row.
def copy_plan(bm, bn, bk, b_width):
    """(requests, sectors) of one K tile's copies."""
    a_req = bm * bk // 32
    b_req = bk * bn // (32 * b_width)
    sectors = a_req * 4 + b_req * (32 * b_width * 4 // 32)
    return a_req + b_req, sectors


def planned_requests(plan, m=SIZE, n=SIZE, k=SIZE):
    """Global load requests a cp.async kernel issues at m×n×k, from its copy plan."""
    bm, bn, bk, _ = plan
    blocks = (m // bm) * (n // bn)
    requests, _ = copy_plan(*plan)
    return requests * (k // bk) * blocks


def planned_sectors_per_request(plan):
    requests, sectors = copy_plan(*plan)
    return sectors / requests


L5_PLAN = (128, 128, LEVEL5["BK"], 4)
L5_4B_PLAN = (128, 128, LEVEL5["BK"], 1)
L6_PLAN = (LEVEL6["BM"], LEVEL6["BN"], LEVEL6["BK"], 4)
cublas_bk = int(re.search(r"tilesize\d+x\d+x(\d+)", cublas_profile["function"]).group(1))
CB_PLAN = (cublas_tile[0], cublas_tile[1], cublas_bk, 1)          # 4-byte copies: the name says aligna4
for name, plan in {"L5": L5_PLAN, "L5_4b": L5_4B_PLAN, "L6": L6_PLAN, "CB": CB_PLAN}.items():
    f.set(f"{name}_spr_plan", planned_sectors_per_request(plan), ".1f")
f.set("cb_bk", cublas_bk, "d")
f.set("cb_req_ratio_6", cublas_profile["global_ld_requests"] / profile_of[6]["global_ld_requests"], ".0f")
f.set("cb_sts_man", cublas_profile["smem_st_instructions"] / 1e4, ",.0f")
f.set("cb_req_man", cublas_profile["global_ld_requests"] / 1e4, ",.0f")
f.set("cb_req_share", 100 * cublas_profile["global_ld_requests"] / cublas_profile["instructions"], ".0f")

# Sectors per request the access pattern needs (from the layout; the chapter's table sets them beside the
# measurement): kernel → (the pattern in words, sectors per request)
SECTORS_NEEDED = {
    0: ("32비트: A 두 주소(브로드캐스트), B 연속 64 B", 2.0),
    1: ("128비트: A 두 행, B 연속 256 B × 4", (2 + 4 * 8) / 5),
    2: ("32비트: 타일 두 행 × 64 B", 4.0),
    3: ("128비트: A 16행 × 32 B, B 연속 512 B", 16.0),
    4: ("Level 3과 같음", 16.0),
    5: ("cp.async: A 4 B(4행 × 8 k, 4섹터), B 16 B(연속 512 B, 16섹터)", planned_sectors_per_request(L5_PLAN)),
    6: ("cp.async: Level 5와 같은 복사, B 타일이 두 배 넓음", planned_sectors_per_request(L6_PLAN)),
    "L5_4b": ("cp.async 4 B: A는 Level 5와 같고 B도 4 B(연속 128 B, 4섹터)", planned_sectors_per_request(L5_4B_PLAN)),
    "CB": (f"4 B 복사(이름의 aligna4), {cublas_tile[0]}×{cublas_tile[1]}×{cublas_bk} 타일",
           planned_sectors_per_request(CB_PLAN)),
}


@f.claims
def global_loads_against_the_copy_plans(check):
    measured = {lv: profile_of[lv]["sectors_per_request"] for lv in LEVELS} | {
        "L5_4b": async_4byte_profile["sectors_per_request"], "CB": cublas_profile["sectors_per_request"]}
    check(all(abs(measured[k] - SECTORS_NEEDED[k][1]) < 0.05 for k in SECTORS_NEEDED), "본문: 모든 줄에서 측정 = 계산")
    check(cublas_profile["global_ld_requests"] == planned_requests(CB_PLAN),
          "본문: cuBLAS의 요청 수 = 256×128×8 타일의 4 B 복사 수")
    check(cublas_profile["smem_st_instructions"] < 0.01 * cublas_profile["global_ld_requests"],
          "본문: cuBLAS의 STS는 글로벌 로드 요청의 1%도 안 된다(타일은 STS로 들어가지 않는다)")
    check(profile_of[6]["global_ld_requests"] == planned_requests(L6_PLAN), "본문: Level 6의 요청 수 = 복사 계획")
    check(profile_of[5]["global_ld_requests"] == planned_requests(L5_PLAN), "본문: cp.async 요청은 global_op_ld에 잡힌다")
    check(async_4byte_profile["global_ld_requests"] == planned_requests(L5_4B_PLAN), "본문: 4 B 변형의 요청 수 = 복사 계획")
    check(async_4byte_profile["global_ld_sectors"] == profile_of[5]["global_ld_sectors"],
          "본문: 4 B 변형과 16 B 변형의 섹터 수는 같다")
    for key, plan in ((5, L5_PLAN), (6, L6_PLAN), ("CB", CB_PLAN)):
        check(abs(profile_of[key]["sectors_per_request"] - planned_sectors_per_request(plan)) < 0.05,
              f"본문: 요청당 섹터가 복사 계획과 같다 ({fact_prefix(key)})")
    check(abs(async_4byte_profile["sectors_per_request"] - 4) < 0.05, "본문: 4 B 변형은 요청당 4섹터")


# The supplement that split Level 5's LDGSTS requests into .ca and .cg (profiles.json "supplements")
_ldgsts_run = next(sup for sup in profile_record.get("supplements", []) if "ldgsts_access_requests" in sup["keys"])
f.set("ldgsts_cmd", _ldgsts_run["command"])
f.set("ldgsts_date", _ldgsts_run["date"][:10])
f.set("l5_ld_req", profile_of[5]["global_ld_requests"], ",.0f")
f.set("l5_ca_req", profile_of[5]["ldgsts_access_requests"], ",.0f")
f.set("l5_cg_req", profile_of[5]["ldgsts_bypass_requests"], ",.0f")


@f.claims
def ldgsts_requests(check):
    for row in (profile_of[5], profile_of[6], async_4byte_profile, cublas_profile):
        check(row["ldgsts_requests"] == row["global_ld_requests"] and row["ldgsts_sectors"] == row["global_ld_sectors"],
              "본문: cp.async만 쓰는 커널에서 LDGSTS 요청·섹터 = global_op_ld의 요청·섹터(같은 요청이 두 번 잡힌다)")
    p5 = profile_of[5]
    check(p5["ldgsts_access_requests"] == p5["global_ld_requests"] - p5["ldgsts_bypass_requests"] > 0
          and p5["ldgsts_bypass_requests"] > 0, "본문: Level 5의 요청은 .ca(A)와 .cg(B)로 나뉜다")
    check(async_4byte_profile["ldgsts_bypass_requests"] == 0 and cublas_profile["ldgsts_bypass_requests"] == 0,
          "본문: 4 B 복사만 쓰는 4 B 변형과 cuBLAS는 .cg 요청이 없다")


# ---------------------------------------------------------------------------------------------------------
# Shared memory: wavefronts per instruction, with and without the bank conflicts' extra wavefronts
def wavefronts_per_instruction(e, op):
    """Shared-memory wavefronts per instruction of one kind (op: "ld" or "st"); None if there is none."""
    inst = e[f"smem_{op}_instructions"]
    return None if not inst else e[f"smem_{op}_wavefronts"] / inst


def conflict_free_wavefronts_per_instruction(e, op):
    """wavefronts_per_instruction less the wavefronts bank conflicts added."""
    inst = e[f"smem_{op}_instructions"]
    return None if not inst else (e[f"smem_{op}_wavefronts"] - e[f"smem_{op}_bank_conflicts"]) / inst


f.set("L3_ld_wpi", wavefronts_per_instruction(profile_of[3], "ld"), ".2f")
f.set("L3_ld_conf_pct", 100 * profile_of[3]["smem_ld_bank_conflicts"] / profile_of[3]["smem_ld_wavefronts"], ".2f")
f.set("L3_st_wpi", wavefronts_per_instruction(profile_of[3], "st"), ".2f")
f.set("L3_st_wpi_clean", conflict_free_wavefronts_per_instruction(profile_of[3], "st"), ".2f")
f.set("L2_ld_wpi", wavefronts_per_instruction(profile_of[2], "ld"), ".2f")
f.set("L2_st_wpi", wavefronts_per_instruction(profile_of[2], "st"), ".2f")
f.set("L6_ld_wpi", wavefronts_per_instruction(profile_of[6], "ld"), ".2f")
f.set("CB_ld_wpi", wavefronts_per_instruction(cublas_profile, "ld"), ".2f")
f.set("L5_ld_conf_pct", 100 * profile_of[5]["smem_ld_bank_conflicts"] / profile_of[5]["smem_ld_wavefronts"], ".3f")
# Level 3's stores per warp and K tile: four scalar STS of A (transposed, a 2-way conflict each: 4 extra
# wavefronts under the course's model) and one STS.128 of B; the record's conflicts per warp and tile
_l3_warp_tiles = warps_launched(profile_of[3]) * (SIZE // 8)
L3_ST_CONFLICTS_PER_TILE = profile_of[3]["smem_st_bank_conflicts"] / _l3_warp_tiles
L3_ST_CONFLICTS_MODEL = 4 * (2 - 1)
f.set("L3_st_conf_per_tile", L3_ST_CONFLICTS_PER_TILE, ".1f")
f.set("L3_st_conf_model", L3_ST_CONFLICTS_MODEL, "d")


@f.claims
def level3_store_conflicts(check):
    check(profile_of[3]["smem_st_instructions"] == 5 * _l3_warp_tiles,
          "본문(전제): Level 3은 타일마다 워프 하나가 스토어 명령 5개(A의 STS 넷, B의 STS.128 하나)를 낸다")
    check(0.7 < L3_ST_CONFLICTS_MODEL / L3_ST_CONFLICTS_PER_TILE < 1,
          "본문: A 전치 저장의 2-way 충돌이 기록된 스토어 충돌의 대부분이다(전부는 아니다)")


@f.absence("커널 전체를 더한 이 카운터로는 가를 수 없습니다")
def level3_store_conflicts_not_split(check):
    keys = set(profile_of[3])
    check({k for k in keys if "st" in k.split("_") and "conflict" in k} == {"smem_st_bank_conflicts"},
          "본문: 기록에는 스토어 충돌이 커널 전체의 합 하나뿐이다(명령별로 나눈 값이 없다)")


@f.claims
def shared_memory_wavefronts(check):
    check(profile_of[6]["smem_ld_bank_conflicts"] == 0 == cublas_profile["smem_ld_bank_conflicts"],
          "본문: Level 6과 cuBLAS는 로드 충돌 0")
    check(all(3 < wavefronts_per_instruction(e, "ld") < 3.5 for e in (profile_of[6], cublas_profile)),
          "본문: Level 6과 cuBLAS는 명령당 세 개 남짓")


# ---------------------------------------------------------------------------------------------------------
# Registers and occupancy (the simulator's model, sm_90)
occupancy_of = {key: sim_roofline.occupancy(int(e["block_size"]), int(e["registers"]), shared_memory_bytes(e), "sm_90")
                for key, e in profile_of.items()}
f.set("L4_regs_raw", int(profile_of[4]["registers"]) * 32, ",d")
f.set("L4_regs_per_warp", occupancy_of[4].registers_per_warp, ",d")
f.set("L4_warps_fit", 65536 // occupancy_of[4].registers_per_warp, "d")
f.set("L4_blocks", occupancy_of[4].blocks_per_sm, "d")
f.set("L1_regs_per_warp", occupancy_of[1].registers_per_warp, ",d")
f.set("L1_blocks", occupancy_of[1].blocks_per_sm, "d")
f.set("L6_regs_per_warp", occupancy_of[6].registers_per_warp, ",d")
f.set("CB_regs_per_warp", occupancy_of["CB"].registers_per_warp, ",d")
f.set("L6_smem_blocks", occupancy_of[6].limits["smem"], "d")
f.set("occ_L6", occupancy_of[6].occupancy_pct, ".1f")
f.set("occ_L4", occupancy_of[4].occupancy_pct, ".0f")
f.set("occ_L1", occupancy_of[1].occupancy_pct, ".0f")
f.set("L4_resident_warps", occupancy_of[4].blocks_per_sm * int(profile_of[4]["block_size"]) // 32, "d")
f.set("speed_23", benchmark_of[2]["median_ms"] / benchmark_of[3]["median_ms"], ".1f")
f.set("dram_ratio_21", profile_of[2]["dram_bytes"] / profile_of[1]["dram_bytes"], ".0f")


@f.claims
def ilp_does_not_fill_issue(check):
    p = profile_of
    check(p[3]["theoretical_occupancy_pct"] == p[4]["theoretical_occupancy_pct"] == 25.0
          and p[3]["issue_active_pct"] < 70 < 80 < p[4]["issue_active_pct"],
          "본문: 같은 25%에서 Level 3의 발행 활성은 70% 미만, Level 4는 80% 초과")
    instr_ratio, issue_ratio = p[2]["instructions"] / p[3]["instructions"], p[3]["issue_active_pct"] / p[2]["issue_active_pct"]
    check(instr_ratio > 3 and instr_ratio > 2 * issue_ratio
          and abs(instr_ratio * issue_ratio / (p[2]["duration_ms"] / p[3]["duration_ms"]) - 1) < 0.1,
          "본문: Level 3이 Level 2보다 빠른 주된 까닭은 워프 명령이 준 것(발행 활성의 몫보다 크다)")
    # Registers that decide 25% at 256 threads (kernels.devices.occupancy on the recorded sm_90 class)
    h100 = PROFILES["H100"]
    blocks = {r: occupancy_rule(h100, 256, r, 0)["blocks_per_sm"] for r in (80, 81, 96, 104, 127, 128, 129)}
    check(blocks[80] > 2 and all(blocks[r] == 2 for r in (81, 96, 104, 127, 128)) and blocks[129] == 1,
          "본문: 256스레드 블록에서 스레드당 81–128개의 레지스터는 모두 SM당 2블록, 25%")


@f.claims
def occupancy(check):
    check(occupancy_of[6].occupancy_pct == occupancy_of["CB"].occupancy_pct == 12.5,
          "본문: Level 6과 cuBLAS는 이론 점유율 12.5%")
    check(occupancy_of[6].limiting == ("registers", "smem") and occupancy_of["CB"].limiting == ("registers",),
          "본문: Level 6은 레지스터와 공유 메모리, cuBLAS는 레지스터가 제한")
    check(all(occupancy_of[k].occupancy_pct == profile_of[k]["theoretical_occupancy_pct"] for k in LEVELS_AND_CUBLAS),
          "본문: 점유율 모델이 ncu의 이론값과 같다")
    check(occupancy_of[4].blocks_per_sm * int(profile_of[4]["block_size"]) // 32 / MAX_WARPS * 100
          == occupancy_of[4].occupancy_pct == 25.0, "본문: Level 4는 SM당 2블록, 16워프, 64워프의 25%")
    check(occupancy_of[1].occupancy_pct == profile_of[1]["theoretical_occupancy_pct"],
          "본문: Level 1의 이론 점유율(SM당 블록 수에서 계산)이 ncu의 값과 같다")


f.set("stall_ratio_34", stall_total_of[3] / stall_total_of[4], ".2f")
f.set("t34_x", profile_of[3]["duration_ms"] / profile_of[4]["duration_ms"], ".2f")
_pct_cublas_3_to_5 = [benchmark_of[lv]["pct_cublas"] for lv in (3, 4, 5)]
f.set("pctc_min", min(_pct_cublas_3_to_5), ".0f")
f.set("pctc_max", max(_pct_cublas_3_to_5), ".0f")
_issue_active_levels_3_to_5 = [profile_of[lv]["issue_active_pct"] for lv in (3, 4, 5)]
f.set("issue_min_35", min(_issue_active_levels_3_to_5), ".0f")
f.set("issue_max_35", max(_issue_active_levels_3_to_5), ".0f")

# FMA pipe ≈ issue-active × FFMA share: an FFMA takes one issue slot, and one warp FFMA per cycle fills a
# scheduler's 32 FP32 lanes. That holds on sm_86/89/90 (the record's H100 among them). On sm_75 and sm_80 a
# scheduler has 16 lanes: a warp FFMA holds the pipe two cycles and another instruction may issue in between.
for key in (3, 4, 5, 6, "CB"):
    f.set(f"{fact_prefix(key)}_fma_est", profile_of[key]["issue_active_pct"] * ffma_share(profile_of[key]) / 100, ".0f")
LANES_PER_SCHEDULER = {d.arch: fp32_lanes(d.cc) // SMSP_PER_SM for d in PROFILES.values()}
f.set("lanes_smsp", bench_provenance["fp32_lanes_per_sm"] // SMSP_PER_SM, "d")
f.set("lanes_smsp_narrow", min(LANES_PER_SCHEDULER.values()), "d")


@f.claims
def lanes_per_scheduler(check):
    check(profile_record["compute_capability"] == bench_provenance["compute_capability"] == "9.0"
          and bench_provenance["fp32_lanes_per_sm"] // SMSP_PER_SM == LANES_PER_SCHEDULER["sm_90"] == 32,
          "본문: 기록한 H100(sm_90)은 스케줄러마다 FP32 레인 32개")
    check({a for a, n in LANES_PER_SCHEDULER.items() if n == 32} == {"sm_86", "sm_89", "sm_90"}
          and {a for a, n in LANES_PER_SCHEDULER.items() if n == 16} == {"sm_75", "sm_80"}
          and {d.name for d in PROFILES.values() if LANES_PER_SCHEDULER[d.arch] == 16} == {"T4", "A100-40GB", "A100-80GB"},
          "본문: 레인 32개는 sm_86·89·90(RTX 30xx·40xx, A10G, L4, H100·H200), 16개는 T4(sm_75)와 A100(sm_80)")
    by_arch = {a: {d.name for d in PROFILES.values() if d.arch == a} for a in ("sm_86", "sm_89", "sm_90")}
    check(by_arch == {"sm_86": {"RTX3090", "A10G"}, "sm_89": {"L4", "RTX4090"}, "sm_90": {"H100", "H200"}},
          "본문: sm_86은 RTX 30xx와 A10G, sm_89는 RTX 40xx와 L4, sm_90은 H100·H200")


@f.absence("이 표가 어떻게 바뀌는지는 재지 않았습니다")
def no_profile_on_sixteen_lanes(check):
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(DATA_DIR.glob("*.json"))]
    cc = {r["compute_capability"] for r in records if isinstance(r, dict) and "compute_capability" in r}
    check(cc == {"9.0"}, f"본문: book/data의 모든 기록은 compute capability 9.0에서 잰 것이다 ({cc})")


@f.claims
def level6_and_cublas(check):
    """How Level 6 and cuBLAS's kernel reach the same FMA pipe use (the chapter's Level 4–6 and cuBLAS table)."""
    p4, p6, cb = profile_of[4], profile_of[6], cublas_profile
    check(ffma_share(p6) > ffma_share(cb) > ffma_share(p4), "본문: FFMA 비중 Level 6 > cuBLAS > Level 4")
    check(cb["issue_active_pct"] > p6["issue_active_pct"] > p4["issue_active_pct"],
          "본문: 발행 활성 cuBLAS > Level 6 > Level 4")
    check(abs(p6["fma_pipe_pct"] - cb["fma_pipe_pct"]) < 2, "본문: Level 6과 cuBLAS의 FMA 파이프는 같다")
    check(cb["fma_pipe_pct"] > p4["fma_pipe_pct"] + 4, "본문: cuBLAS의 FMA 파이프가 Level 4보다 높다")
    check(p6["instructions"] < min(p4["instructions"], cb["instructions"]), "본문: Level 6의 명령이 가장 적다")
    for key in (3, 4, 5, 6, "CB"):
        e = profile_of[key]
        check(abs(e["issue_active_pct"] * ffma_share(e) / 100 - e["fma_pipe_pct"]) < 3,
              f"본문: FMA 파이프 ≈ 발행 활성 × FFMA 비중 ({key})")
    check(abs(p6["duration_ms"] / cb["duration_ms"] - 1) < 0.02, "본문: 프로파일러 아래에서 Level 6 ≈ cuBLAS")
    check(cb["ffma_instructions"] == SIZE ** 3 + SIZE ** 2, "본문: cuBLAS의 FFMA는 곱셈-덧셈 전부와 에필로그(4096³ + 4096²)")
    check(p4["issue_active_pct"] < 88 < cb["issue_active_pct"], "본문: cuBLAS의 발행 활성(약 90%)이 Level 4보다 높다")
    # Level 4 → cuBLAS raises issue-active much more than FFMA share; Level 4 → Level 6 the reverse
    to_cublas = (cb["issue_active_pct"] - p4["issue_active_pct"], ffma_share(cb) - ffma_share(p4))
    to_level6 = (p6["issue_active_pct"] - p4["issue_active_pct"], ffma_share(p6) - ffma_share(p4))
    check(to_cublas[0] > 2 * to_cublas[1] > 0 and to_level6[1] > 2 * to_level6[0] > 0,
          "본문: cuBLAS는 주로 발행 활성, Level 6은 주로 FFMA 비중")
    check(ffma_share(p6) == max(ffma_share(profile_of[k]) for k in (4, 5, 6, "CB")), "본문: Level 6의 FFMA 비중이 표에서 가장 높다")
    check(LEVEL6["TM"] * LEVEL6["TN"] == 2 * 64, "본문: Level 6의 누산기는 Level 3–5(64개)의 두 배")
    level5_file = Path(registry.__file__).parent / registry.KERNELS[REPRESENTATIVE[5]].file
    level5_source = level5_file.read_text(encoding="utf-8")
    level5_min_blocks = re.search(r"#define L5_MIN_BLOCKS (\d+)", level5_source)
    check(LEVEL6["MIN_BLOCKS"] == 1 and level5_min_blocks and level5_min_blocks.group(1) == "2",
          "본문: __launch_bounds__(256, 1)과 (256, 2)")


# Had Level 6 staged its next K tile in registers as Level 4 does, each thread would hold BK × (BM + BN) ÷ threads
# more floats: the registers cp.async leaves free for the accumulators and the deep K tile
L6_STAGING_REGISTERS = LEVEL6["BK"] * (LEVEL6["BM"] + LEVEL6["BN"]) // int(profile_of[6]["block_size"])
f.set("L6_bm", LEVEL6["BM"], "d")
f.set("L6_bn", LEVEL6["BN"], "d")
f.set("L6_staging_regs", L6_STAGING_REGISTERS, "d")
f.set("max_regs", PROFILES["H100"].max_regs_per_thread, "d")


@f.claims
def level6_could_not_stage_in_registers(check):
    check(LEVEL6["BK"] * (LEVEL6["BM"] + LEVEL6["BN"]) % int(profile_of[6]["block_size"]) == 0
          and profile_of[6]["registers"] + L6_STAGING_REGISTERS > PROFILES["H100"].max_regs_per_thread,
          "본문: 레지스터로 받아 두었다면 Level 6의 스레드는 레지스터 한도를 넘었을 것이다")
    check(LEVEL5["BK"] == LEVEL6["BK"], "본문: Level 6은 Level 5의 링(같은 BK)을 물려받는다")


# ---------------------------------------------------------------------------------------------------------
# Level 5 ring tuning (async_tuning.json): each configuration's speed-up over Level 4, timed in alternation.
# One point of the figure is one row of the record: a row is named by its kernel, size and the three ring
# defines, and no other define (a micro-kernel setting) varies between rows, so nothing is merged or averaged.
RING_DEFINES = {"L5_BK": "BK", "L5_STAGES": "STAGES", "L5_EARLY_BARRIER": "EARLY_BARRIER"}
_ring_rows = [r for r in tuning_record["rows"] if r["kernel"].startswith("sgemm_async_copy")]


def ring_config(row) -> tuple:
    """(kernel, BK, STAGES, EARLY_BARRIER): what names one point of the tuning figure."""
    return row["kernel"], row["BK"], row["STAGES"], row["EARLY_BARRIER"]


def _ring_speedups(rows) -> dict:
    speedups: dict = {}
    for row in rows:
        speedups.setdefault(ring_config(row), {})[row["M"]] = row["vs_level4"]
    return speedups


ring_speedups = _ring_speedups(_ring_rows)       # ring_config → {size: Level 4's time ÷ this configuration's}
_level5_ring = {k: v for k, v in ring_speedups.items() if k[0] == REPRESENTATIVE[5]}
_chosen_ring = (REPRESENTATIVE[5], tuning_record["chosen"]["BK"], tuning_record["chosen"]["STAGES"],
                tuning_record["chosen"]["EARLY_BARRIER"])
_best_gain = max(min(v.values()) for v in _level5_ring.values())      # the rule: the worse of the two sizes
_worst_gain = min(min(v.values()) for v in _level5_ring.values())
f.set("tun_date", str(tuning_record["date"])[:10])
f.set("tun_n", len(_level5_ring), "d")
f.set("tun_best_pct", 100 * abs(_best_gain - 1), ".1f")
f.set("tun_worst_pct", 100 * (1 - _worst_gain), ".0f")
f.set("tun_margin", 100 * tuning_record["keep_margin"], ".0f")
f.set("tun_chosen", f"BK = {_chosen_ring[1]}, 스테이지 {_chosen_ring[2]}개")


@f.claims
def ring_tuning(check):
    seen = set()
    for row in _ring_rows:
        check(set(row["defines"]) == set(RING_DEFINES)
              and all(row["defines"][d] == row[k] for d, k in RING_DEFINES.items()),
              f"async_tuning.json: 링의 세 매크로 말고 다른 설정이 바뀐 행 {row['defines']}")
        point = (ring_config(row), row["M"])
        check(point not in seen, f"async_tuning.json: {point[0]}, {row['M']}³의 행이 둘 이상이다")
        seen.add(point)
    check(abs(_best_gain - 1) < tuning_record["keep_margin"],
          "본문: 최선의 링 설정도 Level 4와의 차이가 조정 여유(흔들림) 안이다")
    check(_chosen_ring in _level5_ring and min(_level5_ring[_chosen_ring].values()) == _best_gain,
          "본문: 배포한 설정이 두 크기 중 나쁜 쪽 기준으로 최선")
    check(_worst_gain < 0.96, "본문: 가장 나쁜 설정은 Level 4보다 몇 % 느렸다")


# ---------------------------------------------------------------------------------------------------------
# cuBLAS's kernel (profiles.json "reference"): what its name says
f.set("cb_function", cublas_profile["function"])
f.set("cb_ffma_eok", cublas_profile["ffma_instructions"] / 1e8, ",.0f")
f.set("cb_stages", re.search(r"stage(\d+)", cublas_profile["function"]).group(1))
_cublas_warps = re.search(r"warpsize(\d+)x(\d+)", cublas_profile["function"])
CUBLAS_WARP_GRID = (int(_cublas_warps.group(1)), int(_cublas_warps.group(2)))     # warps along M × along N
f.set("cb_warps", f"{CUBLAS_WARP_GRID[0]}×{CUBLAS_WARP_GRID[1]}")
f.set("cb_warp_tile", f"{cublas_tile[0] // CUBLAS_WARP_GRID[0]}×{cublas_tile[1] // CUBLAS_WARP_GRID[1]}")
f.set("cb_block", cublas_profile["block_size"], ".0f")
f.set("cb_grid", cublas_profile["grid_size"], ".0f")
f.set("cb_nwarps", int(cublas_profile["block_size"]) // 32, "d")


@f.claims
def cublas_kernel_name(check):
    check(int(cublas_profile["block_size"]) // 32 == CUBLAS_WARP_GRID[0] * CUBLAS_WARP_GRID[1],
          "본문: cuBLAS의 워프 배치 = 블록의 워프 수")
    warp_tile = (cublas_tile[0] // CUBLAS_WARP_GRID[0], cublas_tile[1] // CUBLAS_WARP_GRID[1])
    check(warp_tile == (LEVEL6["WM"], LEVEL6["WN"]),
          "본문: cuBLAS와 Level 6의 워프 타일은 같다")


# ---------------------------------------------------------------------------------------------------------
# The SOL map's two fastest points, to one decimal (the text says which side of the 60% line they are on)
f.set("L6_mem_pct_1", profile_of[6]["mem_pct"], ".1f")
f.set("CB_mem_pct_1", profile_of["CB"]["mem_pct"], ".1f")


@f.claims
def fastest_two_below_the_line(check):
    check(profile_of[6]["mem_pct"] < 60 and profile_of["CB"]["mem_pct"] < 60,
          "본문: Level 6과 cuBLAS의 메모리 처리량은 60% 기준선 아래")
    check(profile_of["CB"]["mem_pct"] > 58, "본문: cuBLAS는 기준선 바로 아래(2%p 안)")


@f.claims
def launch_skip_is_not_about_caches(check):
    check("--cache-control" not in profile_record["ncu_options"],
          "본문: 기록의 옵션은 캐시 제어를 바꾸지 않았다(기본값 all: 재는 실행마다 캐시를 비운다)")


def _records_thread_tile(profile: dict) -> bool:
    """Whether a profile entry records a thread tile (a key like thread_tile, tm/tn)."""
    return any("thread" in key or key in ("TM", "TN", "tm", "tn") for key in profile)


@f.absence("스레드 타일은 기록에 없어")
def cublas_thread_tile_not_recorded(check):
    check(not _records_thread_tile(cublas_profile), "본문: cuBLAS 프로파일(reference)에 스레드 타일이 없다")


@f.absence("cuBLAS의 스레드 타일은 기록에 없으니")
def cublas_thread_tile_not_recorded_roofline(check):
    check(not _records_thread_tile(cublas_profile), "본문: 루프라인의 모델 (i)에 쓸 cuBLAS의 스레드 타일이 기록에 없다")


@f.absence("이 기록으로는 그쪽의 충돌을 잴 수 없습니다")
def cp_async_store_conflicts_not_in_the_record(check):
    """The shared-memory writes of cp.async: op_st counts none of them, and no key of the record counts them."""
    keys = {k for e in profile_record["kernels"] + profile_record["reference"] for k in e}
    check(all(profile_of[lv]["smem_st_wavefronts"] == 0 == profile_of[lv]["smem_st_bank_conflicts"] for lv in (5, 6)),
          "본문: Level 5·6의 공유 메모리 스토어 카운터(op_st)는 0이다(cp.async의 쓰기는 잡히지 않는다)")
    check(not any("ldgsts" in k and ("conflict" in k or "wavefront" in k) for k in keys),
          "본문: 기록에 cp.async가 공유 메모리에 쓰는 쪽의 웨이브프론트·충돌 카운터가 없다")


