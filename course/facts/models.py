"""Facts of the appendix page "하드웨어 모델" (book/appendix/models.md): the course's one model per concept,
each with the records that support it. The simulators compute the models (sims.banks, sims.warp_tiling,
sims.roofline, kernels.devices); the records are book/data/profiles.json, benchmarks.json,
source_stalls.json and the SASS record. The claims check that each model still agrees with the records, so
a re-recording that breaks a model stops the build (course/site/extension.py) and tests/test_models.py.
"""
from __future__ import annotations

import json

from course.facts import Facts
from course.facts.recorded_sass import sass
from kernels import devices, registry
from kernels.record import DATA_DIR
from sims import banks, roofline, warp_tiling

f = Facts("models")

profile_record = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
bench_record = json.loads((DATA_DIR / "benchmarks.json").read_text(encoding="utf-8"))
source_stalls = json.loads((DATA_DIR / "source_stalls.json").read_text(encoding="utf-8"))
profile_of = {e["kernel"]: e for e in profile_record["kernels"]}
reference_of = {e["kernel"]: e for e in profile_record["reference"]}


# ============================================================ (1) LDS.128: served per half-warp (fitted)
def mean_wavefronts(expression: str, service: str, width_bytes: int = 16) -> float:
    """sims.banks' wavefronts of one warp request of module 6's 16×16 block, averaged over its 8 warps and
    the k of one tile (4 float4 columns, or 16 words)."""
    ks = range(4 if width_bytes == 16 else 16)
    values = [banks.bank_request(rows=16, cols=16, width_bytes=width_bytes, bdx=16, bdy=16, warp=w,
                                 expression=expression, k=k, service=service).wavefronts
              for w in range(8) for k in ks]
    return sum(values) / len(values)


def measured_per_lds128(kernel: str, other_reads: float) -> float:
    """Nsight's shared-load wavefronts of one warp and one K tile of module 6's kernel, less its 32-bit Bs
    reads (`other_reads` wavefronts each), divided by its LDS.128 count (the SASS record)."""
    p = profile_of[kernel]
    warp_tiles = (p["M"] // 16) * (p["N"] // 16) * 8 * (p["K"] // 16)
    widths = sass.summarize(kernel, "sm_90").lds_widths
    n128, n32 = widths.get("128", 0), widths.get("32", 0)
    return (p["smem_ld_wavefronts"] / warp_tiles - n32 * other_reads) / n128


def _colwalk_bs(service: str) -> float:
    """Bs[k][ty] of the column walk, 32-bit (one ty per half of the warp: a broadcast each)."""
    values = []
    for w in range(8):
        for k in range(16):
            threads = [banks.ThreadBankAccess(t, t % 16, t // 16, k, t // 16, (k * 16 + t // 16,))
                       for t in range(32 * w, 32 * w + 32)]
            values.append(banks.summarize(threads, 4, 16, service=service).wavefronts)
    return sum(values) / len(values)


# Module 6: Level 2 reads As[ty][k..k+3] with LDS.128; its column-walk variant reads As[tx][k..k+3].
LDS128_CASES = {
    "sgemm_tiled": ("load [ty][k]", mean_wavefronts("load [k][tx]", "half-warp", 4)),
    "sgemm_tiled_colwalk": ("load [tx][k]", _colwalk_bs("half-warp")),
}
lds128 = {kernel: {"measured": measured_per_lds128(kernel, bs),
                   "half": mean_wavefronts(expr, "half-warp"), "whole": mean_wavefronts(expr, "warp")}
          for kernel, (expr, bs) in LDS128_CASES.items()}
f.set("l2_lds128_measured", lds128["sgemm_tiled"]["measured"], ".2f")
f.set("l2_lds128_half", lds128["sgemm_tiled"]["half"], "g")
f.set("l2_lds128_whole", lds128["sgemm_tiled"]["whole"], "g")
f.set("cw_lds128_measured", lds128["sgemm_tiled_colwalk"]["measured"], ".2f")
f.set("cw_lds128_half", lds128["sgemm_tiled_colwalk"]["half"], "g")
f.set("cw_lds128_whole", lds128["sgemm_tiled_colwalk"]["whole"], "g")


def level3_wavefronts(service: str) -> float:
    """Module 7's micro-kernel, warp 0 of its 16×16 block: per k, two LDS.128 of As[k][ty*4 (+64)] and two of
    Bs[k][tx*4 (+64)], as sims.banks requests; the mean over the four."""
    def load(first_word):
        threads = [banks.ThreadBankAccess(t, t % 16, t // 16, 0, 0, tuple(range(first_word(t % 16, t // 16),
                                                                                  first_word(t % 16, t // 16) + 4)))
                   for t in range(32)]
        return banks.summarize(threads, 16, 128, service=service).wavefronts
    a, b = load(lambda tx, ty: ty * 4), load(lambda tx, ty: tx * 4)
    return (2 * a + 2 * b) / 4


L3_KERNEL = registry.LEVEL_REPRESENTATIVE[3]
f.set("l3_wpi", profile_of[L3_KERNEL]["smem_ld_wavefronts_per_instruction"], ".2f")
f.set("l3_half", level3_wavefronts("half-warp"), ".1f")
f.set("l3_whole", level3_wavefronts("warp"), ".1f")

# Module 11's Level 6: the shipped layout and the contiguous counter-example under the same model.
L6_KERNEL = registry.LEVEL_REPRESENTATIVE[6]
shipped_loads = warp_tiling.step_loads(warp_tiling.warp_tiling(**warp_tiling.SHIPPED))
contiguous_loads = warp_tiling.step_loads(warp_tiling.warp_tiling(**warp_tiling.SHIPPED, layout="contiguous"))
f.set("l6_model_wf", max(load.request.wavefronts for load in shipped_loads), "d")
f.set("l6_conflicts", profile_of[L6_KERNEL]["smem_ld_bank_conflicts"], ",.0f")
f.set("l6_wpi", profile_of[L6_KERNEL]["smem_ld_wavefronts_per_instruction"], ".2f")
f.set("cb_wpi", reference_of["cublas"]["smem_ld_wavefronts_per_instruction"], ".2f")


@f.claims
def half_warp_model(check):
    """The half-warp model against Nsight's counters: module 6's two LDS.128 kernels and module 7's Level 3."""
    for kernel, values in lds128.items():
        check(abs(values["half"] - values["measured"]) < 0.05 * values["measured"],
              f"모델 페이지: 반 워프 모델이 {kernel}의 LDS.128 하나의 측정 웨이브프론트와 맞는다")
        check(values["whole"] * 2 == values["half"], f"모델 페이지: 워프 전체 모델은 그 절반을 예측한다 ({kernel})")
    check((lds128["sgemm_tiled"]["half"], lds128["sgemm_tiled_colwalk"]["half"]) == (2, 16),
          "모델 페이지: 기본형 LDS.128은 2, 열 걷기는 16")
    l3 = profile_of[L3_KERNEL]["smem_ld_wavefronts_per_instruction"]
    check(abs(level3_wavefronts("half-warp") - l3) < 0.05 and level3_wavefronts("warp") * 2 == level3_wavefronts("half-warp"),
          "모델 페이지: Level 3의 명령당 웨이브프론트는 반 워프 모델(3.0)과 맞고 워프 전체 모델(1.5)의 두 배")


@f.claims
def level6_under_the_model(check):
    """Level 6: conflict-free under the model and by Nsight's counter; Nsight's wavefronts above the model's."""
    check(all(load.conflict_free for load in shipped_loads) and profile_of[L6_KERNEL]["smem_ld_bank_conflicts"] == 0,
          "모델 페이지: Level 6의 모든 LDS.128은 모델로도 충돌이 없고, Nsight의 충돌 카운터도 0")
    check({load.request.wavefronts for load in shipped_loads} == {2}, "모델 페이지: 모델은 LDS.128 하나에 2를 예측한다")
    check(profile_of[L6_KERNEL]["smem_ld_wavefronts_per_instruction"] > 3
          and reference_of["cublas"]["smem_ld_wavefronts_per_instruction"] > 3,
          "모델 페이지: Level 6과 cuBLAS의 측정은 명령당 3을 넘는다 (모델은 하한)")
    a_loads = [x for x in contiguous_loads if x.operand == "A"]
    b_loads = [x for x in contiguous_loads if x.operand == "B"]
    check(all(x.conflict_free for x in a_loads) and all(x.request.conflict_ways == 2 for x in b_loads),
          "모델 페이지: 한 덩어리 배치에서 충돌하는 것은 B 읽기뿐(2-way), A는 충돌 없음")


# ============================================================ (2) wavefronts per instruction
f.set("l2_wpi", profile_of["sgemm_tiled"]["smem_ld_wavefronts_per_instruction"], ".2f")
f.set("l2pad_wpi", profile_of["sgemm_tiled_padded"]["smem_ld_wavefronts_per_instruction"], ".2f")
f.set("cw_wpi", profile_of["sgemm_tiled_colwalk"]["smem_ld_wavefronts_per_instruction"], ".2f")


@f.claims
def wavefronts_per_instruction(check):
    for kernel in ("sgemm_tiled", L3_KERNEL, L6_KERNEL):
        p = profile_of[kernel]
        check(p["smem_ld_bank_conflicts"] < 1e-3 * p["smem_ld_instructions"],
              f"모델 페이지: {kernel}의 읽기 충돌 카운터는 명령 수에 비해 거의 0")
    padded = profile_of["sgemm_tiled_padded"]
    check("128" not in sass.summarize("sgemm_tiled_padded", "sm_90").lds_widths
          and abs(padded["smem_ld_wavefronts_per_instruction"] - 1) < 0.01,
          "모델 페이지: 스칼라 LDS만 남은 패딩형은 명령당 1.00")
    check(min(lds128[k]["measured"] for k in lds128) > 1.9,
          "모델 페이지: 충돌 없는 LDS.128도 웨이브프론트가 1보다 많다 (원 자료의 1.0 기준은 틀림)")


# ============================================================ (3) stall reasons
f.set("stall_unit", profile_record["stall_unit"])
_vec = next(k for k in source_stalls["kernels"] if k["kernel"] == "sgemm_async_copy_vec")
f.set("ls_after_ldgsts_pct", 100 * _vec["long_scoreboard_within_2_after_ldgsts"] / _vec["stall_totals"]["stall_long_sb"],
      ".0f")
_by_opcode = _vec["long_scoreboard_by_opcode"]
f.set("ls_top_opcodes", " · ".join(sorted(_by_opcode, key=lambda op: -_by_opcode[op])[:2]))
f.set("depbar", _vec["depbar"][0]["instruction"])


# Not Selected is counted in issue-active cycles only: Level 3 (module 7) has it as its largest stall while a third
# of its cycles issue nothing. Eligible warps per cycle = issue-active share × (1 + Not Selected) (module 10).
_l3 = profile_of[L3_KERNEL]
L3_READY = _l3["issue_active_pct"] / 100 * (1 + _l3["stalls"]["Not Selected"])
f.set("l3_not_selected", _l3["stalls"]["Not Selected"], ".2f")
f.set("l3_issue", _l3["issue_active_pct"], ".1f")
f.set("l3_idle", 100 - _l3["issue_active_pct"], ".1f")
f.set("l3_ready", L3_READY, ".2f")


@f.claims
def not_selected_is_not_plenty(check):
    """The stall table's Not Selected row and the paragraph after it: the largest stall of Level 3 is Not Selected
    while many cycles issue nothing, and the mean eligible warps per cycle is above one (readiness bunched)."""
    stalls = {k: v for k, v in _l3["stalls"].items() if k != "Selected"}
    check(max(stalls, key=stalls.get) == "Not Selected" and 100 - _l3["issue_active_pct"] > 30,
          "모델 페이지: Level 3은 Not Selected가 가장 큰 스톨인데 명령을 내지 못한 사이클이 30%를 넘는다")
    check(L3_READY > 1, "모델 페이지: 사이클마다 준비된 워프는 평균 한 개가 넘는다 (준비된 워프가 몰려 있다)")


@f.claims
def long_scoreboard_after_copies(check):
    share = _vec["long_scoreboard_within_2_after_ldgsts"] / _vec["stall_totals"]["stall_long_sb"]
    check(registry.LEVEL_REPRESENTATIVE[5] == "sgemm_async_copy_vec", "모델 페이지: 명령별 샘플은 Level 5의 것")
    check(share > 0.9, "모델 페이지: Level 5의 Long Scoreboard 샘플 대부분은 LDGSTS 바로 뒤 두 명령에 있다")
    check(set(sorted(_by_opcode, key=lambda op: -_by_opcode[op])[:2]) == {"IMAD", "LDS"},
          "모델 페이지: 그 명령은 주소를 다시 쓰는 IMAD와 LDS다")
    check("_per_issue_active" in profile_record["stall_unit"], "모델 페이지: 단위는 발행 사이클당 워프 수")
    check(_vec["depbar"][0]["instruction"].startswith("DEPBAR.LE SB"), "모델 페이지: DEPBAR가 스코어보드 번호(SB)를 기다린다")


# ============================================================ (4) stage and k-step
for level, cfg in ((5, registry.LEVEL5), (6, registry.LEVEL6)):
    f.set(f"l{level}_bk", cfg["BK"], "d")
    f.set(f"l{level}_stages", cfg["STAGES"], "d")
    f.set(f"l{level}_ring", registry.ring_text(cfg))


@f.claims
def stage_words(check):
    check(registry.ring_text(registry.LEVEL5).endswith(f"스테이지 {registry.LEVEL5['STAGES']}개"),
          "모델 페이지: 구성 표기는 '스테이지 N개'")


# ============================================================ (5) ridge point and arithmetic intensity
roof = roofline.recorded_device_roof(bench_record)
PEAK_GFLOPS, BANDWIDTH_GBS = bench_record["peak_gflops"], bench_record["bandwidth_gbs"]
RIDGE = PEAK_GFLOPS / BANDWIDTH_GBS
f.set("device", bench_record["device"])
f.set("sm_count", bench_record["sm_count"], "d")
f.set("lanes", bench_record["fp32_lanes_per_sm"], "d")
f.set("clock_mhz", bench_record["clock_mhz"], ",.0f")
f.set("peak_gflops", PEAK_GFLOPS, ",.0f")
f.set("bw_gbs", BANDWIDTH_GBS, ",.0f")
f.set("bw_method", bench_record["bandwidth_method"])
f.set("ridge", RIDGE, ".1f")
# The source material's figure: TF32 tensor-core peak of an A100 40 GB over its datasheet bandwidth (never
# measured here; the A100 numbers are the source's and NVIDIA's datasheet's).
A100_TF32_GFLOPS, A100_40GB_GBS = 156_000, 1_555
f.set("a100_tf32_ridge", A100_TF32_GFLOPS / A100_40GB_GBS, ".0f")
f.set("a100_tf32_tflops", A100_TF32_GFLOPS / 1000, ".0f")
f.set("a100_40gb_gbs", A100_40GB_GBS, ",d")


@f.claims
def ridge_point(check):
    check(roof.ridge_ai == RIDGE and roof.peak_gflops == PEAK_GFLOPS and roof.bandwidth_gbs == BANDWIDTH_GBS,
          "모델 페이지: 시뮬레이터(sims.roofline)의 꺾임점 = 기록된 최대 ÷ 측정 대역폭")
    check(abs(roofline.fp32_peak_gflops(bench_record["sm_count"], bench_record["fp32_lanes_per_sm"],
                                        bench_record["clock_mhz"]) - PEAK_GFLOPS) < 1,
          "모델 페이지: 최대 처리량은 SM 수 × 레인 × 클럭 × 2")
    check(RIDGE < A100_TF32_GFLOPS / A100_40GB_GBS / 3, "모델 페이지: FP32 꺾임점은 원 자료의 약 100보다 한참 작다")


# ============================================================ (6) occupancy
H100 = devices.PROFILES["H100"]


def rule_occupancy_pct(entry: dict) -> float:
    """kernels.devices.occupancy for a profiled kernel's block, registers and shared memory (static + dynamic)."""
    threads = int(entry["block_size"])
    smem = int(entry["smem_static"] + entry.get("smem_dynamic", 0))
    blocks = devices.occupancy(H100, threads, int(entry["registers"]), smem)["blocks_per_sm"]
    return 100 * blocks * (threads // 32) / (H100.max_threads_per_sm // 32)


profiled = profile_record["kernels"] + profile_record["reference"]
# The rule moves in whole blocks: 96 registers × 256 threads give 2 blocks (25%), not 65,536 / (96 · 256) of a
# full SM's warps (a fraction computed per thread).
f.set("occ_96", roofline.occupancy(256, 96, 0, "sm_90").occupancy_pct, ".0f")
f.set("occ_96_per_thread", 100 * H100.regs_per_sm / (96 * H100.max_threads_per_sm), ".1f")
f.set("occ_kernels", len(profiled), "d")
f.set("occ_agree", sum(rule_occupancy_pct(e) == e["theoretical_occupancy_pct"] for e in profiled), "d")


@f.claims
def one_occupancy_rule(check):
    check(profile_record["device"].startswith("NVIDIA H100"), "모델 페이지: 프로파일은 H100에서 잰 것")
    for entry in profiled:
        check(rule_occupancy_pct(entry) == entry["theoretical_occupancy_pct"],
              f"모델 페이지: 점유율 규칙이 Nsight의 이론 점유율과 같다 ({entry['kernel']})")
        check(roofline.occupancy(int(entry["block_size"]), int(entry["registers"]),
                                 int(entry["smem_static"] + entry.get("smem_dynamic", 0)), "sm_90").occupancy_pct
              == entry["theoretical_occupancy_pct"], f"모델 페이지: 시뮬레이션 10의 계산기도 같다 ({entry['kernel']})")
