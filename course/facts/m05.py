"""Facts of module 5 (m05_coalescing.md): the recorded Nsight Compute and benchmark numbers its
text quotes, and the SASS counts of Levels 0 and 1."""
from __future__ import annotations

import json

from course.facts import Facts
from course.page import recorded
from kernels import sass
from kernels.record import DATA_DIR

f = Facts("m05")

PROFILES = json.loads((DATA_DIR / "profiles.json").read_text(encoding="utf-8"))
PROF = {k["kernel"]: k for k in PROFILES["kernels"]}
BENCH = recorded()
SIZES = (1024, 2048, 4096)
SHORT = {"sgemm_naive": "naive", "sgemm_naive_strided": "strided", "sgemm_coalesced": "coal"}


def g(key, text):
    f[key] = text


# Nsight Compute (4096³): sectors per request, duration, SOL, stalls, DRAM bytes
for name, short in SHORT.items():
    p = PROF[name]
    g(f"spr_{short}", f"{p['sectors_per_request']:.1f}")
    g(f"dur_{short}", f"{p['duration_ms']:.1f}")
    g(f"sm_{short}", f"{p['sm_pct']:.1f}")
    g(f"mem_{short}", f"{p['mem_pct']:.1f}")
    g(f"dram_{short}", f"{p['dram_pct']:.1f}")
    g(f"dramgb_{short}", f"{p['dram_bytes'] / 1e9:.2f}")
    g(f"ls_{short}", f"{p['stalls']['Long Scoreboard']:.1f}")
    g(f"lg_{short}", f"{p['stalls']['LG Throttle']:.1f}")
    g(f"occ_{short}", f"{p['theoretical_occupancy_pct']:.0f}")
    g(f"regs_{short}", f"{p['registers']:.0f}")

naive, strided, coal = (PROF[n] for n in SHORT)
g("l1_ratio_strided", f"{strided['global_ld_sectors'] / naive['global_ld_sectors']:.2f}")
g("dram_ratio_strided", f"{strided['dram_bytes'] / naive['dram_bytes']:.2f}")
g("dur_ratio_strided", f"{strided['duration_ms'] / naive['duration_ms']:.1f}")
g("req_ratio_coal", f"{naive['global_ld_requests'] / coal['global_ld_requests']:.1f}")
g("sect_ratio_coal", f"{naive['global_ld_sectors'] / coal['global_ld_sectors']:.2f}")
g("instr_ratio_coal", f"{naive['instructions'] / coal['instructions']:.1f}")
g("ncu_date", str(PROFILES["date"])[:10])
g("ncu_device", PROFILES["device"])

# benchmarks.json (recorded run times): % of cuBLAS, speed ratios
for name, short in SHORT.items():
    for n in SIZES:
        row = BENCH.at(name, n)
        g(f"pc_{short}_{n}", f"{row['pct_cublas']:.1f}")
        g(f"gf_{short}_{n}", f"{row['gflops']:,.0f}")
for n in SIZES:
    g(f"gf_cublas_{n}", f"{BENCH.at('cublas', n)['gflops']:,.0f}")
    g(f"speedup_{n}", f"{BENCH.at('sgemm_naive', n)['median_ms'] / BENCH.at('sgemm_coalesced', n)['median_ms']:.2f}")
    g(f"slowdown_{n}", f"{BENCH.at('sgemm_naive_strided', n)['median_ms'] / BENCH.at('sgemm_naive', n)['median_ms']:.1f}")
g("bench_device", BENCH.provenance["device"])
g("bench_date", str(BENCH.provenance["date"])[:10])

# Check the qualitative facts the text relies on against the records (a contradicting re-recording stops the build).
for n in SIZES:
    assert BENCH.at("sgemm_coalesced", n)["median_ms"] < BENCH.at("sgemm_naive", n)["median_ms"]
    assert BENCH.at("sgemm_naive", n)["median_ms"] < BENCH.at("sgemm_naive_strided", n)["median_ms"]
assert BENCH.at("cublas", 4096)["gflops"] > 1.5 * BENCH.at("cublas", 1024)["gflops"]
assert BENCH.at("sgemm_coalesced", 4096)["pct_cublas"] < BENCH.at("sgemm_coalesced", 1024)["pct_cublas"]
assert strided["stalls"]["LG Throttle"] > strided["stalls"]["Long Scoreboard"]
assert coal["stalls"]["Long Scoreboard"] > 10 * max(coal["stalls"]["LG Throttle"], 0.1)
assert max(p["dram_pct"] for p in (naive, strided, coal)) < 50 < min(p["mem_pct"] for p in (naive, strided, coal))
_ns = sorted(naive["stalls"].items(), key=lambda kv: -kv[1])
assert [_ns[0][0], _ns[1][0]] == ["Long Scoreboard", "LG Throttle"]

_sass = {name: sass.summarize(name, "sm_90") for name in ("sgemm_naive", "sgemm_coalesced")}
g("sass_ldg32_naive", str(_sass["sgemm_naive"].ldg_32))
g("sass_ldg128_coal", str(_sass["sgemm_coalesced"].ldg_128))
g("sass_ffma_coal", str(_sass["sgemm_coalesced"].ffma))
assert _sass["sgemm_naive"].ldg_128 == 0 and _sass["sgemm_coalesced"].ldg_32 == 0
assert _sass["sgemm_coalesced"].ldg_128 > 0 and _sass["sgemm_coalesced"].local_bytes == 0
_ops = _sass["sgemm_coalesced"].counts
assert _ops["LDG.E.128.CONSTANT"] > 0 and _ops["LDG.E.128"] > 0
