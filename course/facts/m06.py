"""Facts of module 6 (m06_tiling.md): the checkpoint rule from the course settings, the recorded
benchmark and Nsight Compute numbers, and the SASS counts of the Level 2 variants."""
from __future__ import annotations

import json

from course.facts import Facts
from course.page import recorded
from course.settings import load_settings
from kernels import sass as _sass
from kernels.record import DATA_DIR
from sims import roofline

f = Facts("m06")

BENCH = json.loads((DATA_DIR / "benchmarks.json").read_text(encoding="utf-8"))
PROF = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
REC = recorded()
N_MAIN = 4096 if any(r["M"] == 4096 for r in REC.rows) else max(r["M"] for r in REC.rows)


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


def g(key, value):
    f[key] = value


# The checkpoint rule is a course setting (an instructor may change it): read, never typed.
CHECKPOINT = load_settings().checkpoint(6)
g("cp_rule", CHECKPOINT.rule_text)
g("cp_pass", str(CHECKPOINT.pass_count))
g("cp_total", str(CHECKPOINT.question_count))

# Timings (benchmarks.json)
T = {k: bench(k)["median_ms"] for k in (
    "sgemm_naive", "sgemm_coalesced", "sgemm_tiled", "sgemm_tiled_padded", "sgemm_tiled_ptx",
    "sgemm_tiled_colwalk", "sgemm_tiled_colwalk_padded")}
g("n_main", str(N_MAIN))
g("device", BENCH["device"])
for key, kernel in (("t_naive", "sgemm_naive"), ("t_coal", "sgemm_coalesced"), ("t_tiled", "sgemm_tiled"),
                    ("t_pad", "sgemm_tiled_padded"), ("t_ptx", "sgemm_tiled_ptx"),
                    ("t_col", "sgemm_tiled_colwalk"), ("t_colpad", "sgemm_tiled_colwalk_padded")):
    g(key, f"{T[kernel]:.2f}")
g("speedup_l0_l2", f"{T['sgemm_naive'] / T['sgemm_tiled']:.2f}")
g("ptx_diff", f"{abs(T['sgemm_tiled_ptx'] / T['sgemm_tiled'] - 1) * 100:.1f}")
pad = (T["sgemm_tiled_padded"] / T["sgemm_tiled"] - 1) * 100
g("pad_phrase", f"{pad:.0f}% 더 오래 걸립니다" if pad > 0 else f"{-pad:.0f}% 빠릅니다")
g("col_vs_tiled", f"{T['sgemm_tiled_colwalk'] / T['sgemm_tiled']:.1f}")
g("col_rescue", f"{T['sgemm_tiled_colwalk'] / T['sgemm_tiled_colwalk_padded']:.1f}")
l1 = (T["sgemm_tiled"] / T["sgemm_coalesced"] - 1) * 100
g("l2_vs_l1", f"Level 1({T['sgemm_coalesced']:.2f} ms)보다 {l1:.0f}% 느립니다" if l1 > 0
  else f"Level 1({T['sgemm_coalesced']:.2f} ms)보다 {-l1:.0f}% 빠를 뿐입니다")
tiled_rows = [r for r in REC.rows if r["kernel"] == "sgemm_tiled"]
g("pct_cublas_tiled", f"{bench('sgemm_tiled')['pct_cublas']:.1f}")
g("pct_cublas_range", f"{min(r['pct_cublas'] for r in tiled_rows):.0f}–{max(r['pct_cublas'] for r in tiled_rows):.0f}")
g("sizes_list", ", ".join(f"{r['M']}³" for r in sorted(tiled_rows, key=lambda r: r["M"])))
g("gflops_tiled", f"{bench('sgemm_tiled')['gflops']:,.0f}")

# Roofline (D2): the recorded device's peak and its measured copy bandwidth
ROOF = roofline.recorded_device_roof(BENCH)
g("peak_tflops", f"{ROOF.peak_gflops / 1000:.1f}")
g("bw_gbs", f"{ROOF.bandwidth_gbs:,.0f}")
g("ridge_h100", f"{ROOF.ridge_ai:.1f}")
g("attain_ai4", f"{4.0 * ROOF.bandwidth_gbs / 1000:.1f}")

# Nsight Compute (profiles.json)
PN, PT, PC = prof("sgemm_naive"), prof("sgemm_tiled"), prof("sgemm_coalesced")
n3 = PT["M"] * PT["N"] * PT["K"]
g("prof_n", str(PT["M"]))
g("dram_naive_gb", f"{PN['dram_bytes'] / 1e9:.1f}")
g("dram_tiled_gb", f"{PT['dram_bytes'] / 1e9:.1f}")
g("dram_coal_gb", f"{PC['dram_bytes'] / 1e9:.1f}")
g("dram_ratio", f"{PN['dram_bytes'] / PT['dram_bytes']:.2f}")
g("req_ratio", f"{PN['global_ld_requests'] / PT['global_ld_requests']:.0f}")
g("sect_ratio", f"{PN['global_ld_sectors'] / PT['global_ld_sectors']:.0f}")
g("spr_tiled", f"{PT['sectors_per_request']:.1f}")
g("spr_naive", f"{PN['sectors_per_request']:.1f}")
compulsory = 3 * PT["M"] * PT["K"] * 4
g("dram_over_min", f"{PT['dram_bytes'] / compulsory:.0f}")
dram_ai = 2 * n3 / PT["dram_bytes"]
g("dram_ai_tiled", f"{dram_ai:.1f}")
g("dram_ai_roof", f"{min(dram_ai * ROOF.bandwidth_gbs, ROOF.peak_gflops) / 1000:.1f}")
g("frac_roof_ii", f"{bench('sgemm_tiled')['gflops'] / min(4.0 * ROOF.bandwidth_gbs, ROOF.peak_gflops) * 100:.0f}")
g("frac_roof_iii", f"{bench('sgemm_tiled')['gflops'] / min(dram_ai * ROOF.bandwidth_gbs, ROOF.peak_gflops) * 100:.0f}")
g("dram_pct_tiled", f"{PT['dram_pct']:.0f}")
g("mem_pct_tiled", f"{PT['mem_pct']:.0f}")
g("sm_pct_tiled", f"{PT['sm_pct']:.0f}")
g("issue_active_tiled", f"{PT['issue_active_pct']:.0f}")
for key, reason in (("st_ls", "Long Scoreboard"), ("st_mio", "MIO Throttle"), ("st_bar", "Barrier"),
                    ("st_short", "Short Scoreboard"), ("st_wait", "Wait")):
    g(key, f"{PT['stalls'][reason]:.1f}")
g("st_mio_col", f"{prof('sgemm_tiled_colwalk')['stalls']['MIO Throttle']:.1f}")
g("occ_theo", f"{PT['theoretical_occupancy_pct']:.0f}")
g("occ_ach", f"{PT['achieved_occupancy_pct']:.0f}")
g("regs_tiled", f"{PT['registers']:.0f}")
g("smem_tiled", f"{PT['smem_static']:,.0f}")
occ = roofline.occupancy(256, int(PT["registers"]), int(PT["smem_static"]), "sm_90")
g("occ_blocks", str(occ.blocks_per_sm))
g("occ_smem_alloc", f"{occ.smem_allocated_per_block:,}")
occ33 = roofline.occupancy(256, 33, int(PT["smem_static"]), "sm_90")
g("occ33", f"{occ33.active_warps / occ33.arch.max_warps_per_sm * 100:.0f}")

# SASS facts (compiled here, no GPU) and shared-memory counters per warp per K tile
SASS = {k: _sass.summarize(k, "sm_90") for k in (
    "sgemm_tiled", "sgemm_tiled_padded", "sgemm_tiled_colwalk", "sgemm_tiled_colwalk_padded")}
st = SASS["sgemm_tiled"]
g("n128_tiled", str(st.lds_widths.get("128", 0)))
g("n32_tiled", str(st.lds_widths.get("32", 0)))
g("nlds_tiled", str(sum(st.lds_widths.values())))
g("nsts_tiled", str(sum(st.sts_widths.values())))
g("nlds_pad", str(sum(SASS["sgemm_tiled_padded"].lds_widths.values())))
WT = (PT["M"] // 16) * (PT["N"] // 16) * 8 * (PT["K"] // 16)   # blocks x 8 warps x K tiles
for key, kernel in (("tiled", "sgemm_tiled"), ("pad", "sgemm_tiled_padded"), ("col", "sgemm_tiled_colwalk"),
                    ("colpad", "sgemm_tiled_colwalk_padded")):
    g(f"wf_tile_{key}", f"{prof(kernel)['smem_ld_wavefronts'] / WT:.0f}")
    g(f"wpi_{key}", f"{prof(kernel)['smem_ld_wavefronts_per_instruction']:.1f}")

# ============================================================================ checks on the text's directions
# Every directional or comparative sentence of the chapter, against the records (a contradicting re-recording
# stops the build). The messages quote the sentence they guard.
import re                                # noqa: E402

from sims import banks                   # noqa: E402
from sims.banks import ThreadBankAccess, summarize  # noqa: E402

PP, PCOL, PCOLPAD = prof("sgemm_tiled_padded"), prof("sgemm_tiled_colwalk"), prof("sgemm_tiled_colwalk_padded")
assert T["sgemm_naive"] / T["sgemm_tiled"] < 4, "본문: 속도 향상은 모델의 '트래픽 16분의 1'과 거리가 멀다"
assert PT["sectors_per_request"] == 4.0, "본문: 요청당 섹터 4.0은 32비트 로드가 섹터를 꽉 채워 쓸 때의 값"


def _without_ftz(counts):
    folded = {}
    for op, n in counts.items():
        folded[op.replace(".FTZ", "")] = folded.get(op.replace(".FTZ", ""), 0) + n
    return folded


_ptx = _sass.summarize("sgemm_tiled_ptx", "sm_90")
assert _ptx.counts != st.counts and _without_ftz(_ptx.counts) == _without_ftz(st.counts) and _ptx.ffma == st.ffma \
    and st.counts.get("FFMA.FTZ") == st.ffma and _ptx.counts.get("FFMA", 0) == 16, \
    "본문: PTX 변형의 SASS는 FFMA의 .FTZ 접미사만 다르다 (asm의 내적 FFMA 16개는 .FTZ 없음)"
assert abs(_ptx.registers - st.registers) == 1, "본문: 레지스터 배정은 하나 차이 난다"
assert abs(T["sgemm_tiled_ptx"] / T["sgemm_tiled"] - 1) < 0.02, "본문: PTX 변형의 시간 차이는 잡음"
assert pad > 0, "본문: +1 패딩이 오히려 느리게 만들었다"
assert T["sgemm_tiled_colwalk"] > 2 * T["sgemm_tiled"] and T["sgemm_tiled_colwalk_padded"] < 0.6 * T["sgemm_tiled_colwalk"], \
    "본문: 열 걷기는 기본형의 몇 배, 패딩을 더하면 크게 빨라진다"
assert T["sgemm_tiled"] > 0.8 * T["sgemm_coalesced"], "본문: 공유 메모리만으로는 Level 1을 크게 앞서지 못한다"
assert PN["global_ld_requests"] == 16 * PT["global_ld_requests"], "본문: 요청은 정확히 모델대로 16분의 1"
assert PN["global_ld_sectors"] / PT["global_ld_sectors"] < 16 and PN["sectors_per_request"] == 2.0, \
    "본문: 섹터는 그보다 덜 줄었다 (나이브 커널의 요청당 섹터가 이미 2.0)"
assert 0.9 < PN["dram_bytes"] / PT["dram_bytes"] < 1.1, "본문: DRAM 바이트는 거의 줄지 않았다"
assert PC["dram_bytes"] < 0.2 * PT["dram_bytes"], "본문: Level 1은 DRAM 바이트가 훨씬 적다"
assert PT["dram_pct"] < 50 and PT["mem_pct"] > 85, "본문: DRAM은 포화되지 않았고 메모리 처리량(가장 바쁜 단위)은 높다"
assert 4.0 < min(19.5e3 / 2039, ROOF.ridge_ai), "본문: 4.0은 두 꺾임점보다 모두 작다"
_gf = bench("sgemm_tiled")["gflops"]
assert _gf < min(4.0 * ROOF.bandwidth_gbs, ROOF.peak_gflops) * 0.9 and \
    _gf < min(dram_ai * ROOF.bandwidth_gbs, ROOF.peak_gflops) * 0.9, "본문: 어느 모델의 지붕에도 닿지 않았다"
_stalls = {k: v for k, v in PT["stalls"].items() if k != "Selected"}
assert sorted(_stalls, key=lambda k: -_stalls[k])[:3] == ["Long Scoreboard", "MIO Throttle", "Barrier"], \
    "본문: 눈에 띄는 세 사유는 Long Scoreboard(가장 큼), MIO Throttle, Barrier"
assert PCOL["stalls"]["MIO Throttle"] > 5 * PT["stalls"]["MIO Throttle"], "본문: 열 걷기에서 MIO Throttle이 치솟는다"
assert PT["achieved_occupancy_pct"] > 95 and PT["theoretical_occupancy_pct"] == 100 == occ.occupancy_pct, \
    "본문: 점유율이 모자라서 느린 것은 아니다 (원 자료의 50–75%, 62%와 맞지 않는다)"
assert occ33.occupancy_pct < occ.occupancy_pct, "본문: 레지스터가 하나만 늘어도 이론 점유율이 떨어진다"

# SASS
assert st.spills == 0 and st.local_bytes == 0 and 28 <= st.registers <= 35, "본문: 스필 없음, 로컬 0 B, 레지스터 30개 남짓"
assert st.lds_widths.get("128", 0) > 0 and sum(st.lds_widths.values()) > 16 and st.ffma > 16, \
    "본문: As 읽기가 LDS.128이 되었고, 공유 메모리 읽기 명령이 내적의 FFMA 16개보다 많다"
_x = [" ".join(line.split(";")[0].split()) for line in _sass.excerpt("sgemm_tiled", "sm_90", pattern=r"FFMA|LDS",
                                                                       limit=14).splitlines()]
assert "LDS.128 R8, [R19]" in _x, "본문: 발췌의 LDS.128 R8, [R19]"
for _kernel, _n in (("sgemm_tiled", "tiled"), ("sgemm_tiled_padded", "pad"), ("sgemm_tiled_colwalk", "col"),
                    ("sgemm_tiled_colwalk_padded", "colpad")):
    assert prof(_kernel)["smem_ld_instructions"] / WT == sum(SASS[_kernel].lds_widths.values()), \
        f"본문: Nsight의 읽기 명령 수 ÷ 워프·타일 수가 SASS와 정확히 일치 ({_n})"
assert "128" not in SASS["sgemm_tiled_padded"].lds_widths, "본문: 패딩이 행의 16 B 정렬을 깨 LDS.128을 잃는다"

# Simulation 6: the bank model against Nsight's counters (the chapter's tables, recomputed)
def _model(expression, pad, width=4, passes=1):
    """Average wavefronts of one warp request over k and the 8 warps (passes=2: 128-bit served per half-warp)."""
    vals = []
    for w in range(8):
        for k in range(16 if width == 4 else 4):
            req = banks.bank_request(rows=16, cols=16, padding=pad, width_bytes=width, bdx=16, bdy=16, warp=w,
                                     expression=expression, k=k)
            vals.append(req.wavefronts if passes == 1 else
                        sum(summarize(h, width, req.pitch).wavefronts for h in (req.threads[:16], req.threads[16:])))
    return sum(vals) / len(vals)


def _bs_colwalk(pad):
    vals = [summarize([ThreadBankAccess(t, t % 16, t // 16, k, t // 16, (k * (16 + pad) + t // 16,))
                       for t in range(32 * w, 32 * w + 32)], 4, 16 + pad).wavefronts
            for w in range(8) for k in range(16)]
    return sum(vals) / len(vals)


assert (_model("store [ty][tx]", 0), _model("store [ty][tx]", 1)) == (1, 2), "본문: 저장 모델은 패딩 없음 1, 패딩 2"
assert 1 < PT["smem_st_wavefronts_per_instruction"] < 1.15 and 2 < PP["smem_st_wavefronts_per_instruction"] < 2.15, \
    "본문: Nsight는 저장에서 1을 조금 넘는 값과 2를 조금 넘는 값을 잰다"
assert min(PP["smem_st_bank_conflicts"], PCOLPAD["smem_st_bank_conflicts"]) > \
    10 * max(PT["smem_st_bank_conflicts"], PCOL["smem_st_bank_conflicts"]), "본문: 저장 충돌은 패딩한 두 커널에서만 크게 뛴다"
_per_tile = {k: prof(k)["smem_ld_wavefronts"] / WT for k in T if k.startswith("sgemm_tiled") and k != "sgemm_tiled_ptx"}
for _k, _pad in (("sgemm_tiled_padded", 1), ("sgemm_tiled_colwalk_padded", 1)):
    _as = _model("load [ty][k]" if "colwalk" not in _k else "load [tx][k]", _pad)
    _bs = _model("load [k][tx]", _pad) if "colwalk" not in _k else _bs_colwalk(_pad)
    assert abs(16 * _as + 16 * _bs - _per_tile[_k]) < 0.05 * _per_tile[_k], f"본문: 스칼라 읽기만 있는 {_k}는 모델과 측정이 바로 맞다"
for _k, _expr, _bs in (("sgemm_tiled", "load [ty][k]", _model("load [k][tx]", 0)),
                       ("sgemm_tiled_colwalk", "load [tx][k]", _bs_colwalk(0))):
    _n128 = SASS[_k].lds_widths["128"]
    _measured = (_per_tile[_k] - 16 * _bs) / _n128
    _whole, _half = _model(_expr, 0, 16), _model(_expr, 0, 16, passes=2)
    assert abs(_half - _measured) < 0.1 * _measured and abs(_whole - _measured / 2) < 0.1 * _measured, \
        f"본문: LDS.128은 반 워프씩 처리한 모델과 맞고, 워프 전체 모델은 꼭 절반 ({_k})"
assert (_model("load [ty][k]", 0, 16, passes=2), _model("load [tx][k]", 0, 16, passes=2)) == (2, 16), \
    "본문: 기본형의 LDS.128은 반 워프마다 1씩 2, 열 걷기는 8씩 16"
assert PT["smem_ld_bank_conflicts"] < 1e-3 * PT["smem_ld_instructions"], "본문: 기본형의 읽기 충돌 카운터는 거의 0"
_by_wf = sorted(_per_tile, key=lambda k: (_per_tile[k], T[k]))
assert [T[k] for k in _by_wf] == sorted(T[k] for k in _by_wf), "본문: 시간이 워프·타일당 읽기 웨이브프론트를 따라간다"
assert _per_tile["sgemm_tiled_padded"] == _per_tile["sgemm_tiled_colwalk_padded"] or \
    abs(_per_tile["sgemm_tiled_padded"] / _per_tile["sgemm_tiled_colwalk_padded"] - 1) < 0.01, \
    "본문: 패딩형과 열 걷기+패딩형은 웨이브프론트가 같다"
assert abs(T["sgemm_tiled_padded"] / T["sgemm_tiled_colwalk_padded"] - 1) < 0.02, "본문: 두 패딩 커널은 시간도 거의 같다"

# ============================================================================ the quiz's numbers (course/banks/m06.yaml)
from course.facts import quiz_text   # noqa: E402


def _quiz(qid):
    return quiz_text(6, qid)


assert f"요청당 {PN['sectors_per_request']:.1f}섹터" in _quiz("m06-q02"), "퀴즈 m06-q02: 나이브 커널 요청당 2.0섹터"
_q6 = _quiz("m06-q06")
assert f"패딩 {PP['smem_st_wavefronts_per_instruction']:.2f}, 패딩 없음 {PT['smem_st_wavefronts_per_instruction']:.2f}" in _q6 \
    and T["sgemm_tiled_padded"] > T["sgemm_tiled"], "퀴즈 m06-q06: 저장 wavefront 2.03과 1.07, 패딩한 커널이 더 느렸다"
assert PT["smem_static"] == 2048 and PP["smem_static"] == 2176 and "2,176 B" in _quiz("m06-q03"), \
    "퀴즈 m06-q03: 16×16 커널 2,048 B, 패딩 2,176 B"
