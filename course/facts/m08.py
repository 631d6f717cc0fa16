"""Facts of module 8 (m08_double_buffer.md): the recorded benchmark and Nsight Compute numbers its
text quotes, and the register and shared-memory budget of Levels 3 and 4. The SASS facts of the
chapter's own loop analysis are set by its (hidden) cells next to that analysis, with the same `g`."""
from __future__ import annotations

import json

from course.facts import Facts
from course.page import recorded
from kernels.record import DATA_DIR
from sims import roofline

f = Facts("m08")

RB, DB, L5V = "sgemm_register_blocking", "sgemm_double_buffer", "sgemm_async_copy_vec"
SIZES = (1024, 2048, 4096)

bench = recorded()                       # book/data/benchmarks.json
bprov = bench.provenance
b = {(k, n): bench.at(k, n) for k in (RB, DB, L5V, "cublas") for n in SIZES}

prof = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
P = {k["kernel"]: k for k in prof["kernels"]}
prb, pdb = P[RB], P[DB]


def g(name, value, fmt=""):
    """One fact of the text: the value formatted as it is printed."""
    f[name] = format(value, fmt)


# Recorded benchmarks (benchmarks.json)
g("b_device", bprov["device"])
g("b_date", str(bprov["date"])[:10])
for n in SIZES:
    g(f"pc_rb_{n}", b[(RB, n)]["pct_cublas"], ".1f")
    g(f"pc_db_{n}", b[(DB, n)]["pct_cublas"], ".1f")
    g(f"gain_{n}", 100 * (b[(RB, n)]["median_ms"] / b[(DB, n)]["median_ms"] - 1), ".1f")
g("ms_rb_4096", b[(RB, 4096)]["median_ms"], ".2f")
g("ms_db_4096", b[(DB, 4096)]["median_ms"], ".2f")
g("ms_cublas_4096", b[("cublas", 4096)]["median_ms"], ".2f")
g("tf_db_4096", b[(DB, 4096)]["gflops"] / 1000, ".1f")
g("pk_db_4096", b[(DB, 4096)]["pct_peak"], ".1f")
g("pc_l5v_4096", b[(L5V, 4096)]["pct_cublas"], ".1f")
regs_rb, regs_db = b[(RB, 4096)]["registers"], b[(DB, 4096)]["registers"]
smem_rb, smem_db = b[(RB, 4096)]["smem_static"], b[(DB, 4096)]["smem_static"]
g("regs_rb", regs_rb, "d")
g("regs_db", regs_db, "d")
g("regs_diff", regs_db - regs_rb, "d")
g("smem_rb", smem_rb, ",d")
g("smem_db", smem_db, ",d")

# Occupancy model (sims.roofline.occupancy, sm_90, 256 threads)
occ_rb = roofline.occupancy(256, regs_rb, smem_rb, "sm_90")
occ_db = roofline.occupancy(256, regs_db, smem_db, "sm_90")
g("occ_rb", occ_rb.occupancy_pct, ".1f")
g("occ_db", occ_db.occupancy_pct, ".1f")
g("occ_blocks", occ_db.blocks_per_sm, "d")
g("occ_smem_blocks", occ_db.limits["smem"], "d")

# Recorded Nsight Compute profiles (profiles.json, 4096³)
g("p_device", prof["device"])
g("p_date", str(prof["date"])[:10])
for tag, p in (("rb", prb), ("db", pdb)):
    st = p["stalls"]
    g(f"p_dur_{tag}", p["duration_ms"], ".2f")
    g(f"p_sm_{tag}", p["sm_pct"], ".1f")
    g(f"p_issue_{tag}", p["issue_active_pct"], ".1f")
    g(f"p_ach_{tag}", p["achieved_occupancy_pct"], ".1f")
    g(f"p_theo_{tag}", p["theoretical_occupancy_pct"], ".1f")
    g(f"p_ls_{tag}", st["Long Scoreboard"], ".2f")
    g(f"p_bar_{tag}", st["Barrier"], ".2f")
    g(f"p_ss_{tag}", st["Short Scoreboard"], ".2f")
    g(f"p_wait_{tag}", st["Wait"], ".2f")
    g(f"p_ns_{tag}", st["Not Selected"], ".2f")
    g(f"p_fma_{tag}", p["fma_pipe_pct"], ".1f")
    g(f"p_lsu_{tag}", p["lsu_issue_pct"], ".1f")
g("p_ls_drop", 100 * (1 - pdb["stalls"]["Long Scoreboard"] / prb["stalls"]["Long Scoreboard"]), ".0f")

# Qualitative facts the text relies on (the build stops if a new recording contradicts them)
for n in SIZES:
    assert b[(DB, n)]["median_ms"] < b[(RB, n)]["median_ms"], "본문: Level 4가 세 크기 모두에서 더 빠르다"
assert max(regs_rb, regs_db) <= 128 and regs_db > regs_rb, "본문: 둘 다 128개 이하, Level 4가 더 많다"
assert occ_rb.occupancy_pct == occ_db.occupancy_pct == 25.0, "본문: 둘 다 이론 점유율 25%"
assert smem_db == 2 * smem_rb == 16384, "본문: 공유 메모리 8,192 → 16,384 B"
sdb, srb = pdb["stalls"], prb["stalls"]
assert sdb["Long Scoreboard"] < 0.1 * srb["Long Scoreboard"], "본문: Long Scoreboard가 거의 사라졌다"
assert 0.8 * srb["Barrier"] <= sdb["Barrier"] <= srb["Barrier"], "본문: Barrier는 거의 그대로(조금 줄거나 같다)"
assert sdb["Short Scoreboard"] < srb["Short Scoreboard"], "본문: Short Scoreboard 감소"
assert srb["Long Scoreboard"] - sdb["Long Scoreboard"] > srb["Short Scoreboard"] - sdb["Short Scoreboard"], \
    "본문: 가장 크게 줄어든 항목은 Long Scoreboard"
assert sdb["Wait"] < srb["Wait"] and sdb["Wait"] < 0.5 * sdb["Not Selected"], "본문: Wait는 줄었고 작다"
assert sdb["Not Selected"] > srb["Not Selected"], "본문: Not Selected 증가"
for key in ("issue_active_pct", "sm_pct", "fma_pipe_pct"):
    assert pdb[key] > prb[key] + 10, f"본문: {key}가 10%p 넘게 오른다"
assert max((v, k) for k, v in sdb.items() if k != "Selected")[1] == "Not Selected", \
    "본문: Level 4에서 가장 큰 항목은 Not Selected"
assert pdb["ffma_instructions"] == prb["ffma_instructions"], "본문: 실행된 FFMA 수는 같다"
assert abs(b[(DB, 2048)]["pct_cublas"] - 100) < 3, "본문: 2048³에서는 cuBLAS에 바짝 다가가 거의 같은 속도(3%p 안)"
assert b[(DB, 4096)]["pct_cublas"] < 95 and b[(DB, 2048)]["pct_cublas"] - b[(DB, 4096)]["pct_cublas"] > 5, \
    "본문: 4096³에서는 아직 격차가 있다(95% 미만, 2048³보다 5%p 넘게 낮다)"
for n in SIZES:
    assert b[(RB, n)]["median_ms"] / b[(DB, n)]["median_ms"] - 1 > 0.2, "본문: 모든 크기에서 20% 넘는 이득"
g("pc_db_4096_next", b[(DB, 4096)]["pct_cublas"], ".1f")
assert abs(b[(L5V, 4096)]["pct_cublas"] - b[(DB, 4096)]["pct_cublas"]) < 3, \
    "본문: 이 H100 기록에서 Level 5(16바이트)는 Level 4와 거의 같은 자리(3%p 안)"
assert bench.at(RB + "_padded", 4096)["median_ms"] > b[(RB, 4096)]["median_ms"], "본문: 패딩이 큰 행렬에서 느리다"

# The old loop (kernels/variants.py) timed in alternation with the shipped Level 4 (variants.json).
VARIANTS_REC = json.loads((DATA_DIR / "variants.json").read_text(encoding="utf-8"))
_VROWS = {(r["variant"], r["M"]): r for r in VARIANTS_REC["rows"] if r["variant"].startswith("level4_old_loop")}
_VLABEL = {"level4_old_loop": "이전 판: if (has_next), (256)", "level4_old_loop_lb2": "이전 판 루프 + (256, 2)"}


def variant_rows() -> list[dict]:
    """Rows of the chapter's table: each old-loop variant against the shipped Level 4, per size."""
    return [{"v": _VLABEL[v], "n": f"{n}³", "var": f"{r['variant_ms']:.3f}", "base": f"{r['base_ms']:.3f}",
             "ratio": f"{r['time_ratio']:.2f}"} for (v, n), r in sorted(_VROWS.items())]


g("v_device", VARIANTS_REC["device"])
g("v_date", str(VARIANTS_REC["date"])[:10])
_old4, _old4_lb2 = _VROWS[("level4_old_loop", 4096)], _VROWS[("level4_old_loop_lb2", 4096)]
g("old_slow_4096", 100 * (_old4["time_ratio"] - 1), ".0f")
g("old_lb2_slow_4096", 100 * (_old4_lb2["time_ratio"] - 1), ".0f")
g("old_ratio_4096", _old4["time_ratio"], ".2f")
_rb_ratio = b[(RB, 4096)]["median_ms"] / b[(DB, 4096)]["median_ms"]
g("rb_ratio_4096", _rb_ratio, ".2f")
assert all(r["correct"] for r in _VROWS.values()), "본문: 이전 판 루프는 출하본과 같은 C를 낸다"
assert all(r["time_ratio"] > 1.05 for r in _VROWS.values()), "본문: 이전 판 루프는 모든 크기에서 출하본보다 느리다"
assert abs(_old4["time_ratio"] - _old4_lb2["time_ratio"]) < 0.03, "본문: (256, 2)만 더해도 거의 같다"
assert 1 < _old4["time_ratio"] < _rb_ratio, "본문: 이전 판 루프는 출하본보다 느리고 Level 3보다는 빠르다"
# ============================================================================ grid fill at 1024³ (taught in module 7)
from sims import warp_tiling as wt      # noqa: E402  (the wave model modules 7 and 11 use)

SMS = bprov["sm_count"]
W = {n: wt.waves(n, n, 128, 128, SMS, occ_db.blocks_per_sm) for n in SIZES}
PER_SM_PEAK = bprov["peak_gflops"] / SMS
g("sm_count", SMS, "d")
g("blocks_1024", W[1024].blocks, "d")
g("idle_1024", SMS - W[1024].busy_sms, "d")
for tag, k in (("rb", RB), ("db", DB)):
    g(f"per_sm_{tag}_1024", b[(k, 1024)]["gflops"] / W[1024].busy_sms / PER_SM_PEAK * 100, ".0f")
gain = {n: b[(RB, n)]["median_ms"] / b[(DB, n)]["median_ms"] - 1 for n in SIZES}
assert 2 * W[1024].blocks < SMS, "본문: 1024³은 블록이 SM의 절반도 안 된다"
assert min(W[2048].blocks, W[4096].blocks) >= 1.9 * SMS and occ_db.blocks_per_sm == 2, \
    "본문: 2048³과 4096³에서는 거의 모든 SM에 블록이 둘씩"
assert gain[1024] > max(gain[2048], gain[4096]) + 0.1, "본문: 이득이 가장 큰 크기는 1024³"
assert b[(DB, 1024)]["gflops"] > 1.3 * b[(RB, 1024)]["gflops"], "본문: 1024³에서 일하는 SM 하나의 처리량이 올랐다"
assert b[(DB, 1024)]["pct_cublas"] < min(b[(DB, 2048)]["pct_cublas"], b[(DB, 4096)]["pct_cublas"]), \
    "본문: 1024³의 cuBLAS 대비 비율은 큰 크기보다 낮다"

# ============================================================================ the quiz's numbers (course/banks/m08.yaml)
from course.facts import quiz_text        # noqa: E402
from kernels import sass                 # noqa: E402


def _quiz(qid):
    return quiz_text(8, qid)


_s_rb, _s_db = sass.summarize(RB, "sm_90"), sass.summarize(DB, "sm_90")
assert regs_rb == prb["registers"] == _s_rb.registers == 104 and regs_db == pdb["registers"] == _s_db.registers == 127, \
    "퀴즈 m08-q04, q08: 레지스터 104 → 127 (벤치마크, Nsight Compute, SASS가 모두 같다)"
for _qid in ("m08-q04", "m08-q08"):
    _t = _quiz(_qid)
    assert f"{regs_rb}개에서 {regs_db}개로" in _t and "약 8개" not in _t, f"퀴즈 {_qid}: 104개에서 127개로"
assert f"{regs_db - regs_rb}개 늘었다" in _quiz("m08-q04"), "퀴즈 m08-q04: 23개 늘었다"
_q8 = _quiz("m08-q08")
assert all(f"{round(100 * gain[n])}%" in _q8 for n in SIZES), "퀴즈 m08-q08: 이득 55%, 26%, 31%"
assert gain[1024] > max(gain[2048], gain[4096]) and 2 * W[1024].blocks < SMS and f"{W[1024].blocks}개" in _q8, \
    "퀴즈 m08-q08: 블록 64개뿐인 1024³에서 이득이 가장 컸다"
assert smem_rb == 8192 and smem_db == 16384 and "16,384" in _quiz("m08-q03"), "퀴즈 m08-q03: 16,384 B"

# ============================================================================ the rest of the text's SASS and Nsight claims
_drop = {k: srb[k] - sdb[k] for k in srb if k != "Selected"}
assert sorted(_drop, key=lambda k: -_drop[k])[:2] == ["Long Scoreboard", "Short Scoreboard"], \
    "본문: Short Scoreboard가 두 번째로 크게 줄었다"
assert 0.4 < sdb["Wait"] / srb["Wait"] < 0.6 and max(srb["Wait"], sdb["Wait"]) < 0.5, "본문: Wait는 절반으로 줄었고 둘 다 작다"
assert pdb["duration_ms"] < prb["duration_ms"], "본문: 프로파일러 아래 실행 시간도 줄었다"
assert pdb["achieved_occupancy_pct"] < pdb["theoretical_occupancy_pct"] == prb["theoretical_occupancy_pct"] == 25, \
    "본문: Nsight Compute도 두 커널의 이론 점유율을 25%로 본다"
_ops = [" ".join(line.split(";")[0].split()).split()
        for line in sass.excerpt(DB, "sm_90", pattern=r"LDG|STS|BAR|FFMA", limit=20).splitlines()]
_ops = [o[1] if o[0].startswith("@") else o[0] for o in _ops]
assert _ops[:8] == ["LDG.E.128.CONSTANT"] * 2 + ["STS"] * 4 + ["STS.128", "BAR.SYNC.DEFER_BLOCKING"] and \
    all(o.startswith("FFMA") for o in _ops[8:]), \
    "본문: 발췌 20줄은 프롤로그(LDG 둘, STS 넷과 STS.128 하나, BAR, 첫 FFMA)이고 루프의 LDG는 없다"
assert _s_db.ldg_128 - _s_db.counts["LDG.E.128.CONSTANT"] == _s_rb.ldg_128 - _s_rb.counts["LDG.E.128.CONSTANT"] == 16, \
    "본문: 나머지 LDG.E.128은 에필로그가 C를 읽는 float4 16개 (스레드의 64칸)"


def _lds_positions(kernel):
    """FFMA count before each LDS of the main loop (the backward branch's span holding the most FFMAs)."""
    best = [i for _, i in sass.main_loop(kernel, "sm_90")]
    positions, ffma = [], 0
    for inst in best:
        ffma += inst.startswith("FFMA")
        if inst.startswith("LDS"):
            positions.append(ffma)
    return positions


_pos_rb, _pos_db = _lds_positions(RB), _lds_positions(DB)
assert len(_pos_rb) == len(_pos_db) == 32 and _pos_rb != _pos_db, \
    "본문: 마이크로 커널의 소스는 같지만 FFMA 사이에 LDS가 끼어드는 자리가 두 커널에서 다르다"
