"""Facts of module 9 (m09_async_copy.md): the final-checkpoint rule, the recorded benchmark, Nsight
Compute and stage/BK sweep numbers, the SASS counts of Levels 3-5, and the pipeline model's replay of
the source material's loop."""
from __future__ import annotations

import json

from course.facts import Facts
from course.page import recorded
from course.settings import load_settings
from kernels import sass
from kernels.record import DATA_DIR
from sims import pipeline

f = Facts("m09")

REC = recorded()
BPROV = REC.provenance
PROF = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
TUNE = json.loads((DATA_DIR / "async_tuning.json").read_text(encoding="utf-8"))
N_MAIN = 4096
L3, L4, L5S, L5V = ("sgemm_register_blocking", "sgemm_double_buffer", "sgemm_async_copy",
                    "sgemm_async_copy_vec")


def g(key, value):
    """One value for the text (myst-nb glue, output hidden)."""
    f[key] = value


def bench(kernel, n=N_MAIN):
    row = REC.at(kernel, n)
    if row is None:
        raise KeyError(f"benchmarks.json에 {kernel} ({n}³) 행이 없습니다")
    return row


def prof(kernel):
    for row in PROF["kernels"]:
        if row["kernel"] == kernel:
            return row
    raise KeyError(f"profiles.json에 {kernel} 항목이 없습니다")


def compare_phrase(ms_new, ms_old, old_name):
    """Phrase comparing two median times (within 3% counts as 'about the same')."""
    if abs(ms_old / ms_new - 1) < 0.03:
        return f"{old_name}와 사실상 같은 속도입니다"
    if ms_new < ms_old:
        return f"{old_name}보다 {(ms_old / ms_new - 1) * 100:.0f}% 빠릅니다"
    return f"{old_name}보다 시간이 {(ms_new / ms_old - 1) * 100:.0f}% 더 걸립니다"


# --- Final checkpoint: the pass mark comes from the course settings (instructors may change it) -----
SETTINGS = load_settings()
CP = SETTINGS.checkpoint(9)
g("cp_rule", CP.rule_text)
g("cp_pass", str(CP.pass_count))
g("cp_total", str(CP.question_count))
UNLOCKS = sorted(m for m, req in SETTINGS.gates.items() if req == 9)
g("cp_unlocks", ", ".join(str(m) for m in UNLOCKS) if UNLOCKS else "10")

# --- Benchmarks (benchmarks.json) -------------------------------------------------------------------
B = {k: bench(k) for k in (L3, L4, L5S, L5V, "cublas")}
g("device", BPROV["device"])
g("b_date", str(BPROV["date"])[:10])
g("tf32", BPROV.get("tf32", "off"))
g("cublas_ms", f"{B['cublas']['median_ms']:.2f}")
for key, k in (("l3", L3), ("l4", L4), ("l5s", L5S), ("l5v", L5V)):
    g(f"pct_{key}", f"{B[k]['pct_cublas']:.1f}")
    g(f"ms_{key}", f"{B[k]['median_ms']:.2f}")
g("l5v_vs_l4", compare_phrase(B[L5V]["median_ms"], B[L4]["median_ms"], "Level 4"))
g("l5s_vs_l4", compare_phrase(B[L5S]["median_ms"], B[L4]["median_ms"], "Level 4"))
_slower = [k for k in (L5S, L5V) if B[k]["median_ms"] > B[L4]["median_ms"] * 1.03]
g("intro_result", "결론부터 말하면, 기록된 H100 측정에서 Level 5의 두 변형은 Level 4보다 빠르지 않습니다"
  if len(_slower) == 2 else "결론부터 말하면, 기록된 H100 측정에서 Level 5가 Level 4보다 늘 빠르지는 않습니다"
  if _slower else "기록된 H100 측정에서 Level 5는 Level 4보다 빠릅니다. 그러나 이야기는 그보다 조금 복잡합니다")
g("l5v_vs_l5s", compare_phrase(B[L5V]["median_ms"], B[L5S]["median_ms"], "4바이트 변형"))

# --- Nsight Compute (profiles.json) -----------------------------------------------------------------
P = {k: prof(k) for k in (L4, L5S, L5V)}
g("p_date", str(PROF["date"])[:10])
for key, k in (("l4", L4), ("l5s", L5S), ("l5v", L5V)):
    st = P[k]["stalls"]
    g(f"ls_{key}", f"{st['Long Scoreboard']:.2f}")
    g(f"bar_{key}", f"{st['Barrier']:.2f}")
    g(f"short_{key}", f"{st['Short Scoreboard']:.2f}")
    g(f"notsel_{key}", f"{st['Not Selected']:.2f}")
    g(f"issue_{key}", f"{P[k]['issue_active_pct']:.0f}")
    g(f"sm_{key}", f"{P[k]['sm_pct']:.0f}")
    g(f"mem_{key}", f"{P[k]['mem_pct']:.0f}")
    g(f"occ_{key}", f"{P[k]['theoretical_occupancy_pct']:.0f}")
    g(f"preg_{key}", f"{P[k]['registers']:.0f}")
g("req_ratio", f"{P[L5S]['global_ld_requests'] / P[L5V]['global_ld_requests']:.0f}")
g("sect_ratio", f"{P[L5S]['global_ld_sectors'] / P[L5V]['global_ld_sectors']:.0f}")
g("spr_l5", f"{P[L5V]['sectors_per_request']:.0f}")
g("dram_ratio_s_v", f"{P[L5S]['dram_bytes'] / P[L5V]['dram_bytes']:.2f}")
g("sts_wf_l4", f"{P[L4]['smem_st_wavefronts'] / 1e6:.0f}")
g("sts_wf_l5v", f"{P[L5V]['smem_st_wavefronts']:.0f}")
instr = P[L5V]["instructions"] / P[L4]["instructions"] - 1
g("instr_l5v_vs_l4", f"{abs(instr) * 100:.0f}% {'더 많습니다' if instr > 0 else '더 적습니다'}")
iss = sorted(P[k]["issue_active_pct"] for k in (L4, L5V))
g("issue_range", f"{iss[0]:.0f}–{iss[1]:.0f}" if round(iss[0]) != round(iss[1]) else f"{iss[0]:.0f}")
_ls4, _ls5 = P[L4]["stalls"]["Long Scoreboard"], P[L5V]["stalls"]["Long Scoreboard"]
g("ls_phrase", f"Level 4가 {_ls4:.2f}, 16바이트 변형이 {_ls5:.2f}로 둘 다 거의 0입니다" if max(_ls4, _ls5) < 0.2
  else f"Level 4의 {_ls4:.2f}에서 16바이트 변형의 {_ls5:.2f}로 바뀌었습니다")
_st4, _st5 = P[L4]["stalls"], P[L5V]["stalls"]
for key, reason in (("disp", "Dispatch Stall"),):
    g(f"{key}_l4", f"{_st4[reason]:.2f}")
    g(f"{key}_l5v", f"{_st5[reason]:.2f}")
g("issue_cmp", "낮습니다" if P[L5V]["issue_active_pct"] < P[L4]["issue_active_pct"] else "높습니다")
_pred = (P[L5V]["instructions"] / P[L4]["instructions"]) * (P[L4]["issue_active_pct"] / P[L5V]["issue_active_pct"])
g("time_pred", f"{_pred:.2f}")
g("time_meas", f"{P[L5V]['duration_ms'] / P[L4]['duration_ms']:.2f}")
PROFILE_STORY_HOLDS = (max(_ls4, _ls5) < 0.2 and P[L5V]["instructions"] > P[L4]["instructions"]
                       and P[L5V]["issue_active_pct"] < P[L4]["issue_active_pct"]
                       and _st5["Dispatch Stall"] > _st4["Dispatch Stall"] and _st5["Not Selected"] > _st4["Not Selected"])

# --- SASS and resources (compiled for sm_90, no GPU needed) -----------------------------------------
S90 = {k: sass.summarize(k, "sm_90") for k in (L3, L4, L5S, L5V)}
for key, k in (("l3", L3), ("l4", L4), ("l5s", L5S), ("l5v", L5V)):
    g(f"reg_{key}", str(S90[k].registers))
g("ldgsts_l5s", str(S90[L5S].ldgsts))
g("ldgsts_l5v", str(S90[L5V].ldgsts))
g("smem_reported", f"{S90[L5V].smem_reported:,}")
g("smem_reserved", f"{S90[L5V].smem_reported - S90[L5V].smem_static:,}")
_ff4, _ff5 = S90[L4].ffma, S90[L5V].ffma
g("l4_static_note",
  "Level 4의 FFMA와 LDS.128이 더 많은 것은 마지막 타일의 계산을 루프 밖에 한 벌 더 떼어 둔(peeling) 정적 "
  "복사본 때문이고, 타일마다 실행되는 횟수는 같습니다" if _ff4 > _ff5 else
  "FFMA와 LDS.128의 정적 개수는 루프를 어떻게 펼치고 떼어 두었는지에 따라 달라질 뿐, 타일마다 실행되는 횟수는 같습니다")

# --- Stage count and BK tuning (async_tuning.json) --------------------------------------------------
def tune_rows(n=N_MAIN, kc=4):
    return [r for r in TUNE["rows"] if r["M"] == n and r["defines"].get("L5_KC") == kc]


def tune(kernel, bk, stages, n=N_MAIN, kc=4):
    for r in tune_rows(n, kc):
        if r["kernel"] == kernel and r["BK"] == bk and r["STAGES"] == stages:
            return r
    raise KeyError((kernel, bk, stages, n, kc))


def best_stages(kernel, bk=8, n=N_MAIN, kc=4):
    rows = [r for r in tune_rows(n, kc) if r["kernel"] == kernel and r["BK"] == bk]
    return min(rows, key=lambda r: r["median_ms"])["STAGES"]


g("t_date", str(TUNE["date"])[:10])
for key, k in (("v", L5V), ("s", L5S)):
    for st in (2, 3, 4):
        g(f"tp_{key}8_{st}", f"{tune(k, 8, st)['pct_cublas']:.1f}")
    for st in (2, 3):
        g(f"tp_{key}16_{st}", f"{tune(k, 16, st)['pct_cublas']:.1f}")
        g(f"tl_{key}16_{st}", str(tune(k, 16, st)["local_bytes"]))
BEST_V, BEST_S = best_stages(L5V), best_stages(L5S)
g("best_v", str(BEST_V))
_best_v_pct = max(r["pct_cublas"] for r in tune_rows() if r["kernel"] == L5V)
g("best_vs_l4", "16바이트 변형의 가장 좋은 구성도 Level 4(다른 실행인 벤치마크 기록에서 {:.1f}%)에는 미치지 "
  "못했습니다".format(B[L4]["pct_cublas"]) if _best_v_pct < B[L4]["pct_cublas"] else
  "16바이트 변형의 가장 좋은 구성은 Level 4(다른 실행인 벤치마크 기록에서 {:.1f}%)보다 높습니다".format(B[L4]["pct_cublas"]))
g("best_s", str(BEST_S))
g("best_v_sentence",
  f"16바이트 변형은 강좌의 기본값인 3단이 아니라 {BEST_V}단일 때 가장 빨랐습니다" if BEST_V != 3
  else "16바이트 변형은 강좌의 기본값인 3단일 때 가장 빨랐습니다")
g("best_s_sentence",
  f"4바이트 변형은 {BEST_S}단일 때 가장 빨랐습니다" + (" — 기본값과 같습니다" if BEST_S == 3 else ""))
same_kc2 = best_stages(L5V, kc=2) == BEST_V and best_stages(L5S, kc=2) == BEST_S
g("kc2_phrase", "같은 결론을 냅니다" if same_kc2 else "가장 빠른 단계 수가 다르게 나옵니다. 표에서 직접 비교해 보세요")
spilled = sorted({(r["kernel"], r["BK"], r["STAGES"]) for r in TUNE["rows"] if r["local_bytes"] > 0})
g("spill_list", ", ".join(f"{'16바이트' if k == L5V else '4바이트'} BK={bk} S={st}" for k, bk, st in spilled)
  or "없음")
regs_all = [r["registers"] for r in TUNE["rows"]]
g("tune_regs", f"{min(regs_all)}–{max(regs_all)}")

# --- K values of the tail tests: read from tests/test_kernels_gpu.py --------------------------------
import re
from pathlib import Path

import kernels as _kernels_pkg

_test_file = Path(_kernels_pkg.__file__).resolve().parent.parent / "tests" / "test_kernels_gpu.py"
_m = (re.search(r'parametrize\("K",\s*\[([\d,\s]+)\]\)\s*\ndef test_pipeline_tails', _test_file.read_text("utf-8"))
      if _test_file.exists() else None)
TAIL_KS = [int(x) for x in _m.group(1).split(",")] if _m else [4, 8, 12, 16, 20, 24, 32, 40]
g("tail_ks", ", ".join(map(str, TAIL_KS)))
_tiles = sorted({-(-k // 8) for k in TAIL_KS})
g("tail_tiles", f"{_tiles[0]}–{_tiles[-1]}")
_gain = tune(L5S, 16, 3)["pct_cublas"] - tune(L5S, 8, 3)["pct_cublas"]
g("bk16_gain_s", f"{_gain:.1f}%포인트 " + ("높습니다" if _gain >= 0 else "낮습니다"))
_v16 = max(tune(L5V, 16, st)["pct_cublas"] for st in (2, 3))
_v8 = max(tune(L5V, 8, st)["pct_cublas"] for st in (2, 3, 4))
g("bk16_vs_best_v", "BK = 8의 가장 좋은 구성을 넘지 못했습니다" if _v16 < _v8 else "BK = 8의 가장 좋은 구성보다 높습니다")
cub = [r["cublas_ms"] for r in tune_rows()]
g("cublas_spread", f"{(max(cub) / min(cub) - 1) * 100:.0f}")

# --- The source material's loop replayed by the pipeline model (sims.pipeline) ----------------------
SEED = pipeline.async_pipeline_trace(num_stages=3, num_tiles=8, empty_commits=False, mode="seed")
SEED_MAIN = {s.index: s for s in SEED.steps if s.phase == "main"}
k5 = SEED_MAIN[5]
g("k5_compute", str(k5.compute_buffer))
g("k5_tile", str(k5.prefetch_tile))
g("k5_dest", str(k5.prefetch_buffer))
g("k5_guarantee", k5.guarantee_text.split(" → ")[-1])
g("k5_pending", ", ".join(gr.label for gr in k5.pending_after_wait))
g("seed_hazard_kts", ", ".join(map(str, SEED.hazard_iterations)))
k6 = SEED_MAIN[6]
g("k6_committed", str(len(k6.committed)))
g("k6_guarantee", k6.guarantee_text.split(" → ")[-1])
