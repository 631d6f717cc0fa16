"""Facts of module 8 (m08_double_buffer.md): the recorded benchmark and Nsight Compute numbers its
text quotes, the register and shared-memory budget of Levels 3 and 4, and the SASS facts of the
chapter's loop analysis (read from book/data/sass_facts.json: the chapter's cells show the same SASS
live). The claims next to each group of values guard the text's directional sentences and the
recorded numbers the quiz bank quotes."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from course.facts import Facts, quiz_text
from course.facts.recorded_sass import sass
from course.page import recorded
from kernels import devices
from kernels.record import DATA_DIR
from kernels.variants import LEVEL4_BOUNDS_1, LEVEL4_BOUNDS_2, level4_old_loop
from sims import pipeline, roofline
from sims import warp_tiling

f = Facts("m08")

LEVEL3, LEVEL4, LEVEL5_16BYTE = "sgemm_register_blocking", "sgemm_double_buffer", "sgemm_async_copy_vec"
SIZES = (1024, 2048, 4096)

# =============================================================== recorded benchmarks (benchmarks.json)
bench = recorded()
bench_provenance = bench.provenance
bench_rows = {(k, n): bench.at(k, n) for k in (LEVEL3, LEVEL4, LEVEL5_16BYTE, "cublas") for n in SIZES}
# Level 4's gain over Level 3: Level 3 time / Level 4 time - 1, per size
gain = {n: bench_rows[(LEVEL3, n)]["median_ms"] / bench_rows[(LEVEL4, n)]["median_ms"] - 1 for n in SIZES}
registers_level3, registers_level4 = bench_rows[(LEVEL3, 4096)]["registers"], bench_rows[(LEVEL4, 4096)]["registers"]
smem_level3, smem_level4 = bench_rows[(LEVEL3, 4096)]["smem_static"], bench_rows[(LEVEL4, 4096)]["smem_static"]

f.set("b_device", bench_provenance["device"])
f.set("b_date", str(bench_provenance["date"])[:10])
for n in SIZES:
    f.set(f"pc_rb_{n}", bench_rows[(LEVEL3, n)]["pct_cublas"], ".1f")
    f.set(f"pc_db_{n}", bench_rows[(LEVEL4, n)]["pct_cublas"], ".1f")
    f.set(f"gain_{n}", 100 * gain[n], ".1f")
f.set("ms_rb_4096", bench_rows[(LEVEL3, 4096)]["median_ms"], ".2f")
f.set("ms_db_4096", bench_rows[(LEVEL4, 4096)]["median_ms"], ".2f")
f.set("ms_cublas_4096", bench_rows[("cublas", 4096)]["median_ms"], ".2f")
f.set("tf_db_4096", bench_rows[(LEVEL4, 4096)]["gflops"] / 1000, ".1f")
f.set("pk_db_4096", bench_rows[(LEVEL4, 4096)]["pct_peak"], ".1f")
f.set("pc_l5v_4096", bench_rows[(LEVEL5_16BYTE, 4096)]["pct_cublas"], ".1f")
f.set("pc_db_4096_next", bench_rows[(LEVEL4, 4096)]["pct_cublas"], ".1f")
f.set("regs_rb", registers_level3, "d")
f.set("regs_db", registers_level4, "d")
f.set("regs_diff", registers_level4 - registers_level3, "d")
f.set("smem_rb", smem_level3, ",d")
f.set("smem_db", smem_level4, ",d")


@f.claims
def benchmark_directions(check):
    """The text's sentences about the recorded times and ratios."""
    for n in SIZES:
        check(bench_rows[(LEVEL4, n)]["median_ms"] < bench_rows[(LEVEL3, n)]["median_ms"],
              f"본문: Level 4가 세 크기 모두에서 더 빠르다 ({n}³)")
    for n in SIZES:
        check(gain[n] > 0.2, f"본문: 모든 크기에서 20% 넘는 이득 ({n}³)")
    for n in (2048, 4096):
        check(bench_rows[(LEVEL4, n)]["pct_cublas"] < 95, f"본문: {n}³에서 Level 4는 cuBLAS의 95%에 못 미친다")
    check(abs(bench_rows[(LEVEL5_16BYTE, 4096)]["pct_cublas"] - bench_rows[(LEVEL4, 4096)]["pct_cublas"]) < 3,
          "다음 단계: 이 장의 벤치마크 기록에서 Level 5(16바이트)는 Level 4와 거의 같은 자리(3%p 안)")
    check(bench.at(LEVEL3 + "_padded", 4096)["median_ms"] > bench_rows[(LEVEL3, 4096)]["median_ms"],
          "본문: 패딩이 큰 행렬에서 느리다")


# ================================================= occupancy model (sims.roofline, sm_90, 256 threads)
occupancy_level3 = roofline.occupancy(256, registers_level3, smem_level3, "sm_90")
occupancy_level4 = roofline.occupancy(256, registers_level4, smem_level4, "sm_90")
f.set("occ_rb", occupancy_level3.occupancy_pct, ".1f")
f.set("occ_db", occupancy_level4.occupancy_pct, ".1f")
f.set("occ_blocks", occupancy_level4.blocks_per_sm, "d")
f.set("occ_smem_blocks", occupancy_level4.limits["smem"], "d")


H100 = devices.PROFILES["H100"]
f.set("h100_smem_kib", H100.smem_per_sm // 1024, "d")


def _h100_occupancy_pct(registers: int) -> float:
    """Theoretical occupancy of a 256-thread block on the H100 (kernels.devices, the course's one rule)."""
    blocks = devices.occupancy(H100, 256, registers, 0)["blocks_per_sm"]
    return 100 * blocks * 8 / (H100.max_threads_per_sm // 32)


@f.claims
def register_and_occupancy_budget(check):
    check(max(registers_level3, registers_level4) <= 128 and registers_level4 > registers_level3,
          "본문: 둘 다 128개 이하, Level 4가 더 많다")
    check(occupancy_level3.occupancy_pct == occupancy_level4.occupancy_pct == 25.0, "본문: 둘 다 이론 점유율 25%")
    check(smem_level4 == 2 * smem_level3 == 16384, "본문: 공유 메모리 8,192 → 16,384 B")
    check(registers_level3 + 8 <= 128, "본문: Level 3의 레지스터에 8개를 더해도 128개 경계 안")
    check(2 * (smem_level4 + H100.smem_reserved_per_block) < H100.smem_per_sm
          and devices.occupancy(H100, 256, registers_level4, smem_level4)["limiter"] == "registers",
          "본문: H100에서는 공유 메모리가 블록 수를 제한하지 않는다 (제한 요인은 레지스터)")
    # 사전 복습 3: 81–128 registers give 2 blocks (25%) on the H100, 80 gives more, 129 and 130 one block (12.5%)
    check(all(_h100_occupancy_pct(r) == 25.0 for r in range(81, 129)) and _h100_occupancy_pct(80) > 25.0
          and _h100_occupancy_pct(129) == _h100_occupancy_pct(130) == 12.5,
          "사전 복습 3: H100에서 레지스터 81–128개는 25%, 96과 120도 25%, 129개부터 12.5%")
    # 핵심 정리: the 128-register boundary is two blocks against one on every GPU the course lists
    check(all(devices.occupancy(d, 256, registers_level4, smem_level4)["blocks_per_sm"] == 2
              and devices.occupancy(d, 256, 130, smem_level4)["blocks_per_sm"] == 1 for d in devices.PROFILES.values()),
          "핵심 정리: 128개 이하면 SM당 두 블록, 넘으면 한 블록 (강좌가 다루는 모든 GPU)")


@f.claims
def module7_padded_variant(check):
    """'모듈 7은 행을 129 float로 한 칸씩 패딩한 Level 3 변형(FMA를 인라인 PTX로)을 재어, LDS.128 일부가 더 좁은
    로드로 쪼개지고 2048³과 4096³에서 기본 커널보다 느린 것을 보았습니다' (shared-buffers)."""
    padded = sass.summarize(LEVEL3 + "_padded", "sm_90")
    base = sass.summarize(LEVEL3, "sm_90")
    check(0 < padded.lds_widths.get("128", 0) < base.lds_widths.get("128", 0)
          and set(padded.lds_widths) - {"128"}, "본문: 패딩 변형에서 LDS.128 일부가 더 좁은 로드로 쪼개진다")
    check(all(bench.at(LEVEL3 + "_padded", n)["median_ms"] > bench_rows[(LEVEL3, n)]["median_ms"] for n in (2048, 4096)),
          "본문: 패딩 변형은 2048³과 4096³에서 기본 커널보다 느리다")
    from kernels import registry
    check(registry.get(LEVEL3 + "_padded").static_smem == 2 * 8 * 129 * 4, "본문: 패딩 변형의 행은 129 float")


# ============================================= recorded Nsight Compute profiles (profiles.json, 4096³)
profile_record = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
_profiles = {k["kernel"]: k for k in profile_record["kernels"]}
profile_level3, profile_level4 = _profiles[LEVEL3], _profiles[LEVEL4]
stalls_level3, stalls_level4 = profile_level3["stalls"], profile_level4["stalls"]

f.set("p_device", profile_record["device"])
f.set("p_date", str(profile_record["date"])[:10])
for tag, profile in (("rb", profile_level3), ("db", profile_level4)):
    f.set(f"p_dur_{tag}", profile["duration_ms"], ".2f")
    f.set(f"p_sm_{tag}", profile["sm_pct"], ".1f")
    f.set(f"p_issue_{tag}", profile["issue_active_pct"], ".1f")
    f.set(f"p_ach_{tag}", profile["achieved_occupancy_pct"], ".1f")
    f.set(f"p_theo_{tag}", profile["theoretical_occupancy_pct"], ".1f")
    f.set(f"p_ls_{tag}", profile["stalls"]["Long Scoreboard"], ".2f")
    f.set(f"p_bar_{tag}", profile["stalls"]["Barrier"], ".2f")
    f.set(f"p_ss_{tag}", profile["stalls"]["Short Scoreboard"], ".2f")
    f.set(f"p_wait_{tag}", profile["stalls"]["Wait"], ".2f")
    f.set(f"p_ns_{tag}", profile["stalls"]["Not Selected"], ".2f")
    f.set(f"p_fma_{tag}", profile["fma_pipe_pct"], ".1f")
    f.set(f"p_lsu_{tag}", profile["lsu_issue_pct"], ".1f")
f.set("p_ls_drop", 100 * (1 - stalls_level4["Long Scoreboard"] / stalls_level3["Long Scoreboard"]), ".0f")


@f.claims
def profile_directions(check):
    """The text's reading of the two profiles' warp states and throughputs."""
    s3, s4 = stalls_level3, stalls_level4
    check(s4["Long Scoreboard"] < 0.1 * s3["Long Scoreboard"], "본문: Long Scoreboard가 거의 사라졌다")
    check(0.8 * s3["Barrier"] <= s4["Barrier"] <= s3["Barrier"], "본문: Barrier는 거의 그대로(조금 줄거나 같다)")
    check(s4["Short Scoreboard"] < s3["Short Scoreboard"], "본문: Short Scoreboard 감소")
    check(s3["Long Scoreboard"] - s4["Long Scoreboard"] > s3["Short Scoreboard"] - s4["Short Scoreboard"],
          "본문: 가장 크게 줄어든 항목은 Long Scoreboard")
    check(s4["Wait"] < s3["Wait"] and s4["Wait"] < 0.5 * s4["Not Selected"], "본문: Wait는 줄었고 작다")
    check(s4["Not Selected"] > s3["Not Selected"], "본문: Not Selected 증가")
    for key in ("issue_active_pct", "sm_pct", "fma_pipe_pct"):
        check(profile_level4[key] > profile_level3[key] + 10, f"본문: {key}가 10%p 넘게 오른다")
    check(max((v, k) for k, v in s4.items() if k != "Selected")[1] == "Not Selected",
          "본문: Level 4에서 가장 큰 항목은 Not Selected")
    check(profile_level4["ffma_instructions"] == profile_level3["ffma_instructions"], "본문: 실행된 FFMA 수는 같다")
    drop = {k: s3[k] - s4[k] for k in s3 if k != "Selected"}
    check(sorted(drop, key=lambda k: -drop[k])[:2] == ["Long Scoreboard", "Short Scoreboard"],
          "본문: Short Scoreboard가 두 번째로 크게 줄었다")
    check(0.4 < s4["Wait"] / s3["Wait"] < 0.6 and max(s3["Wait"], s4["Wait"]) < 0.5,
          "본문: Wait는 절반으로 줄었고 둘 다 작다")
    check(profile_level4["duration_ms"] < profile_level3["duration_ms"], "본문: 프로파일러 아래 실행 시간도 줄었다")
    check(profile_level4["achieved_occupancy_pct"] < profile_level4["theoretical_occupancy_pct"]
          == profile_level3["theoretical_occupancy_pct"] == 25,
          "본문: Nsight Compute도 두 커널의 이론 점유율을 25%로 본다")


# ====================================== the old loop timed against the shipped Level 4 (variants.json)
variants_record = json.loads((DATA_DIR / "variants.json").read_text(encoding="utf-8"))
_old_loop_rows = {(r["variant"], r["M"]): r for r in variants_record["rows"]
                  if r["variant"].startswith("level4_old_loop")}
_VARIANT_LABELS = {"level4_old_loop": "이전 판: if (has_next), (256)", "level4_old_loop_lb2": "이전 판 루프 + (256, 2)"}


def variant_rows() -> list[dict]:
    """Rows of the chapter's table: each old-loop variant against the shipped Level 4, per size."""
    return [{"v": _VARIANT_LABELS[v], "n": f"{n}³", "var": f"{r['variant_ms']:.3f}", "base": f"{r['base_ms']:.3f}",
             "ratio": f"{r['time_ratio']:.2f}"} for (v, n), r in sorted(_old_loop_rows.items())]


old_loop_4096 = _old_loop_rows[("level4_old_loop", 4096)]
old_loop_bounds2_4096 = _old_loop_rows[("level4_old_loop_lb2", 4096)]
# Level 3 at 4096³ in the same run: the base of its padded variant (timed in its own alternation window).
level3_in_variants_4096 = next(r for r in variants_record["rows"]
                               if r["base"] == LEVEL3 and r["M"] == r["N"] == r["K"] == 4096)
f.set("v_device", variants_record["device"])
f.set("v_date", str(variants_record["date"])[:10])
f.set("v_ms_db_4096", old_loop_4096["base_ms"], ".2f")
f.set("v_ms_old_4096", old_loop_4096["variant_ms"], ".2f")
f.set("v_ms_rb_4096", level3_in_variants_4096["base_ms"], ".2f")
f.set("old_slow_4096", 100 * (old_loop_4096["time_ratio"] - 1), ".0f")
f.set("old_lb2_slow_4096", 100 * (old_loop_bounds2_4096["time_ratio"] - 1), ".0f")
f.set("old_ratio_4096", old_loop_4096["time_ratio"], ".2f")


@f.claims
def old_loop_timings(check):
    check(all(r["correct"] for r in _old_loop_rows.values()), "본문: 이전 판 루프는 배포본과 같은 C를 낸다")
    check(all(r["time_ratio"] > 1.05 for r in _old_loop_rows.values()),
          "본문: 이전 판 루프는 모든 크기에서 배포본보다 느리다")
    check(abs(old_loop_4096["time_ratio"] - old_loop_bounds2_4096["time_ratio"]) < 0.03, "본문: (256, 2)만 더해도 거의 같다")
    check(old_loop_4096["base_ms"] < old_loop_4096["variant_ms"] < level3_in_variants_4096["base_ms"],
          "본문: 같은 기록(variants.json)의 4096³에서 이전 판 루프는 배포본보다 느리고 Level 3보다는 빠르다")
    check(variants_record["device"] == bench_provenance["device"]
          and variants_record["date"] != bench_provenance["date"],
          "본문: variants.json은 벤치마크 기록과 같은 장치에서 다른 실행으로 잰 것이다(그래서 표 안에서만 견준다)")


# ============================================= grid fill at 1024³ (the wave model of modules 7 and 11)
SM_COUNT = bench_provenance["sm_count"]
waves = {n: warp_tiling.waves(n, n, 128, 128, SM_COUNT, occupancy_level4.blocks_per_sm) for n in SIZES}
_per_sm_peak = bench_provenance["peak_gflops"] / SM_COUNT
f.set("sm_count", SM_COUNT, "d")
f.set("blocks_1024", waves[1024].blocks, "d")
f.set("idle_1024", SM_COUNT - waves[1024].busy_sms, "d")
for tag, kernel in (("rb", LEVEL3), ("db", LEVEL4)):
    f.set(f"per_sm_{tag}_1024", bench_rows[(kernel, 1024)]["gflops"] / waves[1024].busy_sms / _per_sm_peak * 100, ".0f")


f.set("pk_rb_4096", bench_rows[(LEVEL3, 4096)]["pct_peak"], ".0f")


@f.claims
def grid_fill(check):
    check(bench_rows[(LEVEL3, 4096)]["pct_peak"] > bench_rows[(LEVEL3, 1024)]["gflops"] / waves[1024].busy_sms
          / _per_sm_peak * 100 + 10,
          "본문: Level 3의 SM 하나는 블록 둘로 도는 4096³에서 블록 하나로 도는 1024³보다 자기 최대에 더 가깝다")
    check(2 * waves[1024].blocks < SM_COUNT, "본문: 1024³은 블록이 SM의 절반도 안 된다")
    check(min(waves[2048].blocks, waves[4096].blocks) >= 1.9 * SM_COUNT and occupancy_level4.blocks_per_sm == 2,
          "본문: 2048³과 4096³에서는 거의 모든 SM에 블록이 둘씩")
    check(gain[1024] > max(gain[2048], gain[4096]) + 0.1, "본문: 이득이 가장 큰 크기는 1024³")
    check(bench_rows[(LEVEL4, 1024)]["gflops"] > 1.3 * bench_rows[(LEVEL3, 1024)]["gflops"],
          "본문: 1024³에서 일하는 SM 하나의 처리량이 올랐다")
    check(bench_rows[(LEVEL4, 1024)]["pct_cublas"]
          < min(bench_rows[(LEVEL4, 2048)]["pct_cublas"], bench_rows[(LEVEL4, 4096)]["pct_cublas"]),
          "본문: 1024³의 cuBLAS 대비 비율은 큰 크기보다 낮다")


# ============================================================ SASS of Levels 3 and 4 (sm_90, recorded)
sass_level3, sass_level4 = sass.summarize(LEVEL3, "sm_90"), sass.summarize(LEVEL4, "sm_90")
f.set("s_regs_rb", sass_level3.registers, "d")
f.set("s_regs_db", sass_level4.registers, "d")
f.set("s_smem_db", sass_level4.smem_static, ",d")
f.set("s_smem_rep_db", sass_level4.smem_reported, ",d")
f.set("s_reserved", sass_level4.smem_reported - sass_level4.smem_static, ",d")
f.set("s_ffma_rb", sass_level3.ffma, "d")
f.set("s_ffma_db", sass_level4.ffma, "d")
f.set("s_ffma_extra", sass_level4.ffma - sass_level3.ffma, "d")
f.set("s_ldgc_rb", sass_level3.counts["LDG.E.128.CONSTANT"], "d")
f.set("s_ldgc_db", sass_level4.counts["LDG.E.128.CONSTANT"], "d")
f.set("s_ldg_c", sass_level4.ldg_128 - sass_level4.counts["LDG.E.128.CONSTANT"], "d")
# The chapter prints the first 20 LDG/STS/BAR/FFMA instructions of Level 4 (its prologue).
level4_excerpt = sass.excerpt(LEVEL4, "sm_90", pattern=r"LDG|STS|BAR|FFMA", limit=20)


@f.claims
def sass_summary_table(check):
    """The text under the chapter's SASS summary table and excerpt."""
    s3, s4 = sass_level3, sass_level4
    check(s3.spills == s4.spills == 0 and s4.ffma == s3.ffma + 512, "본문: 스필 없음, 꼬리의 계산이 FFMA 512개를 더한다")
    check(s3.ffma - 512 == 64, "본문: Level 3의 FFMA = 루프의 512개 + 에필로그 beta 경로의 64개 (스레드의 8×8 칸)")
    check(s4.registers - s3.registers > 12, "본문: 레지스터가 float 8개보다 훨씬 많이 는다")
    check(s4.counts["LDG.E.128.CONSTANT"] == 2 * s3.counts["LDG.E.128.CONSTANT"] == 4,
          "본문: 타일 로드 LDG.E.128.CONSTANT는 Level 3에 둘(A, B), Level 4에 넷(프롤로그와 루프)")
    check(s4.sts_widths == {k: 2 * v for k, v in s3.sts_widths.items()},
          "본문: STS 4개와 STS.128 하나의 묶음이 Level 3에 한 벌, Level 4에 두 벌")
    check((s3.smem_static, s4.smem_static) == (smem_level3, smem_level4),
          "본문: 선언한 공유 메모리가 CUDA 런타임이 보고한 정적 공유 메모리(벤치마크 기록)와 같다")
    check(s4.smem_reported - s4.smem_static == s3.smem_reported - s3.smem_static == 1024,
          "본문: ptxas 보고값에는 sm_90이 블록마다 잡아 두는 1,024 B가 더해진다")
    ops = [" ".join(line.split(";")[0].split()).split() for line in level4_excerpt.splitlines()]
    ops = [o[1] if o[0].startswith("@") else o[0] for o in ops]
    check(ops[:8] == ["LDG.E.128.CONSTANT"] * 2 + ["STS"] * 4 + ["STS.128", "BAR.SYNC.DEFER_BLOCKING"]
          and all(o.startswith("FFMA") for o in ops[8:]),
          "본문: 발췌 20줄은 프롤로그(LDG 둘, STS 넷과 STS.128 하나, BAR, 첫 FFMA)이고 루프의 LDG는 없다")
    check(s4.ldg_128 - s4.counts["LDG.E.128.CONSTANT"] == s3.ldg_128 - s3.counts["LDG.E.128.CONSTANT"] == 16,
          "본문: 나머지 LDG.E.128은 에필로그가 C를 읽는 float4 16개 (스레드의 64칸)")


# =============================================== where the loads sit in the main loop (SASS, recorded)
_PREDICATE = re.compile(r"^@!?U?P\w+\s+")
INSTRUCTION_BYTES = 16          # every sm_70+ instruction; the loop body is contiguous from the closing branch's target
BRANCH = "분기"                  # the chapter's name for a forward conditional branch inside the loop body


def opcode(instruction: str) -> str:
    """'@!P0 LDG.E.128 R4, [R2.64]' -> 'LDG.E.128' (the predicate is stripped)."""
    return _PREDICATE.sub("", instruction).split()[0]


def _branch_target(instruction: str) -> int:
    return int(re.search(r"\bBRA\b.*?0x([0-9a-f]+)", instruction).group(1), 16)


@dataclass(frozen=True)
class LoopEvents:
    """The chapter's reading of a main loop (its cell's `loop_events`): how many FFMAs it holds, and each LDG,
    STS, BAR and forward conditional branch with the number of FFMAs before it."""
    ffma: int
    events: tuple[tuple[str, int], ...]

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.events]

    def count(self, kind: str) -> int:
        return self.kinds().count(kind)

    def first(self, kind: str) -> int:
        return min(position for k, position in self.events if k == kind)

    def positions(self, kind: str) -> list[int]:
        return [position for k, position in self.events if k == kind]


def loop_events(kernel: str, variant: str | None = None) -> LoopEvents:
    """The events of the kernel's main loop (sm_90), read from the recorded loop instructions."""
    body = sass.main_loop(kernel, "sm_90", variant)
    start = _branch_target(body[-1])       # main_loop ends on the backward branch that jumps to its first instruction
    ffma, events = 0, []
    for index, instruction in enumerate(body):
        op = opcode(instruction)
        if op.startswith("FFMA"):
            ffma += 1
        elif op.startswith(("LDG", "STS", "BAR")):
            events.append((op.split(".")[0], ffma))
        elif op == "BRA" and instruction.startswith("@"):
            if _branch_target(instruction) > start + INSTRUCTION_BYTES * index:     # jumps forward
                events.append((BRANCH, ffma))
    return LoopEvents(ffma, tuple(events))


def _lds_positions_of(loop_instructions: list[str]) -> list[int]:
    """FFMA count before each LDS of a main loop."""
    positions, ffma = [], 0
    for instruction in loop_instructions:
        ffma += opcode(instruction).startswith("FFMA")
        if opcode(instruction).startswith("LDS"):
            positions.append(ffma)
    return positions


loop_level3, loop_level4 = loop_events(LEVEL3), loop_events(LEVEL4)
_ldg_level4, _sts_level4 = loop_level4.first("LDG"), loop_level4.first("STS")
# Each of the SM's 4 schedulers issues the FFMAs between the load and its STS for each of its warps in turn.
_issue_cycles_between = (occupancy_level4.active_warps // 4) * (_sts_level4 - _ldg_level4)
f.set("loop_ffma", loop_level4.ffma, "d")
f.set("db_ldg_at", _ldg_level4, "d")
f.set("db_sts_at", _sts_level4, "d")
f.set("db_between", _sts_level4 - _ldg_level4, "d")
f.set("db_between_pct", 100 * (_sts_level4 - _ldg_level4) / loop_level4.ffma, ".0f")
f.set("db_between_cycles", _issue_cycles_between, ",d")


@f.claims
def shipped_loop_order(check):
    """'In the shipped Level 4 the loads sit in the middle of the compute, and the loop body has no branch.'
    If a kernel or compiler change breaks these, the section and the reading of the measurements change."""
    l3, l4 = loop_level3, loop_level4
    check(occupancy_level4.active_warps == 16, "본문: SM에 워프 16개, 스케줄러 넷에 4개씩")
    check(_issue_cycles_between > 800,
          "본문: 로드와 STS 사이의 FFMA를 내는 사이클이 글로벌 로드 레이턴시(수백 사이클)보다 길다")
    check(l3.ffma == l4.ffma == 512, "본문: 두 커널의 메인 루프에 FFMA 512개 (k 스텝 8번 × 64)")
    check(l3.count("BAR") == 2 and l4.count("BAR") == 1, "본문: Level 3의 루프는 BAR로 시작해 두 번째 BAR로 끝나고, Level 4에는 하나")
    check(all(pos == 0 for kind, pos in l3.events if kind in ("LDG", "STS")) and max(l3.positions("BAR")) == 512,
          "본문: Level 3의 루프는 LDG → STS → BAR로 시작하고(그 사이 FFMA 없음) FFMA 512개 뒤 BAR로 끝난다")
    check(l4.count(BRANCH) == 0 and l3.count(BRANCH) == 0, "본문: 루프 본문에는 조건 분기가 하나도 없다")
    check(0 < _ldg_level4 < l4.ffma // 2 and _sts_level4 < l4.ffma and _sts_level4 - _ldg_level4 >= l4.ffma // 4,
          "본문: 배포된 Level 4의 LDG는 루프 앞쪽 절반에, STS는 그보다 FFMA 수백 개 뒤에 있다")


# The old loop (kernels/variants.py) and the two changes one at a time, as the chapter compiles them.
# level4_old_loop builds from the same expanded kernel text that the variant's transform receives.
OLD_LOOP = sass.variant("level4_old_loop", "sgemm_double_buffer.cu", lambda _text: level4_old_loop())
OLD_LOOP_BOUNDS2 = sass.variant("level4_old_loop_lb2", "sgemm_double_buffer.cu",
                                lambda _text: level4_old_loop(two_blocks_per_sm=True))
PEELED_ONLY = sass.variant("level4_peeled_only", "sgemm_double_buffer.cu",
                           lambda text: text.replace(LEVEL4_BOUNDS_2, LEVEL4_BOUNDS_1))
sass_old_loop = sass.summarize(LEVEL4, "sm_90", variant=OLD_LOOP)
sass_peeled_only = sass.summarize(LEVEL4, "sm_90", variant=PEELED_ONLY)
loop_old, loop_old_bounds2, loop_peeled_only = (loop_events(LEVEL4, variant)
                                                for variant in (OLD_LOOP, OLD_LOOP_BOUNDS2, PEELED_ONLY))
_ldg_old, _sts_old = loop_old.first("LDG"), loop_old.first("STS")
f.set("old_ldg_at", _ldg_old, "d")
f.set("old_between", _sts_old - _ldg_old, "d")
f.set("old_regs", sass_old_loop.registers, "d")
f.set("old2_ldg_at", loop_old_bounds2.first("LDG"), "d")
f.set("pe_regs", sass_peeled_only.registers, "d")
f.set("pe_occ", roofline.occupancy(256, sass_peeled_only.registers, 16384, "sm_90").occupancy_pct, ".1f")
f.set("pe_ldg_at", loop_peeled_only.first("LDG"), "d")


@f.claims
def old_loop_and_the_two_changes(check):
    """Old version: a conditional branch, and the loads at the end of the compute; (256, 2) alone changes nothing.
    Tail peeling alone moves the loads up but exceeds 128 registers; the shipped kernel does both."""
    old, old2, peeled = loop_old, loop_old_bounds2, loop_peeled_only
    check(old.ffma == 512 and old.count(BRANCH) >= 1 and old.count("BAR") == 1,
          "본문: 이전 판 루프에도 FFMA 512개, 조건 분기가 있고 BAR는 하나")
    check(_ldg_old >= 7 * old.ffma // 8 and _sts_old - _ldg_old <= 16,
          "본문: 이전 판은 FFMA가 거의 다 지난 뒤에야 LDG를 내고, 몇 개 뒤 STS가 이어진다")
    check(old.kinds() == [BRANCH, "LDG", "LDG", BRANCH] + ["STS"] * 5 + ["BAR"],
          "본문: 이전 판은 분기 → LDG 둘 → (FFMA 몇 개) → 분기 → STS 다섯 → BAR")
    check(sass_old_loop.registers == sass_level4.registers <= 128 and old2.first("LDG") >= 7 * old.ffma // 8
          and old2.count(BRANCH) >= 1,
          "본문: (256, 2)만 더하면 아무것도 바뀌지 않는다(레지스터는 이미 한도 안, 로드는 여전히 끝에)")
    check(peeled.count(BRANCH) == 0 and peeled.first("LDG") < old.ffma // 2,
          "본문: 꼬리만 빼면 분기가 사라지고 로드가 앞쪽 절반으로 올라온다")
    check(sass_peeled_only.registers > 128 and sass_level4.registers <= 128 and sass_level4.spills == 0,
          "본문: 꼬리만 빼면 레지스터가 128개를 넘고, 배포본은 128개 이하에 스필 없음")
    check(peeled.first("LDG") < _ldg_level4, "본문: 한도를 주면 로드가 조금 늦게 나간다")
    check(_sts_level4 - _ldg_level4 < peeled.first("STS") - peeled.first("LDG"),
          "본문: 한도를 주면 a, b가 살아 있는 구간(LDG에서 STS까지)이 짧아진다")


_lds_old_loop = _lds_positions_of(sass.main_loop(LEVEL4, "sm_90", OLD_LOOP))
_lds_shipped = _lds_positions_of(sass.main_loop(LEVEL4, "sm_90"))


@f.claims
def old_loop_differs_in_more_than_the_loads(check):
    """'다른 것은 루프 본문의 분기 하나와, 그 때문에 컴파일러가 다르게 짠 명령의 배치입니다 ... LDS의 자리도 같지
    않습니다': the old loop and the shipped one have the same registers, barriers and LDS count, but not the same
    LDS positions, so the measured 21% is not the load position's alone."""
    check(sass_old_loop.registers == sass_level4.registers and loop_old.count("BAR") == loop_level4.count("BAR") == 1,
          "본문: 두 커널은 레지스터 수와 배리어 수가 같다")
    check(len(_lds_old_loop) == len(_lds_shipped) == 32 and _lds_old_loop != _lds_shipped,
          "본문: 이전 판과 배포본은 LDS의 자리도 다르다")


@f.absence("로드의 자리 몫만 따로 잰 값은 기록에 없습니다")
def load_position_share_not_measured(check):
    level4_variants = {r["variant"] for r in variants_record["rows"] if r["variant"].startswith("level4")}
    check(level4_variants == {"level4_old_loop", "level4_old_loop_lb2"},
          f"본문: variants.json의 Level 4 변형은 이전 판 루프 둘뿐이다 ({sorted(level4_variants)})")
    check(_lds_old_loop != _lds_shipped, "본문: 그 두 변형은 로드의 자리 말고 LDS의 자리도 배포본과 다르다")


@f.absence("그 몫만 따로 잰 것은 아닙니다")
def inter_warp_overlap_not_isolated(check):
    check(sass_old_loop.registers != sass_level3.registers,
          "왜 이것이 작동하는가?: 이전 판과 Level 3은 배리어 수 말고 레지스터 수도 다르다")
    check(not any(r["variant"].startswith("level3") and "barrier" in r["variant"] for r in variants_record["rows"]),
          "왜 이것이 작동하는가?: 배리어 하나만 뺀 Level 3 변형은 variants.json에 없다")


_lds_level3 = _lds_positions_of(sass.main_loop(LEVEL3, "sm_90"))
_lds_level4 = _lds_positions_of(sass.main_loop(LEVEL4, "sm_90"))


@f.claims
def micro_kernel_scheduling(check):
    check(len(_lds_level3) == len(_lds_level4) == 32 and _lds_level3 != _lds_level4,
          "본문: 마이크로 커널의 소스는 같지만 FFMA 사이에 LDS가 끼어드는 자리가 두 커널에서 다르다")


# ========================================================== the quiz's numbers (course/quiz/banks/m08.yaml)
@f.claims
def quiz_numbers(check):
    check(registers_level3 == profile_level3["registers"] == sass_level3.registers == 104
          and registers_level4 == profile_level4["registers"] == sass_level4.registers == 127,
          "퀴즈 m08-q04, q08: 레지스터 104 → 127 (벤치마크, Nsight Compute, SASS가 모두 같다)")
    for qid in ("m08-q04", "m08-q08"):
        text = quiz_text(8, qid)
        check(f"{registers_level3}개에서 {registers_level4}개로" in text and "약 8개" not in text, f"퀴즈 {qid}: 104개에서 127개로")
    check(f"{registers_level4 - registers_level3}개 늘었다" in quiz_text(8, "m08-q04"), "퀴즈 m08-q04: 23개 늘었다")
    q8 = quiz_text(8, "m08-q08")
    check(all(f"{round(100 * gain[n])}%" in q8 for n in SIZES),
          "퀴즈 m08-q08: 세 크기의 이득 " + ", ".join(f"{round(100 * gain[n])}%" for n in SIZES))
    check(gain[1024] > max(gain[2048], gain[4096]) and 2 * waves[1024].blocks < SM_COUNT
          and f"{waves[1024].blocks}개" in q8, "퀴즈 m08-q08: 블록 64개뿐인 1024³에서 이득이 가장 컸다")
    check(smem_level3 == 8192 and smem_level4 == 16384 and "16,384" in quiz_text(8, "m08-q03"), "퀴즈 m08-q03: 16,384 B")
    smallest = min(devices.PROFILES.values(), key=lambda d: d.smem_per_sm)
    a100 = devices.PROFILES["A100-40GB"]
    two_blocks = 2 * (smem_level4 + max(d.smem_reserved_per_block for d in devices.PROFILES.values()))
    check(smallest.name == "T4" and f"T4({smallest.smem_per_sm // 1024} KiB)" in q8
          and f"A100 {a100.smem_per_sm // 1024} KiB" in q8 and f"H100 {H100.smem_per_sm // 1024} KiB" in q8
          and two_blocks == 34 * 1024 and "34 KiB" in q8 and two_blocks < smallest.smem_per_sm,
          "퀴즈 m08-q08: 두 블록(예약 몫 포함 34 KiB)이 SM당 공유 메모리가 가장 작은 T4(64 KiB)에도 들어간다")


@f.claims
def simulation_8_answers(check):
    """The worked answers of simulation 8 (T_L = 600, T_C = 450, 8 tiles), from sims.pipeline."""
    one = pipeline.double_buffer_schedule(600, 450, num_tiles=8, stages=1)
    two = pipeline.double_buffer_schedule(600, 450, num_tiles=8, stages=2)
    check(one.total_time == 8400 and one.steady_idle_per_tile == 600, "정답 1: 8,400사이클, 타일마다 600사이클 쉼")
    check(two.total_time == 5250 and round(one.total_time / two.total_time, 2) == 1.6, "정답 2: 5,250사이클, 1.6배")
    check(two.steady_idle_per_tile == 150 and two.steady_time_per_tile == 600 and one.steady_time_per_tile == 1050,
          "정답 3: 유휴 150, 타일당 600 (버퍼 하나면 1,050)")
    fast, faster = (pipeline.double_buffer_schedule(t, 450, num_tiles=8, stages=2) for t in (300, 150))
    check(fast.steady_idle_per_tile == 0 and fast.steady_time_per_tile == faster.steady_time_per_tile == 450
          and fast.total_time == 3900 and fast.total_time - faster.total_time == 300 - 150,
          "정답 4: 타일당 450은 그대로이고, 총 시간(3,900)에서 줄어드는 것은 프롤로그의 T_L뿐")


@f.claims
def quiz_simulation_8(check):
    """m08-q06 under simulation 8's model: one load unit, loads never overlap, so more buffers cannot remove the
    150 cycles (each tile's load keeps the unit busy 600 cycles)."""
    q6 = quiz_text(8, "m08-q06")
    schedule = pipeline.double_buffer_schedule(600, 450, num_tiles=8, stages=2)
    loads = schedule.loads
    check("600사이클" in q6 and "450사이클" in q6 and schedule.steady_idle_per_tile == 150,
          "퀴즈 m08-q06: 시뮬레이션 8의 정상 상태 유휴 시간은 150사이클")
    check(all(a.end <= b.start for a, b in zip(loads, loads[1:])) and schedule.steady_time_per_tile == 600
          and "로드끼리 겹치지 않는다" in q6 and "150사이클은 그대로다" in q6,
          "퀴즈 m08-q06: 로드끼리 겹치지 않으니 타일당 600사이클, 버퍼를 더 두어도 150사이클은 그대로")
    check("스테이지를 늘리거나" not in q6, "퀴즈 m08-q06: 이 모델에서 스테이지를 늘리라는 처방은 하지 않는다")
    # Module 9's latency-bound ring with a third buffer: idle max(0, T_L - 2 T_C) = 0 < 150, because here T_L > T_C.
    check("로드가 계산보다 길 때" in q6 and max(0, 600 - 2 * 450) < schedule.steady_idle_per_tile,
          "퀴즈 m08-q06: 로드가 계산보다 긴 이 문제에서는 버퍼가 셋이면 두 모델의 답이 갈린다")


# ===================================== cuBLAS's own spread between timing windows (benchmarks.json)
f.set("cb_spread_2048", bench.cublas_window_spread_pct(2048), ".1f")
f.set("cb_spread_4096", bench.cublas_window_spread_pct(4096), ".1f")


@f.claims
def level4_gap_to_cublas_is_not_noise(check):
    """'창마다 잰 cuBLAS의 시간은 2048³에서 ...%밖에 다르지 않았습니다 ... 그 어긋남보다 열 배 넘게 큰 격차는
    측정의 흔들림이 아니라 두 커널의 실제 차이입니다' (measurement section)."""
    for n in (2048, 4096):
        spread = bench.cublas_window_spread_pct(n)
        check(spread < 1, f"본문: {n}³에서 창마다 잰 cuBLAS 시간은 1% 안에서 일치한다")
        check(100 - bench_rows[(LEVEL4, n)]["pct_cublas"] > 10 * spread,
              f"본문: {n}³에서 Level 4와 cuBLAS의 격차는 창 사이의 어긋남보다 열 배 넘게 크다")


# ================================================ what the records do not hold (absence sentences)
_source_stalls = json.loads((DATA_DIR / "source_stalls.json").read_text(encoding="utf-8"))
_source_stall_kernels = {k["kernel"] for k in _source_stalls["kernels"]}


@f.absence("Level 3과 Level 4의 명령별 샘플은 기록에 없습니다")
def no_source_samples_for_levels_3_and_4(check):
    check(_source_stall_kernels == {LEVEL5_16BYTE},
          "본문: 명령별 샘플(source_stalls.json)은 Level 5(16바이트) 하나뿐이고 Level 3·4의 것은 없다")


def _no_a100_record(check, where: str) -> None:
    """The source material's A100 figures were never measured here: no record comes from an A100."""
    devices = [bench_provenance["device"], profile_record["device"], variants_record["device"], _source_stalls["device"]]
    check(all("A100" not in d for d in devices), f"{where}: 기록된 장치 중 A100이 없다 ({devices})")


@f.absence("이 책의 기록에는 A100에서 잰 값이 없습니다")
def no_a100_measurement(check):
    _no_a100_record(check, "핵심 정리")


@f.absence("측정한 값이 아니고 장치도 다르니")
def source_range_70_85_not_measured(check):
    _no_a100_record(check, "측정 절: 원 자료의 70–85%")


@f.absence("원 자료 주장, A100, 측정 아님")
def source_profile_not_measured(check):
    _no_a100_record(check, "프로파일 절: 원 자료의 Level 4 프로파일")


@f.claims
def old_loop_timed_in_summary(check):
    check("level4_old_loop" in {v for v, _ in _old_loop_rows},
          "핵심 정리: 이전 판 루프의 시간은 variants.json에 있다(그 값을 인용한다)")
