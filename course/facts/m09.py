"""Facts of module 9 (m09_async_copy.md): the final-checkpoint rule, the recorded benchmark (with the
level-against-level pairs timed in alternation and the awkward shapes), the Nsight Compute profile, the
ring tuner's configurations, the SASS and copy counts of Levels 4 and 5 (recorded: book/data/sass_facts.json),
and the pipeline model's replay of the source material's loop. The claims next to each group of values
guard the chapter's directional sentences ("본문: ...") and the numbers its quiz questions quote."""
from __future__ import annotations

import json
import re
from pathlib import Path

from course.facts import Facts, quiz_text
from course.facts.recorded_sass import sass
from course.page import recorded
from course.settings import load_settings
from kernels import devices, registry, timing
from kernels.record import DATA_DIR
from sims import banks, coalescing, pipeline

f = Facts("m09")

N_MAIN, N_BIG = 4096, 8192
LEVEL3, LEVEL4, LEVEL5_4BYTE, LEVEL5_16BYTE, LEVEL6 = (
    "sgemm_register_blocking", "sgemm_double_buffer", "sgemm_async_copy", "sgemm_async_copy_vec", "sgemm_warp_tiling")
RING = registry.LEVEL5                      # the shipped ring: BK, STAGES, EARLY_BARRIER

bench = recorded()                          # book/data/benchmarks.json
bench_provenance = bench.provenance
profile_record = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
tuning_record = json.loads((DATA_DIR / "async_tuning.json").read_text(encoding="utf-8"))


def bench_row(kernel, n=N_MAIN):
    row = bench.at(kernel, n)
    if row is None:
        raise KeyError(f"benchmarks.json에 {kernel} ({n}³) 행이 없습니다")
    return row


def pair(new, old, n):
    """Level-against-level speed-up (old time / new time), the two timed in direct alternation."""
    for row in bench_provenance.get("pairs", []):
        if row["new"] == new and row["old"] == old and row["M"] == row["N"] == row["K"] == n:
            return row["speedup"]
    raise KeyError(f"benchmarks.json의 pairs에 {new} 대 {old} ({n}³)가 없습니다")


def awkward(kernel, shape):
    for row in bench_provenance.get("awkward_rows", []):
        if row["kernel"] == kernel and (row["M"], row["N"], row["K"]) == shape:
            return row
    raise KeyError(f"benchmarks.json의 awkward_rows에 {kernel} {shape}가 없습니다")


def profile(kernel):
    for row in profile_record["kernels"]:
        if row["kernel"] == kernel:
            return row
    raise KeyError(f"profiles.json에 {kernel} 항목이 없습니다")


# --- Final checkpoint: the pass mark comes from the course settings (instructors may change it) -----
SETTINGS = load_settings()
CHECKPOINT = SETTINGS.checkpoint(9)
f.set("cp_rule", CHECKPOINT.rule_text)
f.set("cp_pass", str(CHECKPOINT.pass_count))
f.set("cp_total", str(CHECKPOINT.question_count))
_UNLOCKS = sorted(m for m, required in SETTINGS.gates.items() if required == 9)
_TITLES = {10: "프로파일링과 루프라인", 11: "보너스, cuBLAS를 넘어서"}
f.set("cp_unlocks", ", ".join(f"모듈 {m}({_TITLES[m]})" if m in _TITLES else f"모듈 {m}" for m in _UNLOCKS or [10]))

# --- The shipped ring (registry.LEVEL5, the kernel's defaults) --------------------------------------
BM = BN = 128
THREADS, WARPS = 256, 8
BK, STAGES = RING["BK"], RING["STAGES"]
PITCH_A = BM + 4
SMEM = registry.level5_smem(RING)
f.set("bk", BK)
f.set("stages", STAGES)
f.set("prologue_tiles", STAGES - 1)
f.set("wait_n", STAGES - 2)
f.set("pitch_a", PITCH_A)
f.set("smem", SMEM, ",")
f.set("smem_stage", SMEM // STAGES, ",")
f.set("smem_two_blocks", 2 * SMEM, ",")
f.set("smem_kib", SMEM / 1024, ".0f")
# Copies of one K tile per thread (TileCopier): A in 4-byte copies, B in 16-byte (vec) or 4-byte ones.
A_COPIES_PER_TILE = BM * BK // 32 // WARPS
B_COPIES_PER_TILE_16BYTE = BK * (BN // 4) // THREADS
B_COPIES_PER_TILE_4BYTE = BK * BN // THREADS
COPIES_16BYTE = A_COPIES_PER_TILE + B_COPIES_PER_TILE_16BYTE
COPIES_4BYTE = A_COPIES_PER_TILE + B_COPIES_PER_TILE_4BYTE
f.set("a_copies", A_COPIES_PER_TILE)
f.set("b_copies_v", B_COPIES_PER_TILE_16BYTE)
f.set("b_copies_s", B_COPIES_PER_TILE_4BYTE)
f.set("copies_v", COPIES_16BYTE)
f.set("copies_s", COPIES_4BYTE)
f.set("fma_per_tile", BK * 64, ",")
f.set("l4_tiles_per_l5", BK // 8)
# Where the copies land (TileCopier): the SASS shows these as immediate offsets of the destination.
A_ROW_STEP = 4 * WARPS                    # rows between a thread's row groups of A
B_ROW_STEP = THREADS // (BN // 4)         # rows between a thread's 16-byte B copies
f.set("a_row_step", A_ROW_STEP)
f.set("b_row_step", B_ROW_STEP)
f.set("off_a_kgroup", 8 * PITCH_A * 4, "#x")
f.set("off_a_rowgroup", A_ROW_STEP * 4, "#x")
f.set("off_b_row", B_ROW_STEP * BN * 4, "#x")
f.set("off_a_ksrc", 8 * 4, "#x")


def a_copy_request(lda=4096, k0=0):
    """Global side of one warp's 4-byte A copy instruction (TileCopier: lane l reads row l / 8, k = k0 + l % 8),
    as sims.coalescing counts a warp request."""
    threads = [coalescing.ThreadAccess(lane, lane % 8, lane // 8, lane // 8, k0 + lane % 8,
                                       (lane // 8) * lda + k0 + lane % 8, ((lane // 8) * lda + k0 + lane % 8) * 4,
                                       4, True) for lane in range(32)]
    return coalescing.summarize_request(threads, 4)


f.set("a_copy_sectors", a_copy_request().sectors_per_request)
# Review question 4 (modules 4-5): sectors one fully coalesced warp request touches, and the naive kernel's 2.0.
f.set("sector_bytes", coalescing.SECTOR_BYTES)
f.set("warp_4byte_sectors", coalescing.WARP_SIZE * 4 // coalescing.SECTOR_BYTES)
f.set("warp_float4_sectors", coalescing.WARP_SIZE * 16 // coalescing.SECTOR_BYTES)
f.set("naive_spr", profile("sgemm_naive")["sectors_per_request"], ".1f")


@f.claims
def naive_requests_read_what_they_need(check):
    model = coalescing.naive_average_sectors(4096, 4096, 4096, bdx=16, bdy=16)   # simulation 4 (module 4)
    check(model.a_sectors_per_request == model.b_sectors_per_request == 2
          and abs(profile("sgemm_naive")["sectors_per_request"] - 2) < 0.05,
          "사전 복습 4: 나이브 커널의 A 요청과 B 요청은 둘 다 섹터 2개를 읽고, 잰 값도 2.0이다")
LDA_FOUR_NOT_EIGHT = 4100                 # a leading dimension that is a multiple of 4 but not of 8
f.set("a_copy_sectors_lda4", a_copy_request(lda=LDA_FOUR_NOT_EIGHT).sectors_per_request)


@f.claims
def a_copy_reads_whole_sectors(check):
    from kernels.compiler import expanded_source    # reads the kernel text only (no compiling)

    text = expanded_source(registry.get(LEVEL5_16BYTE).file)
    check("const int a_m = warp * 4 + lane / 8;" in text and "a_k = lane % 8;" in text,
          "본문: A 복사 명령 하나에서 레인 l은 행 l / 8, k = l % 8 (TileCopier)")
    for k0 in range(0, BK, 8):
        request = a_copy_request(k0=k0)
        check(request.sectors_per_request == 4 and len({t.row for t in request.threads}) == 4
              and request.useful_bytes == request.moved_bytes,
              f"본문: 행마다 섹터 하나, 네 행에서 섹터 넷을 남김없이 쓴다 (k0 = {k0})")
        odd = a_copy_request(lda=LDA_FOUR_NOT_EIGHT, k0=k0)
        check(odd.sectors_per_request == 6 and odd.moved_bytes == 6 * 32,
              f"본문: lda가 4의 배수이지만 8의 배수가 아니면 두 행이 섹터 둘에 걸쳐 6개 (k0 = {k0})")
    check(all(p["M"] == p["N"] == p["K"] == N_MAIN for p in profile_record["kernels"] if p["kernel"] == LEVEL5_16BYTE)
          and N_MAIN % 8 == 0, "본문: 기록한 4096³은 lda가 8의 배수")


@f.claims
def shipped_ring(check):
    check(SMEM == STAGES * BK * (PITCH_A + BN) * 4 == registry.get(LEVEL5_16BYTE).dynamic_smem, "본문: 링의 바이트 계산")
    check(SMEM > 48 * 1024 and 2 * SMEM < 228 * 1024, "본문: 정적 한도 48 KiB를 넘고, 두 블록은 SM의 228 KiB에 들어간다")
    check(not RING["EARLY_BARRIER"] and STAGES == 2, "본문: 배포된 링은 2스테이지, 이른 배리어 없음, wait_group 0")
    check((BK, STAGES, SMEM) == (32, 2, 66_560), "본문: 수식 2 × 32 × (132 + 128) × 4 = 66,560 B, 'Level 4의 네 배인 깊이'")
    check(registry.LEVEL6["TM"] == 8 and registry.LEVEL6["TN"] == 16, "본문: Level 6의 스레드 타일은 8×16")


# --- Benchmarks (benchmarks.json) -------------------------------------------------------------------
bench_rows = {(k, n): bench_row(k, n) for k in (LEVEL3, LEVEL4, LEVEL5_4BYTE, LEVEL5_16BYTE, LEVEL6, "cublas")
              for n in (N_MAIN, N_BIG)}
f.set("device", bench_provenance["device"])
f.set("b_date", str(bench_provenance["date"])[:10])
f.set("tf32", bench_provenance.get("tf32", "off"))
f.set("cublas_ms", bench_rows[("cublas", N_MAIN)]["median_ms"], ".2f")
for key, kernel in (("l3", LEVEL3), ("l4", LEVEL4), ("l5s", LEVEL5_4BYTE), ("l5v", LEVEL5_16BYTE), ("l6", LEVEL6)):
    f.set(f"pct_{key}", bench_rows[(kernel, N_MAIN)]["pct_cublas"], ".1f")
    f.set(f"pct_{key}_8k", bench_rows[(kernel, N_BIG)]["pct_cublas"], ".1f")
    f.set(f"ms_{key}", bench_rows[(kernel, N_MAIN)]["median_ms"], ".2f")

PAIR_16BYTE = {n: pair(LEVEL5_16BYTE, LEVEL4, n) for n in (N_MAIN, N_BIG)}
PAIR_4BYTE = {n: pair(LEVEL5_4BYTE, LEVEL4, n) for n in (N_MAIN, N_BIG)}
PAIR_LEVEL6 = pair(LEVEL6, LEVEL5_16BYTE, N_MAIN)
for n in (N_MAIN, N_BIG):
    f.set(f"pair_v_{n}", PAIR_16BYTE[n], ".3f")
    f.set(f"pair_s_{n}", PAIR_4BYTE[n], ".3f")
_slow_4byte = sorted((1 - PAIR_4BYTE[n]) * 100 for n in (N_MAIN, N_BIG))
f.set("slow_s", f"{_slow_4byte[0]:.0f}–{_slow_4byte[1]:.0f}" if round(_slow_4byte[0]) != round(_slow_4byte[1])
      else f"{_slow_4byte[0]:.0f}")
f.set("pair_l6", PAIR_LEVEL6, ".3f")
f.set("gain_l6", (PAIR_LEVEL6 - 1) * 100, ".0f")
# Each % of cuBLAS divides by a cuBLAS time measured in the kernel's own window: sizes where the ratios of Level 4
# and Level 5 rank the two the other way round than their own median times (none while the windows agree).
_flip_sizes = [n for n in (1024, 2048, N_MAIN, N_BIG)
               if (bench_row(LEVEL5_16BYTE, n)["median_ms"] < bench_row(LEVEL4, n)["median_ms"])
               != (bench_row(LEVEL5_16BYTE, n)["pct_cublas"] > bench_row(LEVEL4, n)["pct_cublas"])]
# cuBLAS timed next to each kernel (its own window): how far those times spread, per size (max / min - 1).
f.set("cb_spread_4096", bench.cublas_window_spread_pct(N_MAIN), ".1f")
f.set("cb_spread_1024", bench.cublas_window_spread_pct(1024), ".1f")


@f.claims
def benchmark_directions(check):
    for n in (N_MAIN, N_BIG):
        check(bench_rows[(LEVEL5_16BYTE, n)]["pct_cublas"] >= 90, f"본문: 16바이트 변형은 {n}³에서 cuBLAS의 90% 이상")
        check(abs(bench_rows[(LEVEL5_16BYTE, n)]["pct_cublas"] - bench_rows[(LEVEL4, n)]["pct_cublas"]) < 1.5,
              f"본문: {n}³에서 Level 4와 16바이트 변형의 cuBLAS 대비 비율이 1.5%포인트 안")
    for n in (N_MAIN, N_BIG):
        check(abs(PAIR_16BYTE[n] - 1) < 0.01,
              f"본문: 번갈아 잰 쌍에서 16바이트 변형은 Level 4와 같은 속도(어느 쪽으로든 1% 안), {n}³")
        check(0.95 < PAIR_4BYTE[n] < 0.99, f"본문: 4바이트 변형은 Level 4보다 1–5% 느리다, {n}³")
    check(PAIR_LEVEL6 > 1.03, "본문: Level 6은 Level 5보다 분명히 빠르다(모듈 11)")
    check(not _flip_sizes, f"본문: 네 크기 모두에서 Level 4와 16바이트 변형의 비율이 중앙값 시간과 같은 순서 ({_flip_sizes})")


# --- Awkward shapes (benchmarks.json awkward_rows): the launcher stages operands ---------------------
SHAPE_ODD, SHAPE_K, SHAPE_SMALL = (4095, 4095, 4095), (4096, 4096, 4095), (1000, 1023, 1025)
awkward_rows = {(k, s): awkward(k, s) for k in (LEVEL4, LEVEL5_16BYTE, "cublas")
                for s in (SHAPE_ODD, SHAPE_K, SHAPE_SMALL)}


def staged_text(row):
    return ", ".join(row["staged"]) if row["staged"] else "없음"


def staging_share(row):
    return (row["median_ms"] - row["kernel_only_ms"]) / row["median_ms"] * 100


for key, shape in (("odd", SHAPE_ODD), ("k", SHAPE_K), ("small", SHAPE_SMALL)):
    f.set(f"aw_{key}_pct", awkward_rows[(LEVEL5_16BYTE, shape)]["pct_cublas"], ".1f")
    f.set(f"aw_{key}_staged", staged_text(awkward_rows[(LEVEL5_16BYTE, shape)]))
    f.set(f"aw_{key}_l4_staged", staged_text(awkward_rows[(LEVEL4, shape)]))
for key, shape in (("odd", SHAPE_ODD), ("small", SHAPE_SMALL)):
    f.set(f"aw_{key}_ms", awkward_rows[(LEVEL5_16BYTE, shape)]["median_ms"], ".3f")
    f.set(f"aw_{key}_kernel_ms", awkward_rows[(LEVEL5_16BYTE, shape)]["kernel_only_ms"], ".3f")
    f.set(f"aw_{key}_share", staging_share(awkward_rows[(LEVEL5_16BYTE, shape)]), ".0f")
_blocks_small = -(-SHAPE_SMALL[0] // BM) * -(-SHAPE_SMALL[1] // BN)
f.set("blocks_small", _blocks_small)
f.set("sm_count", bench_provenance["sm_count"])


@f.claims
def awkward_shapes(check):
    l4 = {s: awkward_rows[(LEVEL4, s)] for s in (SHAPE_ODD, SHAPE_K, SHAPE_SMALL)}
    l5 = {s: awkward_rows[(LEVEL5_16BYTE, s)] for s in (SHAPE_ODD, SHAPE_K, SHAPE_SMALL)}
    check(l5[SHAPE_K]["staged"] == [] and "A" in l4[SHAPE_K]["staged"],
          "본문: K = 4095에서 Level 5는 아무것도 옮기지 않고 Level 4는 A를 옮긴다")
    check("B" in l4[SHAPE_K]["staged"], "본문: K = 4095에서 Level 4는 A와 B를 옮긴다")
    check("A" not in l5[SHAPE_ODD]["staged"] and "A" not in l5[SHAPE_SMALL]["staged"],
          "본문: Level 5는 A를 옮기지 않는다(4바이트 복사)")
    check(l5[SHAPE_ODD]["staged"] == ["B", "C"], "본문: 4095³에서 B와 C를 옮긴다")
    check(staging_share(l5[SHAPE_SMALL]) > staging_share(l5[SHAPE_ODD]), "본문: 작은 행렬일수록 옮기는 비용의 몫이 크다")
    check(l5[SHAPE_SMALL]["pct_cublas"] < 75, "본문: 1000×1023×1025에서는 cuBLAS에 한참 못 미친다")
    check(l5[SHAPE_K]["median_ms"] < l4[SHAPE_K]["median_ms"], "본문: K = 4095에서 Level 5가 Level 4보다 빠르다")
    check(_blocks_small < bench_provenance["sm_count"], "본문: 블록 수가 SM 수보다 적다")


# --- Nsight Compute (profiles.json) -----------------------------------------------------------------
cublas_profile = profile_record["reference"][0]     # the kernel cuBLAS chose at 4096³
profiles = {**{k: profile(k) for k in (LEVEL4, LEVEL5_4BYTE, LEVEL5_16BYTE)}, "cublas": cublas_profile}
f.set("p_date", str(profile_record["date"])[:10])
f.set("p_device", profile_record["device"])


def ffma_share(p):
    """FFMA among the warp instructions a kernel executed."""
    return p["ffma_instructions"] / 32 / p["instructions"]


for key, kernel in (("l4", LEVEL4), ("l5s", LEVEL5_4BYTE), ("l5v", LEVEL5_16BYTE), ("cublas", "cublas")):
    f.set(f"ls_{key}", profiles[kernel]["stalls"]["Long Scoreboard"], ".2f")
    f.set(f"lg_{key}", profiles[kernel]["stalls"]["LG Throttle"], ".2f")
    f.set(f"issue_{key}", profiles[kernel]["issue_active_pct"], ".1f")
    f.set(f"occ_{key}", profiles[kernel]["theoretical_occupancy_pct"], ".1f")
    f.set(f"preg_{key}", profiles[kernel]["registers"], ".0f")
    f.set(f"instr_{key}", profiles[kernel]["instructions"] / 1e8, ".1f")
    f.set(f"ffma_share_{key}", ffma_share(profiles[kernel]) * 100, ".1f")
_profile_l4, _profile_l5s, _profile_l5v = profiles[LEVEL4], profiles[LEVEL5_4BYTE], profiles[LEVEL5_16BYTE]
_instructions_drop = 1 - _profile_l5v["instructions"] / _profile_l4["instructions"]
f.set("instr_drop", _instructions_drop * 100, ".0f")
f.set("dur_l4", _profile_l4["duration_ms"], ".3f")
f.set("dur_l5v", _profile_l5v["duration_ms"], ".3f")
f.set("sts_wf_l4", _profile_l4["smem_st_wavefronts"] / 1e6, ".1f")
f.set("sts_conf_l4", _profile_l4["smem_st_bank_conflicts"] / 1e6, ".1f")
f.set("req_ratio", _profile_l5s["global_ld_requests"] / _profile_l5v["global_ld_requests"], ".1f")
f.set("copy_ratio", COPIES_4BYTE / COPIES_16BYTE, ".1f")


def active_stalls(p):
    """Stalls per issued instruction other than Selected and Not Selected (the warp itself waits)."""
    return sum(v or 0 for k, v in p["stalls"].items() if k not in ("Selected", "Not Selected"))


@f.claims
def profile_directions(check):
    l4, l5s, l5v, cublas = _profile_l4, _profile_l5s, _profile_l5v, cublas_profile
    check(max(l4["stalls"]["Long Scoreboard"], l5v["stalls"]["Long Scoreboard"]) < 0.1,
          "본문: Long Scoreboard는 두 커널 모두 거의 0")
    check(_instructions_drop > 0.02, "본문: Level 5가 실행한 명령이 Level 4보다 적다")
    check(cublas["instructions"] > l5v["instructions"], "본문: cuBLAS 커널은 명령을 더 많이 실행하고도 더 빨리 끝낸다")
    check(l5v["issue_active_pct"] < l4["issue_active_pct"] < cublas["issue_active_pct"],
          "본문: 발행 비율은 Level 5 < Level 4 < cuBLAS")
    check(abs(l5v["duration_ms"] / l4["duration_ms"] - 1) < 0.01, "본문: 프로파일러가 잰 시간도 1% 안")
    check(ffma_share(l5v) > ffma_share(cublas) > ffma_share(l4), "본문: FFMA의 몫은 Level 5가 cuBLAS보다도 크고, Level 4가 가장 작다")
    check(l5v["smem_st_wavefronts"] == 0 and l4["smem_st_bank_conflicts"] > 0,
          "본문: Level 5에는 STS가 없고, Level 4의 전치 저장에는 뱅크 충돌이 있다")
    check(l4["theoretical_occupancy_pct"] == l5v["theoretical_occupancy_pct"] == l5s["theoretical_occupancy_pct"],
          "본문: 세 커널의 이론 점유율이 같다")
    check(abs(l5s["global_ld_requests"] / l5v["global_ld_requests"] - COPIES_4BYTE / COPIES_16BYTE) < 0.05,
          "본문: 요청 수의 비가 복사 명령 수의 비와 같다")
    check(l5s["stalls"]["LG Throttle"] > l5v["stalls"]["LG Throttle"], "본문: 4바이트 변형에서 LG Throttle이 더 크다")
    check(l5s["global_ld_sectors"] == l5v["global_ld_sectors"], "본문: 옮긴 섹터 수는 두 변형이 같다")
    check(l5v["stalls"]["Long Scoreboard"] < 0.1, "본문: 2스테이지 링의 Long Scoreboard(wait_group의 기다림 포함)가 거의 0")


@f.claims
def why_issue_active_fell(check):
    """Module 10 works it out: the FMA pipe is issue-active x FFMA share and equal in both; the stall total
    (Selected 1 + Not Selected + active stalls) grew through Not Selected alone, while the active stalls per
    instruction fell: the warps stall and resume together."""
    l4, l5v = _profile_l4, _profile_l5v
    for p in (l4, l5v):
        check(abs(p["issue_active_pct"] * ffma_share(p) - p["fma_pipe_pct"]) < 3,
              f"본문: FMA 파이프가 바쁜 비율 = 발행 활성 × FFMA의 몫 ({p['kernel']})")
    check(abs(l5v["fma_pipe_pct"] - l4["fma_pipe_pct"]) < 2, "본문: FMA 파이프는 두 커널에서 같다")
    check(active_stalls(l5v) < active_stalls(l4) and l5v["stalls"]["Not Selected"] > l4["stalls"]["Not Selected"],
          "본문: 워프마다 멈춘 시간은 늘지 않았고(능동 스톨 감소), 준비된 워프가 몰렸다(Not Selected 증가)")


# --- SASS and resources (sm_90, recorded: book/data/sass_facts.json) ---------------------------------
sass_sm90 = {k: sass.summarize(k, "sm_90") for k in (LEVEL3, LEVEL4, LEVEL5_4BYTE, LEVEL5_16BYTE)}
_s4, _s5s, _s5v = sass_sm90[LEVEL4], sass_sm90[LEVEL5_4BYTE], sass_sm90[LEVEL5_16BYTE]
for key, kernel in (("l3", LEVEL3), ("l4", LEVEL4), ("l5s", LEVEL5_4BYTE), ("l5v", LEVEL5_16BYTE)):
    f.set(f"reg_{key}", sass_sm90[kernel].registers)
f.set("ldgsts_l5s", _s5s.ldgsts)
f.set("ldgsts_l5v", _s5v.ldgsts)
f.set("smem_reported", _s5v.smem_reported, ",")
# The chapter prints the second issue site (a whole tile): destination and source offsets are immediates.
_whole_tile_copies = sass.excerpt(LEVEL5_16BYTE, "sm_90", pattern=r"LDGSTS",
                                  limit=2 * COPIES_16BYTE).splitlines()[COPIES_16BYTE:]
_depbar_lines = sass.excerpt(LEVEL5_16BYTE, "sm_90", pattern=r"DEPBAR", limit=4).splitlines()
# LDG.E.128: Level 5 keeps only the epilogue's reads of C; Level 4 adds its tile loads (the .CONSTANT ones)
_ldg_tile_l4 = _s4.counts.get("LDG.E.128.CONSTANT", 0)
f.set("ldg_l5v", _s5v.ldg_128)
f.set("ldg_l4", _s4.ldg_128)
f.set("ldg_l4_tile", _ldg_tile_l4)
# Level 4 staged 8 floats per thread per tile (two float4); a 32-deep tile would need 32.
f.set("l4_stage_regs", 8)
f.set("l4_stage_regs_bk32", 8 * BK // 8)
# The synchronous fallback below compute capability 8.0 (sm_75)
sass_sm75_16byte = sass.summarize(LEVEL5_16BYTE, "sm_75")


def _barriers(summary):
    return sum(n for op, n in summary.counts.items() if op.startswith("BAR"))


@f.claims
def sass_of_level5(check):
    check({_s5s.ldgsts / COPIES_4BYTE, _s5v.ldgsts / COPIES_16BYTE} == {3.0},
          "본문: 발행 지점 세 곳(프롤로그의 부분 타일과 온전한 타일, 루프)에 타일 하나씩의 복사")
    check(_s5v.ldgdepbar == 2 and _s5v.depbar == 2 and not _s5v.sts_widths, "본문: LDGDEPBAR 2개, DEPBAR 2개, STS 없음")
    check(max(sass_sm90[k].registers for k in (LEVEL4, LEVEL5_4BYTE, LEVEL5_16BYTE)) <= 128,
          "본문: 세 커널 모두 레지스터 128개 이하")
    check(_s5v.smem_static == 0, "본문: 정적 공유 메모리 없음(링은 동적)")
    for offset in (f.off_a_kgroup, f.off_a_rowgroup, f.off_b_row):
        check(any(f"+{offset}]," in line for line in _whole_tile_copies), f"본문: SASS의 LDGSTS 목적지 오프셋 +{offset}")
    check(any(f".64+{f.off_a_ksrc}]" in line for line in _whole_tile_copies[:A_COPIES_PER_TILE]), "본문: 원본 쪽 오프셋 +0x20")
    check(all(line.startswith("LDGSTS.E ") for line in _whole_tile_copies[:A_COPIES_PER_TILE])
          and all(line.startswith("LDGSTS.E.BYPASS.128") for line in _whole_tile_copies[A_COPIES_PER_TILE:]),
          "본문: A 16개는 LDGSTS.E, B 4개는 BYPASS.128")
    check(any("!P" in line for line in _whole_tile_copies), "본문: 줄 끝의 !P 술어")
    check(any(line.startswith("DEPBAR.LE SB0, 0x0") for line in _depbar_lines),
          "본문: wait_group 0은 스코어보드 SB0을 기다리는 DEPBAR.LE SB0, 0x0")
    check(_s5v.lds_widths == {"128": BK * 4}, "본문: LDS.128은 k 스텝 32개 × 4개, 다른 폭의 LDS 없음")
    check(not _s5s.sts_widths, "본문: Level 5의 두 변형 모두 STS가 없다")
    check(_barriers(_s5v) == 1 and _s5s.ldgdepbar == _s5s.depbar == 2, "본문: 배리어는 루프 안의 하나뿐, 커밋과 대기는 두 곳씩")


@f.claims
def level4_against_level5_in_sass(check):
    check(_s4.ldg_128 - _s5v.ldg_128 == _ldg_tile_l4 > 0 and "LDG.E.128.CONSTANT" not in _s5v.counts,
          "본문: Level 4의 LDG.E.128 = 에필로그(Level 5와 같은 수) + 타일 로드(.CONSTANT)")
    check(_ldg_tile_l4 < _s4.ldg_128 / 2, "본문: Level 4의 LDG.E.128도 대부분은 에필로그의 것")
    # The 'same work, two paths' table counts Level 4's tile traffic from the code: per 8-deep tile 2 LDG.E.128,
    # 4 STS + 1 STS.128 and 1 barrier; the SASS has two copies of that (prologue and loop).
    check((_ldg_tile_l4, _s4.sts_widths, _barriers(_s4)) == (2 * 2, {"32": 4 * 2, "128": 1 * 2}, 1 * 2),
          "본문: Level 4는 타일마다 LDG.E.128 2, STS 4 + STS.128 1, BAR 1 (두 곳)")
    check(_s4.registers + 8 * BK // 8 - 8 > 128, "본문: Level 4를 BK 32로 하면 레지스터 상한 128을 넘는다")


@f.claims
def sm75_fallback(check):
    """Below compute capability 8.0: no LDGSTS or DEPBAR; A as 32-bit LDG + STS pairs, B as 128-bit pairs
    (besides the epilogue's LDG.E.128 reads of C)."""
    s75 = sass_sm75_16byte
    check(s75.ldgsts == s75.ldgdepbar == s75.depbar == 0, "본문: sm_75에는 LDGSTS도 DEPBAR도 없다")
    check(s75.ldg_32 == s75.sts_widths.get("32") == 3 * A_COPIES_PER_TILE
          and s75.sts_widths.get("128") == 3 * B_COPIES_PER_TILE_16BYTE == s75.ldg_128 - _s5v.ldg_128,
          "본문: sm_75에서 A는 32비트 LDG + STS 쌍, B는 128비트 쌍")


# The seed's 4-byte .cg helper does not assemble (ptxas wants cp-size 16 with .cg); the kernel ships .ca.
CA_4BYTE = "cp.async.ca.shared.global [%0], [%1], 4, %2;"
CG_4BYTE = sass.variant("async_copy_cg_4byte", "sgemm_async_copy.cu",
                        lambda text: text.replace(CA_4BYTE, CA_4BYTE.replace(".ca.", ".cg.")))
cg_4byte_assembly = sass.assembles(LEVEL5_4BYTE, "sm_90", variant=CG_4BYTE)


@f.claims
def cg_4byte_copy_is_rejected(check):
    from kernels.compiler import expanded_source    # reads the kernel text only (no compiling)

    check(CA_4BYTE in expanded_source(registry.get(LEVEL5_4BYTE).file), "본문: 4바이트 복사 헬퍼는 .ca")
    check(not cg_4byte_assembly["ok"] and cg_4byte_assembly["ptxas"], "본문: 4바이트 .cg 복사는 ptxas가 거부한다")


# --- The ring tuner (async_tuning.json) -------------------------------------------------------------
TUNING_ROWS = [r for r in tuning_record["rows"] if r["kernel"] in (LEVEL5_4BYTE, LEVEL5_16BYTE)]
ring_configs = sorted({(r["BK"], r["STAGES"], r["EARLY_BARRIER"]) for r in TUNING_ROWS})
tuning_sizes = sorted({r["M"] for r in TUNING_ROWS})
# Each bar and table cell is one row of the record, never a mix: a row is named by its kernel, size and the
# three ring defines, and no other define (a micro-kernel setting) may vary between the rows.
RING_DEFINES = {"L5_BK": "BK", "L5_STAGES": "STAGES", "L5_EARLY_BARRIER": "EARLY_BARRIER"}
KEEP_MARGIN = tuning_record["keep_margin"]


def tuning_row(kernel, bk, stages, early, n):
    """The async_tuning.json row of one kernel, ring configuration (BK, STAGES, EARLY_BARRIER) and size."""
    for r in TUNING_ROWS:
        if (r["kernel"], r["BK"], r["STAGES"], r["EARLY_BARRIER"], r["M"]) == (kernel, bk, stages, early, n):
            return r
    raise KeyError((kernel, bk, stages, early, n))


def vs4(kernel, bk, stages, early, n):
    """Speed against Level 4 (Level 4 time / this configuration's time), timed in alternation."""
    return tuning_row(kernel, bk, stages, early, n)["vs_level4"]


def config_label(bk, stages, early):
    return f"BK {bk}, 스테이지 {stages}개" + (", 이른 배리어" if early else "")


def span(values, scale=100, offset=0.0, digits=0):
    """'lo–hi' of (value - offset) * scale, or one number when both round the same."""
    lo, hi = min(values), max(values)
    a, b = f"{(lo - offset) * scale:.{digits}f}", f"{(hi - offset) * scale:.{digits}f}"
    return a if a == b else f"{a}–{b}"


f.set("t_date", str(tuning_record["date"])[:10])
f.set("t_device", tuning_record["device"])
f.set("t_sizes", ", ".join(f"{n}³" for n in tuning_sizes))
f.set("t_configs", len(ring_configs))
f.set("keep_margin", KEEP_MARGIN * 100, ".0f")
CHOSEN = (tuning_record["chosen"]["BK"], tuning_record["chosen"]["STAGES"], tuning_record["chosen"]["EARLY_BARRIER"])
f.set("tune_regs", span([r["registers"] for r in TUNING_ROWS], 1))

THIN = [c for c in ring_configs if c[0] == 8]
DEEP = [c for c in ring_configs if c[0] >= 16]
BK16 = [c for c in ring_configs if c[0] == 16]
_thin_16byte = [vs4(LEVEL5_16BYTE, *c, n) for c in THIN for n in tuning_sizes]
_deep_16byte = [vs4(LEVEL5_16BYTE, *c, n) for c in DEEP for n in tuning_sizes]
f.set("thin_slow", span([1 - v for v in _thin_16byte]))    # "% slower than Level 4"
f.set("deep_lo", (1 - min(_deep_16byte)) * 100, ".1f")
f.set("deep_hi", (max(_deep_16byte) - 1) * 100, ".1f")


def _bk16_stage_spread(n):
    """How far apart the BK 16 rings of two to four stages are (16-byte variant, speed against Level 4)."""
    values = [vs4(LEVEL5_16BYTE, *c, n) for c in BK16]
    return max(values) - min(values)


f.set("bk16_stage_spread", max(_bk16_stage_spread(n) for n in tuning_sizes) * 100, ".1f")
f.set("bk16_stages", f"{min(c[1] for c in BK16)}–{max(c[1] for c in BK16)}")
for n in tuning_sizes:
    f.set(f"v8_2_{n}", vs4(LEVEL5_16BYTE, 8, 2, 0, n), ".3f")
    f.set(f"v16_2_{n}", vs4(LEVEL5_16BYTE, 16, 2, 0, n), ".3f")
    f.set(f"v32_2_{n}", vs4(LEVEL5_16BYTE, 32, 2, 0, n), ".3f")
    f.set(f"v8_3_{n}", vs4(LEVEL5_16BYTE, 8, 3, 0, n), ".3f")
    f.set(f"v8_3e_{n}", vs4(LEVEL5_16BYTE, 8, 3, 1, n), ".3f")
    f.set(f"v32_3e_{n}", vs4(LEVEL5_16BYTE, 32, 3, 1, n), ".3f")
    f.set(f"s32_3e_{n}", vs4(LEVEL5_4BYTE, 32, 3, 1, n), ".3f")
    f.set(f"v16_4e_{n}", vs4(LEVEL5_16BYTE, 16, 4, 1, n), ".3f")
f.set("gain_8_3", span([vs4(LEVEL5_16BYTE, 8, 3, 0, n) - vs4(LEVEL5_16BYTE, 8, 2, 0, n) for n in tuning_sizes],
                      100, 0, 1))
f.set("gain_8_e", span([vs4(LEVEL5_16BYTE, 8, 3, 1, n) - vs4(LEVEL5_16BYTE, 8, 3, 0, n) for n in tuning_sizes],
                      100, 0, 1))
# Same shared memory spent two ways: BK 16 x 4 stages against BK 32 x 2 stages.
_same_smem_gaps = [abs(vs4(LEVEL5_16BYTE, 32, 2, 0, n) - vs4(LEVEL5_16BYTE, 16, 4, 1, n)) for n in tuning_sizes]
f.set("same_smem_gap", span(_same_smem_gaps, 100, 0, 1))
# 16-byte B copies against 4-byte ones.
_gap_deep = [vs4(LEVEL5_16BYTE, *c, n) - vs4(LEVEL5_4BYTE, *c, n) for c in DEEP for n in tuning_sizes]
_gap_thin = [vs4(LEVEL5_16BYTE, *c, n) - vs4(LEVEL5_4BYTE, *c, n) for c in THIN for n in tuning_sizes]
f.set("gap_deep", span(_gap_deep, 100, 0, 0))
# The chosen ring's speed-up is within the keep margin of the best 16-byte configuration.
BEST = max(ring_configs, key=lambda c: min(vs4(LEVEL5_16BYTE, *c, n) for n in tuning_sizes))
f.set("best_label", config_label(*BEST))
f.set("chosen_label", config_label(*CHOSEN))
f.set("chosen_sentence", f"가장 좋은 16바이트 구성이 곧 배포된 구성({config_label(*CHOSEN)})입니다" if BEST == CHOSEN else
      f"가장 좋은 16바이트 구성은 {config_label(*BEST)}이고, 배포된 구성은 {config_label(*CHOSEN)}입니다")
_cublas_main = [r["cublas_ms"] for r in TUNING_ROWS if r["M"] == N_MAIN]
f.set("cublas_spread", (max(_cublas_main) / min(_cublas_main) - 1) * 100, ".0f")


@f.claims
def tuning_record_is_one_row_per_cell(check):
    check(all(set(r["defines"]) == set(RING_DEFINES) and all(r["defines"][d] == r[k] for d, k in RING_DEFINES.items())
              for r in TUNING_ROWS), "async_tuning.json: 링의 세 매크로 말고 다른 설정이 바뀐 행이 없다")
    cells = {(r["kernel"], r["BK"], r["STAGES"], r["EARLY_BARRIER"], r["M"]) for r in TUNING_ROWS}
    check(len(cells) == len(TUNING_ROWS),
          "async_tuning.json: 같은 구성과 크기의 행은 하나뿐이다(표의 칸 하나는 행 하나)")


@f.claims
def tuning_directions(check):
    """The text's reading of the ring tuner's record."""
    check(CHOSEN == (BK, STAGES, RING["EARLY_BARRIER"]), "본문: 조정기의 선택이 배포된 링(registry.LEVEL5)과 같다")
    check(all(r["local_bytes"] == 0 for r in TUNING_ROWS), "본문: 어느 구성도 스필하지 않았다")
    check(all(r["rel_error"] < 1e-5 for r in TUNING_ROWS), "본문: 모든 구성이 검증을 통과했다")
    check(max(r["registers"] for r in TUNING_ROWS) <= 128, "본문: 조정기의 모든 구성이 레지스터 128개 이하(tune_regs)")
    check(max(_thin_16byte) < 0.99, "본문: BK 8의 링은 스테이지 수와 이른 배리어에 관계없이 Level 4보다 느리다")
    check(min(_deep_16byte) > 0.99 and max(_deep_16byte) < 1.01, "본문: BK 16과 32의 16바이트 변형은 모두 Level 4의 ±1% 안")
    check(max(_deep_16byte) - min(_deep_16byte) < KEEP_MARGIN, "본문: 깊은 구성들은 서로 흔들림(2%) 안")
    v5, s5 = LEVEL5_16BYTE, LEVEL5_4BYTE
    for n in tuning_sizes:
        check(_bk16_stage_spread(n) < 0.01, f"본문: BK 16에서 스테이지 수를 바꿔도 1% 안, {n}³")
        check(vs4(v5, 8, 2, 0, n) < vs4(v5, 16, 2, 0, n) < vs4(v5, 32, 2, 0, n), f"본문: 2스테이지에서 BK 8 < 16 < 32, {n}³")
        check(0 <= vs4(v5, 8, 3, 0, n) - vs4(v5, 8, 2, 0, n) < 0.015, f"본문: BK 8에서 셋째 스테이지는 1.5% 미만의 이득, {n}³")
        check(vs4(v5, 8, 3, 1, n) - vs4(v5, 8, 3, 0, n) > 0.02, f"본문: BK 8에서 이른 배리어가 2% 넘게 돕는다, {n}³")
        check(vs4(v5, 32, 3, 1, n) < vs4(v5, 32, 2, 0, n), f"본문: BK 32에 셋째 스테이지와 이른 배리어를 더해도 빨라지지 않는다, {n}³")
        check(vs4(v5, 32, 2, 0, n) - vs4(v5, 32, 3, 1, n) < KEEP_MARGIN,
              f"본문: 그 차이는 조금이고 흔들림(keep_margin) 안이다, {n}³")
        check(vs4(s5, 32, 3, 1, n) < min(vs4(s5, *c, n) for c in DEEP if c != (32, 3, 1)),
              f"본문: 4바이트 변형은 BK 32, 3스테이지에서 가장 느린 깊은 구성, {n}³")
    check(registry.level5_smem({"BK": 16, "STAGES": 4}) == SMEM, "본문: BK 16 × 4스테이지와 BK 32 × 2스테이지는 같은 공유 메모리")
    check(all(gap < KEEP_MARGIN for gap in _same_smem_gaps), "본문: 같은 공유 메모리의 두 배치는 여유(2%) 안에서 같다")
    check(min(_gap_deep) > 0.015, "본문: BK 16 이상에서는 모든 구성에서 16바이트 B 복사가 1.5% 넘게 빠르다")
    check(max(abs(x) for x in _gap_thin) < 0.02, "본문: BK 8에서는 두 변형이 2% 안으로 비슷하다")
    check(all(vs4(v5, *BEST, n) - vs4(v5, *CHOSEN, n) < KEEP_MARGIN for n in tuning_sizes),
          "본문: 배포된 링은 가장 좋은 구성과 여유 안")
    check(max(_cublas_main) / min(_cublas_main) - 1 > 0.02 > bench.cublas_window_spread_pct(N_MAIN) / 100 and tuning_record["device"]
          != bench_provenance["device"] and tuning_record.get("timing") == "median of CUDA-event timings after warm-up" and bench_provenance.get("timing") == timing.PROTOCOL,
          "본문: 다른 장치에서 이전 방식(호출마다 이벤트)으로 잰 조정기 기록에서는 cuBLAS가 창마다 몇 % 흔들렸다(강좌의 방식으로 잰 벤치마크의 창들은 1% 안)")


# --- What one more stage costs: no registers (the tuner's record), shared memory, and where shared memory is
# scarce, resident blocks (kernels.devices' occupancy rule, the configurations in device_configs.json) --------
# A cp.async reads its address and src-size registers when it issues; a committed copy holds none. The tuner's
# rows that differ only in STAGES therefore have the same registers.
_regs_by_ring = {}
for _r in TUNING_ROWS:
    _regs_by_ring.setdefault((_r["kernel"], _r["BK"], _r["EARLY_BARRIER"], _r["M"]), set()).add(_r["registers"])
_deep_regs_16byte = sorted({r["registers"] for r in TUNING_ROWS if r["kernel"] == LEVEL5_16BYTE and r["BK"] >= 16})
f.set("deep_regs_v", "–".join(str(v) for v in _deep_regs_16byte))
device_configs = json.loads((DATA_DIR / "device_configs.json").read_text(encoding="utf-8"))
_configured = {(r["kernel"], r["device"]): r for r in device_configs["rows"]}
_level5_of_class = {name: c["level5"] for c in device_configs["classes"] for name in c["devices"]}
H100, A100 = devices.PROFILES["H100"], devices.PROFILES["A100-40GB"]
# GPUs with 100 KiB of shared memory per SM (RTX 30xx/40xx, A10G, L4)
SMALL_SMEM = [d for d in devices.PROFILES.values() if d.smem_per_sm < A100.smem_per_sm and d.has_cp_async]


def resident_blocks(limits, stages, bk=BK):
    """Level 5 blocks per SM on a listed GPU (its own configured registers, device_configs.json) for a ring of
    `stages` stages of depth `bk`."""
    registers = _configured[(LEVEL5_16BYTE, limits.name)]["registers"]
    smem = registry.level5_smem({"BK": bk, "STAGES": stages})
    return devices.occupancy(limits, THREADS, registers, smem)["blocks_per_sm"]


f.set("smem_3st", registry.level5_smem({"BK": BK, "STAGES": 3}), ",")
f.set("h100_blocks_3", resident_blocks(H100, 3))
f.set("a100_smem_kib", A100.smem_per_sm // 1024)
f.set("a100_blocks_2", resident_blocks(A100, 2))
f.set("a100_blocks_3", resident_blocks(A100, 3))
f.set("small_smem_kib", SMALL_SMEM[0].smem_per_sm // 1024)
f.set("small_blocks_bk32", resident_blocks(SMALL_SMEM[0], 2))
f.set("small_bk", _level5_of_class[SMALL_SMEM[0].name]["BK"])


@f.claims
def what_a_stage_costs(check):
    check(all(len(regs) == 1 for regs in _regs_by_ring.values()),
          "본문: BK와 이른 배리어가 같고 스테이지 수만 다른 구성들은 레지스터 수가 같다(async_tuning.json)")
    check(len(_deep_regs_16byte) == 1, "본문: 16바이트 변형은 BK 16과 32의 모든 링에서 레지스터 수가 하나")
    check({(r["BK"], r["STAGES"]) for r in TUNING_ROWS if r["kernel"] == LEVEL5_16BYTE and r["BK"] >= 16} >= {(16, 2), (16, 4)},
          "본문: 그 링들에는 2스테이지와 4스테이지가 모두 있다")
    check(f.l4_stage_regs_bk32 == str(BK) and BK == 32, "본문: Level 4 방식으로 BK 32 타일 하나를 더 앞서 두면 레지스터 32개")
    check(len(pipeline.async_pipeline_trace(num_stages=3, num_tiles=4).steps)
          - len(pipeline.async_pipeline_trace(num_stages=2, num_tiles=4).steps) == 1
          and sum(s.phase == "prologue" for s in pipeline.async_pipeline_trace(num_stages=3, num_tiles=4).steps) == 2,
          "본문: 프롤로그는 타일 S−1개를 발행한다(스테이지 하나에 프롤로그 한 걸음)")
    check(resident_blocks(H100, 2) == resident_blocks(H100, 3) == 2, "본문: H100에서는 셋째 스테이지를 더해도 블록 두 개")
    check((resident_blocks(A100, 2), resident_blocks(A100, 3)) == (2, 1)
          and devices.occupancy(A100, THREADS, _configured[(LEVEL5_16BYTE, A100.name)]["registers"],
                                registry.level5_smem({"BK": BK, "STAGES": 3}))["limiter"] == "shared memory",
          "본문: A100에서는 셋째 스테이지가 블록을 2개에서 1개로 줄인다(공유 메모리가 제한)")
    check({d.name for d in SMALL_SMEM} == {"RTX3090", "A10G", "L4", "RTX4090"}
          and len({d.smem_per_sm for d in SMALL_SMEM}) == 1,
          "본문: SM당 공유 메모리가 같은(100 KiB) GPU는 RTX 30xx·40xx, A10G, L4")
    for d in SMALL_SMEM:
        check(resident_blocks(d, 2) == 1 and _level5_of_class[d.name]["BK"] < BK
              and resident_blocks(d, _level5_of_class[d.name]["STAGES"], _level5_of_class[d.name]["BK"])
              == registry.LEVEL5_MIN_BLOCKS,
              f"본문: {d.name}에서는 BK 32의 2스테이지 링도 블록 하나뿐이라, 구성은 블록 둘을 지키는 더 얕은 BK")


# --- The two time models: module 9's ring (S−1 copies in flight: latency) and simulation 8 (one load unit:
# loads never overlap, bandwidth). They agree at S = 2 only.
def ring_idle(t_load, t_compute, stages):
    """Idle compute time per tile of an S-stage ring whose S−1 copies are in flight together."""
    return max(0.0, t_load - (stages - 1) * t_compute)


@f.claims
def two_time_models(check):
    for t_load in (150, 450, 600, 900, 1350):
        sim8 = pipeline.double_buffer_schedule(t_load, 450, num_tiles=16, stages=2)
        loads = sim8.loads
        check(sim8.steady_idle_per_tile == ring_idle(t_load, 450, 2), f"본문: 두 모델은 S = 2에서 같다 (T_load {t_load})")
        check(all(a.end <= b.start for a, b in zip(loads, loads[1:])), "본문: 시뮬레이션 8의 로드는 서로 겹치지 않는다")
        check(sim8.steady_time_per_tile >= t_load, "본문: 시뮬레이션 8에서는 타일마다 로드가 T_load씩 줄을 선다")
        # Simulation 8's bandwidth-bound model keeps max(0, T_load - T_compute) for any number of buffers (loads
        # queue on one unit); module 9's latency-bound ring hides (S - 1) tiles of compute.
        for stages in (2, 3, 4):
            agree = ring_idle(t_load, 450, stages) == sim8.steady_idle_per_tile
            check(agree == (stages == 2 or t_load <= 450),
                  f"본문: 두 모델은 S = 2이거나 T_load ≤ T_compute일 때 같고, S ≥ 3에서 로드가 더 길 때만 갈린다 "
                  f"(T_load {t_load}, S = {stages})")
    check(ring_idle(600, 450, 3) < pipeline.double_buffer_schedule(600, 450, stages=2).steady_idle_per_tile,
          "본문: S = 3이면 두 모델의 답이 다르다")


# --- The tail tests (tests/test_kernels_gpu.py::test_pipeline_tails): kernels, shape and K values -----
TAIL_TEST_FILE = Path(__file__).resolve().parents[2] / "tests" / "test_kernels_gpu.py"
# A copy of the course without its tests: the values of the test file when this chapter was written.
_TAIL_TEST_AS_WRITTEN = (None, [1, 3, 4, 8, 12, 16, 24, 31, 32, 33, 40, 63, 64, 65, 96, 97, 128, 129, 200], 130, 260)


def _tail_test_parameters():
    """(kernels, K values, M, N) of test_pipeline_tails, or None where its text no longer reads as expected."""
    test = re.search(r'parametrize\("name", \[([^\]]*)\]\)\s*def test_pipeline_tails\(name\):(.*?)\n\n',
                     TAIL_TEST_FILE.read_text("utf-8"), re.S)
    ks = test and re.search(r"for K in \(([\d,\s]+)\)", test.group(2))
    shape = test and re.search(r"check\(name, (\d+), (\d+), K", test.group(2))
    if not (test and ks and shape):
        return None
    return (set(re.findall(r'"(sgemm_\w+)"', test.group(1))), [int(x) for x in ks.group(1).split(",") if x.strip()],
            int(shape.group(1)), int(shape.group(2)))


_tail_test_read = _tail_test_parameters() if TAIL_TEST_FILE.exists() else None
TAIL_KERNELS, tail_test_ks, TAIL_M, TAIL_N = _tail_test_read or _TAIL_TEST_AS_WRITTEN
f.set("tail_ks", ", ".join(map(str, tail_test_ks)))
f.set("tail_k_count", len(tail_test_ks))
f.set("tail_shape", f"{TAIL_M}×{TAIL_N}")
_tail_tiles = sorted({-(-k // BK) for k in tail_test_ks})
f.set("tail_tiles", f"{_tail_tiles[0]}–{_tail_tiles[-1]}")
f.set("tail_partial", len([k for k in tail_test_ks if k % BK]))


@f.claims
def tail_tests(check):
    check(_tail_test_read is not None or not TAIL_TEST_FILE.exists(),
          "본문: tests/test_kernels_gpu.py의 test_pipeline_tails에서 커널, 모양, K 값을 읽었다")
    if TAIL_KERNELS is not None:
        check(TAIL_KERNELS == {LEVEL4, LEVEL5_4BYTE, LEVEL5_16BYTE, LEVEL6},
              "본문: 꼬리 테스트는 두 Level 5 변형과 Level 4, Level 6을 돌린다")
    check(_tail_tiles[0] == 1, "본문: 타일 하나뿐인 K도 검사한다")


# --- The source material's loop replayed by the pipeline model (sims.pipeline) ----------------------
SEED = pipeline.async_pipeline_trace(num_stages=3, num_tiles=8, empty_commits=False, mode="seed")
seed_main_steps = {s.index: s for s in SEED.steps if s.phase == "main"}
_k5, _k6 = seed_main_steps[5], seed_main_steps[6]
f.set("k5_compute", str(_k5.compute_buffer))
f.set("k5_tile", str(_k5.prefetch_tile))
f.set("k5_dest", str(_k5.prefetch_buffer))
f.set("k5_guarantee", _k5.guarantee_text.split(" → ")[-1])
f.set("k5_pending", ", ".join(group.label for group in _k5.pending_after_wait))
f.set("seed_hazard_kts", ", ".join(map(str, SEED.hazard_iterations)))
f.set("k6_committed", str(len(_k6.committed)))
f.set("k6_guarantee", _k6.guarantee_text.split(" → ")[-1])
SHIPPED_TWO_STAGES = pipeline.async_pipeline_trace(num_stages=STAGES, num_tiles=8, empty_commits=False, mode="shipped")


@f.claims
def shipped_ring_is_safe(check):
    check(SHIPPED_TWO_STAGES.is_safe, "본문: 2스테이지 링은 빈 그룹 커밋이 없어도 안전하다(wait_group 0)")


# --- The quiz's words (course/quiz/banks/m09.yaml): the recorded numbers its questions quote ---------------
@f.claims
def quiz_numbers(check):
    naive, tiled, padded = profile("sgemm_naive"), profile("sgemm_tiled"), profile("sgemm_tiled_padded")
    check(f"{naive['sectors_per_request']:.1f}" == "2.0" and "2.0" in quiz_text(9, "m09-q01"), "퀴즈 m09-q01: 나이브 커널 2.0")
    q2 = quiz_text(9, "m09-q02")
    check(f"패딩 없이 {tiled['smem_st_wavefronts_per_instruction']:.2f}, +1 패딩을 하면 "
          f"{padded['smem_st_wavefronts_per_instruction']:.2f}" in q2, "퀴즈 m09-q02: 저장 wavefront 1.07과 2.03")
    check(padded["duration_ms"] > tiled["duration_ms"]
          and f"{tiled['smem_static']:,.0f} B에서 {padded['smem_static']:,.0f} B" in q2,
          "퀴즈 m09-q02: 패딩한 커널이 느렸다, 2,048 → 2,176 B")
    registers_3_to_5 = [p["registers"] for p in profile_record["kernels"] if p["level"] in (3, 4, 5)]
    check(f"{min(registers_3_to_5):.0f}~{max(registers_3_to_5):.0f}개" in quiz_text(9, "m09-q03")
          and max(registers_3_to_5) <= 128 and min(registers_3_to_5) > 80,
          "퀴즈 m09-q03: Level 3~5 커널의 레지스터 104~127개(모두 81~128 구간)")
    q9 = quiz_text(9, "m09-q09")
    check(f"이미 {_profile_l4['registers']:.0f}개인 커널" in q9 and f"{SMEM:,} B" in q9,
          "퀴즈 m09-q09: Level 4 레지스터 127개, 66,560 B")
    q10 = quiz_text(9, "m09-q10")
    stage_bytes = BK * (PITCH_A + BN) * 4
    check(all(f"{v:,}" in q10 for v in (stage_bytes, 3 * stage_bytes, 6 * stage_bytes, 228 * 1024)),
          "퀴즈 m09-q10: 33,280 B, 99,840 B, 199,680 B, 233,472 B")
    check(all(_bk16_stage_spread(n) < 0.01 for n in tuning_sizes)
          and all(vs4(LEVEL5_16BYTE, 32, 3, 1, n) < vs4(LEVEL5_16BYTE, 32, 2, 0, n) for n in tuning_sizes),
          "퀴즈 m09-q10: BK 16의 2–4스테이지는 1% 안, BK 32에 셋째 스테이지(이른 배리어)를 더하면 2스테이지보다 빠르지 않다(흔들림 안)")
    check("레지스터는 들지 않는다" in q10 and "술어를 들고 있을 레지스터" not in q10
          and f"모든 링에서 {f.deep_regs_v}개" in q10 and all(len(regs) == 1 for regs in _regs_by_ring.values()),
          "퀴즈 m09-q10: 스테이지는 레지스터를 들이지 않는다(스테이지 수만 다른 구성의 레지스터가 같다, 125개)")
    check("A100이면 두 블록이 하나로" in q10 and (resident_blocks(A100, 2), resident_blocks(A100, 3)) == (2, 1)
          and "164 KiB인 A100" in q10 and A100.smem_per_sm == 164 * 1024,
          "퀴즈 m09-q10: A100(SM당 164 KiB)에서는 셋째 스테이지가 블록을 둘에서 하나로 줄인다")


# --- Per-instruction stall samples of the 16-byte variant (book/data/source_stalls.json, Nsight Compute source page)
source_stalls_record = json.loads((DATA_DIR / "source_stalls.json").read_text(encoding="utf-8"))
_source_16byte = next(k for k in source_stalls_record["kernels"] if k["kernel"] == LEVEL5_16BYTE)
_loop_wait = max(_source_16byte["depbar"], key=lambda d: d["next_samples"])     # the wait inside the main loop
_long_scoreboard_samples = _source_16byte["stall_totals"]["stall_long_sb"]
f.set("src_date", source_stalls_record["date"][:10])
f.set("src_samples", _source_16byte["samples"], ",")
f.set("src_after_wait_lsb", _loop_wait["next_long_scoreboard"], ",")
f.set("src_after_wait_pct", 100 * _loop_wait["next_long_scoreboard"] / _source_16byte["samples"], ".2f")
f.set("src_lsb", _long_scoreboard_samples, ",")
f.set("src_lsb_pct", _source_16byte["long_scoreboard_share_pct"], ".1f")
_near_ldgsts = _source_16byte["long_scoreboard_within_2_after_ldgsts"]     # samples within 2 instructions after LDGSTS
f.set("src_lsb_near_ldgsts_pct", 100 * _near_ldgsts / _long_scoreboard_samples, ".0f")


@f.claims
def source_stalls(check):
    check(_loop_wait["instruction"].startswith("DEPBAR.LE SB0") and _loop_wait["next"].startswith("BAR.SYNC"),
          "본문: 루프 안의 DEPBAR.LE SB0 바로 다음은 BAR.SYNC")
    check(0 < _loop_wait["next_long_scoreboard"] < 0.001 * _source_16byte["samples"],
          "본문: 대기 다음 명령의 Long Scoreboard 샘플은 있지만 전체의 0.1%도 안 된다")
    check(_source_16byte["long_scoreboard_share_pct"] < 3, "본문: 커널 전체의 Long Scoreboard도 몇 %가 안 된다")
    check(_near_ldgsts > 0.8 * _long_scoreboard_samples,
          "본문: Long Scoreboard 샘플 대부분은 LDGSTS 바로 뒤 두 명령 안")


# What the Long Scoreboard samples right after LDGSTS wait for: LDGSTS writes no register, so an instruction
# there that overwrites a register an LDGSTS reads as its address waits for the copy to read it (WAR).
_REGISTER = re.compile(r"\bR(\d+)\b")
_top_after_copy = [t for t in _source_16byte["top_long_scoreboard"] if t["previous"].startswith("LDGSTS")
                   or t["instruction"].split()[0].startswith(("IMAD", "IADD3", "LDS"))]


def _destination(instruction: str) -> str:
    """'IMAD.WIDE R100, R94, 0x20, R104' -> 'R100' (the first operand)."""
    return instruction.split(None, 1)[1].split(",")[0].strip()


def _ldgsts_address_registers() -> set[str]:
    """Registers that the recorded LDGSTS instructions read as their global address ([R100.64+0x40] -> R100)."""
    found = set()
    for t in _source_16byte["top_long_scoreboard"]:
        for text in (t["instruction"], t["previous"]):
            if text.startswith("LDGSTS"):
                found |= {f"R{m}" for m in re.findall(r"\]\[R(\d+)\.64", text)}
    return found


_war_example = next(t for t in _top_after_copy
                    if _destination(t["instruction"]) in _ldgsts_address_registers()
                    and not t["instruction"].startswith("LDS"))
_by_opcode = _source_16byte["long_scoreboard_by_opcode"]
_war_opcodes = [op for op, n in sorted(_by_opcode.items(), key=lambda kv: -kv[1]) if n > 0.1 * _long_scoreboard_samples]
f.set("src_war_ops", ", ".join(_war_opcodes))
f.set("src_war_inst", _war_example["instruction"])
f.set("src_war_reg", _destination(_war_example["instruction"]))
f.set("src_bar_pct", 100 * _source_16byte["stall_totals"]["stall_barrier"] / _source_16byte["samples"], ".1f")


@f.claims
def long_scoreboard_after_copies_is_war(check):
    check(all(not op.startswith(("LDGSTS", "DEPBAR")) for op in _war_opcodes) and len(_war_opcodes) >= 2,
          "본문: LDGSTS 뒤 Long Scoreboard 샘플을 받는 명령은 IMAD, LDS 같은 평범한 명령")
    check(sum(_by_opcode.get(op, 0) for op in _war_opcodes) > 0.8 * _long_scoreboard_samples,
          "본문: 그 명령들이 Long Scoreboard 샘플 대부분을 차지한다")
    check(_destination(_war_example["instruction"]) in _ldgsts_address_registers(),
          "본문: 샘플이 많은 명령 하나는 LDGSTS가 주소로 읽는 레지스터를 덮어쓴다(WAR)")
    check(_source_16byte["stall_totals"]["stall_barrier"] > 3 * _long_scoreboard_samples,
          "본문: 명령별 샘플에서 Barrier가 Long Scoreboard보다 훨씬 많다")


@f.absence("Level 4의 명령별 샘플은 기록에 없어서")
def no_source_samples_for_level4(check):
    check(LEVEL4 not in {k["kernel"] for k in source_stalls_record["kernels"]},
          "본문: source_stalls.json에 Level 4의 명령별 샘플이 없다")


@f.absence("두 변경을 따로 잰 기록은 없습니다")
def early_barrier_and_fragment_buffers_not_separated(check):
    knobs = {name for r in TUNING_ROWS for name in (r.get("defines") or {})}
    check(knobs <= {"L5_BK", "L5_STAGES", "L5_EARLY_BARRIER"},
          f"본문: 조정기는 배리어 위치와 조각 두 벌을 따로 바꾸지 않는다 (기록의 매크로: {sorted(knobs)})")
    check(any(r["EARLY_BARRIER"] for r in TUNING_ROWS), "본문: 이른 배리어 변형은 기록에 있다")


@f.claims
def cublas_windows_spread(check):
    s4096, s1024 = bench.cublas_window_spread_pct(N_MAIN), bench.cublas_window_spread_pct(1024)
    check(max(s4096, s1024) < 1, "본문: 창마다 잰 cuBLAS 시간이 4096³에서도 1024³에서도 1% 안에서 일치한다")
    for n in (N_MAIN, N_BIG):
        check(abs(bench_rows[(LEVEL5_16BYTE, n)]["pct_cublas"] - bench_rows[(LEVEL4, n)]["pct_cublas"]) < 1,
              f"본문: Level 4와 16바이트 변형의 비율은 {n}³에서 1%포인트도 차이 나지 않는다(창 사이 어긋남과 같은 크기)")


@f.claims
def quiz_padded_level2(check):
    """m09-q02: the padded Level 2 is slower mainly because it loses LDS.128 (more load instructions), not
    because of its new store conflict; the numbers the question quotes come from profiles.json."""
    tiled, padded = profile("sgemm_tiled"), profile("sgemm_tiled_padded")
    q2 = quiz_text(9, "m09-q02")
    eok = lambda x: f"{x / 1e8:.1f}억"
    for value in (tiled["smem_ld_instructions"], padded["smem_ld_instructions"], tiled["smem_ld_wavefronts"],
                  padded["smem_ld_wavefronts"], tiled["smem_st_wavefronts"], padded["smem_st_wavefronts"]):
        check(eok(value) in q2, f"퀴즈 m09-q02: {eok(value)}")
    check(f"{tiled['duration_ms']:.2f} ms에서 {padded['duration_ms']:.2f} ms로" in q2, "퀴즈 m09-q02: 시간")
    ld_gain = padded["smem_ld_instructions"] / tiled["smem_ld_instructions"] - 1
    check(round(100 * ld_gain) == 60 and "60%" in q2 and abs(32 / 20 - 1 - ld_gain) < 1e-6,
          "퀴즈 m09-q02: 로드 명령 +60% = LDS 20번 → 32번 (A를 LDS.128 하나 대신 32비트 네 번)")
    ld_extra = padded["smem_ld_wavefronts"] - tiled["smem_ld_wavefronts"]
    st_extra = padded["smem_st_wavefronts"] - tiled["smem_st_wavefronts"]
    check(f"{ld_extra / 1e8:.1f}억" in q2 and f"{st_extra / 1e8:.1f}억" in q2 and 3.5 < ld_extra / st_extra < 4.5,
          "퀴즈 m09-q02: 로드 wavefront +10.7억이 저장 +2.6억의 네 배쯤")
    check(ld_extra > 1e9 and "10억 개 넘게" in q2, "퀴즈 m09-q02 (c): 로드 wavefront가 10억 개 넘게 늘었다")
    check(f"{padded['smem_ld_wavefronts_per_instruction']:.2f}" == "1.00"
          and f"{tiled['smem_ld_wavefronts_per_instruction']:.2f}" in q2,
          "퀴즈 m09-q02: 패딩한 커널의 로드에는 충돌이 없다(1.00), 패딩 없는 커널 1.20")
    check(8 < tiled["smem_ld_instructions"] / tiled["smem_st_instructions"] <= 10,
          "퀴즈 m09-q02: 저장 명령은 로드 명령의 10분의 1")
    # Half-warp model (models-wavefronts): a conflict-free LDS.128 costs 2, a 32-bit LDS 1; per 16 k the
    # unpadded kernel issues 4 LDS.128 (A) and 16 LDS (B): the mean 1.20 is not a conflict.
    model_mean = (4 * 2 + 16 * 1) / 20
    check(f"{tiled['smem_ld_wavefronts_per_instruction']:.2f}" == f"{model_mean:.2f}"
          and f"(4 × 2 + 16) / 20 = {model_mean:.2f}" in q2
          and tiled["smem_ld_bank_conflicts"] < 0.01 * tiled["smem_ld_instructions"],
          "퀴즈 m09-q02: 패딩 없는 커널의 1.20은 충돌이 아니라 LDS.128(2)과 LDS(1)의 평균, 충돌 카운터도 거의 0")


@f.absence("측정된 적이 없습니다")
def source_ranges_never_measured_here(check):
    devices = [bench_provenance["device"], profile_record["device"], tuning_record["device"],
               source_stalls_record["device"]]
    check(all("A100" not in d for d in devices), f"본문: 원 자료의 A100 범위를 잰 기록이 없다 (기록된 장치: {devices})")


# --- The micro-kernel's A read from As[k][m] (pitch BM + 4), under the course's half-warp model (models-lds128)
def _micro_kernel_a_read(k: int, half: int) -> banks.BankRequest:
    """Warp 0 of the 16x16 block (tx = lane % 16, ty = lane // 16): each lane reads the float4 As[k][ty*4 + 64*half]."""
    threads = []
    for lane in range(32):
        tx, ty = lane % 16, lane // 16
        first = k * PITCH_A + ty * 4 + 64 * half
        threads.append(banks.ThreadBankAccess(lane, tx, ty, k, ty * 4 + 64 * half, tuple(range(first, first + 4))))
    return banks.summarize(threads, 16, PITCH_A)


@f.claims
def micro_kernel_a_read_is_a_broadcast(check):
    requests = [_micro_kernel_a_read(k, half) for k in range(BK) for half in (0, 1)]
    check(all(len(p.tids) == 16 and p.distinct_words == 4 and p.wavefronts == 1
              for r in requests for p in r.passes),
          "본문: 마이크로 커널의 A 읽기는 반 워프 16레인이 같은 float4 하나를 읽는 브로드캐스트(충돌 없음)")
    check(all(not r.misaligned_tids for r in requests), "본문: 피치 132에서 A의 float4는 모두 16 B 정렬")



# --- The device table behind the chapter's sentences on other GPUs (kernels.devices, device_configs.json) --------
T4 = devices.PROFILES["T4"]
SCHEDULERS_PER_SM = 4                      # warp schedulers (SMSPs) per SM on every GPU the course lists
f.set("h100_smem_kib", H100.smem_per_sm // 1024, "d")
f.set("h100_max_warps", H100.max_threads_per_sm // 32, "d")
f.set("t4_smem_kib", T4.smem_per_sm // 1024, "d")
f.set("t4_bk", _level5_of_class[T4.name]["BK"], "d")
f.set("lanes_smsp", profile_record["fp32_lanes_per_sm"] // SCHEDULERS_PER_SM, "d")     # the profiled device


@f.claims
def other_gpus(check):
    check(H100.smem_per_sm == 228 * 1024 and 2 * (SMEM + H100.smem_reserved_per_block) < H100.smem_per_sm,
          "본문: H100의 SM에는 228 KiB, 링 두 개가 함께 올라간다")
    check(100 * 16 / (H100.max_threads_per_sm // 32) == 25.0, "사전 복습 2: 워프 16개는 H100의 SM(최대 64워프)에서 25%")
    t4_class = next(c for c in device_configs["classes"] if T4.name in c["devices"])
    check(not T4.has_cp_async and not t4_class["cp_async"] and t4_class["level5"]["BK"] < BK
          and _configured[(LEVEL5_16BYTE, T4.name)]["blocks_per_sm"] == registry.LEVEL5_MIN_BLOCKS
          and devices.occupancy(T4, THREADS, _configured[(LEVEL5_16BYTE, T4.name)]["registers"],
                                registry.level5_smem({"BK": 16, "STAGES": 2}))["blocks_per_sm"] < registry.LEVEL5_MIN_BLOCKS,
          "본문: T4에는 cp.async가 없어 동기 폴백이 돌고, 블록 둘을 지키는 BK 8의 링을 쓴다(BK 16이면 한 블록)")
    check(profile_record["compute_capability"] == "9.0" and profile_record["fp32_lanes_per_sm"] // SCHEDULERS_PER_SM == 32,
          "본문: 프로파일한 장치는 스케줄러마다 FP32 레인 32개(워프의 FFMA 하나가 한 사이클에 FMA 파이프를 채운다)")


# --- The 4-byte A copy's banks under three pitches (the chapter's cell copy_banks), and module 7's +1 variant ------
def copy_banks(pitch: int, warp: int = 0) -> list[int]:
    """Bank of each lane's 4-byte A copy: lane l copies row warp*4 + l//8, k = l % 8 into As[k][m]."""
    return [((lane % 8) * pitch + warp * 4 + lane // 8) % 32 for lane in range(32)]


def _busiest(pitch: int) -> int:
    return max(copy_banks(pitch, w).count(b) for w in range(WARPS) for b in range(32))


_padded_level3 = sass.summarize("sgemm_register_blocking_padded", "sm_90")
f.set("pad1_banks", len(set(copy_banks(BM + 1))), "d")
f.set("pad1_ways", _busiest(BM + 1), "d")
f.set("rb_lds128", sass_sm90[LEVEL3].lds_widths.get("128", 0), "d")
f.set("pad_lds_mix", ", ".join(f"{w}비트 {n}개" for w, n in
                               sorted(_padded_level3.lds_widths.items(), key=lambda kv: -int(kv[0]))))


@f.claims
def a_copy_banks_by_pitch(check):
    check(_busiest(BM) == 8 and len(set(copy_banks(BM))) == 4, "본문: 피치 128이면 뱅크 4개에 8개씩(8-way)")
    check(_busiest(BM + 1) == 4 and len(set(copy_banks(BM + 1))) == 11,
          "본문: +1 패딩은 뱅크를 11개로 흩을 뿐 4-way 충돌이 남는다")
    check(_busiest(PITCH_A) == 1, "본문: +4 패딩이면 32레인이 32뱅크에 하나씩")
    check(0 < _padded_level3.lds_widths.get("128", 0) < sass_sm90[LEVEL3].lds_widths["128"]
          and set(_padded_level3.lds_widths) - {"128"},
          "본문: 모듈 7의 패딩 변형(피치 129)에서는 LDS.128 일부가 더 좁은 읽기로 쪼개졌다")
    from kernels import registry as _registry
    check(_registry.get("sgemm_register_blocking_padded").static_smem == 2 * 8 * (BM + 1) * 4,
          "본문: 모듈 7의 패딩 변형은 피치 129")


@f.absence("`LDGSTS`가 쓰는 쪽의 충돌은 기록된 카운터로 따로 재지 않았습니다")
def ldgsts_store_conflicts_not_recorded(check):
    l5v = profiles[LEVEL5_16BYTE]
    check(l5v["smem_st_wavefronts"] == 0 and l5v["smem_st_bank_conflicts"] == 0,
          "본문: 공유 메모리 저장 카운터는 LDGSTS의 쓰기를 세지 않는다(Level 5에서 0)")
    check(not any("ldgsts" in k and ("conflict" in k or "wavefront" in k) for k in l5v),
          "본문: profiles.json에 LDGSTS의 공유 메모리 쪽 충돌 카운터가 없다")


@f.absence("A를 행 우선으로 두는 두 배치는 이 강좌에서 재지 않았습니다")
def row_major_a_not_measured(check):
    level5_names = {r["kernel"] for r in bench.rows if r["kernel"].startswith("sgemm_async")}
    level5_names |= {r["kernel"] for r in TUNING_ROWS} | {k["kernel"] for k in profile_record["kernels"]
                                                          if k["kernel"].startswith("sgemm_async")}
    check(level5_names == {LEVEL5_4BYTE, LEVEL5_16BYTE},
          f"본문: 기록된 Level 5 커널은 A를 전치하는 두 변형뿐이다 ({sorted(level5_names)})")
    check(all(set(r["defines"]) <= set(RING_DEFINES) for r in TUNING_ROWS), "본문: 조정기는 A의 배치를 바꾸지 않는다")


_level4_sass_variants = {key.split("|")[3] for key in json.loads((DATA_DIR / "sass_facts.json").read_text("utf-8"))["answers"]
                         if key.split("|")[1] == LEVEL4}
_variant_record = json.loads((DATA_DIR / "variants.json").read_text(encoding="utf-8"))


@f.absence("BK 32의 Level 4는 컴파일하거나 잰 기록이 없습니다")
def level4_bk32_not_built(check):
    check(_level4_sass_variants <= {"-", "level4_old_loop", "level4_old_loop_lb2", "level4_peeled_only"},
          f"본문: SASS 기록의 Level 4 변형에 BK를 바꾼 것이 없다 ({sorted(_level4_sass_variants)})")
    check(all(r["variant"].startswith(("level4_old_loop", "level3")) for r in _variant_record["rows"]),
          "본문: variants.json에 BK를 바꾼 Level 4가 없다")
    check(all(r["kernel"] != LEVEL4 or r.get("defines") in (None, {}) for r in bench.rows),
          "본문: benchmarks.json의 Level 4는 배포된 BK 8뿐이다")


@f.claims
def where_the_tail_race_falls(check):
    """'일반적으로 스테이지가 S개면 마지막 S−1개 반복이 위험합니다' (the source's order), and the shipped order without
    empty commits: '마지막 S−2번의 반복에서 커밋 횟수가 모자라고'."""
    for stages in (3, 4):
        seed = pipeline.async_pipeline_trace(num_stages=stages, num_tiles=8, empty_commits=False, mode="seed")
        check(seed.hazard_iterations == list(range(8 - (stages - 1), 8)),
              f"본문: 원 자료의 순서는 마지막 S−1개 반복이 위험하다 (S = {stages})")
        shipped = pipeline.async_pipeline_trace(num_stages=stages, num_tiles=8, empty_commits=False, mode="shipped")
        check(shipped.hazard_iterations == list(range(8 - (stages - 2), 8)),
              f"본문: 강좌의 순서에서 커밋을 if 안에 넣으면 마지막 S−2번의 반복이 위험하다 (S = {stages})")



@f.absence("BK 8 구성을 프로파일한 기록은 없어서")
def thin_rings_not_profiled(check):
    """m09-q09 (e): why BK 8 is slower rests on the tuner's times; no BK 8 ring was profiled."""
    level5_profiles = [k for k in profile_record["kernels"] if k["kernel"].startswith("sgemm_async")]
    check(all(not k.get("defines") for k in level5_profiles) and RING["BK"] != 8,
          "퀴즈 m09-q09: 프로파일된 Level 5는 배포된 링(BK 32)뿐이다")
    check(all(0 <= vs4(LEVEL5_16BYTE, 8, 3, 0, n) - vs4(LEVEL5_16BYTE, 8, 2, 0, n) < 0.015 for n in tuning_sizes)
          and "1% 남짓" in quiz_text(9, "m09-q09"),
          "퀴즈 m09-q09: BK 8에 셋째 스테이지를 더해도 1% 남짓")


@f.absence("제안한 구성 그 자체(BK 32, 3스테이지, 이른 배리어 없음)는 조정기가 재지 않았다")
def proposed_ring_not_timed(check):
    check((32, 3, 0) not in ring_configs and (32, 3, 1) in ring_configs,
          "퀴즈 m09-q10: 조정기는 BK 32, 3스테이지를 이른 배리어와 함께만 쟀다")
