"""Summarize Nsight Compute's per-instruction stall samples (source page, SASS) into a small record.

    ncu --clock-control none --section SourceCounters --section WarpStateStats --kernel-name sgemm_async_copy_vec \\
        --launch-skip 1 --launch-count 1 -f -o l5v python tools/ncu_one.py sgemm_async_copy_vec 4096
    ncu -i l5v.ncu-rep --page source --csv --print-source sass > l5v_source.csv
    python tools/source_stalls.py l5v_source.csv --provenance book/data/profiles.json --out book/data/source_stalls.json

What module 9 and 10 ask of it: where the wait of cp.async.wait_group (SASS DEPBAR) is charged, and
which instructions collect the Long Scoreboard samples. Warp-state sampling charges a stalled warp to
the instruction it is waiting to issue, so the wait of DEPBAR appears on the instruction after it.
"""
from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections import Counter
from pathlib import Path

ALL = "Warp Stall Sampling (All Samples)"


def _n(text: str) -> int:
    try:
        return int(float(text.replace(",", "")))
    except ValueError:
        return 0


def opcode(source: str) -> str:
    """'@P0 LDGSTS.E.BYPASS.128 [R1], ...' -> 'LDGSTS.E.BYPASS.128'."""
    words = [w for w in source.strip().split() if not w.startswith("@")]
    return words[0].rstrip(",;") if words else ""


def read(path: Path) -> tuple[str, list[dict]]:
    rows = list(csv.reader(path.open(encoding="utf-8")))
    kernel = rows[0][1] if rows and rows[0] and rows[0][0] == "Kernel Name" else ""
    header = rows[1]
    return kernel, [dict(zip(header, r)) for r in rows[2:] if len(r) >= len(header) - 1]


def summarize(kernel: str, rows: list[dict]) -> dict:
    reasons = [h for h in rows[0] if h.startswith("stall_") and "(" not in h]
    totals = {r: sum(_n(x[r]) for x in rows) for r in reasons}
    samples = sum(_n(x[ALL]) for x in rows)
    ops = [opcode(x["Source"]) for x in rows]
    long_sb = [_n(x["stall_long_sb"]) for x in rows]
    depbar = []
    for i, op in enumerate(ops):
        if op.startswith("DEPBAR") and i + 1 < len(rows):
            depbar.append({"index": i, "instruction": rows[i]["Source"].strip(), "samples": _n(rows[i][ALL]),
                           "next": rows[i + 1]["Source"].strip(), "next_samples": _n(rows[i + 1][ALL]),
                           "next_long_scoreboard": long_sb[i + 1]})
    after_ldgsts = sum(v for i, v in enumerate(long_sb) if i and any(o.startswith("LDGSTS") for o in ops[max(0, i - 2):i]))
    by_opcode = Counter()
    for op, v in zip(ops, long_sb):
        by_opcode[re.sub(r"\..*", "", op)] += v
    top = sorted(range(len(rows)), key=lambda i: -long_sb[i])[:8]
    return {
        "kernel": kernel, "instructions": len(rows), "samples": samples, "stall_totals": totals,
        "long_scoreboard_share_pct": round(100 * totals.get("stall_long_sb", 0) / samples, 2) if samples else 0.0,
        "depbar": depbar,
        "long_scoreboard_within_2_after_ldgsts": after_ldgsts,
        "long_scoreboard_by_opcode": dict(by_opcode.most_common(8)),
        "top_long_scoreboard": [{"index": i, "instruction": rows[i]["Source"].strip(), "long_scoreboard": long_sb[i],
                                 "previous": rows[i - 1]["Source"].strip() if i else ""} for i in top],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("csv", nargs="+", type=Path)
    ap.add_argument("--provenance", type=Path, help="a record whose device/driver/date fields describe the run")
    ap.add_argument("--command", default="")
    ap.add_argument("--out", type=Path, default=Path("book/data/source_stalls.json"))
    args = ap.parse_args()
    out = {}
    if args.provenance:
        prov = json.loads(args.provenance.read_text(encoding="utf-8"))
        if prov.get("supplements"):
            prov = {**prov, **prov["supplements"][-1]}
        out = {k: prov[k] for k in ("device", "compute_capability", "driver", "cupy", "date", "git_commit", "tool")
               if k in prov}
    out["command"] = args.command or "ncu --section SourceCounters --section WarpStateStats; ncu -i --page source --csv --print-source sass"
    out["method"] = ("warp-state sampling: a stalled warp is charged to the instruction it waits to issue; "
                     "stall_* columns are sample counts per SASS instruction")
    out["kernels"] = [summarize(*read(p)) for p in args.csv]
    args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for k in out["kernels"]:
        print(k["kernel"], k["samples"], "long_sb", k["stall_totals"].get("stall_long_sb"), k["depbar"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
