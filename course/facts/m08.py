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
assert b[(DB, 4096)]["pct_cublas"] < 98, "본문: 4096³에서는 cuBLAS와 아직 격차가 있다"
assert 90 < b[(DB, 2048)]["pct_cublas"] < 110, "본문: 2048³에서는 cuBLAS에 바짝 다가간다(±10%p)"
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
