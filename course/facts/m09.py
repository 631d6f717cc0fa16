"""Facts of module 9 (m09_async_copy.md): the final-checkpoint rule, the recorded benchmark (with the
level-against-level pairs timed in alternation and the awkward shapes), the Nsight Compute profile, the
ring tuner's configurations, the SASS and copy counts of Levels 4 and 5, and the pipeline model's replay
of the source material's loop. The asserts guard the chapter's directional sentences ("본문: ...")."""
from __future__ import annotations

import json
import re
from pathlib import Path

from course.facts import Facts
from course.page import recorded
from course.settings import load_settings
from kernels import registry, sass
from kernels.record import DATA_DIR
from sims import pipeline

f = Facts("m09")

REC = recorded()
BPROV = REC.provenance
PROF = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
TUNE = json.loads((DATA_DIR / "async_tuning.json").read_text(encoding="utf-8"))
N_MAIN, N_BIG = 4096, 8192
L3, L4, L5S, L5V, L6 = ("sgemm_register_blocking", "sgemm_double_buffer", "sgemm_async_copy",
                        "sgemm_async_copy_vec", "sgemm_warp_tiling")
RING = registry.LEVEL5                      # the shipped ring: BK, STAGES, EARLY_BARRIER


def g(key, value):
    """One value for the text (shown with {eval}`f.key`)."""
    f[key] = value


def pct(x, digits=1):
    return f"{x:.{digits}f}"


def bench(kernel, n=N_MAIN):
    row = REC.at(kernel, n)
    if row is None:
        raise KeyError(f"benchmarks.json에 {kernel} ({n}³) 행이 없습니다")
    return row


def pair(new, old, n):
    """Level-against-level speed-up (old time / new time), the two timed in direct alternation."""
    for row in BPROV.get("pairs", []):
        if row["new"] == new and row["old"] == old and row["M"] == row["N"] == row["K"] == n:
            return row["speedup"]
    raise KeyError(f"benchmarks.json의 pairs에 {new} 대 {old} ({n}³)가 없습니다")


def awkward(kernel, shape):
    for row in BPROV.get("awkward_rows", []):
        if row["kernel"] == kernel and (row["M"], row["N"], row["K"]) == shape:
            return row
    raise KeyError(f"benchmarks.json의 awkward_rows에 {kernel} {shape}가 없습니다")


def prof(kernel):
    for row in PROF["kernels"]:
        if row["kernel"] == kernel:
            return row
    raise KeyError(f"profiles.json에 {kernel} 항목이 없습니다")


# --- Final checkpoint: the pass mark comes from the course settings (instructors may change it) -----
SETTINGS = load_settings()
CP = SETTINGS.checkpoint(9)
g("cp_rule", CP.rule_text)
g("cp_pass", str(CP.pass_count))
g("cp_total", str(CP.question_count))
UNLOCKS = sorted(m for m, req in SETTINGS.gates.items() if req == 9)
_TITLES = {10: "프로파일링과 루프라인", 11: "보너스, cuBLAS를 넘어서"}
g("cp_unlocks", ", ".join(f"모듈 {m}({_TITLES[m]})" if m in _TITLES else f"모듈 {m}" for m in UNLOCKS or [10]))

# --- The shipped ring (registry.LEVEL5, the kernel's defaults) --------------------------------------
BM = BN = 128
THREADS, WARPS = 256, 8
BK, STAGES = RING["BK"], RING["STAGES"]
PITCH_A = BM + 4
SMEM = registry.level5_smem(RING)
assert SMEM == STAGES * BK * (PITCH_A + BN) * 4 == registry.get(L5V).dynamic_smem, "본문: 고리의 바이트 계산"
assert SMEM > 48 * 1024 and 2 * SMEM < 228 * 1024, "본문: 정적 한도 48 KiB를 넘고, 두 블록은 SM의 228 KiB에 들어간다"
g("bk", BK)
g("stages", STAGES)
g("prologue_tiles", STAGES - 1)
g("wait_n", STAGES - 2)
g("pitch_a", PITCH_A)
g("smem", f"{SMEM:,}")
g("smem_stage", f"{SMEM // STAGES:,}")
g("smem_two_blocks", f"{2 * SMEM:,}")
g("smem_kib", f"{SMEM / 1024:.0f}")
# Copies of one K tile per thread (TileCopier): A in 4-byte copies, B in 16-byte (vec) or 4-byte ones.
A_COPIES = BM * BK // 32 // WARPS
B_COPIES_V = BK * (BN // 4) // THREADS
B_COPIES_S = BK * BN // THREADS
g("a_copies", A_COPIES)
g("b_copies_v", B_COPIES_V)
g("b_copies_s", B_COPIES_S)
g("copies_v", A_COPIES + B_COPIES_V)
g("copies_s", A_COPIES + B_COPIES_S)
g("fma_per_tile", f"{BK * 64:,}")
g("l4_tiles_per_l5", BK // 8)
assert not RING["EARLY_BARRIER"] and STAGES == 2, "본문: 출시된 고리는 2단, 이른 배리어 없음, wait_group 0"
assert (BK, STAGES, SMEM) == (32, 2, 66_560), "본문: 수식 2 × 32 × (132 + 128) × 4 = 66,560 B, 'Level 4의 네 배인 깊이'"
# Where the copies land (TileCopier): the SASS shows these as immediate offsets of the destination.
A_ROW_STEP = 4 * WARPS                    # rows between a thread's row groups of A
B_ROW_STEP = THREADS // (BN // 4)         # rows between a thread's 16-byte B copies
g("a_row_step", A_ROW_STEP)
g("b_row_step", B_ROW_STEP)
g("off_a_kgroup", f"{8 * PITCH_A * 4:#x}")
g("off_a_rowgroup", f"{A_ROW_STEP * 4:#x}")
g("off_b_row", f"{B_ROW_STEP * BN * 4:#x}")
g("off_a_ksrc", f"{8 * 4:#x}")
assert registry.LEVEL6["TM"] == 8 and registry.LEVEL6["TN"] == 16, "본문: Level 6의 스레드 타일은 8×16"

# --- Benchmarks (benchmarks.json) -------------------------------------------------------------------
B = {(k, n): bench(k, n) for k in (L3, L4, L5S, L5V, L6, "cublas") for n in (N_MAIN, N_BIG)}
g("device", BPROV["device"])
g("b_date", str(BPROV["date"])[:10])
g("tf32", BPROV.get("tf32", "off"))
g("cublas_ms", f"{B[('cublas', N_MAIN)]['median_ms']:.2f}")
for key, k in (("l3", L3), ("l4", L4), ("l5s", L5S), ("l5v", L5V), ("l6", L6)):
    g(f"pct_{key}", pct(B[(k, N_MAIN)]["pct_cublas"]))
    g(f"pct_{key}_8k", pct(B[(k, N_BIG)]["pct_cublas"]))
    g(f"ms_{key}", f"{B[(k, N_MAIN)]['median_ms']:.2f}")
for n in (N_MAIN, N_BIG):
    assert B[(L5V, n)]["pct_cublas"] >= 90, f"본문: 16바이트 변형은 {n}³에서 cuBLAS의 90% 이상"
    assert abs(B[(L5V, n)]["pct_cublas"] - B[(L4, n)]["pct_cublas"]) < 1.5, \
        f"본문: {n}³에서 Level 4와 16바이트 변형의 cuBLAS 대비 비율이 1.5%포인트 안"

PAIR_V = {n: pair(L5V, L4, n) for n in (N_MAIN, N_BIG)}
PAIR_S = {n: pair(L5S, L4, n) for n in (N_MAIN, N_BIG)}
PAIR_L6 = pair(L6, L5V, N_MAIN)
for n in (N_MAIN, N_BIG):
    g(f"pair_v_{n}", f"{PAIR_V[n]:.3f}")
    g(f"pair_s_{n}", f"{PAIR_S[n]:.3f}")
    assert 1.0 <= PAIR_V[n] < 1.01, f"본문: 번갈아 잰 쌍에서 16바이트 변형은 Level 4와 같은 속도(1% 안, 느리지 않음), {n}³"
    assert 0.95 < PAIR_S[n] < 0.99, f"본문: 4바이트 변형은 Level 4보다 1–5% 느리다, {n}³"
_slow_s = sorted((1 - PAIR_S[n]) * 100 for n in (N_MAIN, N_BIG))
g("slow_s", f"{_slow_s[0]:.0f}–{_slow_s[1]:.0f}" if round(_slow_s[0]) != round(_slow_s[1]) else f"{_slow_s[0]:.0f}")
g("pair_l6", f"{PAIR_L6:.3f}")
g("gain_l6", f"{(PAIR_L6 - 1) * 100:.0f}")
assert PAIR_L6 > 1.03, "본문: Level 6은 Level 5보다 분명히 빠르다(모듈 11)"
# The % of cuBLAS at small sizes leans on a cuBLAS time measured in another window: there the ratios of
# Level 4 and Level 5 can rank the two the other way round than their own median times.
_flip = [n for n in (1024, 2048)
         if (bench(L5V, n)["median_ms"] < bench(L4, n)["median_ms"]) != (bench(L5V, n)["pct_cublas"] > bench(L4, n)["pct_cublas"])]
g("flip_sizes", ", ".join(f"{n}³" for n in _flip) if _flip else "없음")
FLIP = bool(_flip)
assert FLIP, "본문: 기록의 작은 크기에서 중앙값 시간과 cuBLAS 대비 비율이 서로 반대 순서"

# --- Awkward shapes (benchmarks.json awkward_rows): the launcher stages operands ---------------------
SHAPE_ODD, SHAPE_K, SHAPE_SMALL = (4095, 4095, 4095), (4096, 4096, 4095), (1000, 1023, 1025)
AW = {(k, s): awkward(k, s) for k in (L4, L5V, "cublas") for s in (SHAPE_ODD, SHAPE_K, SHAPE_SMALL)}
assert AW[(L5V, SHAPE_K)]["staged"] == [] and "A" in AW[(L4, SHAPE_K)]["staged"], \
    "본문: K = 4095에서 Level 5는 아무것도 옮기지 않고 Level 4는 A를 옮긴다"
assert "A" not in AW[(L5V, SHAPE_ODD)]["staged"] and "A" not in AW[(L5V, SHAPE_SMALL)]["staged"], \
    "본문: Level 5는 A를 옮기지 않는다(4바이트 복사)"
assert AW[(L5V, SHAPE_ODD)]["staged"] == ["B", "C"], "본문: 4095³에서 B와 C를 옮긴다"


def staged_text(row):
    return ", ".join(row["staged"]) if row["staged"] else "없음"


def staging_share(row):
    return (row["median_ms"] - row["kernel_only_ms"]) / row["median_ms"] * 100


for key, shape in (("odd", SHAPE_ODD), ("k", SHAPE_K), ("small", SHAPE_SMALL)):
    g(f"aw_{key}_pct", pct(AW[(L5V, shape)]["pct_cublas"]))
    g(f"aw_{key}_staged", staged_text(AW[(L5V, shape)]))
    g(f"aw_{key}_l4_staged", staged_text(AW[(L4, shape)]))
for key, shape in (("odd", SHAPE_ODD), ("small", SHAPE_SMALL)):
    g(f"aw_{key}_ms", f"{AW[(L5V, shape)]['median_ms']:.3f}")
    g(f"aw_{key}_kernel_ms", f"{AW[(L5V, shape)]['kernel_only_ms']:.3f}")
    g(f"aw_{key}_share", f"{staging_share(AW[(L5V, shape)]):.0f}")
assert staging_share(AW[(L5V, SHAPE_SMALL)]) > staging_share(AW[(L5V, SHAPE_ODD)]), \
    "본문: 작은 행렬일수록 옮기는 비용의 몫이 크다"
assert AW[(L5V, SHAPE_SMALL)]["pct_cublas"] < 75, "본문: 1000×1023×1025에서는 cuBLAS에 한참 못 미친다"
assert AW[(L5V, SHAPE_K)]["median_ms"] < AW[(L4, SHAPE_K)]["median_ms"], "본문: K = 4095에서 Level 5가 Level 4보다 빠르다"
_blocks_small = -(-SHAPE_SMALL[0] // BM) * -(-SHAPE_SMALL[1] // BN)
g("blocks_small", _blocks_small)
g("sm_count", BPROV["sm_count"])
assert _blocks_small < BPROV["sm_count"], "본문: 블록 수가 SM 수보다 적다"

# --- Nsight Compute (profiles.json) -----------------------------------------------------------------
P = {k: prof(k) for k in (L4, L5S, L5V)}
REF = PROF["reference"][0]
g("p_date", str(PROF["date"])[:10])
for key, p in (("l4", P[L4]), ("l5s", P[L5S]), ("l5v", P[L5V]), ("cublas", REF)):
    st = p["stalls"]
    g(f"ls_{key}", f"{st['Long Scoreboard']:.2f}")
    g(f"lg_{key}", f"{st['LG Throttle']:.2f}")
    g(f"issue_{key}", f"{p['issue_active_pct']:.1f}")
    g(f"occ_{key}", f"{p['theoretical_occupancy_pct']:.1f}")
    g(f"preg_{key}", f"{p['registers']:.0f}")
    g(f"instr_{key}", f"{p['instructions'] / 1e8:.1f}")
    g(f"ffma_share_{key}", f"{p['ffma_instructions'] / 32 / p['instructions'] * 100:.1f}")


def ffma_share(p):
    return p["ffma_instructions"] / 32 / p["instructions"]


_instr_drop = 1 - P[L5V]["instructions"] / P[L4]["instructions"]
g("instr_drop", f"{_instr_drop * 100:.0f}")
g("dur_l4", f"{P[L4]['duration_ms']:.3f}")
g("dur_l5v", f"{P[L5V]['duration_ms']:.3f}")
g("sts_wf_l4", f"{P[L4]['smem_st_wavefronts'] / 1e6:.1f}")
g("sts_conf_l4", f"{P[L4]['smem_st_bank_conflicts'] / 1e6:.1f}")
g("req_ratio", f"{P[L5S]['global_ld_requests'] / P[L5V]['global_ld_requests']:.1f}")
g("copy_ratio", f"{(A_COPIES + B_COPIES_S) / (A_COPIES + B_COPIES_V):.1f}")
assert max(P[L4]["stalls"]["Long Scoreboard"], P[L5V]["stalls"]["Long Scoreboard"]) < 0.1, \
    "본문: Long Scoreboard는 두 커널 모두 거의 0"
assert _instr_drop > 0.02, "본문: Level 5가 실행한 명령이 Level 4보다 적다"
assert REF["instructions"] > P[L5V]["instructions"], "본문: cuBLAS 커널은 명령을 더 많이 실행하고도 더 빨리 끝낸다"
assert P[L5V]["issue_active_pct"] < P[L4]["issue_active_pct"] < REF["issue_active_pct"], \
    "본문: 발행 비율은 Level 5 < Level 4 < cuBLAS"
assert abs(P[L5V]["duration_ms"] / P[L4]["duration_ms"] - 1) < 0.01, "본문: 프로파일러가 잰 시간도 1% 안"
assert ffma_share(P[L5V]) > ffma_share(REF) > ffma_share(P[L4]), \
    "본문: FFMA의 몫은 Level 5가 cuBLAS보다도 크고, Level 4가 가장 작다"
assert P[L5V]["smem_st_wavefronts"] == 0 and P[L4]["smem_st_bank_conflicts"] > 0, \
    "본문: Level 5에는 STS가 없고, Level 4의 전치 저장에는 뱅크 충돌이 있다"
assert P[L4]["theoretical_occupancy_pct"] == P[L5V]["theoretical_occupancy_pct"] == P[L5S]["theoretical_occupancy_pct"], \
    "본문: 세 커널의 이론 점유율이 같다"
assert abs(P[L5S]["global_ld_requests"] / P[L5V]["global_ld_requests"]
           - (A_COPIES + B_COPIES_S) / (A_COPIES + B_COPIES_V)) < 0.05, "본문: 요청 수의 비가 복사 명령 수의 비와 같다"
assert P[L5S]["stalls"]["LG Throttle"] > P[L5V]["stalls"]["LG Throttle"], "본문: 4바이트 변형에서 LG Throttle이 더 크다"
assert P[L5S]["global_ld_sectors"] == P[L5V]["global_ld_sectors"], "본문: 옮긴 섹터 수는 두 변형이 같다"


# Why issue-active fell (module 10 works it out): the FMA pipe is issue-active x FFMA share and equal in both;
# the stall total (Selected 1 + Not Selected + active stalls) grew through Not Selected alone, while the active
# stalls per instruction fell: the warps stall and resume together.
def active_stalls(p):
    return sum(v or 0 for k, v in p["stalls"].items() if k not in ("Selected", "Not Selected"))


for _p in (P[L4], P[L5V]):
    assert abs(_p["issue_active_pct"] * ffma_share(_p) - _p["fma_pipe_pct"]) < 3, \
        "본문: FMA 파이프가 바쁜 비율 = 발행 활성 × FFMA의 몫"
assert abs(P[L5V]["fma_pipe_pct"] - P[L4]["fma_pipe_pct"]) < 2, "본문: FMA 파이프는 두 커널에서 같다"
assert active_stalls(P[L5V]) < active_stalls(P[L4]) and \
    P[L5V]["stalls"]["Not Selected"] > P[L4]["stalls"]["Not Selected"], \
    "본문: 워프마다 멈춘 시간은 늘지 않았고(능동 스톨 감소), 준비된 워프가 몰렸다(Not Selected 증가)"
# A Long Scoreboard of a cp.async kernel includes its wait_group: DEPBAR waits on scoreboard SB0 (checked below)

# --- SASS and resources (compiled for sm_90, no GPU needed) -----------------------------------------
S90 = {k: sass.summarize(k, "sm_90") for k in (L3, L4, L5S, L5V)}
for key, k in (("l3", L3), ("l4", L4), ("l5s", L5S), ("l5v", L5V)):
    g(f"reg_{key}", S90[k].registers)
g("ldgsts_l5s", S90[L5S].ldgsts)
g("ldgsts_l5v", S90[L5V].ldgsts)
g("smem_reported", f"{S90[L5V].smem_reported:,}")
_sites = {S90[L5S].ldgsts / (A_COPIES + B_COPIES_S), S90[L5V].ldgsts / (A_COPIES + B_COPIES_V)}
assert _sites == {3.0}, "본문: 발행 지점 세 곳(프롤로그의 부분 타일과 온전한 타일, 루프)에 타일 하나씩의 복사"
assert S90[L5V].ldgdepbar == 2 and S90[L5V].depbar == 2 and not S90[L5V].sts_widths, \
    "본문: LDGDEPBAR 2개, DEPBAR 2개, STS 없음"
assert max(S90[k].registers for k in (L4, L5S, L5V)) <= 128, "본문: 세 커널 모두 레지스터 128개 이하"
assert S90[L5V].smem_static == 0, "본문: 정적 공유 메모리 없음(고리는 동적)"
# The chapter prints the second issue site (a whole tile): destination and source offsets are immediates.
_whole = sass.excerpt(L5V, "sm_90", pattern=r"LDGSTS", limit=2 * (A_COPIES + B_COPIES_V)).splitlines()[A_COPIES + B_COPIES_V:]
for _off in (f["off_a_kgroup"], f["off_a_rowgroup"], f["off_b_row"]):
    assert any(f"+{_off}]," in line for line in _whole), f"본문: SASS의 LDGSTS 목적지 오프셋 +{_off}"
assert any(f".64+{f['off_a_ksrc']}]" in line for line in _whole[:A_COPIES]), "본문: 원본 쪽 오프셋 +0x20"
assert all(line.startswith("LDGSTS.E ") for line in _whole[:A_COPIES]) and \
    all(line.startswith("LDGSTS.E.BYPASS.128") for line in _whole[A_COPIES:]), "본문: A 16개는 LDGSTS.E, B 4개는 BYPASS.128"
assert any("!P" in line for line in _whole), "본문: 줄 끝의 !P 술어"
assert any(line.startswith("DEPBAR.LE SB0, 0x0") for line in
           sass.excerpt(L5V, "sm_90", pattern=r"DEPBAR", limit=4).splitlines()), \
    "본문: wait_group 0은 스코어보드 SB0을 기다리는 DEPBAR.LE SB0, 0x0"
assert S90[L5V].lds_widths == {"128": BK * 4}, "본문: LDS.128은 k 32단계 × 4개, 다른 폭의 LDS 없음"
# LDG.E.128: Level 5 keeps only the epilogue's reads of C; Level 4 adds its tile loads (the .CONSTANT ones)
_ldg_const_l4 = S90[L4].counts.get("LDG.E.128.CONSTANT", 0)
g("ldg_l5v", S90[L5V].ldg_128)
g("ldg_l4", S90[L4].ldg_128)
g("ldg_l4_tile", _ldg_const_l4)
assert S90[L4].ldg_128 - S90[L5V].ldg_128 == _ldg_const_l4 > 0 and "LDG.E.128.CONSTANT" not in S90[L5V].counts, \
    "본문: Level 4의 LDG.E.128 = 에필로그(Level 5와 같은 수) + 타일 로드(.CONSTANT)"
assert _ldg_const_l4 < S90[L4].ldg_128 / 2, "본문: Level 4의 LDG.E.128도 대부분은 에필로그의 것"
# The 'same work, two paths' table counts Level 4's tile traffic from the code: per 8-deep tile 2 LDG.E.128,
# 4 STS + 1 STS.128 and 1 barrier; the SASS has two copies of that (prologue and loop).
assert (_ldg_const_l4, S90[L4].sts_widths, sum(n for op, n in S90[L4].counts.items() if op.startswith("BAR"))) == \
    (2 * 2, {"32": 4 * 2, "128": 1 * 2}, 1 * 2), "본문: Level 4는 타일마다 LDG.E.128 2, STS 4 + STS.128 1, BAR 1 (두 곳)"
# The synchronous fallback below compute capability 8.0 (sm_75): no LDGSTS or DEPBAR; A as 32-bit LDG + STS
# pairs, B as 128-bit pairs (besides the epilogue's LDG.E.128 reads of C)
S75 = sass.summarize(L5V, "sm_75")
assert S75.ldgsts == S75.ldgdepbar == S75.depbar == 0, "본문: sm_75에는 LDGSTS도 DEPBAR도 없다"
assert S75.ldg_32 == S75.sts_widths.get("32") == 3 * A_COPIES and \
    S75.sts_widths.get("128") == 3 * B_COPIES_V == S75.ldg_128 - S90[L5V].ldg_128, \
    "본문: sm_75에서 A는 32비트 LDG + STS 쌍, B는 128비트 쌍"
# Level 4 staged 8 floats per thread per tile (two float4); a 32-deep tile would need 32.
g("l4_stage_regs", 8)
g("l4_stage_regs_bk32", 8 * BK // 8)
assert S90[L4].registers + 8 * BK // 8 - 8 > 128, "본문: Level 4를 BK 32로 하면 레지스터 상한 128을 넘는다"

# --- The ring tuner (async_tuning.json) -------------------------------------------------------------
TUNE_ROWS = [r for r in TUNE["rows"] if r["kernel"] in (L5S, L5V)]
CONFIGS = sorted({(r["BK"], r["STAGES"], r["EARLY_BARRIER"]) for r in TUNE_ROWS})
TUNE_SIZES = sorted({r["M"] for r in TUNE_ROWS})
# Each bar and table cell is one row of the record, never a mix: a row is named by its kernel, size and the
# three ring defines, and no other define (a micro-kernel setting) may vary between the rows.
RING_DEFINES = {"L5_BK": "BK", "L5_STAGES": "STAGES", "L5_EARLY_BARRIER": "EARLY_BARRIER"}
assert all(set(r["defines"]) == set(RING_DEFINES) and all(r["defines"][d] == r[k] for d, k in RING_DEFINES.items())
           for r in TUNE_ROWS), "async_tuning.json: 고리의 세 매크로 말고 다른 설정이 바뀐 행이 있다"
assert len({(r["kernel"], r["BK"], r["STAGES"], r["EARLY_BARRIER"], r["M"]) for r in TUNE_ROWS}) == len(TUNE_ROWS), \
    "async_tuning.json: 같은 구성과 크기의 행이 둘 이상이다(표의 칸 하나는 행 하나)"


def tune(kernel, bk, stages, early, n):
    for r in TUNE_ROWS:
        if (r["kernel"], r["BK"], r["STAGES"], r["EARLY_BARRIER"], r["M"]) == (kernel, bk, stages, early, n):
            return r
    raise KeyError((kernel, bk, stages, early, n))


def vs4(kernel, bk, stages, early, n):
    return tune(kernel, bk, stages, early, n)["vs_level4"]


def config_label(bk, stages, early):
    return f"BK {bk}, {stages}단" + (", 이른 배리어" if early else "")


def span(values, scale=100, offset=0.0, digits=0):
    """'lo–hi' of (value - offset) * scale, or one number when both round the same."""
    lo, hi = min(values), max(values)
    a, b = f"{(lo - offset) * scale:.{digits}f}", f"{(hi - offset) * scale:.{digits}f}"
    return a if a == b else f"{a}–{b}"


g("t_date", str(TUNE["date"])[:10])
g("t_device", TUNE["device"])
g("t_sizes", ", ".join(f"{n}³" for n in TUNE_SIZES))
g("t_configs", len(CONFIGS))
g("keep_margin", f"{TUNE['keep_margin'] * 100:.0f}")
CHOSEN = (TUNE["chosen"]["BK"], TUNE["chosen"]["STAGES"], TUNE["chosen"]["EARLY_BARRIER"])
assert CHOSEN == (BK, STAGES, RING["EARLY_BARRIER"]), "본문: 조정기의 선택이 출시된 고리(registry.LEVEL5)와 같다"
assert all(r["local_bytes"] == 0 for r in TUNE_ROWS), "본문: 어느 구성도 스필하지 않았다"
assert all(r["rel_error"] < 1e-5 for r in TUNE_ROWS), "본문: 모든 구성이 검증을 통과했다"
g("tune_regs", span([r["registers"] for r in TUNE_ROWS], 1))
assert max(r["registers"] for r in TUNE_ROWS) <= 128

THIN = [c for c in CONFIGS if c[0] == 8]
DEEP = [c for c in CONFIGS if c[0] >= 16]
thin_v = [vs4(L5V, *c, n) for c in THIN for n in TUNE_SIZES]
deep_v = [vs4(L5V, *c, n) for c in DEEP for n in TUNE_SIZES]
assert max(thin_v) < 0.99, "본문: BK 8의 고리는 단 수와 이른 배리어에 관계없이 Level 4보다 느리다"
assert min(deep_v) > 0.99 and max(deep_v) < 1.01, "본문: BK 16과 32의 16바이트 변형은 모두 Level 4의 ±1% 안"
g("thin_slow", span([1 - v for v in thin_v]))    # "% slower than Level 4"
assert max(deep_v) - min(deep_v) < TUNE["keep_margin"], "본문: 깊은 구성들은 서로 흔들림(2%) 안"
g("deep_lo", f"{(1 - min(deep_v)) * 100:.1f}")
g("deep_hi", f"{(max(deep_v) - 1) * 100:.1f}")
# More stages do not help a deep tile: the BK 16 rings of two to four stages.
bk16 = [c for c in CONFIGS if c[0] == 16]
for n in TUNE_SIZES:
    vals = [vs4(L5V, *c, n) for c in bk16]
    assert max(vals) - min(vals) < 0.01, f"본문: BK 16에서 단 수를 바꿔도 1% 안, {n}³"
g("bk16_stage_spread", f"{max(max(vs4(L5V, *c, n) for c in bk16) - min(vs4(L5V, *c, n) for c in bk16) for n in TUNE_SIZES) * 100:.1f}")
g("bk16_stages", f"{min(c[1] for c in bk16)}–{max(c[1] for c in bk16)}")
# Depth pays: BK 8 -> 16 -> 32 with two stages.
for n in TUNE_SIZES:
    assert vs4(L5V, 8, 2, 0, n) < vs4(L5V, 16, 2, 0, n) < vs4(L5V, 32, 2, 0, n), f"본문: 2단에서 BK 8 < 16 < 32, {n}³"
    g(f"v8_2_{n}", f"{vs4(L5V, 8, 2, 0, n):.3f}")
    g(f"v16_2_{n}", f"{vs4(L5V, 16, 2, 0, n):.3f}")
    g(f"v32_2_{n}", f"{vs4(L5V, 32, 2, 0, n):.3f}")
    g(f"v8_3_{n}", f"{vs4(L5V, 8, 3, 0, n):.3f}")
    g(f"v8_3e_{n}", f"{vs4(L5V, 8, 3, 1, n):.3f}")
    g(f"v32_3e_{n}", f"{vs4(L5V, 32, 3, 1, n):.3f}")
    g(f"s32_3e_{n}", f"{vs4(L5S, 32, 3, 1, n):.3f}")
    g(f"v16_4e_{n}", f"{vs4(L5V, 16, 4, 1, n):.3f}")
    # A third stage at BK 8 gains little; the early barrier gains more.
    assert 0 <= vs4(L5V, 8, 3, 0, n) - vs4(L5V, 8, 2, 0, n) < 0.015, f"본문: BK 8에서 셋째 단은 1.5% 미만의 이득, {n}³"
    assert vs4(L5V, 8, 3, 1, n) - vs4(L5V, 8, 3, 0, n) > 0.02, f"본문: BK 8에서 이른 배리어가 2% 넘게 돕는다, {n}³"
    assert vs4(L5V, 32, 3, 1, n) < vs4(L5V, 32, 2, 0, n), f"본문: BK 32에 셋째 단과 이른 배리어를 더해도 빨라지지 않는다, {n}³"
    assert vs4(L5S, 32, 3, 1, n) < min(vs4(L5S, *c, n) for c in DEEP if c != (32, 3, 1)), \
        f"본문: 4바이트 변형은 BK 32, 3단에서 가장 느린 깊은 구성, {n}³"
g("gain_8_3", span([vs4(L5V, 8, 3, 0, n) - vs4(L5V, 8, 2, 0, n) for n in TUNE_SIZES], 100, 0, 1))
g("gain_8_e", span([vs4(L5V, 8, 3, 1, n) - vs4(L5V, 8, 3, 0, n) for n in TUNE_SIZES], 100, 0, 1))
# Same shared memory spent two ways: BK 16 x 4 stages against BK 32 x 2 stages.
assert registry.level5_smem({"BK": 16, "STAGES": 4}) == SMEM, "본문: BK 16 네 단과 BK 32 두 단은 같은 공유 메모리"
g("same_smem_gap", span([abs(vs4(L5V, 32, 2, 0, n) - vs4(L5V, 16, 4, 1, n)) for n in TUNE_SIZES], 100, 0, 1))
assert all(abs(vs4(L5V, 32, 2, 0, n) - vs4(L5V, 16, 4, 1, n)) < TUNE["keep_margin"] for n in TUNE_SIZES), \
    "본문: 같은 공유 메모리의 두 배치는 여유(2%) 안에서 같다"
# 16-byte B copies against 4-byte ones.
gap_deep = [vs4(L5V, *c, n) - vs4(L5S, *c, n) for c in DEEP for n in TUNE_SIZES]
gap_thin = [vs4(L5V, *c, n) - vs4(L5S, *c, n) for c in THIN for n in TUNE_SIZES]
assert min(gap_deep) > 0.015, "본문: BK 16 이상에서는 모든 구성에서 16바이트 B 복사가 1.5% 넘게 빠르다"
assert max(abs(x) for x in gap_thin) < 0.02, "본문: BK 8에서는 두 변형이 2% 안으로 비슷하다"
g("gap_deep", span(gap_deep, 100, 0, 0))
# The chosen ring's speed-up is within the keep margin of the best 16-byte configuration.
best = max(CONFIGS, key=lambda c: min(vs4(L5V, *c, n) for n in TUNE_SIZES))
g("best_label", config_label(*best))
assert all(vs4(L5V, *best, n) - vs4(L5V, *CHOSEN, n) < TUNE["keep_margin"] for n in TUNE_SIZES), \
    "본문: 출시된 고리는 가장 좋은 구성과 여유 안"
g("chosen_label", config_label(*CHOSEN))
g("chosen_sentence", f"가장 좋은 16바이트 구성이 곧 출시된 구성({config_label(*CHOSEN)})입니다" if best == CHOSEN else
  f"가장 좋은 16바이트 구성은 {config_label(*best)}이고, 출시된 구성은 {config_label(*CHOSEN)}입니다")
_cub = [r["cublas_ms"] for r in TUNE_ROWS if r["M"] == N_MAIN]
g("cublas_spread", f"{(max(_cub) / min(_cub) - 1) * 100:.0f}")
assert max(_cub) / min(_cub) - 1 > 0.02, "본문: cuBLAS 시간이 창마다 몇 % 흔들린다"

# --- The tail tests (tests/test_kernels_gpu.py::test_pipeline_tails): kernels, shape and K values -----
_test_file = Path(__file__).resolve().parents[2] / "tests" / "test_kernels_gpu.py"
_tail = re.search(r'parametrize\("name", \[([^\]]*)\]\)\s*def test_pipeline_tails\(name\):(.*?)\n\n',
                  _test_file.read_text("utf-8"), re.S) if _test_file.exists() else None
if _tail:
    TAIL_KERNELS = set(re.findall(r'"(sgemm_\w+)"', _tail.group(1)))
    TAIL_KS = [int(x) for x in re.search(r"for K in \(([\d,\s]+)\)", _tail.group(2)).group(1).split(",") if x.strip()]
    TAIL_M, TAIL_N = (int(x) for x in re.search(r"check\(name, (\d+), (\d+), K", _tail.group(2)).groups())
    assert TAIL_KERNELS == {L4, L5S, L5V, L6}, "본문: 꼬리 테스트는 두 Level 5 변형과 Level 4, Level 6을 돌린다"
elif _test_file.exists():
    raise RuntimeError("본문: tests/test_kernels_gpu.py의 test_pipeline_tails에서 커널, 모양, K 값을 읽지 못했습니다")
else:   # a copy of the course without its tests: the values of the test file when this chapter was written
    TAIL_KS, TAIL_M, TAIL_N = [1, 3, 4, 8, 12, 16, 24, 31, 32, 33, 40, 63, 64, 65, 96, 97, 128, 129, 200], 130, 260
g("tail_ks", ", ".join(map(str, TAIL_KS)))
g("tail_k_count", len(TAIL_KS))
g("tail_shape", f"{TAIL_M}×{TAIL_N}")
_tiles = sorted({-(-k // BK) for k in TAIL_KS})
g("tail_tiles", f"{_tiles[0]}–{_tiles[-1]}")
assert _tiles[0] == 1, "본문: 타일 하나뿐인 K도 검사한다"
g("tail_partial", len([k for k in TAIL_KS if k % BK]))

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
SHIPPED2 = pipeline.async_pipeline_trace(num_stages=STAGES, num_tiles=8, empty_commits=False, mode="shipped")
assert SHIPPED2.is_safe, "본문: 2단 고리는 빈 그룹 커밋이 없어도 안전하다(wait_group 0)"

# --- The quiz's words (course/banks/m09.yaml): the recorded numbers its questions quote ---------------
from course.facts import quiz_text   # noqa: E402


def _bank_text(qid):
    return quiz_text(9, qid)


_naive, _tiled, _padded = prof("sgemm_naive"), prof("sgemm_tiled"), prof("sgemm_tiled_padded")
assert f"{_naive['sectors_per_request']:.1f}" == "2.0" and "2.0" in _bank_text("m09-q01"), "퀴즈 m09-q01: 나이브 커널 2.0"
_q2 = _bank_text("m09-q02")
assert (f"패딩 없이 {_tiled['smem_st_wavefronts_per_instruction']:.2f}, +1 패딩을 하면 "
        f"{_padded['smem_st_wavefronts_per_instruction']:.2f}") in _q2, "퀴즈 m09-q02: 저장 wavefront 1.07과 2.03"
assert _padded["duration_ms"] > _tiled["duration_ms"] and \
    f"{_tiled['smem_static']:,.0f} B에서 {_padded['smem_static']:,.0f} B" in _q2, "퀴즈 m09-q02: 패딩한 커널이 느렸다, 2,048 → 2,176 B"
_regs35 = [p["registers"] for p in PROF["kernels"] if p["level"] in (3, 4, 5)]
assert f"{min(_regs35):.0f}~{max(_regs35):.0f}개" in _bank_text("m09-q03") and max(_regs35) <= 128 and min(_regs35) > 80, \
    "퀴즈 m09-q03: Level 3~5 커널의 레지스터 104~127개(모두 81~128 구간)"
_q9 = _bank_text("m09-q09")
assert f"이미 {P[L4]['registers']:.0f}개인 커널" in _q9 and f"{SMEM:,} B" in _q9, "퀴즈 m09-q09: Level 4 레지스터 127개, 66,560 B"
_q10 = _bank_text("m09-q10")
_stage = BK * (PITCH_A + BN) * 4
assert all(f"{v:,}" in _q10 for v in (_stage, 3 * _stage, 6 * _stage, 228 * 1024)), \
    "퀴즈 m09-q10: 33,280 B, 99,840 B, 199,680 B, 233,472 B"
assert all(max(vs4(L5V, *c, n) for c in bk16) - min(vs4(L5V, *c, n) for c in bk16) < 0.01 for n in TUNE_SIZES) and \
    all(vs4(L5V, 32, 3, 1, n) < vs4(L5V, 32, 2, 0, n) for n in TUNE_SIZES), \
    "퀴즈 m09-q10: BK 16의 2–4단은 1% 안, BK 32에 셋째 단(이른 배리어)을 더하면 2단보다 조금 느리다"

# --- Further sentences of the text ----------------------------------------------------------------------
assert not S90[L5S].sts_widths, "본문: Level 5의 두 변형 모두 STS가 없다"
assert sum(n for op, n in S90[L5V].counts.items() if op.startswith("BAR")) == 1 and \
    S90[L5S].ldgdepbar == S90[L5S].depbar == 2, "본문: 배리어는 루프 안의 하나뿐, 커밋과 대기는 두 곳씩"
assert "B" in AW[(L4, SHAPE_K)]["staged"], "본문: K = 4095에서 Level 4는 A와 B를 옮긴다"
assert P[L5V]["stalls"]["Long Scoreboard"] < 0.1, "본문: 2단 고리의 Long Scoreboard(wait_group의 기다림 포함)가 거의 0"
# The seed's 4-byte .cg helper does not assemble (ptxas wants cp-size 16 with .cg)
from kernels import compiler                    # noqa: E402
from kernels.errors import CompileError         # noqa: E402
_ca4 = "cp.async.ca.shared.global [%0], [%1], 4, %2;"
_shipped = compiler.expanded_source("sgemm_async_copy.cu")
assert _ca4 in _shipped, "본문: 4바이트 복사 헬퍼는 .ca"
try:
    sass.summarize(L5S, "sm_90", source=_shipped.replace(_ca4, _ca4.replace(".ca.", ".cg.")))
    _cg4_fails = False
except CompileError as _err:
    _cg4_fails = "ptxas" in str(_err)
assert _cg4_fails, "본문: 4바이트 .cg 복사는 ptxas가 거부한다"

# Per-instruction stall samples of the 16-byte variant (book/data/source_stalls.json, Nsight Compute source page)
SRC = json.loads((DATA_DIR / "source_stalls.json").read_text(encoding="utf-8"))
_s = next(k for k in SRC["kernels"] if k["kernel"] == L5V)
_loop_wait = max(_s["depbar"], key=lambda d: d["next_samples"])     # the wait inside the main loop
_lsb = _s["stall_totals"]["stall_long_sb"]
g("src_date", SRC["date"][:10])
g("src_samples", f"{_s['samples']:,}")
g("src_after_wait_lsb", f"{_loop_wait['next_long_scoreboard']:,}")
g("src_after_wait_pct", pct(100 * _loop_wait["next_long_scoreboard"] / _s["samples"], 2))
g("src_lsb", f"{_lsb:,}")
g("src_lsb_pct", pct(_s["long_scoreboard_share_pct"]))
g("src_lsb_near_ldgsts_pct", pct(100 * _s["long_scoreboard_within_2_after_ldgsts"] / _lsb, 0))
assert _loop_wait["instruction"].startswith("DEPBAR.LE SB0") and _loop_wait["next"].startswith("BAR.SYNC"), \
    "본문: 루프 안의 DEPBAR.LE SB0 바로 다음은 BAR.SYNC"
assert 0 < _loop_wait["next_long_scoreboard"] < 0.001 * _s["samples"], \
    "본문: 대기 다음 명령의 Long Scoreboard 샘플은 있지만 전체의 0.1%도 안 된다"
assert _s["long_scoreboard_share_pct"] < 3, "본문: 커널 전체의 Long Scoreboard도 몇 %가 안 된다"
assert _s["long_scoreboard_within_2_after_ldgsts"] > 0.8 * _lsb, "본문: Long Scoreboard 샘플 대부분은 LDGSTS 바로 뒤 두 명령 안"
