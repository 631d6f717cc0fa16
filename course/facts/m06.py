"""Facts of module 6 (m06_tiling.md): the checkpoint rule from the course settings, the recorded
benchmark and Nsight Compute numbers, and the SASS counts of the Level 2 variants (from the SASS
record). The claims next to the values guard every directional or comparative sentence of the chapter
and the recorded numbers the quiz bank quotes; their sentences quote the text they guard."""
from __future__ import annotations

import json

from course.facts import Facts, quiz_text
from course.facts.recorded_sass import sass
from course.page import recorded
from course.settings import load_settings
from kernels.record import DATA_DIR
from sims import banks, roofline

f = Facts("m06")

bench = recorded()                                                                       # book/data/benchmarks.json
profile_record = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))   # book/data/profiles.json
# The size whose times the text quotes: 4096³ when recorded, else the largest recorded size.
MAIN_SIZE = 4096 if any(r["M"] == 4096 for r in bench.rows) else max(r["M"] for r in bench.rows)
TILED_KERNELS = ("sgemm_tiled", "sgemm_tiled_padded", "sgemm_tiled_colwalk", "sgemm_tiled_colwalk_padded")


def benchmark_row(kernel: str, n: int = MAIN_SIZE) -> dict:
    """The recorded benchmark row of `kernel` at n³ (MAIN_SIZE unless given)."""
    row = bench.at(kernel, n)
    if row is None:
        raise KeyError(f"benchmarks.json에 {kernel} ({n}³) 행이 없습니다")
    return row


def kernel_profile(kernel: str) -> dict:
    """The recorded Nsight Compute profile of `kernel` (profiles.json)."""
    for row in profile_record["kernels"]:
        if row["kernel"] == kernel:
            return row
    raise KeyError(f"profiles.json에 {kernel} 항목이 없습니다")


# ============================================================ the checkpoint rule
# A course setting (an instructor may change it): read, never typed.
checkpoint = load_settings().checkpoint(6)
f.set("cp_rule", checkpoint.rule_text)
f.set("cp_pass", checkpoint.pass_count, "d")
f.set("cp_total", checkpoint.question_count, "d")

# ============================================================ timings (benchmarks.json)
median_ms = {k: benchmark_row(k)["median_ms"] for k in (
    "sgemm_naive", "sgemm_coalesced", "sgemm_tiled", "sgemm_tiled_padded", "sgemm_tiled_ptx",
    "sgemm_tiled_colwalk", "sgemm_tiled_colwalk_padded")}
tiled_bench = benchmark_row("sgemm_tiled")
f.set("n_main", MAIN_SIZE, "d")
f.set("device", bench.provenance["device"])
for key, kernel in (("t_naive", "sgemm_naive"), ("t_coal", "sgemm_coalesced"), ("t_tiled", "sgemm_tiled"),
                    ("t_pad", "sgemm_tiled_padded"), ("t_ptx", "sgemm_tiled_ptx"),
                    ("t_col", "sgemm_tiled_colwalk"), ("t_colpad", "sgemm_tiled_colwalk_padded")):
    f.set(key, median_ms[kernel], ".2f")
f.set("speedup_l0_l2", median_ms["sgemm_naive"] / median_ms["sgemm_tiled"], ".2f")
f.set("ptx_diff", abs(median_ms["sgemm_tiled_ptx"] / median_ms["sgemm_tiled"] - 1) * 100, ".1f")
padding_cost_pct = (median_ms["sgemm_tiled_padded"] / median_ms["sgemm_tiled"] - 1) * 100
f.set("pad_phrase", f"{padding_cost_pct:.0f}% 더 오래 걸립니다" if padding_cost_pct > 0
      else f"{-padding_cost_pct:.0f}% 빠릅니다")
f.set("col_vs_tiled", median_ms["sgemm_tiled_colwalk"] / median_ms["sgemm_tiled"], ".1f")
f.set("col_rescue", median_ms["sgemm_tiled_colwalk"] / median_ms["sgemm_tiled_colwalk_padded"], ".1f")
level1_gap_pct = (median_ms["sgemm_tiled"] / median_ms["sgemm_coalesced"] - 1) * 100
f.set("l2_vs_l1", f"Level 1({median_ms['sgemm_coalesced']:.2f} ms)보다 {level1_gap_pct:.0f}% 느립니다"
      if level1_gap_pct > 0 else f"Level 1({median_ms['sgemm_coalesced']:.2f} ms)보다 {-level1_gap_pct:.0f}% 빠를 뿐입니다")
tiled_rows = sorted((r for r in bench.rows if r["kernel"] == "sgemm_tiled"), key=lambda r: r["M"])
# Level 2 against Level 1 at every recorded size (time ratio Level 2 ÷ Level 1): the text names the sizes where
# Level 2 is behind and the one where it is ahead, since the comparison does not go the same way at every size.
l2_over_l1 = {r["M"]: r["median_ms"] / benchmark_row("sgemm_coalesced", r["M"])["median_ms"] for r in tiled_rows}
f.set("l2_over_l1_sizes", ", ".join(f"{n}³ {ratio:.2f}" for n, ratio in sorted(l2_over_l1.items())))
f.set("l2_ahead_sizes", ", ".join(f"{n}³" for n, ratio in sorted(l2_over_l1.items()) if ratio < 1) or "없음")
f.set("l2_ahead_max_pct", max((1 - ratio) * 100 for ratio in l2_over_l1.values()), ".0f")
f.set("pct_cublas_tiled", tiled_bench["pct_cublas"], ".1f")
tiled_pct_cublas = [r["pct_cublas"] for r in tiled_rows]
f.set("pct_cublas_range", f"{min(tiled_pct_cublas):.0f}–{max(tiled_pct_cublas):.0f}")
f.set("sizes_list", ", ".join(f"{r['M']}³" for r in tiled_rows))


@f.claims
def timing_directions(check):
    """The sentences on the variants' times (benchmarks.json)."""
    check(median_ms["sgemm_naive"] / median_ms["sgemm_tiled"] < 4, "본문: 속도 향상은 모델의 '트래픽 16분의 1'과 거리가 멀다")
    check(abs(median_ms["sgemm_tiled_ptx"] / median_ms["sgemm_tiled"] - 1) < 0.02, "본문: PTX 변형의 시간 차이는 잡음")
    check(padding_cost_pct > 0, "본문: +1 패딩이 오히려 느리게 만들었다")
    check(median_ms["sgemm_tiled_colwalk"] > 2 * median_ms["sgemm_tiled"]
          and median_ms["sgemm_tiled_colwalk_padded"] < 0.6 * median_ms["sgemm_tiled_colwalk"],
          "본문: 열 걷기는 기본형의 몇 배, 패딩을 더하면 크게 빨라진다")
    check(median_ms["sgemm_tiled"] > 0.8 * median_ms["sgemm_coalesced"], "본문: 공유 메모리만으로는 Level 1을 크게 앞서지 못한다")


# ============================================================ roofline (the recorded device)
roof = roofline.recorded_device_roof(bench.provenance)    # its peak and its measured copy bandwidth
f.set("peak_tflops", roof.peak_gflops / 1000, ".1f")
f.set("bw_gbs", roof.bandwidth_gbs, ",.0f")
f.set("ridge", roof.ridge_ai, ".1f")
f.set("gpu", bench.provenance["device"].replace("NVIDIA ", "").split()[0])   # short name: "H200"
f.set("attain_ai4", 4.0 * roof.bandwidth_gbs / 1000, ".1f")
# The source material's A100 figures (datasheet values it quotes; not measured by this course).
A100 = roofline.A100_REFERENCE                     # FP32 19.5 TFLOP/s, 2,039 GB/s (A100 80 GB)
A100_TF32_GFLOPS, A100_40GB_BW_GBS = 156_000.0, 1555.0   # TF32 tensor-core peak; A100 40 GB bandwidth
f.set("a100_tflops", A100.peak_gflops / 1000, ".1f")
f.set("a100_bw", A100.bandwidth_gbs, ",.0f")
f.set("a100_ridge", A100.ridge_ai, ".1f")
f.set("a100_tf32_tflops", A100_TF32_GFLOPS / 1000, ".0f")
f.set("a100_40_bw", A100_40GB_BW_GBS, ",.0f")
f.set("a100_tf32_ridge_80", A100_TF32_GFLOPS / A100.bandwidth_gbs, ".0f")

# ============================================================ Nsight Compute (profiles.json)
naive_profile, coalesced_profile = kernel_profile("sgemm_naive"), kernel_profile("sgemm_coalesced")
tiled_profile, padded_profile = kernel_profile("sgemm_tiled"), kernel_profile("sgemm_tiled_padded")
colwalk_profile = kernel_profile("sgemm_tiled_colwalk")
colwalk_padded_profile = kernel_profile("sgemm_tiled_colwalk_padded")
profiled_flops = 2 * tiled_profile["M"] * tiled_profile["N"] * tiled_profile["K"]   # of the profiled size
compulsory_bytes = 3 * tiled_profile["M"] * tiled_profile["K"] * 4                  # read A and B, write C once
tiled_dram_ai = profiled_flops / tiled_profile["dram_bytes"]                         # FLOP per DRAM byte, measured
model_ii_roof = min(4.0 * roof.bandwidth_gbs, roof.peak_gflops)                    # model (ii): AI 4.0
dram_roof = min(tiled_dram_ai * roof.bandwidth_gbs, roof.peak_gflops)
f.set("prof_n", tiled_profile["M"], "d")
f.set("dram_naive_gb", naive_profile["dram_bytes"] / 1e9, ".2f")
f.set("dram_tiled_gb", tiled_profile["dram_bytes"] / 1e9, ".2f")
f.set("dram_coal_gb", coalesced_profile["dram_bytes"] / 1e9, ".1f")
f.set("dram_ratio", naive_profile["dram_bytes"] / tiled_profile["dram_bytes"], ".2f")
f.set("req_ratio", naive_profile["global_ld_requests"] / tiled_profile["global_ld_requests"], ".0f")
f.set("sect_ratio", naive_profile["global_ld_sectors"] / tiled_profile["global_ld_sectors"], ".0f")
f.set("spr_tiled", tiled_profile["sectors_per_request"], ".1f")
f.set("spr_naive", naive_profile["sectors_per_request"], ".1f")
f.set("dram_over_min", tiled_profile["dram_bytes"] / compulsory_bytes, ".0f")
f.set("min_gb", compulsory_bytes / 1e9, ".1f")
f.set("dram_ai_tiled", tiled_dram_ai, ".1f")
f.set("frac_roof_ii", tiled_bench["gflops"] / model_ii_roof * 100, ".0f")
f.set("frac_roof_iii", tiled_bench["gflops"] / dram_roof * 100, ".0f")
f.set("dram_pct_tiled", tiled_profile["dram_pct"], ".0f")
f.set("mem_pct_tiled", tiled_profile["mem_pct"], ".0f")
f.set("sm_pct_tiled", tiled_profile["sm_pct"], ".0f")
f.set("issue_active_tiled", tiled_profile["issue_active_pct"], ".0f")
f.set("fma_pipe_tiled", tiled_profile["fma_pipe_pct"], ".0f")
for key, reason in (("st_ls", "Long Scoreboard"), ("st_mio", "MIO Throttle"), ("st_bar", "Barrier"),
                    ("st_short", "Short Scoreboard"), ("st_wait", "Wait")):
    f.set(key, tiled_profile["stalls"][reason], ".1f")
f.set("st_mio_col", colwalk_profile["stalls"]["MIO Throttle"], ".1f")
# The L1/LSU data path (global loads, L1 hits and shared-memory wavefronts all pass through it): its busy
# share and the busy time it implies (kernel time × share) for Level 0 and Level 2.
l1_busy_ms = {k: p["duration_ms"] * p["l1_lsu_wavefronts_pct"] / 100
              for k, p in (("sgemm_naive", naive_profile), ("sgemm_tiled", tiled_profile))}
f.set("l1_pct_naive", naive_profile["l1_lsu_wavefronts_pct"], ".1f")
f.set("l1_pct_tiled", tiled_profile["l1_lsu_wavefronts_pct"], ".1f")
f.set("l1_busy_naive", l1_busy_ms["sgemm_naive"], ".1f")
f.set("l1_busy_tiled", l1_busy_ms["sgemm_tiled"], ".2f")
f.set("l1_busy_ratio", l1_busy_ms["sgemm_naive"] / l1_busy_ms["sgemm_tiled"], ".2f")
# The profile's own times (Nsight Compute's gpu__time_duration on the profile's device): the busy-time ratio is
# compared with these, like with like; the benchmark's speed-up (another device, another timing) only beside them.
profiled_speedup = naive_profile["duration_ms"] / tiled_profile["duration_ms"]
f.set("p_gpu", profile_record["device"].replace("NVIDIA ", "").split()[0])   # short name: "H100"
f.set("prof_ms_naive", naive_profile["duration_ms"], ".2f")
f.set("prof_ms_tiled", tiled_profile["duration_ms"], ".2f")
f.set("prof_speedup", profiled_speedup, ".2f")
f.set("dram_pct_naive", naive_profile["dram_pct"], ".0f")
f.set("l1_hit_naive", naive_profile["l1_hit_rate_pct"], ".0f")
f.set("occ_warps_tiled", round(tiled_profile["achieved_occupancy_pct"] / 100 * 64), "d")
f.set("occ_theo", tiled_profile["theoretical_occupancy_pct"], ".0f")
f.set("occ_ach", tiled_profile["achieved_occupancy_pct"], ".0f")
f.set("regs_tiled", tiled_profile["registers"], ".0f")
f.set("smem_tiled", tiled_profile["smem_static"], ",.0f")
tiled_occupancy = roofline.occupancy(256, int(tiled_profile["registers"]), int(tiled_profile["smem_static"]), "sm_90")
occupancy_at_33 = roofline.occupancy(256, 33, int(tiled_profile["smem_static"]), "sm_90")
f.set("occ_blocks", tiled_occupancy.blocks_per_sm, "d")
f.set("occ_smem_alloc", tiled_occupancy.smem_allocated_per_block, ",d")
f.set("occ33", occupancy_at_33.active_warps / occupancy_at_33.arch.max_warps_per_sm * 100, ".0f")
occupancy_at_32 = roofline.occupancy(256, 32, int(tiled_profile["smem_static"]), "sm_90")
# Why DRAM is not saturated although the DRAM-byte intensity is still below the ridge, reckoned inside the
# profile (its device, its run): the speed under the profiler, the DRAM bytes per second it moved, and how busy
# DRAM was meanwhile (dram_pct%: at 100% it could carry 100/dram_pct times the bytes, so the speed DRAM alone
# would allow is that many times the profiled speed).
requested_bytes = tiled_profile["global_ld_sectors"] * 32                            # what L1 served for the loads
profiled_seconds = tiled_profile["duration_ms"] * 1e-3
profiled_tflops = profiled_flops / profiled_seconds / 1e12
profiled_dram_gbs = tiled_profile["dram_bytes"] / profiled_seconds / 1e9
dram_headroom = 100 / tiled_profile["dram_pct"]
profiled_dram_peak_gbs = profiled_dram_gbs * dram_headroom      # the profile device's DRAM peak, as Nsight counts it
f.set("req_gb_tiled", requested_bytes / 1e9, ".1f")
f.set("dram_share_pct", tiled_profile["dram_bytes"] / requested_bytes * 100, ".0f")
f.set("prof_tflops_tiled", profiled_tflops, ".1f")
f.set("prof_dram_gbs", profiled_dram_gbs, ",.0f")
f.set("prof_dram_headroom", dram_headroom, ".1f")
f.set("prof_dram_roof_tflops", profiled_tflops * dram_headroom, ".0f")


@f.claims
def profile_directions(check):
    """The sentences on global traffic, the roofline, stalls and occupancy (profiles.json, benchmarks.json)."""
    naive, tiled = naive_profile, tiled_profile
    check(tiled["sectors_per_request"] == 4.0, "본문: 요청당 섹터 4.0은 32비트 로드가 섹터를 꽉 채워 쓸 때의 값")
    check(naive["global_ld_requests"] == 16 * tiled["global_ld_requests"], "본문: 요청은 정확히 모델대로 16분의 1")
    check(naive["global_ld_sectors"] / tiled["global_ld_sectors"] < 16 and naive["sectors_per_request"] == 2.0,
          "본문: 섹터는 그보다 덜 줄었다 (나이브 커널의 요청당 섹터가 이미 2.0)")
    check(naive["dram_bytes"] < tiled["dram_bytes"] < 1.1 * naive["dram_bytes"],
          "본문: DRAM 바이트는 줄지 않았고 오히려 조금 늘었다")
    check(min(naive["l1_lsu_wavefronts_pct"], tiled["l1_lsu_wavefronts_pct"]) > 90
          and max(naive["dram_pct"], tiled["dram_pct"]) < 35,
          "본문: 두 커널 모두 L1/LSU 데이터 경로가 90% 넘게 바쁘고, DRAM은 한가하다")
    busy_ratio = l1_busy_ms["sgemm_naive"] / l1_busy_ms["sgemm_tiled"]
    timed_ratio = median_ms["sgemm_naive"] / median_ms["sgemm_tiled"]
    check(abs(busy_ratio / profiled_speedup - 1) < 0.03,
          "본문: L1 데이터 경로가 바쁜 시간의 비가 같은 프로파일에서 잰 두 커널의 시간 비와 3% 안에서 같다")
    check(abs(timed_ratio / profiled_speedup - 1) < 0.03,
          "본문: 벤치마크 장치에서 잰 속도 향상도 프로파일의 시간 비와 3% 안에서 가깝다")
    check(naive["l1_hit_rate_pct"] > 80 and naive["global_ld_sectors"] > 5 * tiled["global_ld_sectors"],
          "본문: 나이브 커널의 재사용은 L1 적중으로 처리된다 (적중률이 높고 L1 섹터가 훨씬 많다)")
    check(tiled["achieved_occupancy_pct"] > 95 and tiled["l1_lsu_wavefronts_pct"] > 90
          and tiled["stalls"]["Long Scoreboard"] == max(v for k, v in tiled["stalls"].items() if k != "Selected"),
          "본문: Long Scoreboard가 1위지만, 워프는 거의 64개이고 데이터 경로가 포화 (처리량 한계)")
    check(coalesced_profile["dram_bytes"] < 0.2 * tiled["dram_bytes"], "본문: Level 1은 DRAM 바이트가 훨씬 적다")
    check(tiled["dram_pct"] < 50 and tiled["mem_pct"] > 85, "본문: DRAM은 포화되지 않았고 메모리 처리량(가장 바쁜 단위)은 높다")
    check(4.0 < min(roofline.A100_REFERENCE.ridge_ai, roof.ridge_ai), "본문: 4.0은 두 꺾임점보다 모두 작다")
    check(tiled_bench["gflops"] < model_ii_roof * 0.9 and tiled_bench["gflops"] < dram_roof * 0.9,
          "본문: 어느 모델의 지붕에도 닿지 않았다")
    check(profiled_tflops * dram_headroom > 2 * profiled_tflops and tiled["dram_pct"] < 50,
          "본문: 프로파일 안에서 따지면 DRAM만이 한계일 때의 속도는 프로파일러 아래 속도의 두 배를 넘는다 "
          "(DRAM은 절반도 바쁘지 않았다)")
    stalls = {k: v for k, v in tiled["stalls"].items() if k != "Selected"}
    check(sorted(stalls, key=lambda k: -stalls[k])[:3] == ["Long Scoreboard", "MIO Throttle", "Barrier"],
          "본문: 눈에 띄는 세 사유는 Long Scoreboard(가장 큼), MIO Throttle, Barrier")
    check(colwalk_profile["stalls"]["MIO Throttle"] > 5 * tiled["stalls"]["MIO Throttle"],
          "본문: 열 걷기에서 MIO Throttle이 치솟는다")
    check(tiled["achieved_occupancy_pct"] > 95
          and tiled["theoretical_occupancy_pct"] == 100 == tiled_occupancy.occupancy_pct,
          "본문: 점유율이 모자라서 느린 것은 아니다 (원 자료의 50–75%, 62%와 맞지 않는다)")
    check(tiled["registers"] < 33 and occupancy_at_32.occupancy_pct == tiled_occupancy.occupancy_pct
          and occupancy_at_33.occupancy_pct < tiled_occupancy.occupancy_pct,
          "본문: 레지스터가 32개까지는 그대로이고, 33개가 되면 이론 점유율이 떨어진다")
    check(median_ms["sgemm_tiled"] > median_ms["sgemm_coalesced"],
          "본문: 공유 메모리를 도입한 것만으로는 바로 앞 Level의 커널을 확실히 앞서지 못했다 (4096³에서는 느리다)")
    behind = [n for n, ratio in l2_over_l1.items() if ratio > 1]
    ahead = [n for n, ratio in l2_over_l1.items() if ratio < 1]
    check(len(behind) >= 2 and MAIN_SIZE in behind and ahead == [min(l2_over_l1)]
          and max(1 - ratio for ratio in l2_over_l1.values()) < 0.15,
          "본문: 큰 두 크기에서는 Level 2가 Level 1보다 느리고, 가장 작은 크기(1024³)에서만 15% 안쪽으로 앞선다")
    pct_naive, pct_tiled = naive["l1_lsu_wavefronts_pct"], tiled["l1_lsu_wavefronts_pct"]
    check(abs(pct_naive / pct_tiled - 1) < 0.02,
          "본문: 두 커널이 L1 데이터 경로를 거의 같은 비율로 쓰니, 바쁜 시간의 비가 속도 향상과 같은 것은 그 사실에서 나온다")


@f.claims
def what_fills_the_path(check):
    """The stall section's 정리 and the 다음 단계 paragraph: the path is filled mainly by the shared-memory reads that
    come with every FFMA, and it counts wavefronts, not instructions (the column walk issues the same reads and is
    slower); the shared-memory side fills first (path nearly saturated, FMA pipe far from it)."""
    tiled, colwalk = tiled_profile, colwalk_profile
    check(colwalk["smem_ld_instructions"] == tiled["smem_ld_instructions"]
          and colwalk["smem_ld_wavefronts"] > 3 * tiled["smem_ld_wavefronts"]
          and colwalk["stalls"]["MIO Throttle"] > 5 * tiled["stalls"]["MIO Throttle"]
          and median_ms["sgemm_tiled_colwalk"] > 2 * median_ms["sgemm_tiled"],
          "본문: 열 걷기는 읽기 명령 수가 기본형과 같은데 웨이브프론트가 늘어 MIO Throttle이 치솟고 시간이 몇 배")
    check(tiled["smem_ld_wavefronts"] > tiled["smem_st_wavefronts"] + tiled["global_ld_sectors"],
          "본문: 경로를 채우는 것은 주로 공유 메모리 읽기 (읽기 웨이브프론트가 저장 웨이브프론트와 글로벌 로드 섹터를 합친 것보다 많다)")
    check(tiled["l1_lsu_wavefronts_pct"] > 90 and tiled["fma_pipe_pct"] < 25,
          "본문(다음 단계): L1/공유 메모리 경로는 거의 포화인데 FMA 파이프는 한가하다 (공유 메모리 쪽이 먼저 막힘)")


@f.claims
def stores_beyond_the_model(check):
    """Simulation 6: what Nsight measures above the store model (1 per store unpadded, 2 padded) is counted by Nsight
    as store bank conflicts, also in the unpadded kernel whose stores the model finds conflict-free."""
    for profile, model in ((tiled_profile, 1), (padded_profile, 2)):
        excess = profile["smem_st_wavefronts"] - model * profile["smem_st_instructions"]
        counted = profile["smem_st_bank_conflicts"] - (model - 1) * profile["smem_st_instructions"]
        check(0 < excess < 0.1 * profile["smem_st_instructions"] and abs(counted - excess) < 0.01 * excess,
              f"본문: 모델보다 많은 저장 웨이브프론트를 Nsight가 저장 뱅크 충돌로 센다 ({profile['kernel']})")
    check(model_wavefronts("store [ty][tx]", 0) == 1 and tiled_profile["smem_st_bank_conflicts"] > 0,
          "본문: 모델이 충돌 없음을 예측한 기본형에서도 저장 충돌 카운터가 0이 아니다")


@f.absence("블록 모양만 바꿔 DRAM 바이트를 잰 기록은 없어")
def no_block_shape_experiment(check):
    """The Level 1 DRAM sentence: the block shape (16×64 vs 16×16) is a likely account, but no profile changes the
    block shape alone (every Level 1/2 entry of profiles.json keeps its kernel's own block tile)."""
    entries = list(profile_record["kernels"]) + list(profile_record.get("reference", []))
    for supplement in profile_record.get("supplements", []):
        entries += supplement.get("same_run", [])
    family = [e for e in entries if e["kernel"].startswith(("sgemm_coalesced", "sgemm_tiled", "sgemm_naive"))]
    check(all(not e.get("defines") and e.get("block_size", 256) == 256 for e in family)
          and {e["kernel"] for e in family if e["kernel"].startswith("sgemm_coalesced")} == {"sgemm_coalesced"},
          "profiles.json에 Level 1의 블록 모양만 바꾼 변형(또는 define을 준 Level 0–2 프로파일)이 없다")


@f.claims
def dram_not_saturated(check):
    """The dropdown on why DRAM is not saturated: DRAM intensity about twice the model's and still below the
    ridge; the kernel's own speed asks DRAM for about a third of the measured bandwidth."""
    tiled = tiled_profile
    check(tiled["l1_hit_rate_pct"] < 10 and 0.35 < tiled["dram_bytes"] / requested_bytes < 0.65,
          "본문: 잰 DRAM 바이트는 요청한 바이트의 절반쯤 (L1·L2가 대부분을 처리한 것이 아니다)")
    check(1.5 < tiled_dram_ai / 4.0 < 2.5 and tiled_dram_ai < roof.ridge_ai,
          "본문: DRAM 기준 산술 강도는 두 배쯤 높을 뿐이고 여전히 (벤치마크 장치의) 꺾임점보다 낮다")
    check(profile_record["peak_gflops"] == bench.provenance["peak_gflops"]
          and profiled_dram_peak_gbs < roof.bandwidth_gbs,
          "본문: 프로파일 장치는 FP32 최대가 벤치마크 장치와 같고 DRAM 대역폭은 더 낮아 꺾임점이 더 높다")
    check(tiled["dram_pct"] < 50 and dram_headroom > 2,
          "본문: 프로파일러 아래의 속도에서 DRAM은 절반도 바쁘지 않아, 쉬지 않는다면 두 배 넘게 옮길 수 있다")


# ============================================================ SASS (sm_90, recorded) and shared-memory counters
tiled_sass = {k: sass.summarize(k, "sm_90") for k in TILED_KERNELS}
ptx_sass = sass.summarize("sgemm_tiled_ptx", "sm_90")
tiled_excerpt = sass.excerpt("sgemm_tiled", "sm_90", pattern=r"FFMA|LDS", limit=14)
base_sass = tiled_sass["sgemm_tiled"]
f.set("n128_tiled", base_sass.lds_widths.get("128", 0), "d")
f.set("n32_tiled", base_sass.lds_widths.get("32", 0), "d")
f.set("nlds_tiled", sum(base_sass.lds_widths.values()), "d")
f.set("nsts_tiled", sum(base_sass.sts_widths.values()), "d")
f.set("nlds_pad", sum(tiled_sass["sgemm_tiled_padded"].lds_widths.values()), "d")
TILE = 16                                                   # the block tile's width (16×16 blocks, BK = 16)
f.set("ffma_inner", TILE, "d")
# (warp, K tile) pairs of the profiled size: blocks × 8 warps × K tiles
WARP_TILES = (tiled_profile["M"] // 16) * (tiled_profile["N"] // 16) * 8 * (tiled_profile["K"] // 16)
ld_wavefronts_per_warp_tile = {k: kernel_profile(k)["smem_ld_wavefronts"] / WARP_TILES for k in TILED_KERNELS}
for key, kernel in (("tiled", "sgemm_tiled"), ("pad", "sgemm_tiled_padded"), ("col", "sgemm_tiled_colwalk"),
                    ("colpad", "sgemm_tiled_colwalk_padded")):
    f.set(f"wf_tile_{key}", ld_wavefronts_per_warp_tile[kernel], ".0f")
    f.set(f"wpi_{key}", kernel_profile(kernel)["smem_ld_wavefronts_per_instruction"], ".1f")
f.set("wf_col_ratio", ld_wavefronts_per_warp_tile["sgemm_tiled_colwalk"] / ld_wavefronts_per_warp_tile["sgemm_tiled"], ".1f")


def _without_ftz(counts):
    """Opcode counts with the .FTZ suffix folded into the plain name."""
    folded = {}
    for op, n in counts.items():
        folded[op.replace(".FTZ", "")] = folded.get(op.replace(".FTZ", ""), 0) + n
    return folded


@f.claims
def sass_counts(check):
    """The sentences on the SASS of Level 2 and its variants, and their match with Nsight's counters."""
    base = base_sass
    check(ptx_sass.counts != base.counts and _without_ftz(ptx_sass.counts) == _without_ftz(base.counts)
          and ptx_sass.ffma == base.ffma and base.counts.get("FFMA.FTZ") == base.ffma
          and ptx_sass.counts.get("FFMA", 0) == 16,
          "본문: PTX 변형의 SASS는 FFMA의 .FTZ 접미사만 다르다 (asm의 내적 FFMA 16개는 .FTZ 없음)")
    check(abs(ptx_sass.registers - base.registers) == 1, "본문: 레지스터 배정은 하나 차이 난다")
    check(base.spills == 0 and base.local_bytes == 0 and 28 <= base.registers <= 35,
          "본문: 스필 없음, 로컬 0 B, 레지스터 30개 남짓")
    check(base.lds_widths.get("128", 0) > 0 and sum(base.lds_widths.values()) > 16 and base.ffma > 16,
          "본문: As 읽기가 LDS.128이 되었고, 공유 메모리 읽기 명령이 내적의 FFMA 16개보다 많다")
    excerpt_lines = [" ".join(line.split(";")[0].split()) for line in tiled_excerpt.splitlines()]
    check("LDS.128 R8, [R19]" in excerpt_lines, "본문: 발췌의 LDS.128 R8, [R19]")
    for kernel in TILED_KERNELS:
        lds_per_warp_tile = kernel_profile(kernel)["smem_ld_instructions"] / WARP_TILES
        check(lds_per_warp_tile == sum(tiled_sass[kernel].lds_widths.values()),
              f"본문: Nsight의 읽기 명령 수 ÷ 워프·타일 수가 SASS와 정확히 일치 ({kernel})")
    check("128" not in tiled_sass["sgemm_tiled_padded"].lds_widths, "본문: 패딩이 행의 16 B 정렬을 깨 LDS.128을 잃는다")
    n128, n32 = base.lds_widths.get("128", 0), base.lds_widths.get("32", 0)
    check(ptx_sass.counts.get("FFMA", 0) == TILE and 4 * n128 == TILE and n32 == TILE and n128 + n32 > TILE,
          "본문(다음 단계): 내적의 FFMA 16개마다 As 읽기 넷을 묶은 LDS.128 4개와 4 B씩 읽는 Bs LDS 16개, LDS가 FFMA보다 많다")


# ============================================================ simulation 6: the bank model against Nsight
def model_wavefronts(expression, pad, width_bytes=4, service="warp"):
    """Average wavefronts of one warp request of a 16x16 block over k and its 8 warps (sims.banks). The
    chapter's table compares the rejected whole-warp pass (service "warp") with the course's half-warp model."""
    vals = [banks.bank_request(rows=16, cols=16, padding=pad, width_bytes=width_bytes, bdx=16, bdy=16, warp=w,
                               expression=expression, k=k, service=service).wavefronts
            for w in range(8) for k in range(16 if width_bytes == 4 else 4)]
    return sum(vals) / len(vals)


def model_bs_colwalk(pad):
    """Bs[k][ty] of the column walk (not a preset expression of sims.banks), averaged like model_wavefronts."""
    vals = [banks.summarize([banks.ThreadBankAccess(t, t % 16, t // 16, k, t // 16, (k * (16 + pad) + t // 16,))
                             for t in range(32 * w, 32 * w + 32)], 4, 16 + pad).wavefronts
            for w in range(8) for k in range(16)]
    return sum(vals) / len(vals)


@f.claims
def bank_model(check):
    """The chapter's tables of simulation 6 (sims.banks), recomputed against Nsight's counters and the times."""
    per_tile = ld_wavefronts_per_warp_tile
    check((model_wavefronts("store [ty][tx]", 0), model_wavefronts("store [ty][tx]", 1)) == (1, 2),
          "본문: 저장 모델은 패딩 없음 1, 패딩 2")
    check(1 < tiled_profile["smem_st_wavefronts_per_instruction"] < 1.15
          and 2 < padded_profile["smem_st_wavefronts_per_instruction"] < 2.15,
          "본문: Nsight는 저장에서 1을 조금 넘는 값과 2를 조금 넘는 값을 잰다")
    check(min(padded_profile["smem_st_bank_conflicts"], colwalk_padded_profile["smem_st_bank_conflicts"])
          > 10 * max(tiled_profile["smem_st_bank_conflicts"], colwalk_profile["smem_st_bank_conflicts"]),
          "본문: 저장 충돌은 패딩한 두 커널에서만 크게 뛴다")
    for kernel in ("sgemm_tiled_padded", "sgemm_tiled_colwalk_padded"):
        colwalk = "colwalk" in kernel
        a_reads = model_wavefronts("load [tx][k]" if colwalk else "load [ty][k]", 1)
        b_reads = model_bs_colwalk(1) if colwalk else model_wavefronts("load [k][tx]", 1)
        check(abs(16 * a_reads + 16 * b_reads - per_tile[kernel]) < 0.05 * per_tile[kernel],
              f"본문: 스칼라 읽기만 있는 {kernel}는 모델과 측정이 바로 맞다")
    for kernel, expression, b_reads in (("sgemm_tiled", "load [ty][k]", model_wavefronts("load [k][tx]", 0)),
                                        ("sgemm_tiled_colwalk", "load [tx][k]", model_bs_colwalk(0))):
        measured = (per_tile[kernel] - 16 * b_reads) / tiled_sass[kernel].lds_widths["128"]
        whole, half = model_wavefronts(expression, 0, 16), model_wavefronts(expression, 0, 16, service="half-warp")
        check(abs(half - measured) < 0.1 * measured and abs(whole - measured / 2) < 0.1 * measured,
              f"본문: LDS.128은 반 워프씩 처리한 모델과 맞고, 워프 전체 모델은 꼭 절반 ({kernel})")
    check((model_wavefronts("load [ty][k]", 0, 16, service="half-warp"),
           model_wavefronts("load [tx][k]", 0, 16, service="half-warp")) == (2, 16),
          "본문: 기본형의 LDS.128은 반 워프마다 1씩 2, 열 걷기는 8씩 16")
    check(tiled_profile["smem_ld_bank_conflicts"] < 1e-3 * tiled_profile["smem_ld_instructions"],
          "본문: 기본형의 읽기 충돌 카운터는 거의 0")
    # Kernels with the same wavefronts (within 1%) form one group; every group must be slower than every
    # group with fewer wavefronts (no tie broken by the times themselves).
    groups = {}
    for kernel in per_tile:
        key = next((g for g in groups if abs(per_tile[kernel] / g - 1) < 0.01), per_tile[kernel])
        groups.setdefault(key, []).append(median_ms[kernel])
    ordered = [groups[g] for g in sorted(groups)]
    check(len(ordered) >= 3 and all(max(lo) < min(hi) for lo, hi in zip(ordered, ordered[1:])),
          "본문: 시간이 워프·타일당 읽기 웨이브프론트를 따라간다 (웨이브프론트가 많은 무리가 언제나 더 느리다)")
    wf_ratio = per_tile["sgemm_tiled_colwalk"] / per_tile["sgemm_tiled"]
    time_ratio = median_ms["sgemm_tiled_colwalk"] / median_ms["sgemm_tiled"]
    check(wf_ratio > 1.1 * time_ratio,
          "본문: 웨이브프론트가 시간의 순서를 정하지만 비례하지는 않는다 (열 걷기: 웨이브프론트 배수 > 시간 배수)")
    check(abs(per_tile["sgemm_tiled_padded"] / per_tile["sgemm_tiled_colwalk_padded"] - 1) < 0.01,
          "본문: 패딩형과 열 걷기+패딩형은 웨이브프론트가 같다")
    check(abs(median_ms["sgemm_tiled_padded"] / median_ms["sgemm_tiled_colwalk_padded"] - 1) < 0.02,
          "본문: 두 패딩 커널은 시간도 거의 같다")


# ============================================================ the quiz's numbers (course/quiz/banks/m06.yaml)
@f.claims
def quiz_numbers(check):
    """Every recorded number a question of the bank quotes."""
    q2 = quiz_text(6, "m06-q02")
    for quoted in (f"나이브 커널보다 {median_ms['sgemm_naive'] / median_ms['sgemm_tiled']:.2f}배 빨랐고",
                   f"두 커널의 시간 비도 {profiled_speedup:.2f}배였다",
                   f"그 비({l1_busy_ms['sgemm_naive'] / l1_busy_ms['sgemm_tiled']:.2f})는 같은 프로파일에서 잰 두 커널의 "
                   f"시간 비 {profiled_speedup:.2f}와 같다",
                   f"잰 속도 향상 {median_ms['sgemm_naive'] / median_ms['sgemm_tiled']:.2f}배도 이 비와 가깝다",
                   f"(나이브 {naive_profile['l1_lsu_wavefronts_pct']:.1f}%, 타일링 {tiled_profile['l1_lsu_wavefronts_pct']:.1f}%)",
                   f"(적중률 {naive_profile['l1_hit_rate_pct']:.0f}%)",
                   f"{naive_profile['dram_bytes'] / 1e9:.2f} GB에서 {tiled_profile['dram_bytes'] / 1e9:.2f} GB로",
                   f"({naive_profile['dram_pct']:.0f}%, {tiled_profile['dram_pct']:.0f}%)",
                   f"요청당 {naive_profile['sectors_per_request']:.1f}섹터"):
        check(quoted in " ".join(q2.split()), f"퀴즈 m06-q02: 기록과 맞는 값 '{quoted}'")
    busy_ratio = l1_busy_ms["sgemm_naive"] / l1_busy_ms["sgemm_tiled"]
    check(abs(busy_ratio / profiled_speedup - 1) < 0.03
          and abs(median_ms["sgemm_naive"] / median_ms["sgemm_tiled"] / profiled_speedup - 1) < 0.03
          and min(naive_profile["l1_lsu_wavefronts_pct"], tiled_profile["l1_lsu_wavefronts_pct"]) > 90,
          "퀴즈 m06-q02(정답 c): 거의 포화된 L1 데이터 경로가 일한 시간의 비가 같은 프로파일의 시간 비와 같다 "
          "(벤치마크 장치의 속도 향상도 그 비와 3% 안)")
    check(tiled_profile["dram_bytes"] > naive_profile["dram_bytes"] and max(naive_profile["dram_pct"], tiled_profile["dram_pct"]) < 35,
          "퀴즈 m06-q02(오답 d): DRAM 바이트는 줄지 않았고 DRAM은 두 커널 모두 한가하다")
    top = {name: max((v, k) for k, v in prof["stalls"].items() if k != "Selected")[1]
           for name, prof in (("naive", naive_profile), ("tiled", tiled_profile))}
    check(top == {"naive": "Long Scoreboard", "tiled": "Long Scoreboard"},
          "퀴즈 m06-q02(오답 a): Long Scoreboard는 나이브 커널에서 가장 컸고, 타일링 커널에서도 가장 크다")
    check(naive_profile["sectors_per_request"] == 2.0 < tiled_profile["sectors_per_request"],
          "퀴즈 m06-q02(오답 b): 나이브 커널은 이미 요청당 2.0섹터 (타일링 커널이 오히려 더 많다)")
    check(f"패딩 {padded_profile['smem_st_wavefronts_per_instruction']:.2f}, "
          f"패딩 없음 {tiled_profile['smem_st_wavefronts_per_instruction']:.2f}" in quiz_text(6, "m06-q06")
          and median_ms["sgemm_tiled_padded"] > median_ms["sgemm_tiled"],
          "퀴즈 m06-q06: 저장 wavefront 2.03과 1.07, 패딩한 커널이 더 느렸다")
    added_ld = padded_profile["smem_ld_wavefronts"] - tiled_profile["smem_ld_wavefronts"]
    added_st = padded_profile["smem_st_wavefronts"] - tiled_profile["smem_st_wavefronts"]
    lds_growth = padded_profile["smem_ld_instructions"] / tiled_profile["smem_ld_instructions"] - 1
    check(f"읽기 명령이 {100 * lds_growth:.0f}% 늘었다" in quiz_text(6, "m06-q06") and added_ld > 3 * added_st > 0,
          "퀴즈 m06-q06: 느려진 몫의 대부분은 읽기 쪽(LDS.128을 잃어 읽기 명령 +60%, 웨이브프론트 증가가 저장보다 훨씬 큼)")
    check(tiled_profile["smem_static"] == 2048 and padded_profile["smem_static"] == 2176
          and "2,176 B" in quiz_text(6, "m06-q03"),
          "퀴즈 m06-q03: 16×16 커널 2,048 B, 패딩 2,176 B")


@f.claims
def quiz_q08_numbers(check):
    """The numbers of m06-q08's model answer: the A100 figures it computes and the H100 record it quotes."""
    q8 = quiz_text(6, "m06-q08")
    for quoted in (f"{A100.peak_gflops:,.0f} GFLOP/s ÷ {A100.bandwidth_gbs:,.0f} GB/s ≈ {A100.ridge_ai:.1f} FLOP/B",
                   f"{A100_40GB_BW_GBS:,.0f} GB/s", f"{A100_TF32_GFLOPS:,.0f} ÷ {A100_40GB_BW_GBS:,.0f} ≈ "
                   f"{A100_TF32_GFLOPS / A100_40GB_BW_GBS:.0f}",
                   f"TF32로도 약 {A100_TF32_GFLOPS / A100.bandwidth_gbs:.0f}",
                   f"{roof.peak_gflops:,.0f} GFLOP/s ÷ 측정한 복사 대역폭 {roof.bandwidth_gbs:,.0f} GB/s ≈ "
                   f"{roof.ridge_ai:.1f} FLOP/B",
                   f"이 경로는 {tiled_profile['l1_lsu_wavefronts_pct']:.0f}% 바빴고 DRAM은\n"
                   f"{tiled_profile['dram_pct']:.0f}%뿐",
                   f"({naive_profile['dram_bytes'] / 1e9:.2f} → {tiled_profile['dram_bytes'] / 1e9:.2f} GB로 오히려"):
        check(quoted.replace("\n", " ") in " ".join(q8.split()), f"퀴즈 m06-q08: 기록·원 자료와 맞는 값 '{quoted}'")
    check(f"차이는 {100 / 4.0:.0f}배가 아니라 {A100.ridge_ai / 4.0:.1f}배" in q8, "퀴즈 m06-q08: 100/4 = 25배, 9.6/4 = 2.4배")
    bench_gpu = bench.provenance["device"].replace("NVIDIA ", "").split()[0]
    profile_gpu = profile_record["device"].replace("NVIDIA ", "").split()[0]
    check(f"벤치마크를 기록한 {bench_gpu}에서는" in " ".join(q8.split()) and f"프로파일을 잰 {profile_gpu}에서 이 경로는" in q8
          and roof.ridge_ai > A100.ridge_ai,
          "퀴즈 m06-q08: 꺾임점은 벤치마크 장치, 경로의 사용률은 프로파일 장치의 이름으로 적는다 (꺾임점은 A100보다 높다)")
    check(f"기록된 {bench_gpu}의 4096³에서" in quiz_text(6, "m06-q02")
          and f"{profile_gpu}에서 Nsight Compute로" in quiz_text(6, "m06-q02"),
          "퀴즈 m06-q02: 속도 향상은 벤치마크 장치, 프로파일은 프로파일 장치의 이름으로 적는다")
    # Item 1 and rubric 3: instructions follow from the widths (LDS.128 for As, 4-byte Bs), not from the 0.25 FLOP/B.
    n128, n32 = base_sass.lds_widths.get("128", 0), base_sass.lds_widths.get("32", 0)
    lds_per_ffma = tiled_profile["smem_ld_instructions"] / (tiled_profile["ffma_instructions"] / 32)
    flat = " ".join(q8.split())
    for quoted in (f"FFMA {TILE}개마다 LDS {n128 + n32}개(FFMA 하나당 {lds_per_ffma:.2f}개)",
                   f"FMA 파이프는 {tiled_profile['fma_pipe_pct']:.0f}%만 바빴다",
                   f"FFMA {TILE}개마다 LDS {n128 + n32}개)"):
        check(quoted in flat, f"퀴즈 m06-q08: 명령 수는 폭에서 '{quoted}'")
    check(4 * n128 == TILE and n32 == TILE and lds_per_ffma == (n128 + n32) / TILE,
          "퀴즈 m06-q08: As는 LDS.128(네 값씩), Bs는 4 B씩이라 FFMA 16개마다 LDS 20개, Nsight의 FFMA당 LDS와 같다")
    check(tiled_profile["achieved_occupancy_pct"] > 95 and tiled_profile["l1_lsu_wavefronts_pct"] > 90
          and tiled_profile["fma_pipe_pct"] < 25,
          "퀴즈 m06-q08: 점유율은 이미 최대, 경로는 포화, FMA 파이프는 한가 (워프가 넉넉하다는 말은 쓰지 않는다)")
    check(tiled_profile["dram_bytes"] > naive_profile["dram_bytes"] and tiled_profile["achieved_occupancy_pct"] > 95,
          "퀴즈 m06-q08: DRAM 바이트는 줄지 않았고, 점유율은 거의 100%")


@f.absence("측정 근거 없음")
def source_claim_unmeasured(check):
    """The source material's "20–40% of cuBLAS" (A100) has no measurement behind it in this course's records."""
    check("A100" not in bench.provenance["device"] and "A100" not in profile_record["device"],
          "기록(benchmarks.json, profiles.json)에 A100에서 잰 값이 없다")


@f.absence("이 강좌가 잰 값이 아닙니다")
def a100_figures_not_measured(check):
    """The A100 ridge figures are the datasheet values the source quotes: no record was made on an A100."""
    check("A100" not in bench.provenance["device"] and "A100" not in profile_record["device"],
          "기록(benchmarks.json, profiles.json)에 A100에서 잰 값이 없다 (꺾임점의 A100 값은 데이터시트 값)")
