"""Facts of module 11 (m11_beyond_cublas.md), the core: Level 6 (warp tiling) against Levels 4 and 5 and cuBLAS.

Numbers come from book/data: benchmarks.json (every kernel timed in alternation with cuBLAS; "pairs": two
levels timed in direct alternation; "awkward_rows": shapes the launcher stages), level6_tuning.json (the
18 configurations of tools/tune_level6.py), profiles.json (Nsight Compute at 4096³, with cuBLAS's own kernel
as "reference") and sass_facts.json (the sm_90 SASS counts, through course.facts.recorded_sass: nothing is
compiled at import). The warp-tile and wave models are sims.warp_tiling; the roofline's ceilings are the
recorded device's (sims.roofline, read only).

The chapter imports the records and the few model results its tables show by name (benchmark_record,
profile_of, tuning_table_rows, waves_at_size, ...). Every directional sentence of the chapter, and every
direction and round number its quiz bank (course/quiz/banks/m11.yaml) states, is a claim declared next to the
values it is about ("본문: ...", "퀴즈 ..."), so a re-recording that contradicts the text stops the build.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from course.facts import Facts, quiz_text
from course.facts.recorded_sass import sass
from course.page import recorded
from course.settings import load_settings
from kernels import registry
from kernels.device import fp32_lanes
from kernels.devices import PROFILES
from kernels.record import DATA_DIR
from sims import roofline
from sims import warp_tiling as wt

f = Facts("m11")
f.set("grid_y_max", registry.GRID_YZ_MAX, ",")   # blocks along grid y (and z)

LEVEL4_KERNEL, LEVEL5_KERNEL, LEVEL6_KERNEL = "sgemm_double_buffer", "sgemm_async_copy_vec", "sgemm_warp_tiling"
CUBLAS = "cublas"
KERNELS = (LEVEL4_KERNEL, LEVEL5_KERNEL, LEVEL6_KERNEL)
FACT_KEY = {LEVEL4_KERNEL: "l4", LEVEL5_KERNEL: "l5", LEVEL6_KERNEL: "l6", CUBLAS: "cb"}   # ms_l6_4096, p_bar_cb
SIZES = (1024, 2048, 4096, 8192)
BAR_SIZES = (2048, 4096, 8192)           # the sizes the bar is set at
BIG = (4096, 8192)                       # the sizes where the tuner's differences are read
LEVEL5_CONFIG = registry.LEVEL5          # Level 5's ring settings (BK, STAGES, ...)
LEVEL6_CONFIG = registry.LEVEL6          # Level 6's shipped tiles and knobs (BM, BN, BK, WM, WN, TM, TN, ...)
SASS_ARCH = "sm_90"

# ============================================================================ course settings (the gate)
_gating = load_settings()
_required = _gating.required_module(11)
_checkpoint = _gating.checkpoint(_required) if _required else None
f.set("gate_phrase", f"{_checkpoint.title}({_checkpoint.rule_text}) 통과 뒤에 열립니다" if _checkpoint
      else "누구에게나 열려 있습니다")

# ============================================================================ benchmarks.json
benchmark_record = recorded()
bench_provenance = benchmark_record.provenance
SM_COUNT = bench_provenance["sm_count"]
bench_row = {(k, n): benchmark_record.at(k, n) for k in (*KERNELS, CUBLAS) for n in SIZES}
f.set("b_device", bench_provenance["device"])
f.set("b_date", str(bench_provenance["date"])[:10])
f.set("b_commit", str(bench_provenance["git_commit"])[:7])
f.set("sm_count", SM_COUNT, "d")
for kernel in (*KERNELS, CUBLAS):
    for size in SIZES:
        f.set(f"ms_{FACT_KEY[kernel]}_{size}", bench_row[(kernel, size)]["median_ms"], ".3f")
for kernel in KERNELS:
    for size in SIZES:
        f.set(f"pc_{FACT_KEY[kernel]}_{size}", bench_row[(kernel, size)]["pct_cublas"], ".1f")
for size in SIZES:
    f.set(f"tf_l6_{size}", bench_row[(LEVEL6_KERNEL, size)]["gflops"] / 1000, ".1f")
    f.set(f"pk_l6_{size}", bench_row[(LEVEL6_KERNEL, size)]["pct_peak"], ".1f")
f.set("pk_cb_1024", bench_row[(CUBLAS, 1024)]["pct_peak"], ".1f")


def pair_speedup(new: str, old: str, size: int) -> float:
    """Speedup of `new` over `old` timed in direct alternation (benchmarks.json "pairs")."""
    row = next(p for p in bench_provenance["pairs"] if p["new"] == new and p["old"] == old and p["M"] == size)
    return row["speedup"]


for size in BIG:
    f.set(f"pair_l6_l5_{size}", 100 * (pair_speedup(LEVEL6_KERNEL, LEVEL5_KERNEL, size) - 1), ".1f")
_pct_levels_4_5_big = [bench_row[(k, n)]["pct_cublas"] for k in (LEVEL4_KERNEL, LEVEL5_KERNEL) for n in BIG]
f.set("pc_l45_low", min(_pct_levels_4_5_big), ".1f")
f.set("pc_l45_high", max(_pct_levels_4_5_big), ".1f")


@f.claims
def level6_against_levels_4_and_5(check):
    for n in BIG:
        check(pair_speedup(LEVEL6_KERNEL, LEVEL5_KERNEL, n) > 1.03,
              f"본문: 번갈아 잰 쌍에서 Level 6이 Level 5보다 3% 넘게 빠르다 ({n}³)")
        check(bench_row[(LEVEL6_KERNEL, n)]["median_ms"]
              < min(bench_row[(LEVEL4_KERNEL, n)]["median_ms"], bench_row[(LEVEL5_KERNEL, n)]["median_ms"]),
              f"본문: {n}³에서 Level 6이 Level 4, 5보다 빠르다")
        for k in (LEVEL4_KERNEL, LEVEL5_KERNEL):
            check(90 <= bench_row[(k, n)]["pct_cublas"] < 96, f"본문: {k}는 {n}³에서 cuBLAS 바로 아래(pc_l45_low–pc_l45_high%, 96% 미만)")
    at_2048 = [bench_row[(k, 2048)]["pct_cublas"] for k in KERNELS]
    check(max(at_2048) < 95 and max(at_2048) - min(at_2048) < 2,
          "본문: 2048³에서는 세 커널이 cuBLAS의 95% 아래에서 2%p 안에 모여 있다(Level 6의 이득이 보이지 않는다)")


# ============================================================================ the bar
tuning_record = json.loads((DATA_DIR / "level6_tuning.json").read_text(encoding="utf-8"))
BAR_PCT_CUBLAS = {2048: 95.0, 4096: 100.0, 8192: 100.0}    # Level 6's bar: % of cuBLAS at each size
TUNING_CONFIGS = tuning_record["configs"]
shipped_tuning = next(c for c in TUNING_CONFIGS if c["config"] == tuning_record["chosen"])
shipped_tuning_pct = {r["M"]: r["pct_cublas"] for r in shipped_tuning["rows"]}   # % of cuBLAS by size
KEEP_MARGIN = tuning_record["keep_margin"]
f.set("t_date", str(tuning_record["date"])[:10])
f.set("t_count", len(TUNING_CONFIGS), "d")
for size in BAR_SIZES:
    f.set(f"bar_{size}", BAR_PCT_CUBLAS[size], ".0f")
    f.set(f"bpc_{size}", bench_row[(LEVEL6_KERNEL, size)]["pct_cublas"], ".2f")
    f.set(f"tpc_{size}", shipped_tuning_pct[size], ".2f")
f.set("keep_pct", 100 * KEEP_MARGIN, ".0f")


def bar_met(pct_cublas: float, size: int) -> bool:
    return pct_cublas >= BAR_PCT_CUBLAS[size]


_bench_missed = [(n, BAR_PCT_CUBLAS[n] - bench_row[(LEVEL6_KERNEL, n)]["pct_cublas"]) for n in BAR_SIZES
                 if not bar_met(bench_row[(LEVEL6_KERNEL, n)]["pct_cublas"], n)]
_tuning_missed = [n for n in BAR_SIZES if not bar_met(shipped_tuning_pct[n], n)]
f.set("bar_verdict", "benchmarks.json의 값으로 세 크기 모두 막대를 넘었습니다" if not _bench_missed else
      "benchmarks.json의 값으로 엄밀히 읽으면 " + ", ".join(f"{n}³은 막대에 {gap:.2f}%p 모자랍니다"
                                                  for n, gap in _bench_missed))
f.set("tune_verdict", "튜너의 기록에서는 세 크기 모두 막대를 넘었습니다" if not _tuning_missed else
      "튜너의 기록에서도 " + ", ".join(f"{n}³" for n in _tuning_missed) + "은 막대에 못 미칩니다")


# The same shipped configuration in two records (benchmarks.json and the tuner's run): how far apart its % of
# cuBLAS is, by size. Each ratio was timed in alternation with cuBLAS, so the GPU's drift between windows cancels;
# what is left is the noise of the ratio itself, the scale a difference from 100% must beat.
two_record_gap = {n: abs(bench_row[(LEVEL6_KERNEL, n)]["pct_cublas"] - shipped_tuning_pct[n]) for n in BAR_SIZES}
f.set("two_record_min", min(two_record_gap.values()), ".1f")
f.set("two_record_max", max(two_record_gap.values()), ".1f")


@f.claims
def the_bar(check):
    for n, bar in BAR_PCT_CUBLAS.items():
        check(f"{n}^3: {bar:.0f}%" in tuning_record["rule"], "기록된 튜너 규칙의 막대가 이 장의 막대와 같다")
    check(tuning_record["chosen"] == LEVEL6_CONFIG, "본문: 튜너가 고른 구성이 배포된 구성(registry.LEVEL6)이다")
    for n in BIG:
        for pct in (bench_row[(LEVEL6_KERNEL, n)]["pct_cublas"], shipped_tuning_pct[n]):
            check(abs(pct - 100) < 1, f"본문: 두 기록 모두에서 Level 6과 cuBLAS의 차이가 1%p 안 ({n}³)")
    for i, n in enumerate(BAR_SIZES):
        check(all(c["rows"][i]["M"] == n for c in TUNING_CONFIGS),
              f"튜너 기록: 모든 구성의 {i + 1}번째 줄이 {n}³ (표의 열이 이 순서를 쓴다)")
    side = {n: (bench_row[(LEVEL6_KERNEL, n)]["pct_cublas"] - 100) * (shipped_tuning_pct[n] - 100) for n in BAR_SIZES}
    check(side[4096] < 0 and bench_row[(LEVEL6_KERNEL, 4096)]["pct_cublas"] < 100 < shipped_tuning_pct[4096],
          "본문: 4096³에서 같은 배포 구성의 두 기록이 100%의 양쪽으로 갈린다(benchmarks.json 아래, 튜너 위)")
    check(max(two_record_gap[n] for n in BIG) < 1, "본문: 4096³·8192³에서 두 기록의 비율은 1%p 안에서 만난다")


# ============================================================================ level6_tuning.json experiments


def changed_knobs(config: dict) -> dict:
    """The knobs of a tuner configuration that differ from the shipped one."""
    return {k: v for k, v in config.items() if LEVEL6_CONFIG.get(k) != v}


def tuned_entry(**diff) -> dict:
    """The tuner's entry for the configuration that changes exactly these knobs of the shipped one."""
    return next(c for c in TUNING_CONFIGS if changed_knobs(c["config"]) == diff)


# Each experiment the text reads, by the short name its facts carry (t_s3_4096, ...): the knobs it changes.
EXPERIMENT_CHANGES = {
    "s3": dict(STAGES=3), "s3nf": dict(STAGES=3, FRAG_PREFETCH=0), "bk8": dict(BK=8, STAGES=3),
    "bk8nf": dict(BK=8, STAGES=3, FRAG_PREFETCH=0), "bk16": dict(BK=16), "g1": dict(GROUP=1), "g16": dict(GROUP=16),
    "lane": dict(LANE_ORDER=1), "t16x8": dict(TM=16, TN=8), "tall": dict(BM=256, BN=128, TM=16, TN=8),
    "c128": dict(BN=128, BK=16, MIN_BLOCKS=2), "c128_8x8": dict(BN=128, BK=16, WM=32, TN=8, MIN_BLOCKS=2),
    "roll": dict(ROLL=2), "spread": dict(SPREAD=1), "bk48": dict(BK=48, STAGES=3), "bk16s6": dict(BK=16, STAGES=6),
}
experiment_entry = {key: tuned_entry(**diff) for key, diff in EXPERIMENT_CHANGES.items()}
# % of cuBLAS by size of each experiment; "base" is the configuration the tuner chose (the shipped one)
experiment_pct = {"base": shipped_tuning_pct} | {key: {r["M"]: r["pct_cublas"] for r in entry["rows"]}
                                                 for key, entry in experiment_entry.items()}
SLOWER_EXPERIMENTS = ("tall", "c128", "c128_8x8", "roll", "spread", "bk16", "bk8nf")


def gain(better: str, worse: str, size: int) -> float:
    """Percentage points of cuBLAS that experiment `better` has over `worse` at `size`."""
    return experiment_pct[better][size] - experiment_pct[worse][size]


for key in ("s3", "s3nf", "bk8", "bk8nf", "g1", "g16", "tall", "c128", "roll", "base"):
    for size in BAR_SIZES:
        f.set(f"t_{key}_{size}", experiment_pct[key][size], ".1f")
for size in BIG:
    f.set(f"frag_gain_{size}", gain("s3", "s3nf", size), ".1f")
    f.set(f"bk_gain_{size}", gain("s3", "bk8", size), ".1f")
    f.set(f"st4_gain_{size}", gain("base", "s3", size), ".1f")
f.set("regs_128_8x8", experiment_entry["c128_8x8"]["rows"][0]["registers"], "d")
# How many knobs each configuration changes from the shipped one (the table's first column)
_knobs_changed = [len(changed_knobs(c["config"])) for c in TUNING_CONFIGS if c is not shipped_tuning]
f.set("t_small_changes", sum(1 for n in _knobs_changed if n <= 2), "d")
f.set("t_big_changes", sum(1 for n in _knobs_changed if n > 2), "d")
f.set("t_big_min", min(n for n in _knobs_changed if n > 2), "d")
f.set("t_big_max", max(_knobs_changed), "d")
f.set("smem_bk48", experiment_entry["bk48"]["smem_dynamic"], ",d")


@f.claims
def tuner_experiments(check):
    for n in BIG:
        check(gain("s3", "s3nf", n) > 3, f"본문: 조각 파이프라인이 3%p 넘게 보탠다 ({n}³, BK 32, 3스테이지)")
        check(gain("s3", "bk8", n) > 3, f"본문: BK 8 → 32가 3%p 넘게 보탠다 ({n}³, 3스테이지, 조각 파이프라인)")
        check(0 < gain("base", "s3", n) < 3, f"본문: 네 번째 스테이지는 3%p 안쪽을 보탠다 ({n}³)")
        check(abs(gain("g1", "base", n)) < 1 and abs(gain("g16", "base", n)) < 1,
              f"본문: GROUP 1, 8, 16의 차이는 1%p 안 ({n}³)")
        check(abs(gain("lane", "base", n)) < 1 and abs(gain("t16x8", "base", n)) < 1,
              f"본문: 레인 순서와 16×8 스레드 타일은 1%p 안 ({n}³)")
        check(abs(experiment_pct["bk8nf"][n] - bench_row[(LEVEL4_KERNEL, n)]["pct_cublas"]) < 4,
              f"본문: 처음 설계는 Level 4 수준 ({n}³)")
        for key in SLOWER_EXPERIMENTS:
            check(gain("base", key, n) > 1.5, f"본문: 나머지 실험({key})은 배포 구성보다 1.5%p 넘게 느리다 ({n}³)")


@f.claims
def one_row_one_experiment(check):
    check(all(n >= 1 for n in _knobs_changed) and sum(n <= 2 for n in _knobs_changed) > len(_knobs_changed) / 2,
          "본문: 배포 구성 말고는 모두 손잡이를 바꿨고, 대부분은 한두 개만 바꿨다")
    check(all(changed_knobs(e["config"]).keys() >= {"BN", "MIN_BLOCKS"} for e in (experiment_entry["c128"],
                                                                                  experiment_entry["c128_8x8"])),
          "본문: 여러 손잡이를 바꾼 구성의 예, 128×128 블록에 SM당 두 블록")


@f.claims
def more_stages_a_little_faster(check):
    """The device section: the preference for more stages (kernels/configs.py) rests on two pairs of the tuner."""
    for n in BIG:
        check(0 < gain("base", "s3", n) < 3 and 0 < gain("bk16s6", "bk16", n) < 3,
              f"본문: 스테이지를 늘린 두 쌍(BK 32의 3 → 4, BK 16의 4 → 6)이 모두 조금(3%p 안) 빨랐다 ({n}³)")


# 2048³ is one wave (128 blocks on 132 SMs): every block runs at once, so the block order (GROUP) cannot
# change what shares L2 there. What the spread of configurations that differ only in GROUP is (the noise of one
# timing, or where the blocks land on the SMs), the tuner's one timing per configuration cannot tell.
_group_only_2048 = [experiment_pct[key][2048] for key in ("base", "g1", "g16")]
f.set("noise_2048", max(_group_only_2048) - min(_group_only_2048), ".1f")
f.set("t_min_2048", min(c["rows"][0]["pct_cublas"] for c in TUNING_CONFIGS), ".1f")
f.set("t_max_2048", max(c["rows"][0]["pct_cublas"] for c in TUNING_CONFIGS), ".1f")


@f.absence("이 기록으로는 둘을 가릴 수 없습니다")
def the_2048_spread_is_timed_once(check):
    points = [(json.dumps(c["config"], sort_keys=True), r["M"]) for c in TUNING_CONFIGS for r in c["rows"]]
    check(len(points) == len(set(points)), "본문: 튜너는 구성마다 크기마다 한 번씩만 쟀다")
    grouped = [r for r in benchmark_record.rows if r["kernel"].startswith(LEVEL6_KERNEL) and r["kernel"] != LEVEL6_KERNEL]
    check(not grouped, "본문: benchmarks.json에 GROUP을 바꾼 Level 6의 행이 없다(다시 잰 기록이 없다)")


@f.claims
def the_2048_column(check):
    check(wt.waves(2048, 2048, LEVEL6_CONFIG["BM"], LEVEL6_CONFIG["BN"], SM_COUNT).waves == 1, "본문: 2048³은 웨이브 하나")
    group_only = [experiment_pct[key][2048] for key in ("base", "g1", "g16")]
    check(max(group_only) - min(group_only) > 4, "본문: 2048³에서는 GROUP만 다른 구성끼리도 4%p 넘게 흔들린다")
    check(all(c["rows"][0]["M"] == 2048 for c in TUNING_CONFIGS),
          "튜너 기록: 모든 구성의 첫 줄이 2048³ (t_min_2048, t_max_2048이 이 줄을 읽는다)")
    check(experiment_pct["s3nf"][2048] == max(c["rows"][0]["pct_cublas"] for c in TUNING_CONFIGS),
          "본문: 조각 파이프라인을 끈 구성이 2048³에서 가장 높다")


def binding_size(entry: dict) -> int:
    """The size whose ratio to its bar set the configuration's score."""
    return min(entry["rows"], key=lambda r: r["pct_cublas"] / BAR_PCT_CUBLAS[r["M"]])["M"]


def runners_up_scored_at_2048() -> list[dict]:
    """The configurations right behind the shipped one whose score 2048³ decided (the noisy size)."""
    runners = []
    for entry in configs_by_score[1:]:
        if binding_size(entry) != 2048:
            break
        runners.append(entry)
    return runners


configs_by_score = sorted(TUNING_CONFIGS, key=lambda c: -c["score"])
f.set("score_base", shipped_tuning["score"], ".3f")
f.set("score_second", configs_by_score[1]["score"], ".3f")
f.set("runners_2048", len(runners_up_scored_at_2048()), "d")


@f.claims
def what_the_rule_chose(check):
    check(configs_by_score[0] is shipped_tuning, "본문: 배포 구성의 점수가 가장 높다")
    check(binding_size(shipped_tuning) != 2048, "본문: 배포 구성의 점수는 2048³이 아닌 크기에서 정해졌다")
    runners = runners_up_scored_at_2048()
    check(len(runners) >= 3 and all(abs(r["pct_cublas"] - shipped_tuning_pct[r["M"]]) < 1
                                    for e in runners for r in e["rows"] if r["M"] in BIG),
          "본문: 2등부터 몇 구성은 점수가 2048³에서 정해졌고, 큰 두 크기에서는 배포 구성과 1%p 안")
    check(configs_by_score[0]["score"] < configs_by_score[1]["score"] * (1 + KEEP_MARGIN),
          "본문: 2등과의 점수 차이가 유지 여유(2%)보다 작다")


def describe_change(diff: dict) -> str:
    """{'BK': 8, 'STAGES': 3} → 'BK 8, STAGES 3' (the base itself: '배포 구성')."""
    return ", ".join(f"{k} {v}" for k, v in diff.items()) if diff else "배포 구성 (기준)"


# One row per tuner configuration for the chapter's table and chart: the change, threads, shared memory,
# registers, % of cuBLAS by size (keys 2048, 4096, 8192) and the score.
tuning_table_rows = [{"change": describe_change(changed_knobs(c["config"])), "threads": c["threads"],
                      "smem": c["smem_dynamic"], "regs": c["rows"][0]["registers"],
                      **{n: r["pct_cublas"] for n, r in zip(BAR_SIZES, c["rows"])}, "score": c["score"]}
                     for c in TUNING_CONFIGS]

# ============================================================================ shape, registers, shared memory
level6_shape = wt.warp_tiling(**wt.SHIPPED)      # the shipped warp tiling, in the model of simulation 11
for knob in ("BM", "BN", "BK", "WM", "WN", "TM", "TN", "STAGES", "GROUP"):
    f.set(knob.lower(), LEVEL6_CONFIG[knob], "d")
f.set("threads", level6_shape.threads, "d")
f.set("warps", level6_shape.warps, "d")
f.set("lanes_m", level6_shape.lanes_m, "d")
f.set("lanes_n", level6_shape.lanes_n, "d")
f.set("acc", level6_shape.accumulators, "d")
f.set("frag_regs", level6_shape.fragment_registers, "d")
f.set("lds_step", level6_shape.lds_per_step, "d")
f.set("ffma_step", level6_shape.ffma_per_step, "d")
f.set("ffma_per_lds_l6", wt.ffma_per_lds(LEVEL6_CONFIG["TM"], LEVEL6_CONFIG["TN"]), ".1f")
f.set("ffma_per_lds_l4", wt.ffma_per_lds(8, 8), ".0f")
LEVEL6_SMEM = registry.level6_smem(LEVEL6_CONFIG)
H100_SMEM_PER_BLOCK = PROFILES["H100"].smem_per_block_optin   # 227 KiB: the most one block may opt in to
f.set("smem", LEVEL6_SMEM, ",d")
f.set("smem_kib", LEVEL6_SMEM / 1024, ".0f")
f.set("smem_stage", LEVEL6_SMEM // LEVEL6_CONFIG["STAGES"], ",d")
f.set("ai_block_l6", roofline.ai_block_global(LEVEL6_CONFIG["BM"], LEVEL6_CONFIG["BN"]), ".1f")
f.set("ai_block_l4", roofline.ai_block_global(128, 128), ".0f")
f.set("h100_optin_kib", H100_SMEM_PER_BLOCK // 1024, "d")


@f.claims
def shape_and_shared_memory(check):
    check(LEVEL6_SMEM == registry.get(LEVEL6_KERNEL).dynamic_smem == bench_row[(LEVEL6_KERNEL, 4096)]["smem_dynamic"],
          "본문: 공유 메모리 계산 (식, 레지스트리, 기록된 벤치마크가 같다)")
    check(48 * 1024 < LEVEL6_SMEM <= H100_SMEM_PER_BLOCK < 2 * LEVEL6_SMEM,
          "본문: 48 KiB를 넘고 블록 하나의 한도 안, 두 블록은 안 들어간다")


@f.claims
def h100_configuration_elsewhere(check):
    """The device section: the H100's configurations exceed other GPUs' opt-in shared memory per block."""
    level5_smem = registry.level5_smem(LEVEL5_CONFIG)
    check({d.name for d in PROFILES.values() if LEVEL6_SMEM > d.smem_per_block_optin}
          == {d.name for d in PROFILES.values() if d.arch != "sm_90"}
          == {"T4", "RTX3090", "A10G", "L4", "RTX4090", "A100-40GB", "A100-80GB"},
          "본문: H100의 Level 6 구성은 H100·H200 말고는 어느 GPU(A100, A10G, L4, RTX 카드, T4)의 블록당 한도도 넘는다")
    check(level5_smem > PROFILES["T4"].smem_per_block_optin and level5_smem <= PROFILES["A100-40GB"].smem_per_block_optin,
          "본문: H100의 Level 5 구성은 T4의 한도를 넘는다")


# The configuration rule per GPU (kernels/configs.py, recorded in device_configs.json) and the Level 5 tuning it
# leans on (async_tuning.json): the device section's sentences
device_configs_record = json.loads((DATA_DIR / "device_configs.json").read_text(encoding="utf-8"))
async_tuning_record = json.loads((DATA_DIR / "async_tuning.json").read_text(encoding="utf-8"))


@f.claims
def the_configuration_rule_per_gpu(check):
    rows = {(r["device"], r["kernel"]): r["config"] for r in device_configs_record["rows"]}
    for name in ("H100", "H200"):
        check({k: rows[(name, LEVEL5_KERNEL)][k] for k in ("BK", "STAGES", "EARLY_BARRIER")}
              == {k: LEVEL5_CONFIG[k] for k in ("BK", "STAGES", "EARLY_BARRIER")}
              and rows[(name, LEVEL6_KERNEL)] == LEVEL6_CONFIG, f"본문: {name}에서 규칙은 튜너가 고른 구성을 돌려준다")
    stages5 = {r["config"]["STAGES"] for r in device_configs_record["rows"] if r["kernel"] == LEVEL5_KERNEL}
    check(rows[("T4", LEVEL5_KERNEL)]["STAGES"] == min(stages5) == 2 and rows[("T4", LEVEL6_KERNEL)]["STAGES"] == 3,
          "본문: cp.async가 없는 T4에서는 두 커널 모두 가장 적은 스테이지(Level 5는 2, Level 6은 static_assert의 3)")
    check(not PROFILES["T4"].has_cp_async and all(d.has_cp_async for d in PROFILES.values() if d.name != "T4"),
          "본문: cp.async가 없는 GPU(8.0 미만)는 T4뿐")
    level6_rows = [r["config"] for r in device_configs_record["rows"] if r["kernel"] == LEVEL6_KERNEL]
    check(all((c["BM"], c["BN"], c["TM"], c["TN"]) == tuple(LEVEL6_CONFIG[k] for k in ("BM", "BN", "TM", "TN"))
              for c in level6_rows), "본문: 블록 타일과 스레드 타일은 모든 GPU에서 그대로다")
    vs4 = {(r["BK"], r["STAGES"], r["EARLY_BARRIER"], r["M"]): r["vs_level4"] for r in async_tuning_record["rows"]
           if r["kernel"] == LEVEL5_KERNEL}
    for n in BIG:
        depth = [max(v for (bk, _, _, m), v in vs4.items() if bk == b and m == n) for b in (8, 16, 32)]
        check(depth == sorted(depth), f"본문: Level 5에서는 깊은 K 타일이 빨랐다 ({n}³)")
        check(max(v for (bk, s, _, m), v in vs4.items() if bk == 32 and s == 3 and m == n) <= vs4[(32, 2, 0, n)],
              f"본문: BK 32에서 세 번째 스테이지는 빠르지 않았다 ({n}³)")


# ============================================================================ SASS (sm_90, from the SASS record)
sass_summary = {k: sass.summarize(k, SASS_ARCH) for k in KERNELS}
main_loop_counts = {k: sass.loop_counts(k, SASS_ARCH) for k in KERNELS}   # (FFMA, all instructions) of the loop
INSTRUCTION_BYTES = 16                 # every sm_90 instruction is 128 bits
for kernel in KERNELS:
    key, summary = FACT_KEY[kernel], sass_summary[kernel]
    loop_ffma, loop_total = main_loop_counts[kernel]
    f.set(f"s_regs_{key}", summary.registers, "d")
    f.set(f"s_ldgsts_{key}", summary.ldgsts, "d")
    f.set(f"s_lds_{key}", summary.lds_widths.get("128", 0), "d")
    f.set(f"s_ffma_{key}", summary.ffma, "d")
    f.set(f"loop_{key}", loop_total, ",d")
    f.set(f"loop_kib_{key}", loop_total * INSTRUCTION_BYTES / 1024, ".0f")
    f.set(f"loop_ffma_share_{key}", 100 * loop_ffma / loop_total, ".1f")
# cp.async copies one thread issues per K tile: A in 4-byte copies (transposed), B in 16-byte copies
A_COPIES = LEVEL6_CONFIG["BM"] * LEVEL6_CONFIG["BK"] // 32 // level6_shape.warps
B_COPIES = LEVEL6_CONFIG["BK"] * (LEVEL6_CONFIG["BN"] // 4) // level6_shape.threads
f.set("a_copies", A_COPIES, "d")
f.set("b_copies", B_COPIES, "d")
level6_occupancy = roofline.occupancy(level6_shape.threads, sass_summary[LEVEL6_KERNEL].registers, LEVEL6_SMEM,
                                      SASS_ARCH)
f.set("occ_l6", level6_occupancy.occupancy_pct, ".1f")


def loop_ffma_share(kernel: str) -> float:
    ffma, total = main_loop_counts[kernel]
    return ffma / total


@f.claims
def sass_counts(check):
    s6, loop6 = sass_summary[LEVEL6_KERNEL], main_loop_counts[LEVEL6_KERNEL]
    check(s6.registers == bench_row[(LEVEL6_KERNEL, 4096)]["registers"] == 240 and s6.spills == 0
          and s6.local_bytes == 0, "본문: 레지스터 240개, 스필과 로컬 메모리 없음")
    check(s6.sts_widths == {} and s6.lds_widths == {"128": s6.lds_widths.get("128")},
          "본문: 타일용 STS 없음, LDS는 모두 128비트")
    check(loop6[0] == LEVEL6_CONFIG["BK"] * level6_shape.ffma_per_step, "본문: 루프의 FFMA = BK × 128")
    check(s6.lds_widths["128"] == (LEVEL6_CONFIG["BK"] + 1) * level6_shape.lds_per_step,
          "본문: LDS.128 = 루프 k 스텝 32개 × 6 + 루프 앞 6")
    check(loop6[1] > 4 * main_loop_counts[LEVEL4_KERNEL][1], "본문: Level 6의 루프는 Level 4의 네 배가 넘는 코드")
    check(loop_ffma_share(LEVEL6_KERNEL) > loop_ffma_share(LEVEL5_KERNEL) > loop_ffma_share(LEVEL4_KERNEL),
          "본문: 루프에서 FFMA의 몫은 Level 4 < 5 < 6")
    check(s6.ldgsts == (A_COPIES + B_COPIES) * (LEVEL6_CONFIG["STAGES"] + 1),
          "본문: LDGSTS = 타일당 복사 × (펼친 프롤로그 네 곳 + 루프 한 곳)")
    check(level6_occupancy.blocks_per_sm == 1, "본문: SM당 한 블록")
    check(s6.smem_static == 0 < sass_summary[LEVEL4_KERNEL].smem_static,
          "본문: Level 6의 공유 메모리는 모두 동적이고, Level 4는 정적 공유 메모리를 쓴다")


# ============================================================================ profiles.json (Nsight Compute, 4096³)
profile_record = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
_profiled = {k["kernel"]: k for k in profile_record["kernels"]}
cublas_profile = next(e for e in profile_record["reference"] if e["kernel"] == CUBLAS)   # cuBLAS's own kernel
profile_of = {k: _profiled[k] for k in KERNELS} | {CUBLAS: cublas_profile}              # Nsight Compute, 4096³
f.set("p_device", profile_record["device"])
f.set("p_date", str(profile_record["date"])[:10])
f.set("ref_function", cublas_profile["function"])
# cuBLAS's kernel name carries its tile: ..._tilesize128x256x16_stage3_...
cublas_tile = re.search(r"tilesize(\d+)x(\d+)x(\d+)_stage(\d+)", cublas_profile["function"])
f.set("ref_tile", f"{cublas_tile.group(1)}×{cublas_tile.group(2)}")
f.set("ref_bk", cublas_tile.group(3))
f.set("ref_stages", cublas_tile.group(4))
f.set("ref_regs", cublas_profile["registers"], ".0f")
f.set("ref_smem", cublas_profile["smem_dynamic"], ",.0f")


def ffma_share(profile: dict) -> float:
    """FFMA's share (%) of the warp instructions a profiled kernel executed."""
    return 100 * profile["ffma_instructions"] / 32 / profile["instructions"]


def ffma_per_lds_measured(profile: dict) -> float:
    """Executed FFMA per executed shared-memory load instruction (Nsight Compute's counts)."""
    return profile["ffma_instructions"] / 32 / profile["smem_ld_instructions"]


STALL_FACT_KEYS = {"Barrier": "bar", "Short Scoreboard": "ssb", "Long Scoreboard": "ls", "Not Selected": "ns",
                   "No Instruction": "noi", "Wait": "wait", "Dispatch Stall": "disp"}
for kernel, profile in profile_of.items():
    key = FACT_KEY[kernel]
    f.set(f"p_issue_{key}", profile["issue_active_pct"], ".1f")
    f.set(f"p_fma_{key}", profile["fma_pipe_pct"], ".1f")
    f.set(f"p_sm_{key}", profile["sm_pct"], ".1f")
    f.set(f"p_occ_{key}", profile["theoretical_occupancy_pct"], ".1f")
    f.set(f"p_regs_{key}", profile["registers"], ".0f")
    f.set(f"p_instr_{key}", profile["instructions"] / 1e9, ".2f")
    f.set(f"p_share_{key}", ffma_share(profile), ".1f")
    f.set(f"p_fpl_{key}", ffma_per_lds_measured(profile), ".1f")
    f.set(f"p_lds_{key}", profile["smem_ld_instructions"] / 1e6, ".0f")
    f.set(f"p_wpi_{key}", profile["smem_ld_wavefronts_per_instruction"], ".2f")
    f.set(f"p_wf_{key}", profile["smem_ld_wavefronts"] / 1e6, ".0f")
    f.set(f"p_conf_{key}", profile["smem_ld_bank_conflicts"], ",.0f")
    f.set(f"p_dur_{key}", profile["duration_ms"], ".2f")
    f.set(f"p_dram_{key}", profile["dram_bytes"] / 1e6, ",.0f")
    f.set(f"p_l2hit_{key}", profile["l2_hit_rate_pct"], ".1f")
    f.set(f"p_dramu_{key}", profile["dram_pct"], ".1f")
    for reason, stall_key in STALL_FACT_KEYS.items():
        f.set(f"p_{stall_key}_{key}", profile["stalls"][reason], ".2f")


def stall_share(profile: dict, reason: str) -> float:
    """A stall reason's share (%) of all the kernel's stall values: the unit kernels of different occupancy
    are compared in (book/appendix/models.md, "스톨 이유의 뜻")."""
    return 100 * (profile["stalls"].get(reason) or 0) / sum(v or 0 for v in profile["stalls"].values())


# Model (ii) at the block level: Level 6's requests to L2 (global-load sectors) against Level 4's follow the ratio of
# the two intensities; the DRAM bytes depend on what L2 shares among the blocks and do not
SECTORS_RATIO_64 = profile_of[LEVEL6_KERNEL]["global_ld_sectors"] / profile_of[LEVEL4_KERNEL]["global_ld_sectors"]
f.set("sectors_ratio_64", SECTORS_RATIO_64, ".2f")


@f.claims
def block_intensity_and_the_l2_requests(check):
    model = roofline.ai_block_global(128, 128) / roofline.ai_block_global(LEVEL6_CONFIG["BM"], LEVEL6_CONFIG["BN"])
    check(abs(SECTORS_RATIO_64 / model - 1) < 0.01, "본문: 블록이 L2에 요청하는 바이트(글로벌 로드 섹터)가 모델 (ii)의 비율만큼 준다")
    dram_ratio = profile_of[LEVEL6_KERNEL]["dram_bytes"] / profile_of[LEVEL4_KERNEL]["dram_bytes"]
    check(abs(dram_ratio - model) > 0.05, "본문: DRAM 바이트는 그 비율을 따르지 않는다")


# One warp FFMA passes a scheduler's FP32 pipe in one cycle where the scheduler has 32 lanes (sm_86/89/90, the
# record's H100), so every other instruction costs an FFMA's issue cycle. On sm_75 and sm_80 it has 16: an FFMA
# holds the pipe two cycles and an instruction that does not use the FMA pipe may issue in between.
SCHEDULERS_PER_SM = 4
LANES_PER_SCHEDULER = {d.arch: fp32_lanes(d.cc) // SCHEDULERS_PER_SM for d in PROFILES.values()}
f.set("lanes_smsp", bench_provenance["fp32_lanes_per_sm"] // SCHEDULERS_PER_SM, "d")
f.set("lanes_smsp_narrow", min(LANES_PER_SCHEDULER.values()), "d")


@f.claims
def lanes_per_scheduler(check):
    check(profile_record["compute_capability"] == "9.0"
          and bench_provenance["fp32_lanes_per_sm"] // SCHEDULERS_PER_SM == LANES_PER_SCHEDULER["sm_90"] == 32,
          "본문: 기록한 H100은 스케줄러마다 FP32 레인 32개")
    check({d.name for d in PROFILES.values() if LANES_PER_SCHEDULER[d.arch] == 16} == {"T4", "A100-40GB", "A100-80GB"}
          and {d.arch for d in PROFILES.values() if LANES_PER_SCHEDULER[d.arch] == 16} == {"sm_75", "sm_80"},
          "본문: 레인이 16개인 것은 T4(sm_75)와 A100(sm_80)")
    records = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(DATA_DIR.glob("*.json"))]
    measured = [r for r in records if isinstance(r, dict) and isinstance(r.get("device"), str)]
    devices = {r["device"] for r in measured}
    check(devices and all("H100" in d or "H200" in d for d in devices)
          and {r.get("compute_capability") for r in measured} == {"9.0"},
          f"본문: 이 강좌가 잰 GPU는 모두 sm_90(H100, H200)이다 ({devices})")


for kernel in (LEVEL4_KERNEL, LEVEL6_KERNEL):
    f.set(f"s_bar_{FACT_KEY[kernel]}", stall_share(profile_of[kernel], "Barrier"), ".1f")
    f.set(f"s_ssb_{FACT_KEY[kernel]}", stall_share(profile_of[kernel], "Short Scoreboard"), ".1f")


@f.claims
def stall_shares_across_occupancy(check):
    p4, p6 = profile_of[LEVEL4_KERNEL], profile_of[LEVEL6_KERNEL]
    check(abs(p6["achieved_occupancy_pct"] / p4["achieved_occupancy_pct"] - 0.5) < 0.05,
          "본문: Level 6은 스케줄러당 워프가 Level 4의 절반")
    check(stall_share(p6, "Barrier") < 0.1 * stall_share(p4, "Barrier"),
          "본문: 비중으로도 Barrier가 거의 사라졌다")
    check(stall_share(p6, "Short Scoreboard") < stall_share(p4, "Short Scoreboard"),
          "본문: 비중으로도 Short Scoreboard가 줄었다")
    check(stall_share(p6, "No Instruction") > 5 * max(stall_share(p4, "No Instruction"),
                                                      stall_share(cublas_profile, "No Instruction")),
          "본문: No Instruction은 비중으로도 Level 6이 Level 4, cuBLAS의 다섯 배가 넘는다")


def warps_launched(profile: dict) -> int:
    return int(profile["grid_size"] * profile["block_size"]) // 32


def barrier_wait(kernel: str, bk: int) -> tuple[float, int]:
    """(warp-cycles of Barrier stall per barrier, barriers per warp): stall per instruction × instructions per
    warp ÷ barriers per warp (the loop's barrier once per K tile, any other BAR site of the SASS once)."""
    profile = profile_of[kernel]
    sites = sum(n for op, n in sass_summary[kernel].counts.items() if op.startswith("BAR"))
    barriers = 4096 // bk + sites - 1
    return profile["stalls"]["Barrier"] * profile["instructions"] / warps_launched(profile) / barriers, barriers


# Level 4's K tile: rb::BK of kernels/sgemm_common.cuh (read from the source, which the kernels compile from)
LEVEL4_BK = int(re.search(r"constexpr int BK = (\d+);", (Path(registry.__file__).parent / "sgemm_common.cuh")
                          .read_text(encoding="utf-8")).group(1))
f.set("l4_bk", LEVEL4_BK, "d")
barrier_waits = {LEVEL4_KERNEL: barrier_wait(LEVEL4_KERNEL, LEVEL4_BK),
                 LEVEL5_KERNEL: barrier_wait(LEVEL5_KERNEL, LEVEL5_CONFIG["BK"])}
f.set("bar_wait_ratio", barrier_waits[LEVEL5_KERNEL][0] / barrier_waits[LEVEL4_KERNEL][0], ".1f")
f.set("p_dur_ratio", 100 * (profile_of[LEVEL6_KERNEL]["duration_ms"] / cublas_profile["duration_ms"] - 1), ".1f")


@f.claims
def profile_against_level4_and_cublas(check):
    p4, p5, p6, ref = (profile_of[k] for k in (LEVEL4_KERNEL, LEVEL5_KERNEL, LEVEL6_KERNEL, CUBLAS))
    check(p4["smem_ld_instructions"] > 1.2 * p6["smem_ld_instructions"], "본문: 공유 메모리 읽기 명령이 20% 넘게 줄었다")
    check(p4["smem_ld_wavefronts"] > p6["smem_ld_wavefronts"], "본문: 읽기 웨이브프론트도 줄었다")
    check(abs(ffma_per_lds_measured(p4) - 16) < 0.5 and abs(ffma_per_lds_measured(p6) - 128 / 6) < 0.5,
          "본문: 측정한 LDS당 FFMA가 16과 21.3 (모델)과 맞다")
    check(ffma_share(p6) > ffma_share(ref) > ffma_share(p4), "본문: FFMA의 몫은 Level 6 > cuBLAS > Level 4")
    check(p6["instructions"] < ref["instructions"] < p4["instructions"], "본문: 실행한 명령은 Level 6이 가장 적다")
    check(p6["fma_pipe_pct"] > p4["fma_pipe_pct"] + 4 and abs(p6["fma_pipe_pct"] - ref["fma_pipe_pct"]) < 1,
          "본문: FMA 파이프는 Level 4보다 4%p 넘게 높고 cuBLAS와 1%p 안")
    check(p6["issue_active_pct"] < ref["issue_active_pct"] - 3, "본문: 발행 활성 비율은 cuBLAS가 3%p 넘게 높다")
    check(p6["stalls"]["Barrier"] < 0.1 * p4["stalls"]["Barrier"], "본문: Barrier 스톨이 거의 사라졌다")
    check(p6["stalls"]["Short Scoreboard"] < p4["stalls"]["Short Scoreboard"], "본문: Short Scoreboard도 줄었다")
    check(p6["stalls"]["No Instruction"] > 5 * max(ref["stalls"]["No Instruction"], p4["stalls"]["No Instruction"]),
          "본문: No Instruction은 Level 6이 cuBLAS와 Level 4의 다섯 배가 넘는다")
    check(max((v, k) for k, v in p6["stalls"].items() if k not in ("Selected", "Not Selected"))[1] == "No Instruction",
          "본문: Level 6에서 Not Selected 다음으로 큰 항목이 No Instruction")
    check(p6["theoretical_occupancy_pct"] == ref["theoretical_occupancy_pct"] == 12.5
          == p4["theoretical_occupancy_pct"] / 2, "본문: 점유율 12.5%는 cuBLAS와 같고 Level 4의 절반")
    check(max(profile_of[k]["stalls"]["Long Scoreboard"] for k in (LEVEL4_KERNEL, LEVEL5_KERNEL, CUBLAS)) < 0.1,
          "본문: Long Scoreboard는 거의 0")
    check(ref["issue_active_pct"] > p4["issue_active_pct"], "본문: cuBLAS의 발행 활성 비율이 Level 4보다 높다")
    check(LEVEL5_CONFIG["BK"] == LEVEL6_CONFIG["BK"] and round(p5["stalls"]["Barrier"], 2) == round(p4["stalls"]["Barrier"], 2),
          "본문: BK 32인 Level 5도 Barrier 스톨이 Level 4와 같다")
    check(max(p4["registers"], p5["registers"]) <= 128,
          "본문: Level 4와 5는 __launch_bounds__(256, 2)로 스레드당 128개 안에 묶여 있다")
    (wait4, barriers4), (wait5, barriers5) = barrier_waits[LEVEL4_KERNEL], barrier_waits[LEVEL5_KERNEL]
    check(abs(barriers5 / barriers4 - 0.25) < 0.01, "본문: Level 5의 배리어는 Level 4의 4분의 1")
    check(wait5 / wait4 > 3, "본문: 배리어 한 번에 기다리는 시간이 몇 배 길어졌다")
    check(p6["duration_ms"] > ref["duration_ms"], "본문: 프로파일러 아래 시간은 Level 6이 조금 길다")
    check(p6["smem_ld_bank_conflicts"] == ref["smem_ld_bank_conflicts"] == 0, "본문: 충돌 카운터 0 (둘 다)")
    check(abs(p6["smem_ld_wavefronts_per_instruction"] / ref["smem_ld_wavefronts_per_instruction"] - 1) < 0.05
          and p6["smem_ld_wavefronts_per_instruction"] > 3, "본문: 명령당 웨이브프론트는 Level 6과 cuBLAS가 같은 수준(3 남짓)")
    check(p6["dram_bytes"] < p4["dram_bytes"] and p6["l2_hit_rate_pct"] < ref["l2_hit_rate_pct"] - 5,
          "본문: DRAM 바이트는 Level 4보다 적고, L2 적중률은 cuBLAS가 5%p 넘게 높다")
    check(max(p["dram_pct"] for p in profile_of.values()) < 10, "본문: DRAM 사용률은 모두 10% 미만")
    check(abs(p6["duration_ms"] / ref["duration_ms"] - 1) < 0.02, "본문: 프로파일러 아래 시간도 2% 안")


# Nsight Compute's shared-load count (smsp__inst_executed_op_shared_ld) against the model and the SASS table:
# the compiler puts never-true `@!PT LDS RZ, [RZ]` at each tile's copy site; kernels/sass.py (and so the SASS
# table's LDS.128) drops them, Nsight counts them. One site runs per K tile.
dummy_lds_lines = sass.count_lines(LEVEL6_KERNEL, r"@!PT\s+LDS\b", SASS_ARCH)
copy_sites = sass_summary[LEVEL6_KERNEL].ldgsts // (A_COPIES + B_COPIES)
DUMMY_PER_SITE = dummy_lds_lines // copy_sites
# LDS.128 one warp executes at 4096³: 32 steps per K tile and one step before the loop
REAL_LDS_PER_WARP = 4096 * level6_shape.lds_per_step + level6_shape.lds_per_step
_real_lds_6 = warps_launched(profile_of[LEVEL6_KERNEL]) * REAL_LDS_PER_WARP
f.set("dummy_per_site", DUMMY_PER_SITE, "d")
f.set("p_fpl_l6_real", profile_of[LEVEL6_KERNEL]["ffma_instructions"] / 32 / _real_lds_6, ".1f")
f.set("p_wpi_l6_real", profile_of[LEVEL6_KERNEL]["smem_ld_wavefronts"] / _real_lds_6, ".2f")


@f.claims
def nsight_counts_the_dummy_loads(check):
    p6 = profile_of[LEVEL6_KERNEL]
    warps = warps_launched(p6)
    check(dummy_lds_lines % copy_sites == 0, "본문: 복사 묶음마다 같은 수의 @!PT LDS")
    check(p6["smem_ld_instructions"] == warps * (REAL_LDS_PER_WARP + DUMMY_PER_SITE * 4096 // LEVEL6_CONFIG["BK"]),
          "본문: Nsight의 읽기 명령 = 워프 × (LDS.128 + 복사 묶음마다 @!PT LDS)")
    real_ffma_per_lds = p6["ffma_instructions"] / 32 / (warps * REAL_LDS_PER_WARP)
    check(ffma_per_lds_measured(p6) < 128 / 6 - 0.2 and abs(real_ffma_per_lds - 128 / 6) < 0.05,
          "본문: 측정값은 모델보다 조금 작고, @!PT LDS를 빼면 모델(21.3)과 같다")


# ============================================================================ block order: the wave traffic model
# Bytes of A and B the wave model reads from DRAM, by (size, GROUP), for Level 6's tiles
operand_traffic_bytes = {(n, group): wt.operand_traffic(n, n, n, LEVEL6_CONFIG["BM"], LEVEL6_CONFIG["BN"], group,
                                                        SM_COUNT)
                         for n in BIG for group in (1, 8, 16)}
for (size, group), traffic in operand_traffic_bytes.items():
    f.set(f"tr_{size}_{group}", traffic / 1e6, ",.0f")
cublas_operand_traffic = wt.operand_traffic(4096, 4096, 4096, int(cublas_tile.group(1)), int(cublas_tile.group(2)), 1,
                                            SM_COUNT)   # cuBLAS's block order is unknown: row-major assumed
f.set("tr_cb", cublas_operand_traffic / 1e6, ",.0f")
f.set("dr_l6", profile_of[LEVEL6_KERNEL]["dram_read_bytes"] / 1e6, ",.0f")
f.set("dr_cb", cublas_profile["dram_read_bytes"] / 1e6, ",.0f")
f.set("tiles_n_4096", -(-4096 // LEVEL6_CONFIG["BN"]), "d")
# The tiles the first wave covers at 4096³, by GROUP
first_wave_footprint = {group: wt.wave_footprints(4096, 4096, 4096, LEVEL6_CONFIG["BM"], LEVEL6_CONFIG["BN"], group,
                                                  SM_COUNT)[0] for group in (1, 8, 16)}
for group, footprint in first_wave_footprint.items():
    f.set(f"fp_rows_{group}", footprint.tile_rows, "d")
    f.set(f"fp_cols_{group}", footprint.tile_cols, "d")
# The share of the recorded device's DRAM bandwidth GROUP 1's modelled traffic would use during Level 6's 8192³ run
_bandwidth_use_8192_group1 = (operand_traffic_bytes[(8192, 1)] / (bench_row[(LEVEL6_KERNEL, 8192)]["median_ms"] / 1000)
                              / (bench_provenance["bandwidth_gbs"] * 1e9))
f.set("bw_use_8192_g1", 100 * _bandwidth_use_8192_group1, ".0f")


@f.claims
def only_the_tuner_varies_the_block_order(check):
    def group_values(node) -> set:
        if isinstance(node, dict):
            return {v for k, v in node.items() if k == "GROUP"} | set().union(*map(group_values, node.values()))
        if isinstance(node, list):
            return set().union(set(), *map(group_values, node))
        return set()

    varied = {path.name for path in DATA_DIR.glob("*.json")
              if len(group_values(json.loads(path.read_text(encoding="utf-8")))) > 1}
    check(varied == {"level6_tuning.json"}, f"본문: 블록 순서(GROUP)를 바꿔 가며 잰 기록은 튜너뿐이다 ({sorted(varied)})")
    check(all(r["M"] == r["N"] == r["K"] for c in TUNING_CONFIGS for r in c["rows"]), "본문: 튜너는 정사각 행렬만 쟀다")


@f.claims
def wave_traffic_model(check):
    traffic = operand_traffic_bytes
    check(abs(traffic[(4096, 8)] / profile_of[LEVEL6_KERNEL]["dram_read_bytes"] - 1) < 0.05,
          "본문: 웨이브 모형이 Level 6의 DRAM 읽기와 5% 안")
    check(abs(cublas_operand_traffic / cublas_profile["dram_read_bytes"] - 1) < 0.05,
          "본문: 같은 모형이 cuBLAS의 DRAM 읽기와도 5% 안")
    check(traffic[(4096, 8)] > traffic[(4096, 1)] > traffic[(4096, 16)], "본문: 4096³에서 모형의 순서는 GROUP 8 > 1 > 16")
    check(traffic[(8192, 8)] < 0.7 * traffic[(8192, 1)], "본문: 8192³에서는 GROUP 8이 GROUP 1의 70% 미만을 읽는다(모형)")
    check(first_wave_footprint[1].tile_cols == first_wave_footprint[8].tile_cols == -(-4096 // LEVEL6_CONFIG["BN"]),
          "본문: 4096³에서 한 웨이브는 GROUP 1이든 8이든 모든 타일 열을 덮는다")
    seconds_8192 = bench_row[(LEVEL6_KERNEL, 8192)]["median_ms"] / 1000
    check(traffic[(8192, 1)] / seconds_8192 < 0.10 * bench_provenance["bandwidth_gbs"] * 1e9,
          "본문: GROUP 1의 8192³ 교통도 대역폭의 10% 미만")


# ============================================================================ roofline (recorded device)
recorded_roof = roofline.recorded_device_roof(bench_provenance)
f.set("peak_tf", recorded_roof.peak_gflops / 1000, ".1f")
f.set("bw", recorded_roof.bandwidth_gbs, ",.0f")
f.set("ridge", recorded_roof.ridge_ai, ".1f")
# FLOP per byte of measured DRAM traffic at 4096³ (model (iii) of module 10), by kernel
dram_intensity_of = {k: roofline.ai_measured_dram(4096, 4096, 4096, p["dram_bytes"]) for k, p in profile_of.items()}
for kernel, intensity in dram_intensity_of.items():
    f.set(f"ai_dram_{FACT_KEY[kernel]}", intensity, ".0f")
f.set("ai_min_x", int(min(dram_intensity_of.values()) / recorded_roof.ridge_ai), "d")


@f.claims
def roofline_position(check):
    ai = dram_intensity_of
    check(min(ai.values()) > 5 * recorded_roof.ridge_ai, "본문: 측정한 DRAM 바이트로 보면 넷 모두 꺾임점의 몇 배 오른쪽")
    check(ai[LEVEL4_KERNEL] < ai[LEVEL6_KERNEL] < ai[CUBLAS], "본문: Level 6의 산술 강도는 Level 4보다 크고 cuBLAS보다 작다")
    check(roofline.ai_block_global(LEVEL6_CONFIG["BM"], LEVEL6_CONFIG["BN"]) > recorded_roof.ridge_ai,
          "본문: 모델 (ii)로도 꺾임점 오른쪽")


# ============================================================================ where cuBLAS still wins
waves_at_size = {n: wt.waves(n, n, LEVEL6_CONFIG["BM"], LEVEL6_CONFIG["BN"], SM_COUNT) for n in SIZES}   # Level 6
# 1024³ under the alternatives the text weighs: Levels 4-5's tile, a smaller tile, split-K
waves_1024_alternatives = {"128x128": wt.waves(1024, 1024, 128, 128, SM_COUNT, 2),
                           "64x128": wt.waves(1024, 1024, 64, 128, SM_COUNT, 2),
                           "split4": wt.waves(1024, 1024, LEVEL6_CONFIG["BM"], LEVEL6_CONFIG["BN"], SM_COUNT, 1, 4)}
for size in SIZES:
    f.set(f"blocks_{size}", waves_at_size[size].blocks, ",d")
    f.set(f"waves_{size}", waves_at_size[size].waves, "d")
    f.set(f"weff_{size}", 100 * waves_at_size[size].efficiency, ".0f")
f.set("busy_1024", 100 * waves_at_size[1024].blocks / SM_COUNT, ".0f")
for name, alternative in waves_1024_alternatives.items():
    f.set(f"alt_blocks_{name}", alternative.blocks, "d")
    f.set(f"alt_busy_{name}", 100 * alternative.busy_sms / SM_COUNT, ".0f")

_peak_per_sm = bench_provenance["peak_gflops"] / SM_COUNT
# % of one SM's FP32 peak each busy SM delivers: at 1024³ only `blocks` SMs work, at 4096³ all of them
per_sm_pct_1024 = bench_row[(LEVEL6_KERNEL, 1024)]["gflops"] / waves_at_size[1024].blocks / _peak_per_sm * 100
per_sm_pct_4096 = bench_row[(LEVEL6_KERNEL, 4096)]["gflops"] / SM_COUNT / _peak_per_sm * 100
f.set("per_sm_1024", per_sm_pct_1024, ".0f")
f.set("per_sm_4096", per_sm_pct_4096, ".0f")


@f.claims
def idle_sms_at_1024(check):
    w1024 = waves_at_size[1024]
    check(w1024.blocks < SM_COUNT and w1024.waves == 1, "본문: 1024³은 블록이 SM보다 적다")
    check(all(waves_at_size[n].efficiency > 0.95 for n in BAR_SIZES), "본문: 막대의 세 크기는 웨이브 사용률 95% 넘음")
    check(len({f"{100 * waves_at_size[n].efficiency:.0f}" for n in BAR_SIZES}) == 1,
          "본문: 막대의 세 크기는 블록 자리의 같은 비율(weff_4096 하나로 말한다)을 채운다")
    check(abs(w1024.blocks / SM_COUNT - 0.25) < 0.03, "본문: 1024³은 웨이브 하나가 4분의 1만 찼다")
    check(per_sm_pct_1024 > 60 and per_sm_pct_4096 - per_sm_pct_1024 < 15,
          "본문: 1024³에서도 일하는 SM 하나는 4096³의 속도에 가깝다(손실은 노는 SM)")
    check(bench_row[(LEVEL6_KERNEL, 1024)]["pct_cublas"] < 50, "본문: 1024³에서 Level 6은 cuBLAS의 절반도 안 된다")
    check(bench_row[(LEVEL6_KERNEL, 1024)]["median_ms"]
          > max(bench_row[(LEVEL4_KERNEL, 1024)]["median_ms"], bench_row[(LEVEL5_KERNEL, 1024)]["median_ms"]),
          "본문: 1024³에서는 Level 4와 5가 Level 6보다 빠르다")


# Awkward shapes (benchmarks.json awkward_rows): the staged path
SMALL_SHAPE, ODD_SHAPE, ODD_K_SHAPE = (1000, 1023, 1025), (4095, 4095, 4095), (4096, 4096, 4095)
AWKWARD_SHAPES = (SMALL_SHAPE, ODD_SHAPE, ODD_K_SHAPE)
# The recorded row of each (kernel, (M, N, K)) at the awkward shapes
awkward_row_of = {(r["kernel"], (r["M"], r["N"], r["K"])): r for r in bench_provenance["awkward_rows"]}
_l6_small, _l6_odd, _l6_odd_k = (awkward_row_of[(LEVEL6_KERNEL, s)] for s in AWKWARD_SHAPES)


def staging_share(row: dict) -> float:
    """The share (%) of an awkward shape's median time spent copying operands to aligned buffers."""
    return 100 * (row["median_ms"] - row["kernel_only_ms"]) / row["median_ms"]


f.set("aw_small_pc", _l6_small["pct_cublas"], ".1f")
f.set("aw_small_pc_l4", awkward_row_of[(LEVEL4_KERNEL, SMALL_SHAPE)]["pct_cublas"], ".1f")
f.set("aw_small_pc_l5", awkward_row_of[(LEVEL5_KERNEL, SMALL_SHAPE)]["pct_cublas"], ".1f")
f.set("aw_small_ms", _l6_small["median_ms"], ".3f")
f.set("aw_small_kernel_ms", _l6_small["kernel_only_ms"], ".3f")
f.set("aw_small_cb_ms", awkward_row_of[(CUBLAS, SMALL_SHAPE)]["median_ms"], ".3f")
f.set("aw_small_share", staging_share(_l6_small), ".0f")
f.set("aw_small_staged", ", ".join(_l6_small["staged"]))
f.set("aw_small_blocks", wt.waves(*SMALL_SHAPE[:2], LEVEL6_CONFIG["BM"], LEVEL6_CONFIG["BN"], SM_COUNT).blocks, "d")
f.set("aw_odd_pc", _l6_odd["pct_cublas"], ".1f")
f.set("aw_odd_share", staging_share(_l6_odd), ".0f")
f.set("aw_odd_staged", ", ".join(_l6_odd["staged"]))
f.set("aw_k_pc", _l6_odd_k["pct_cublas"], ".1f")


@f.claims
def awkward_shapes(check):
    small, odd, odd_k = (awkward_row_of[(LEVEL6_KERNEL, s)] for s in AWKWARD_SHAPES)
    check(small["pct_cublas"] < 50 and small["median_ms"] > max(awkward_row_of[(k, SMALL_SHAPE)]["median_ms"]
                                                                for k in (LEVEL4_KERNEL, LEVEL5_KERNEL)),
          "본문: 1000×1023×1025에서 Level 6은 cuBLAS의 절반이 안 되고 Level 4, 5보다 느리다")
    check("A" not in small["staged"] and "B" in small["staged"] and odd_k["staged"] == [],
          "본문: A는 옮기지 않고(4바이트 복사), N이 4의 배수가 아니면 B와 C를 옮기며, K만 홀수면 아무것도 옮기지 않는다")
    check(staging_share(small) > staging_share(odd) > 0, "본문: 옮기는 비용의 몫은 작은 행렬에서 더 크다")
    cublas_small_ms = awkward_row_of[(CUBLAS, SMALL_SHAPE)]["median_ms"]
    check(staging_share(small) < 50 and small["kernel_only_ms"] > 2 * cublas_small_ms,
          "본문: 1000×1023×1025에서 커널만 재도 cuBLAS에 한참 못 미친다(주된 원인은 복사가 아니다)")
    check(odd_k["pct_cublas"] > 100 and odd["pct_cublas"] > 95, "본문: 큰 어색한 크기에서는 cuBLAS와 비슷하거나 앞선다")
    check(wt.waves(*SMALL_SHAPE[:2], LEVEL6_CONFIG["BM"], LEVEL6_CONFIG["BN"], SM_COUNT).blocks
          == waves_at_size[1024].blocks, "본문: 1024³과 같은 블록 수")


# ============================================================================ the quiz's words (course/quiz/banks/m11.yaml)
# The bank is data, not prose with {eval}: the directions and round numbers its questions state are
# checked here against the same records, so that a re-recording that contradicts a question stops the build.
@f.claims
def quiz_numbers(check):
    p4, p6 = profile_of[LEVEL4_KERNEL], profile_of[LEVEL6_KERNEL]
    for k in (LEVEL4_KERNEL, LEVEL5_KERNEL):
        p = profile_of[k]
        check(91.5 < bench_row[(k, 4096)]["pct_cublas"] < 94.5, "퀴즈 m11-q01: Level 4, 5는 4096³에서 cuBLAS의 92–94%")
        check(p["dram_pct"] < 7 and p["stalls"]["Long Scoreboard"] < 0.1, "퀴즈 m11-q01: DRAM 7% 미만, LS 0.1 미만")
        check(86.5 < ffma_share(p) < 91.5 and 0.4 < p["stalls"]["Barrier"] < 0.6,
              "퀴즈 m11-q01: FFMA의 몫 87–91%, Barrier 약 0.5")
        check(p["smem_ld_bank_conflicts"] < 1e-3 * p["smem_ld_wavefronts"], "퀴즈 m11-q01: 충돌 카운터 거의 0")
    check(p4["smem_ld_wavefronts_per_instruction"] > 2.5, "퀴즈 m11-q01: 명령당 웨이브프론트 3 안팎")
    for n in BIG:
        check(abs(gain("g1", "base", n)) < 1 and abs(gain("g16", "base", n)) < 1, "퀴즈 m11-q06: GROUP 1, 8, 16은 1%p 안")
    check(gain("g1", "base", 8192) > 0, "퀴즈 m11-q06: 8192³에서 GROUP 1이 GROUP 8보다 조금 빠르다(보기 b의 전제)")
    check(99 < experiment_pct["base"][2048] < 101 and all(93.5 < experiment_pct[k][2048] < 95.5 for k in ("g1", "g16")),
          "퀴즈 m11-q06: 2048³에서 GROUP 8 약 100%, GROUP 1과 16 약 94–95%")
    check(waves_at_size[2048].blocks == 128 and SM_COUNT == 132 and p6["dram_pct"] < 6,
          "퀴즈 m11-q06: 블록 128개, SM 132개, DRAM 5% 안팎")
    check(32 < bench_row[(LEVEL6_KERNEL, 1024)]["pct_cublas"] < 38, "퀴즈 m11-q07: 1024³에서 약 35%")
    check(72 < per_sm_pct_1024 < 77 and 72 < per_sm_pct_4096 < 80, "퀴즈 m11-q07: SM당 74% 안팎과 76% 안팎")
    check(waves_at_size[1024].blocks == 32 and waves_1024_alternatives["128x128"].blocks == 64,
          "퀴즈 m11-q07: 블록 32개, Level 4·5는 64개")
    check(round(100 * waves_at_size[1024].blocks / SM_COUNT) == 24, "퀴즈 m11-q07: SM 132개 가운데 32개(24%)만 일한다")
    check(waves_at_size[4096].blocks == 512 and waves_at_size[4096].waves == 4
          and round(100 * waves_at_size[4096].efficiency) == 97, "퀴즈 m11-q07: 4096³은 512블록으로 네 웨이브, 자리의 97%")
    check(LEVEL6_SMEM == 198_656, "퀴즈 m11-q08: 198,656 B")
    check(LEVEL6_CONFIG["TM"] * LEVEL6_CONFIG["TN"] / (LEVEL6_CONFIG["TM"] // 4 + LEVEL6_CONFIG["TN"] // 4) == 128 / 6,
          "퀴즈 m11-q02: 21.3")
    check(round(ffma_per_lds_measured(p4)) == 16 and round(ffma_per_lds_measured(p6)) == 21
          and ffma_per_lds_measured(p6) < 128 / 6, "퀴즈 m11-q02: Nsight로 센 값은 약 16과 약 21(21.3보다 조금 작음)")


# ======================== one-block thread tiles under the course's LDS.128 model (half-warp service)
# The course's one model (book/appendix/models.md, "LDS.128"): a 128-bit shared load is served per half-warp
# of 16 lanes; within a half-warp, distinct words in one bank conflict and identical float4 broadcast. It is a
# model fitted to module 6's measurements, not a documented hardware fact.
HALF_WARP, BANKS = 16, 32   # lanes per LDS.128 pass, banks (the words the text lists)


def lds128_cost(layout: str, operand: str) -> tuple[int, int]:
    """(model wavefronts, conflict-free wavefronts) of the warp's first LDS.128 of A or B (k = 0, warp 0), for
    the shipped shape and a lane layout: sims.warp_tiling's request under the course's half-warp model."""
    request = wt.fragment_load(wt.warp_tiling(**{**wt.SHIPPED, "layout": layout}), operand).request
    return request.wavefronts, request.ideal_wavefronts


def first_fragment_starts(layout: str, operand: str) -> list[int]:
    """Start word (k = 0, warp 0) of each lane's first float4 of A or B, for the shipped shape and a lane layout."""
    shape = wt.warp_tiling(**{**wt.SHIPPED, "layout": layout})
    if operand == "A":
        return [wt.thread_rows(shape, 0, lane)[0] for lane in range(32)]
    return [wt.thread_cols(shape, 0, lane)[0] for lane in range(32)]


_blocked = {op: first_fragment_starts("contiguous", op) for op in ("A", "B")}
_shipped_layout = {op: first_fragment_starts(wt.SHIPPED.get("layout", "interleaved"), op) for op in ("A", "B")}
_blocked_cost = {op: lds128_cost("contiguous", op) for op in ("A", "B")}
_shipped_cost = {op: lds128_cost(wt.SHIPPED.get("layout", "interleaved"), op) for op in ("A", "B")}
_distinct_in_first_half = {op: sorted(set(s[:HALF_WARP])) for op, s in _blocked.items()}
f.set("blk_a_words", ", ".join(str(w) for w in _distinct_in_first_half["A"]))
f.set("blk_b_words", ", ".join(str(w) for w in _distinct_in_first_half["B"]))
_b0, _b2 = _distinct_in_first_half["B"][0], _distinct_in_first_half["B"][2]
f.set("blk_b_pair", f"{_b0}–{_b0 + 3}과 {_b2}–{_b2 + 3}")
f.set("blk_b_wf", _blocked_cost["B"][0], "d")
f.set("blk_b_ideal", _blocked_cost["B"][1], "d")
f.set("stages_l6", LEVEL6_CONFIG["STAGES"], "d")


@f.claims
def blocked_thread_tiles_conflict_only_on_b(check):
    check(_blocked_cost["A"][0] == _blocked_cost["A"][1], "본문: 한 덩어리 배치에서도 A는 충돌하지 않는다(반 워프 모델)")
    check(_blocked_cost["B"][0] == 2 * _blocked_cost["B"][1], "본문: 한 덩어리 배치의 B는 반 워프마다 2-way 충돌")
    check(all(c[0] == c[1] for c in _shipped_cost.values()), "본문: 배포된 배치는 A, B 모두 충돌이 없다")
    check((_b2 - _b0) % BANKS == 0, "본문: B의 첫째와 셋째 float4가 같은 뱅크에서 만난다")
    full_warp_a = {w % BANKS for s in set(_blocked["A"]) for w in range(s, s + 4)}
    check(len({s + i for s in set(_blocked["A"]) for i in range(4)}) > len(full_warp_a),
          "본문: 워프 전체를 한 번에 처리한다고 보면 A도 충돌하는 것처럼 보인다(기각된 모델)")
    check(LEVEL6_CONFIG["STAGES"] > 3, "본문: 배포본은 셋째 다음의 스테이지를 둔다")


# ============================================ 4096×4096×4095 over 100%: one timing, cuBLAS's kernel not recorded
@f.absence("같은 커널을 골랐는지는 기록에 없습니다")
def cublas_kernel_at_odd_k_not_recorded(check):
    check(_l6_odd_k["pct_cublas"] > 100, "본문: 4096×4096×4095에서 Level 6은 cuBLAS의 100%를 넘는다")
    timed = [r for r in bench_provenance["awkward_rows"] if (r["M"], r["N"], r["K"]) == ODD_K_SHAPE]
    check(len(timed) == len({r["kernel"] for r in timed}), "본문: 이 모양은 커널마다 한 번만 쟀다")
    sizes = {(r["M"], r["N"], r["K"]) for r in profile_record["reference"]}
    check(sizes == {(4096, 4096, 4096)}, "본문: cuBLAS의 커널은 4096³에서만 프로파일했다(K = 4095에서 고른 커널은 기록에 없다)")


# ================================================ what the records do not hold (absence sentences)
_profiled = {k["kernel"] for k in profile_record["kernels"]}


_level6_profiles = [k for k in profile_record["kernels"] if k["kernel"].startswith(LEVEL6_KERNEL)]


@f.absence("세로 블록 구성의 프로파일은 기록에 없습니다")
def tall_block_not_profiled(check):
    check([k["kernel"] for k in _level6_profiles] == [LEVEL6_KERNEL] and LEVEL6_CONFIG["BM"] < LEVEL6_CONFIG["BN"],
          "본문: profiles.json의 Level 6은 배포된 가로 블록(128×256) 하나뿐이고 256×128 세로 블록은 없다")


@f.absence("그 구성의 프로파일은 기록에 없어서")
def no_fragment_pipeline_off_profile(check):
    check([k["kernel"] for k in _level6_profiles] == [LEVEL6_KERNEL] and LEVEL6_CONFIG.get("FRAG_PREFETCH", 1) == 1,
          "본문: profiles.json의 Level 6은 조각 파이프라인을 켠 배포 구성 하나뿐이다")


@f.absence("이 책의 기록에 없습니다(프로파일은 4096³만 있습니다)")
def cublas_choice_at_1024_not_recorded(check):
    sizes = {(r["M"], r["N"], r["K"]) for r in profile_record["reference"] + profile_record["kernels"]}
    check(sizes == {(4096, 4096, 4096)}, f"본문: 프로파일은 4096³만 있다 (기록: {sorted(sizes)})")


@f.claims
def quiz_lane_layouts(check):
    """m11-q03 and q04: the rows of one lane and the banks of a one-block thread tile, under the course's
    half-warp model (the numbers the two questions quote)."""
    shipped = wt.warp_tiling(**wt.SHIPPED)
    blocked = wt.warp_tiling(**{**wt.SHIPPED, "layout": "contiguous"})
    rows_shipped, rows_blocked = wt.thread_rows(shipped, 5, 13), wt.thread_rows(blocked, 5, 13)
    q3 = quiz_text(11, "m11-q03")
    check(max(rows_shipped) == 111 and min(rows_shipped) == 76 and max(rows_blocked) == 95 and min(rows_blocked) == 88
          and "95로 답했다면" in q3 and "88–95" in q3 and "83으로 답했다면" in q3,
          "퀴즈 m11-q03: 배포된 배치 76–79, 108–111(답 111), 한 덩어리 배치 88–95(95)")
    q4 = quiz_text(11, "m11-q04")
    check(f.blk_a_words == "0, 8, 16, 24" and f.blk_b_words == "0, 16, 32, 48"
          and "워드 0, 8, 16, 24에서" in q4 and "워드 0, 16, 32, 48에서" in q4,
          "퀴즈 m11-q04: 반 워프의 A float4는 워드 0, 8, 16, 24, B는 0, 16, 32, 48에서 시작")
    check(_blocked_cost["A"][0] == _blocked_cost["A"][1] and _blocked_cost["B"] == (4, 2) and "2에서 4로" in q4,
          "퀴즈 m11-q04: A는 충돌 없음, B는 2-way(웨이브프론트 2에서 4로)")
    wpi = profile_of[LEVEL6_KERNEL]["smem_ld_wavefronts_per_instruction"]
    check(abs(wpi - 3.3) < 0.1 and "3.3쯤" in q4, "퀴즈 m11-q04: Level 6의 명령당 웨이브프론트 3.3쯤")


@f.claims
def quiz_early_barrier(check):
    """m11-q05: the third stage follows from the ring's refill convention, not from the early barrier."""
    source = (Path(registry.__file__).parent / "sgemm_warp_tiling.cu").read_text(encoding="utf-8")
    check(re.search(r"static_assert\(\s*[\w:]*STAGES\s*>=\s*3", source) is not None,
          "퀴즈 m11-q05: 커널에 static_assert(STAGES >= 3)가 있다 (링의 약속에서 나온 조건)")
    check(LEVEL6_CONFIG["STAGES"] == 4 and "스테이지 4개짜리" in quiz_text(11, "m11-q05"), "퀴즈 m11-q05: 스테이지 4개")


@f.claims
def quiz_swizzle_noise(check):
    q6 = quiz_text(11, "m11-q06")
    check(round(max(_group_only_2048) - min(_group_only_2048)) == 6 and "6%p" in q6,
          "퀴즈 m11-q06: 2048³에서 GROUP만 다른 구성의 차이 6%p (noise_2048)")


@f.claims
def quiz_explanations_of_q01_and_q04(check):
    """m11-q01: the barrier wait fell with the fragment pipeline, not with BK 32 alone; m11-q04 (c): the
    full-warp model would make B conflict too, so "B does not conflict" follows from no model."""
    q1 = quiz_text(11, "m11-q01")
    p4, p5 = profile_of[LEVEL4_KERNEL], profile_of[LEVEL5_KERNEL]
    check("21.3" not in q1, "퀴즈 m11-q01: 해설이 m11-q02의 답(21.3)을 알려 주지 않는다")
    check(LEVEL5_CONFIG["BK"] == LEVEL6_CONFIG["BK"] and abs(p5["stalls"]["Barrier"] - p4["stalls"]["Barrier"]) < 0.05
          and "Level 5의 Barrier는 Level 4와 같다" in q1, "퀴즈 m11-q01: BK 32인 Level 5의 Barrier는 Level 4와 같다")
    full_warp_b = {}
    for s in set(_blocked["B"]):
        for w in range(s, s + 4):
            full_warp_b.setdefault(w % BANKS, set()).add(w)
    check(max(len(ws) for ws in full_warp_b.values()) == 2, "퀴즈 m11-q04 (c): 워프 전체 모델로도 B는 2-way 충돌이다")


@f.claims
def quiz_q01_q02_q06_reasons(check):
    """m11-q01 names the 32-lane condition of the issue-slot argument; m11-q02 says what each wrong answer counted;
    m11-q06 reads the big sizes' GROUP differences against the shipped configuration's two records."""
    q1, q2, q6 = (quiz_text(11, q) for q in ("m11-q01", "m11-q02", "m11-q06"))
    check("레인이 32개" in q1 and LANES_PER_SCHEDULER["sm_90"] == 32 and "레인이 16개" in q1
          and min(LANES_PER_SCHEDULER.values()) == 16, "퀴즈 m11-q01: 발행 자리의 논리는 레인 32개인 sm_90의 것")
    tm, tn = LEVEL6_CONFIG["TM"], LEVEL6_CONFIG["TN"]
    wrong = {"float4를 잊음": tm * tn / (tm + tn), "B만": tm * tn / (tn // 4), "A만": tm * tn / (tm // 4)}
    check((f"{wrong['float4를 잊음']:.1f}", f"{wrong['B만']:g}", f"{wrong['A만']:g}") == ("5.3", "32", "64")
          and "5.3으로 답했다면" in q2 and "32로 답했다면" in q2 and "64로 답했다면" in q2,
          "퀴즈 m11-q02: 틀린 답 5.3(float4의 폭을 잊음), 32(B만), 64(A만)")
    for n in BIG:
        group_only = [experiment_pct[key][n] for key in ("base", "g1", "g16")]
        check(max(group_only) - min(group_only) < min(1, 100 * KEEP_MARGIN),
              f"퀴즈 m11-q06: {n}³의 GROUP 차이는 1%p 안, 튜너가 흔들림으로 넘기는 {100 * KEEP_MARGIN:.0f}%보다 작다")
    check("6%p를 스위즐의 효과로 읽을 수 없다" in q6 and "흔들림이다" not in q6,
          "퀴즈 m11-q06: 2048³의 6%p를 흔들림이라 단정하지 않는다")


