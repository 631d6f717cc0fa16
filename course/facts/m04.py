"""Facts of module 4 (m04_naive.md): the recorded benchmark and Nsight Compute numbers its text
quotes, and simulation 4's prediction of sectors per request. The claims at the end guard the text's
directional sentences and the recorded numbers the quiz bank quotes."""
from __future__ import annotations

import json
import re

from course.facts import Facts, quiz_text
from course.facts.recorded_sass import sass
from course.page import recorded
from kernels.record import DATA_DIR
from kernels.registry import GRID_YZ_MAX
from sims import coalescing

f = Facts("m04")
f.set("grid_y_max", GRID_YZ_MAX, ",")   # CUDA's limit on blocks along grid y (and z)

N4 = 4096
MIN_BYTES = 3 * N4 * N4 * 4            # minimum bytes: read A and B once, write C once
THREAD_BYTES = 2 * N4 * N4 * N4 * 4    # total bytes all threads request in the K loop
FLOPS = 2 * N4 ** 3

bench = recorded()                      # book/data/benchmarks.json (recorded results)
bench_provenance = bench.provenance
naive_bench = {n: bench.at("sgemm_naive", n) for n in (1024, 2048, 4096)}
strided_bench = bench.at("sgemm_naive_strided", N4)
cublas_bench = bench.at("cublas", N4)

profile_record = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
_profiles = {k["kernel"]: k for k in profile_record["kernels"]}
naive_profile = _profiles["sgemm_naive"]
strided_profile = _profiles["sgemm_naive_strided"]
naive_stalls = naive_profile["stalls"]
naive_stall_total = sum(naive_stalls.values())
l1_sector_bytes = naive_profile["global_ld_sectors"] * 32
dram_intensity = FLOPS / naive_profile["dram_bytes"]        # FLOP per DRAM byte, measured
model_sectors = coalescing.naive_average_sectors(N4, N4, N4, bdx=16, bdy=16)   # simulation 4

# The grid-wide request count of the text (a model: bytes all threads request in the K loop)
AB_BYTES = 2 * N4 * N4 * 4              # A and B, each read once
f.set("n4", N4, "d")
f.set("n4_count", N4, ",d")
f.set("thread_gb", THREAD_BYTES / 1e9, ",.0f")
f.set("ab_mb", AB_BYTES / 1e6, ",.0f")
f.set("min_bytes", MIN_BYTES, ",d")
f.set("min_mb", MIN_BYTES / 1e6, ",.0f")


@f.claims
def request_factor(check):
    """The sentence on how often each input element is requested: reads against reads only (C's write is not
    part of the K loop's requests), so the factor is N (every A element is read by the N threads of its row)."""
    check(THREAD_BYTES / AB_BYTES == N4, "본문: A·B 원소 하나를 평균 N번 요청한다 (C의 쓰기는 분모에 넣지 않는다)")
    check(MIN_BYTES == AB_BYTES + N4 * N4 * 4, "본문: 최소량은 A·B 읽기에 C 쓰기를 더한 값")


# Benchmark record (benchmarks.json)
f.set("b_device", bench_provenance["device"])
f.set("b_date", str(bench_provenance["date"])[:10])
f.set("naive_pct_cublas_4096", naive_bench[4096]["pct_cublas"], ".1f")
f.set("naive_pct_cublas_1024", naive_bench[1024]["pct_cublas"], ".1f")
f.set("naive_gflops_4096", naive_bench[4096]["gflops"], ",.0f")
f.set("naive_ms_4096", naive_bench[4096]["median_ms"], ".1f")
f.set("naive_pct_peak_4096", naive_bench[4096]["pct_peak"], ".1f")
f.set("cublas_ms_4096", cublas_bench["median_ms"], ".2f")
f.set("strided_ms_4096", strided_bench["median_ms"], ".1f")
f.set("strided_pct_cublas_4096", strided_bench["pct_cublas"], ".1f")
f.set("strided_slowdown", strided_bench["median_ms"] / naive_bench[4096]["median_ms"], ".1f")
f.set("peak_tflops", bench_provenance["peak_gflops"] / 1000, ".1f")
f.set("sm_count", bench_provenance["sm_count"], "d")
f.set("fp32_lanes", bench_provenance["fp32_lanes_per_sm"], "d")
f.set("clock_mhz", bench_provenance["clock_mhz"], ",.0f")
f.set("bandwidth_tbs", bench_provenance["bandwidth_gbs"] / 1000, ".2f")
f.set("ridge", bench_provenance["peak_gflops"] / bench_provenance["bandwidth_gbs"], ".1f")


def gpu_name(device: str) -> str:
    """A record's device in short, as the text names it: "NVIDIA H100 80GB HBM3" -> "H100"."""
    return device.replace("NVIDIA ", "").split()[0]


f.set("b_gpu", gpu_name(bench_provenance["device"]))

# Nsight Compute record (profiles.json)
f.set("p_device", profile_record["device"])
f.set("p_date", str(profile_record["date"])[:10])
f.set("p_gpu", gpu_name(profile_record["device"]))
_version = re.search(r"\d{4}\.\d+\.\d+", profile_record.get("tool", ""))
f.set("p_tool", _version.group(0) if _version else profile_record.get("tool", "?"))
f.set("naive_spr", naive_profile["sectors_per_request"], ".2f")
f.set("strided_spr", strided_profile["sectors_per_request"], ".2f")
f.set("sm_pct", naive_profile["sm_pct"], ".0f")
f.set("mem_pct", naive_profile["mem_pct"], ".0f")
f.set("dram_pct", naive_profile["dram_pct"], ".0f")
f.set("occupancy_pct", naive_profile["achieved_occupancy_pct"], ".1f")
f.set("stall_total", naive_stall_total, ".1f")
f.set("ls_cycles", naive_stalls["Long Scoreboard"], ".1f")
f.set("lg_cycles", naive_stalls["LG Throttle"], ".1f")
f.set("ls_share", 100 * naive_stalls["Long Scoreboard"] / naive_stall_total, ".0f")
f.set("lg_share", 100 * naive_stalls["LG Throttle"] / naive_stall_total, ".0f")
f.set("l1_sector_gb", l1_sector_bytes / 1e9, ",.0f")
f.set("dram_gb", naive_profile["dram_bytes"] / 1e9, ".1f")
f.set("dram_read_gb", naive_profile["dram_read_bytes"] / 1e9, ".1f")
f.set("dram_over_min", naive_profile["dram_bytes"] / MIN_BYTES, ".0f")
f.set("dram_share_of_l1", 100 * naive_profile["dram_read_bytes"] / l1_sector_bytes, ".0f")
f.set("dram_ai", dram_intensity, ".1f")
f.set("dram_ai_gain", THREAD_BYTES / naive_profile["dram_bytes"], ".0f")    # = DRAM intensity ÷ 0.25
# Under the profiler (the profile's own device and run): the speed, and the speed DRAM alone would allow
# (DRAM busy dram_pct% of the time, so at 100% it could carry 100/dram_pct times the bytes)
profiled_tflops = FLOPS / (naive_profile["duration_ms"] * 1e-3) / 1e12
f.set("profiled_tflops", profiled_tflops, ".1f")
f.set("dram_roof_tflops", profiled_tflops * 100 / naive_profile["dram_pct"], ".1f")
f.set("dram_headroom", 100 / naive_profile["dram_pct"], ".0f")
# The DRAM bandwidth the profiled GPU had at its peak, as Nsight counts it: bytes per second ÷ busy share
profiled_dram_peak_gbs = naive_profile["dram_bytes"] / (naive_profile["duration_ms"] * 1e-3) / 1e9 \
    * 100 / naive_profile["dram_pct"]
f.set("naive_tflops_4096", naive_bench[4096]["gflops"] / 1000, ".1f")
f.set("l1_hit_pct", naive_profile["l1_hit_rate_pct"], ".1f")
# The L1 reuse the text counts: a 32 B sector of A holds 8 consecutive k of one row (the same warp reads it in
# the next 7 k-steps), and the same 64 B of B is read by the block's 8 warps at one k-step: 7 hits in 8 either way.
SECTOR_FLOATS, WARPS_PER_BLOCK = 32 // 4, 16 * 16 // 32
L1_HIT_MODEL_PCT = 100 * (SECTOR_FLOATS - 1) / SECTOR_FLOATS
f.set("l1_hit_model_pct", L1_HIT_MODEL_PCT, ".1f")

# Model from simulation 4 (sims.coalescing)
f.set("model_spr", model_sectors.overall, ".2f")
f.set("model_spr_a", model_sectors.a_sectors_per_request, ".2f")
f.set("model_spr_b", model_sectors.b_sectors_per_request, ".2f")


@f.claims
def text_directions(check):
    """The chapter's directional sentences, against the records."""
    naive_gf = {n: naive_bench[n]["gflops"] for n in (1024, 4096)}
    cublas_1024 = bench.at("cublas", 1024)
    check(naive_bench[1024]["pct_cublas"] > naive_bench[4096]["pct_cublas"] and naive_gf[1024] <= 1.05 * naive_gf[4096]
          and cublas_1024["gflops"] < 0.7 * cublas_bench["gflops"],
          "본문: 1024³의 cuBLAS 대비 비율이 높은 것은 나이브 커널이 빨라져서가 아니라 cuBLAS가 작은 문제에서 느려서")
    check(naive_profile["sectors_per_request"] < 4
          and abs(model_sectors.overall - naive_profile["sectors_per_request"]) < 0.05,
          "본문: 요청당 섹터는 완전히 코얼레싱된 32비트 로드의 4보다 적고, 모델과 측정이 같다")
    check(strided_profile["sectors_per_request"] == (16 + 1) / 2
          and strided_bench["median_ms"] > 3 * naive_bench[4096]["median_ms"],
          "본문: 반례는 (16 + 1) / 2 섹터/요청, 나이브 커널보다 몇 배 느리다")
    check(l1_sector_bytes == THREAD_BYTES / 2, "본문: 스레드 요청에서 L1 섹터로 내려오며 절반이 된다 (브로드캐스트)")
    check(naive_profile["l1_hit_rate_pct"] > 80,
          "본문: A 섹터에 함께 실려 온 나머지 float는 다음 k 스텝들에서 L1 캐시 적중으로 받는다 (L1 적중률이 높다)")
    check(SECTOR_FLOATS == WARPS_PER_BLOCK == 8 and abs(naive_profile["l1_hit_rate_pct"] - L1_HIT_MODEL_PCT) < 1.5,
          "본문: A 섹터는 같은 워프가 다음 k 스텝 일곱 번에, B의 64 B는 블록의 워프 8개가 다시 읽어 8번에 7번 적중 "
          "(87.5%), 측정한 L1 적중률과 맞는다")
    check(naive_profile["dram_read_bytes"] < 0.1 * l1_sector_bytes and naive_profile["dram_bytes"] > 50 * MIN_BYTES,
          "본문: DRAM까지 가는 읽기는 L1 섹터의 일부지만 최소량의 수십 배")
    check(naive_profile["mem_pct"] > 85 and naive_profile["dram_pct"] < 30,
          "본문: 메모리 처리량은 거의 꽉 찼는데 DRAM은 한가하다")
    check(abs(naive_profile["l1_lsu_wavefronts_pct"] - naive_profile["mem_pct"]) < 0.5,
          "본문: 가장 바쁜 메모리 단위는 L1의 LSU 데이터 경로")
    check(abs(naive_profile["sm_pct"] - naive_profile["lsu_issue_pct"]) < 1 and naive_profile["fma_pipe_pct"] < 15,
          "본문: SM 처리량은 LSU 파이프에 내는 명령의 비율이 정하고, FMA 유닛은 바쁘지 않다")
    order = sorted((k for k in naive_stalls if k != "Selected"), key=lambda k: -naive_stalls[k])
    check(order[:2] == ["Long Scoreboard", "LG Throttle"], "본문: 스톨 1, 2위가 Long Scoreboard와 LG Throttle")
    check(naive_profile["achieved_occupancy_pct"] > 95, "본문: 달성 점유율은 거의 최대")
    check(profiled_tflops * 100 / naive_profile["dram_pct"] > 3 * profiled_tflops
          and abs(profiled_tflops / (naive_bench[4096]["gflops"] / 1000) - 1) < 0.1,
          "본문: 프로파일러 아래의 속도로 따져도 DRAM 대역폭은 이 커널의 천장이 아니다 (프로파일 장치의 속도는 "
          "벤치마크 장치의 속도와 10% 안)")
    ridge = bench_provenance["peak_gflops"] / bench_provenance["bandwidth_gbs"]
    check(FLOPS / THREAD_BYTES == 0.25 and THREAD_BYTES / naive_profile["dram_bytes"] > 10,
          "본문: DRAM 기준 산술 강도는 스레드가 요청한 바이트로 센 0.25의 몇십 배 (요청의 대부분이 DRAM까지 가지 않았다)")
    check(dram_intensity < ridge and naive_profile["dram_pct"] < 30,
          "본문: DRAM 기준 산술 강도도 꺾임점보다 낮아 루프라인만 보면 DRAM 한계여야 하지만, DRAM 처리량은 낮다")
    check(profile_record["peak_gflops"] == bench_provenance["peak_gflops"]
          and profiled_dram_peak_gbs < bench_provenance["bandwidth_gbs"],
          "본문: 프로파일 장치는 FP32 최대가 벤치마크 장치와 같고 DRAM 대역폭은 더 낮아 꺾임점이 더 높다 "
          "(강도는 어느 꺾임점보다도 낮다)")
    check(all(profile_record[k] == bench_provenance[k] for k in ("sm_count", "clock_mhz", "fp32_lanes_per_sm",
                                                                   "peak_gflops")),
          "본문: 두 장치는 SM 수와 클럭이 같아 FP32 최대가 같다 (profiles.json과 benchmarks.json의 SM 수, 레인, 클럭)")


@f.claims
def fp32_lanes_named(check):
    """The sentence under the results table: FP32 lanes per SM are 64 on sm_80 (A100) and 128 on sm_90 (H100),
    the course's table (kernels.device.FP32_LANES_PER_SM), and the recorded H100 used 128."""
    from kernels.device import fp32_lanes

    check(fp32_lanes((8, 0)) == 64 and fp32_lanes((9, 0)) == 128 == bench_provenance["fp32_lanes_per_sm"],
          "본문: SM당 FP32 레인은 sm_80(A100) 64개, sm_90(H100) 128개")


WARPS_PER_SMSP = 16    # H100 (sm_90): 64 resident warps per SM over 4 schedulers


@f.claims
def stall_unit(check):
    """The sentence that reads Nsight's unit (warps stalled per issue-active cycle, summed over the reasons) as the
    cycles a warp spends per instruction it issues: both are resident warps per scheduler ÷ issue-active share."""
    per_instruction = WARPS_PER_SMSP * naive_profile["achieved_occupancy_pct"] / naive_profile["issue_active_pct"]
    check(abs(per_instruction - naive_stall_total) < 0.03 * naive_stall_total,
          "본문: 스톨 합계는 워프 하나가 명령 하나를 내는 데 걸린 평균 사이클과 같다 (상주 워프 ÷ 발행 비율)")


naive_sass = sass.summarize("sgemm_naive", "sm_90")     # book/data/sass_facts.json (recorded SASS)
naive_loop_loads = [inst for inst in sass.main_loop("sgemm_naive", "sm_90") if inst.startswith("LDG")]


def _address(load: str) -> tuple[str, int]:
    """(base register, immediate offset) of an LDG's address operand, e.g. desc[UR6][R12.64+-0x8] -> ("R12", -8)."""
    m = re.search(r"\]\[(R\d+)\.64(?:\+(-?)0x([0-9a-f]+))?\]", load)
    return m.group(1), (-1 if m.group(2) else 1) * int(m.group(3) or "0", 16)


@f.claims
def sass_listing(check):
    """The list after the SASS cells: only 32-bit LDG (A and B on the read-only path), no LDG.E.128, no shared
    memory instruction, and two loads per FFMA in every unrolled copy plus the epilogue's C read and FFMA."""
    ab_loads = naive_sass.counts.get("LDG.E.CONSTANT", 0)
    check(naive_sass.ldg_128 == 0 and naive_sass.ldg_32 > 0 and ab_loads > 0,
          "본문: 로드는 모두 32비트 LDG이고 A·B 로드에 .CONSTANT가 붙으며, LDG.E.128은 없다")
    check(not naive_sass.lds_widths and not naive_sass.sts_widths, "본문: 공유 메모리 명령(LDS, STS)이 없다")
    check(naive_sass.counts.get("LDG.E") == 1 and ab_loads == 2 * (naive_sass.ffma - 1),
          "본문: 펼쳐도 FFMA 하나에 로드 둘 (에필로그의 C 읽기와 FFMA 하나를 빼면)")
    addresses = [_address(load) for load in naive_loop_loads]
    by_base = {}
    for base, offset in addresses:
        by_base.setdefault(base, []).append(offset)
    a_base = max(by_base, key=lambda b: len(by_base[b]))
    a_offsets = sorted(by_base[a_base])
    b_offsets = [o for base, offs in by_base.items() if base != a_base for o in offs]
    check(len(a_offsets) == len(naive_loop_loads) // 2 and all(y - x == 4 for x, y in zip(a_offsets, a_offsets[1:]))
          and set(b_offsets) == {0},
          "본문: 주 루프에서 A의 로드 절반은 주소 레지스터 하나에 4 B씩 다른 오프셋, B의 로드는 오프셋 없이 "
          "펼친 바퀴마다 계산한 주소 레지스터 (간격 ldb·4 B는 실행할 때에야 정해진다)")
    widths = {op for op in naive_sass.counts if op.startswith("LDG")}
    check(widths == {"LDG.E", "LDG.E.CONSTANT"} and naive_sass.ldg_128 == 0 and 2 / (2 * 4) == 0.25,
          "본문(진짜 원인 2): 로드가 모두 4 B짜리 32비트 LDG라 FMA 하나(2 FLOP)의 8 B가 로드 명령 둘이 된다")


@f.claims
def quiz_numbers(check):
    """Every recorded number a question of the bank (course/quiz/banks/m04.yaml) quotes."""
    q8 = quiz_text(4, "m04-q08")
    for quoted in (f"메모리 처리량은 {naive_profile['mem_pct']:.0f}%", f"DRAM({naive_profile['dram_pct']:.0f}%)",
                   f"LSU 데이터 경로({naive_profile['l1_lsu_wavefronts_pct']:.0f}%)",
                   f"Long Scoreboard({100 * naive_stalls['Long Scoreboard'] / naive_stall_total:.0f}%)",
                   f"LG Throttle({100 * naive_stalls['LG Throttle'] / naive_stall_total:.0f}%)",
                   f"{naive_profile['achieved_occupancy_pct']:.1f}%",
                   f"요청당 섹터 수는 {naive_profile['sectors_per_request']:.1f}"):
        check(quoted in q8, f"퀴즈 m04-q08: 기록과 맞는 값 '{quoted}'")
    ridge = bench_provenance["peak_gflops"] / bench_provenance["bandwidth_gbs"]
    for quoted in (f"FP32 최대 {bench_provenance['peak_gflops']:,.0f} GFLOP/s ÷ 측정한 복사 대역폭 "
                   f"{bench_provenance['bandwidth_gbs']:,.0f} GB/s ≈ {ridge:.1f} FLOP/B",
                   f"DRAM 바이트로 센 산술 강도 {dram_intensity:.1f} FLOP/B",
                   f"최소량의 {naive_profile['dram_bytes'] / MIN_BYTES:.0f}배"):
        check(quoted in " ".join(q8.split()), f"퀴즈 m04-q08: 꺾임점·DRAM 계산 '{quoted}'")
    check(dram_intensity < ridge and naive_profile["dram_pct"] < 30 and naive_sass.ldg_128 == 0,
          "퀴즈 m04-q08: DRAM 기준 산술 강도도 꺾임점보다 낮지만 DRAM은 한가하다; 로드는 모두 4 B짜리")
    flat = " ".join(q8.split())
    check(f"벤치마크를 기록한 {gpu_name(bench_provenance['device'])}에서는" in flat
          and f"({gpu_name(profile_record['device'])} 프로파일의 값)" in flat
          and f"{gpu_name(profile_record['device'])}에서 잰 요청당 섹터" in flat
          and f"{gpu_name(profile_record['device'])} 프로파일에서 메모리 처리량" in flat,
          "퀴즈 m04-q08: 꺾임점은 벤치마크 장치, 프로파일 값은 프로파일 장치의 이름으로 적는다")
    check(profile_record["peak_gflops"] == bench_provenance["peak_gflops"]
          and profiled_dram_peak_gbs < bench_provenance["bandwidth_gbs"],
          "퀴즈 m04-q08: 프로파일 장치는 FP32 최대가 같고 DRAM 대역폭이 더 낮아 꺾임점이 더 높다")
    # The links to the next levels (modules 5-7's records): Level 2 keeps the DRAM bytes and is slower than Level 1;
    # Level 3 cuts them.
    level2, level3 = _profiles["sgemm_tiled"], _profiles["sgemm_register_blocking"]
    quoted = (f"({naive_profile['dram_bytes'] / 1e9:.2f} → {level2['dram_bytes'] / 1e9:.2f} GB)",
              f"DRAM 바이트는 {level3['dram_bytes'] / 1e9:.2f} GB",
              f"(그 경로가 {level2['l1_lsu_wavefronts_pct']:.0f}% 바빴다)",
              f"DRAM은 {level2['dram_pct']:.0f}%만 바빠",
              f"그래서 {N4}³에서 Level 1보다도 느렸다")
    for q in quoted:
        check(q in " ".join(q8.split()), f"퀴즈 m04-q08: 다음 레벨의 기록 '{q}'")
    check(naive_profile["dram_bytes"] < level2["dram_bytes"] < 1.1 * naive_profile["dram_bytes"]
          and bench.at("sgemm_tiled", N4)["median_ms"] > bench.at("sgemm_coalesced", N4)["median_ms"]
          and level3["dram_bytes"] < 0.1 * naive_profile["dram_bytes"],
          "퀴즈 m04-q08: 타일링(Level 2)은 DRAM 바이트를 줄이지 못하고 Level 1보다 느리다; Level 3이 줄인다")
    check(level2["l1_lsu_wavefronts_pct"] > 90 and level2["dram_pct"] < 35,
          "퀴즈 m04-q08: Level 2가 Level 1보다 느린 것은 포화된 L1/공유 메모리 경로 탓이고 DRAM(한가함) 탓이 아니다")
    check(f"{naive_profile['sectors_per_request']:.1f}" == "2.0" and "2.0으로" in quiz_text(4, "m04-q05"),
          "퀴즈 m04-q05: 요청당 섹터 2.0")


def no_a100_record(check):
    """No record of this course was made on an A100, so the source material's A100 figures stay claims."""
    devices = {bench_provenance["device"], profile_record["device"]}
    check(not any("A100" in d for d in devices), "기록(benchmarks.json, profiles.json)에 A100에서 잰 값이 없다")


@f.absence("측정되지 않은 주장입니다")
def source_claim_unmeasured(check):
    """The summary: the source material's "1–5% (A100)" is not a measurement of this course."""
    no_a100_record(check)


@f.absence("측정값이 아닌 주장이고")
def source_claim_not_a_measurement(check):
    """The section "얼마나 느린가": the same "1–5%" figure, said where it is first quoted."""
    no_a100_record(check)
