"""Facts of module 5 (m05_coalescing.md): the recorded Nsight Compute and benchmark numbers its
text quotes, and the SASS counts of Levels 0 and 1 (from the SASS record). The claims next to the
values guard the text's directional sentences and the number the quiz bank quotes."""
from __future__ import annotations

import json

from course.facts import Facts, quiz_text
from course.facts.recorded_sass import sass
from course.page import recorded
from kernels.record import DATA_DIR
from sims import coalescing, roofline

f = Facts("m05")

SIZES = (1024, 2048, 4096)
# The chapter's three kernels and the short label each gives its facts' names (spr_naive, pc_coal_4096, ...)
FACT_LABELS = {"sgemm_naive": "naive", "sgemm_naive_strided": "strided", "sgemm_coalesced": "coal"}

profile_record = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))   # book/data/profiles.json
kernel_profiles = {k["kernel"]: k for k in profile_record["kernels"]}
naive_profile = kernel_profiles["sgemm_naive"]
strided_profile = kernel_profiles["sgemm_naive_strided"]
coalesced_profile = kernel_profiles["sgemm_coalesced"]
bench = recorded()                                                                       # book/data/benchmarks.json

# ============================================================ Nsight Compute (4096³)
# Per kernel: fact prefix -> (profiles.json field, format); the fact is PREFIX_LABEL, e.g. spr_naive, occ_coal
PROFILE_FIELDS = {"spr": ("sectors_per_request", ".1f"), "dur": ("duration_ms", ".1f"), "sm": ("sm_pct", ".1f"),
                  "mem": ("mem_pct", ".1f"), "dram": ("dram_pct", ".1f"),
                  "occ": ("theoretical_occupancy_pct", ".0f"), "regs": ("registers", ".0f")}
for kernel, label in FACT_LABELS.items():
    profile = kernel_profiles[kernel]
    for prefix, (field, fmt) in PROFILE_FIELDS.items():
        f.set(f"{prefix}_{label}", profile[field], fmt)
    f.set(f"dramgb_{label}", profile["dram_bytes"] / 1e9, ".2f")
    f.set(f"ls_{label}", profile["stalls"]["Long Scoreboard"], ".1f")
    f.set(f"lg_{label}", profile["stalls"]["LG Throttle"], ".1f")

# The counterexample's two loads as sims.coalescing counts them: warp 0 of a 16x16 block reads A[tx][k] (tx picks
# the row; ty = 1 repeats ty = 0's rows) and B[k][col] with two neighbouring columns (col = ty)
def strided_request(matrix: str, lda: int = 4096):
    threads = []
    for tid in range(32):
        tx, ty = tid % 16, tid // 16
        row, col = (tx, 0) if matrix == "A" else (0, ty)
        threads.append(coalescing.ThreadAccess(tid, tx, ty, row, col, row * lda + col, (row * lda + col) * 4, 4, True))
    return coalescing.summarize_request(threads, 4)


STRIDED_A, STRIDED_B = strided_request("A"), strided_request("B")
f.set("strided_a_sectors", STRIDED_A.sectors_per_request, "d")
f.set("l1_ratio_strided", strided_profile["global_ld_sectors"] / naive_profile["global_ld_sectors"], ".2f")
f.set("dram_ratio_strided", strided_profile["dram_bytes"] / naive_profile["dram_bytes"], ".2f")
f.set("dur_ratio_strided", strided_profile["duration_ms"] / naive_profile["duration_ms"], ".1f")
f.set("req_ratio_coal", naive_profile["global_ld_requests"] / coalesced_profile["global_ld_requests"], ".1f")
f.set("sect_ratio_coal", naive_profile["global_ld_sectors"] / coalesced_profile["global_ld_sectors"], ".2f")
f.set("instr_ratio_coal", naive_profile["instructions"] / coalesced_profile["instructions"], ".1f")
f.set("l1hit_coal", coalesced_profile["l1_hit_rate_pct"], ".0f")
f.set("ncu_date", str(profile_record["date"])[:10])
f.set("ncu_device", profile_record["device"])


@f.claims
def profile_directions(check):
    """The sentences of "Nsight Compute 프로파일" and of the model sections, against profiles.json."""
    naive, strided, coal = naive_profile, strided_profile, coalesced_profile
    check(strided["stalls"]["LG Throttle"] > strided["stalls"]["Long Scoreboard"],
          "본문: 반례에서 가장 큰 스톨은 LG Throttle로, Long Scoreboard보다 크다")
    check(coal["stalls"]["Long Scoreboard"] > 10 * max(coal["stalls"]["LG Throttle"], 0.1),
          "본문: Level 1에 남은 스톨은 거의 모두 Long Scoreboard")
    check(max(p["dram_pct"] for p in (naive, strided, coal)) < 50 < min(p["mem_pct"] for p in (naive, strided, coal)),
          "본문: 세 커널 모두 DRAM은 한가하고 바쁜 곳은 칩 안의 캐시 경로 (메모리 처리량 > 50% > DRAM)")
    naive_order = sorted(naive["stalls"], key=lambda reason: -naive["stalls"][reason])
    check(naive_order[:2] == ["Long Scoreboard", "LG Throttle"],
          "본문: 나이브 커널의 가장 큰 스톨은 Long Scoreboard, 그다음이 LG Throttle")
    check(strided["sectors_per_request"]
          == (STRIDED_A.sectors_per_request + STRIDED_B.sectors_per_request) / 2 == (16 + 1) / 2,
          "본문: 반례의 A 요청은 섹터 16개, B 요청은 1개, 그 평균이 측정한 요청당 섹터(8.5)와 같다")
    check(naive["sectors_per_request"] == 2.0 and strided["sectors_per_request"] == (16 + 1) / 2
          and abs(coal["sectors_per_request"] - 34 / 5) < 0.05,
          "본문: 측정한 요청당 섹터가 모델(2.0, 8.5, 6.8)과 같다")
    check(abs(naive["global_ld_requests"] / coal["global_ld_requests"] - 32 / 5) < 0.1
          and abs(naive["global_ld_sectors"] / coal["global_ld_sectors"] - 64 / 34) < 0.05,
          "본문: 요청은 32/5 = 6.4배, 섹터는 64/34 ≈ 1.88배 줄어든다 (모델과 측정)")
    check(abs(strided["dram_bytes"] / naive["dram_bytes"] - 1) < 0.05
          and strided["global_ld_sectors"] > 3 * naive["global_ld_sectors"],
          "본문: 반례의 DRAM 바이트는 거의 같고 L1 섹터는 몇 배")
    check(strided["sm_pct"] < 20 and strided["mem_pct"] > 90, "본문: 반례의 SM 처리량은 낮고 메모리(캐시 경로)는 바쁘다")
    check(coal["mem_pct"] < naive["mem_pct"] and coal["duration_ms"] < naive["duration_ms"]
          and coal["stalls"]["LG Throttle"] < 0.1 and naive["instructions"] > 2 * coal["instructions"],
          "본문: Level 1은 명령과 LG Throttle을 줄였고, 메모리 처리량과 시간도 내려왔다")
    check(coal["registers"] > naive["registers"]
          and coal["theoretical_occupancy_pct"] < naive["theoretical_occupancy_pct"],
          "본문: 레지스터가 늘어 이론 점유율이 내려갔다")
    check(coal["l1_hit_rate_pct"] > 80 and coal["dram_pct"] < 10,
          "본문: Level 1의 로드는 대부분 L1이 내주고(적중률 80% 초과), DRAM은 한가하다")
    check(max(coal["l1_lsu_wavefronts_pct"], coal["issue_active_pct"], coal["fma_pipe_pct"]) < 70,
          "본문: Level 1에서는 어느 파이프도 꽉 차지 않았다 (지연을 기다리는 것이지 처리량 한계가 아니다)")


def median_ms(kernel, n):
    """Recorded median time of `kernel` at n³."""
    return bench.at(kernel, n)["median_ms"]


# ============================================================ benchmarks.json: % of cuBLAS, speed ratios
for kernel, label in FACT_LABELS.items():
    for n in SIZES:
        f.set(f"pc_{label}_{n}", bench.at(kernel, n)["pct_cublas"], ".1f")
        f.set(f"gf_{label}_{n}", bench.at(kernel, n)["gflops"], ",.0f")
for n in SIZES:
    f.set(f"gf_cublas_{n}", bench.at("cublas", n)["gflops"], ",.0f")
    f.set(f"speedup_{n}", median_ms("sgemm_naive", n) / median_ms("sgemm_coalesced", n), ".2f")
    f.set(f"slowdown_{n}", median_ms("sgemm_naive_strided", n) / median_ms("sgemm_naive", n), ".1f")
for n in (1024, 4096):
    f.set(f"pk_cublas_{n}", bench.at("cublas", n)["pct_peak"], ".1f")
def gain(kernel: str) -> float:
    """How many times faster `kernel` runs at 4096³ than at 1024³ (GFLOP/s ratio)."""
    return bench.at(kernel, 4096)["gflops"] / bench.at(kernel, 1024)["gflops"]


f.set("gain_cublas", gain("cublas"), ".2f")
f.set("gain_coal", gain("sgemm_coalesced"), ".2f")
f.set("bench_device", bench.provenance["device"])
f.set("bench_date", str(bench.provenance["date"])[:10])


@f.claims
def benchmark_directions(check):
    """The bullet list after the benchmark cell, against benchmarks.json."""
    for n in SIZES:
        check(median_ms("sgemm_coalesced", n) < median_ms("sgemm_naive", n), f"본문: Level 1은 모든 크기에서 나이브 커널보다 빠르다 ({n}³)")
        check(median_ms("sgemm_naive", n) < median_ms("sgemm_naive_strided", n), f"본문: 반례는 나이브 커널보다 느리다 ({n}³)")
    cublas_gain, coal_gain = gain("cublas"), gain("sgemm_coalesced")
    check(cublas_gain > 1.3, "본문: cuBLAS는 1024³에서 4096³으로 가며 크게 빨라진다")
    check(bench.at("sgemm_coalesced", 4096)["pct_cublas"] < bench.at("sgemm_coalesced", 1024)["pct_cublas"],
          "본문: Level 1의 cuBLAS 대비 비율은 4096³이 1024³보다 낮다")
    check(1 < coal_gain < cublas_gain,
          "본문: 4096³의 비율이 낮은 것은 Level 1이 느려져서가 아니다: Level 1도 빨라지지만 cuBLAS가 더 많이 빨라진다")
    coalesced_gflops = {n: bench.at("sgemm_coalesced", n)["gflops"] for n in SIZES}
    coalesced_pct = {n: bench.at("sgemm_coalesced", n)["pct_cublas"] for n in SIZES}
    check(max(coalesced_gflops, key=coalesced_gflops.get) == 2048 == max(coalesced_pct, key=coalesced_pct.get),
          "본문: Level 1은 2048³에서 가장 빠르고, cuBLAS 대비 비율도 2048³에서 가장 높다")
    check(bench.at("cublas", 1024)["pct_peak"] < bench.at("cublas", 4096)["pct_peak"] - 10,
          "본문: 작은 행렬에서는 cuBLAS도 제 속도를 다 내지 못한다")
    check(all(median_ms("sgemm_naive_strided", n) > 3 * median_ms("sgemm_naive", n) for n in SIZES),
          "본문: 반례는 나이브 커널보다 훨씬(몇 배) 느리다")


# ============================================================ SASS of Levels 0 and 1 (sm_90, recorded)
naive_sass = sass.summarize("sgemm_naive", "sm_90")
coalesced_sass = sass.summarize("sgemm_coalesced", "sm_90")
f.set("sass_ldg32_naive", naive_sass.ldg_32, "d")
f.set("sass_ldg128_coal", coalesced_sass.ldg_128, "d")
f.set("sass_ffma_coal", coalesced_sass.ffma, "d")


@f.claims
def sass_loads(check):
    """The sentences of "SASS와 자원" on the load instructions, against the recorded SASS."""
    check(naive_sass.ldg_128 == 0 and coalesced_sass.ldg_32 == 0,
          "본문: 나이브 커널의 로드는 모두 32비트 LDG이고, Level 1의 로드는 모두 LDG.E.128")
    check(coalesced_sass.ldg_128 > 0 and coalesced_sass.local_bytes == 0,
          "본문: Level 1은 LDG.E.128을 쓰고, 로컬 메모리가 0 B이므로 acc와 a_k는 레지스터에만 있다")
    check(coalesced_sass.counts["LDG.E.128.CONSTANT"] > 0 and coalesced_sass.counts["LDG.E.128"] > 0,
          "본문: A와 B는 LDG.E.128.CONSTANT로, beta ≠ 0일 때 C는 접미사 없는 LDG.E.128로 읽는다")
    check(coalesced_sass.counts.get("STG.E.128") == 1 and not any(
              op.startswith("STG") and op != "STG.E.128" for op in coalesced_sass.counts),
          "본문: 결과 네 개는 STG.E.128 하나로 쓴다")


# ============================================================ awkward shapes (benchmarks.json awkward_rows)
def staging_share(row: dict) -> float:
    """The share (%) of a staged shape's median time spent copying operands to aligned buffers."""
    return 100 * (row["median_ms"] - row["kernel_only_ms"]) / row["median_ms"]


_coal_awkward = {(r["M"], r["N"], r["K"]): r for r in bench.provenance["awkward_rows"]
                 if r["kernel"] == "sgemm_coalesced"}
AWKWARD_BIG, AWKWARD_SMALL = (4095, 4095, 4095), (1000, 1023, 1025)
f.set("stage_share_big", staging_share(_coal_awkward[AWKWARD_BIG]), ".1f")
# At the small shape the kernel alone, timed in its own alternation, came out slower than the staged path:
# the copies cost less than the two measurements differ by
f.set("kernel_alone_over_small", -staging_share(_coal_awkward[AWKWARD_SMALL]), ".1f")
STAGING_NOISE_PCT = 5     # two separately timed medians of the same kernel differ by up to a few % (tests/test_book_data.py)


@f.absence("이 기록으로는 가릴 수 없습니다")
def staging_split_unrecorded(check):
    """The small awkward shape: the record holds one kernel-alone median per staged row, timed in its own
    alternation, and no cache counters, so it cannot tell run-to-run spread from the copies warming the L2."""
    small = _coal_awkward[AWKWARD_SMALL]
    check({k for k in small if k.startswith("kernel_only")} == {"kernel_only_ms"}
          and not any("l2" in k.lower() or "hit" in k.lower() for k in small),
          "benchmarks.json의 어색한 크기 행에는 커널만의 시간이 중앙값 하나뿐이고(라운드별 값이나 범위 없음), "
          "L2 적중 같은 캐시 카운터도 없다")


@f.claims
def staging_cost(check):
    """The paragraph on what staging costs: the awkward shapes pay a copy, the level comparisons pay none."""
    big, small = _coal_awkward[AWKWARD_BIG], _coal_awkward[AWKWARD_SMALL]
    check(big["staged"] and small["staged"] and 0 < staging_share(big) < STAGING_NOISE_PCT,
          "본문: 4095³에서 옮겨 담기는 시간의 몇 %를 쓴다")
    faster_big = [r for r in bench.provenance["awkward_rows"] if (r["M"], r["N"], r["K"]) == AWKWARD_BIG
                  and r.get("kernel_only_ms") and r["kernel"] != "sgemm_coalesced"]
    check(faster_big and all(r["median_ms"] < big["median_ms"] and staging_share(r) > staging_share(big)
                             for r in faster_big),
          "본문: Level 1처럼 느린 커널 곁에서는 옮겨 담기의 몫이 작다 (4095³에서 더 빠른 커널은 모두 더 큰 몫을 쓴다)")
    check(-STAGING_NOISE_PCT < staging_share(small) < 0,
          "본문: 1000×1023×1025에서는 따로 잰 커널만의 시간이 오히려 길게 나와, 옮겨 담기의 몫이 두 측정의 "
          "흔들림 안에 묻힌다")
    check(all(not bench.at(k, n).get("staged") for k in FACT_LABELS for n in SIZES),
          "본문: 레벨 비교의 측정(1024–4096³)은 옮겨 담지 않은 정렬된 입력으로 했다")


# ============================================================ simulation 5, step 4 (lda = 4097)
_lda_4097 = coalescing.strip_load("row", 16, base_offset=0, lda=4097).requests[0]
f.set("lda4097_bad", len(_lda_4097.misaligned_tids), "d")


# ============================================================ simulation 5, step 3 (offset 1 float)
_offset_1 = coalescing.strip_load("col", 4, base_offset=1, lda=4096)
_offset_0 = coalescing.strip_load("col", 4, base_offset=0, lda=4096)
f.set("offset1_spr", _offset_1.requests[0].sectors_per_request, "d")
f.set("offset1_total", _offset_1.total_sectors, "d")


@f.claims
def simulation_answers(check):
    """Step 4's answer: with lda = 4097 a 16-byte load is misaligned on every row that is not a multiple of 4
    (even rows such as 2 included), not only on odd rows. Step 3's: a start shifted by one float makes every
    32-bit request of the coalesced mapping touch one sector more (the model counts sectors, not time)."""
    bad = set(_lda_4097.misaligned_tids)
    check(bad == {i for i in range(32) if i % 4}, "시뮬레이션 5 정답 4: 4의 배수가 아닌 레인이 모두 어긋난다")
    check(all(r.sectors_per_request == 5 for r in _offset_1.requests) and len(_offset_1.requests) == 4
          and _offset_0.total_sectors == 16 and _offset_1.total_sectors == 20,
          "시뮬레이션 5 정답 3: 오프셋 1이면 요청마다 5섹터, 모두 20섹터(오프셋 0이면 16)")
    check(not _offset_1.requests[0].misaligned_tids, "시뮬레이션 5 정답 3: 32비트 로드는 오프셋 1에서도 정렬 오류가 아니다")


# ============================================================ why the naive kernel is slow (profiles.json)
def _fma_per_warp(p: dict) -> float:
    """Warp-level FMAs of an M x N x K product: M*N*K / 32."""
    return p["M"] * p["N"] * p["K"] / 32


@f.claims
def naive_kernel_fills_the_load_path(check):
    """'재사용이 없어 FMA 하나마다 로드 명령 둘을 내고 그 로드들이 L1의 로드 경로를 채운다' (표상, after the
    simulation-4 cell): two load requests per warp FMA, and the L1 load path (the busiest unit) nearly full."""
    naive = naive_profile
    check(naive["global_ld_requests"] == 2 * _fma_per_warp(naive), "본문: 나이브 커널은 워프 FMA 하나마다 로드 요청 둘")
    check(naive["l1_lsu_wavefronts_pct"] > 90 and naive["mem_pct"] == naive["l1_lsu_wavefronts_pct"],
          "본문: 나이브 커널의 L1 로드 경로가 90% 넘게 바쁘고, 그것이 메모리 처리량(가장 바쁜 유닛)이다")
    check(naive["dram_pct"] < 0.25 * naive["l1_lsu_wavefronts_pct"], "본문: 느린 자리는 DRAM이 아니라 L1의 로드 경로")


# ============================================================ Level 1's arithmetic intensity under the course's models
AI_THREAD_COAL = roofline.ai_thread_registers(1, 4)                                    # model (i)
AI_DRAM_COAL = 2 * 4096 ** 3 / coalesced_profile["dram_bytes"]                         # model (iii), measured
AI_MINIMUM_4096 = 2 * 4096 ** 3 / (4 * 3 * 4096 ** 2)                                  # model (iv)
f.set("ai_dram_coal", AI_DRAM_COAL, ".0f")


@f.claims
def source_ai_of_level1(check):
    """'산술 강도 0.5는 이 강좌의 어느 모델로도 나오지 않습니다': Level 1 under models (i), (iii), (iv)."""
    check(abs(AI_THREAD_COAL - 0.4) < 1e-9, "본문: 스레드당 레지스터 모델로 Level 1은 0.4")
    check(coalesced_profile["M"] == coalesced_profile["N"] == coalesced_profile["K"] == 4096,
          "본문: DRAM 바이트는 4096³에서 잰 값")
    check(all(abs(ai - 0.5) > 0.05 for ai in (AI_THREAD_COAL, AI_DRAM_COAL, AI_MINIMUM_4096)) and AI_DRAM_COAL > 10,
          "본문: 어느 모델로도 0.5가 나오지 않는다 (0.4, DRAM 바이트로 수십, 필수 최소로 수백)")


@f.claims
def quiz_numbers(check):
    """The recorded number the bank (course/quiz/banks/m05.yaml) quotes."""
    check(f"요청당 섹터 수는 {naive_profile['sectors_per_request']:.1f}" in quiz_text(5, "m05-q08"),
          "퀴즈 m05-q08: 요청당 2.0섹터")
    q4 = quiz_text(5, "m05-q04")
    check(f"A 요청은 {STRIDED_A.sectors_per_request}섹터" in q4 and f"B 요청 {STRIDED_B.sectors_per_request}섹터" in q4
          and f"{strided_profile['sectors_per_request']:.1f}" in q4
          and strided_profile["sectors_per_request"] == (STRIDED_A.sectors_per_request + STRIDED_B.sectors_per_request) / 2,
          "퀴즈 m05-q04: 반례의 A 요청 16섹터(모델)와 B 요청 1섹터의 평균이 Nsight Compute로 잰 8.5")
    q8 = quiz_text(5, "m05-q08")
    check("옮겨 담" in q8 and "스칼라 경로나" not in q8, "퀴즈 m05-q08: 조건에 맞지 않는 입력은 이 강좌의 런처가 옮겨 담는다")


@f.claims
def sass_ratio(check):
    """The sentence on the "FFMA / LDG" column: the static counts are the source's ratios (2 loads per FFMA in
    Level 0, 5 loads per 16 FFMAs in Level 1) repeated over the unrolled copies, plus the epilogue's C read."""
    naive_ab = naive_sass.counts.get("LDG.E.CONSTANT", 0)               # A and B reads (read-only path)
    coal_ab = coalesced_sass.counts.get("LDG.E.128.CONSTANT", 0)
    check(naive_sass.counts.get("LDG.E") == 1 and naive_ab % 2 == 0 and naive_sass.ffma == naive_ab // 2 + 1,
          "본문: 나이브 커널은 로드 2개에 FFMA 1개씩 펼쳐 놓고, 에필로그에 C 읽기 1개와 FFMA 1개")
    check(coalesced_sass.counts.get("LDG.E.128") == 1 and coal_ab % 5 == 0
          and coalesced_sass.ffma == 16 * (coal_ab // 5) + 4,
          "본문: Level 1은 로드 5개에 FFMA 16개씩 펼쳐 놓고, 에필로그에 C 읽기 1개와 FFMA 4개")


@f.absence("이 변형은 이 강좌에서 측정하지 않았으므로")
def float4_naive_not_measured(check):
    """Q3's variant (the naive mapping with float4 loads) was never built, timed or profiled."""
    variant_record = json.loads((DATA_DIR / "variants.json").read_text(encoding="utf-8"))
    recorded_names = ({r["kernel"] for r in bench.rows} | {r["kernel"] for r in profile_record["kernels"]}
                      | set(variant_record["variants"]))
    check(not any("naive" in n and any(t in n for t in ("float4", "vec", "128")) for n in recorded_names),
          "기록(benchmarks, profiles, variants)에 float4 로드를 쓰는 나이브 변형이 없다")


@f.absence("측정 근거 없음")
def source_claim_unmeasured(check):
    """The source material's Level 1 figures (A100) have no measurement behind them in this course's records."""
    check("A100" not in bench.provenance["device"] and "A100" not in profile_record["device"],
          "기록(benchmarks.json, profiles.json)에 A100에서 잰 값이 없다")
