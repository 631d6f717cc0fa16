"""Level 7's held-out record without a GPU: the tool's arithmetic, its arguments, and the record's schema."""
from __future__ import annotations

import importlib
import json
import math
import sys
from pathlib import Path

import pytest

from kernels import devices
from kernels import level7_model as model
from kernels.record import DATA_DIR

TOOLS = Path(__file__).resolve().parent.parent / "tools"
sys.path.insert(0, str(TOOLS))
heldout = importlib.import_module("record_heldout")
forms = importlib.import_module("level7_forms")

H100 = devices.profile("H100")
RECORD = DATA_DIR / "level7_heldout.json"
ROW_KEYS = ("M", "N", "K", "level7_ms", "cublas_ms", "of_cublas", "choice", "bytes_min", "dram_fraction")


def test_heldout_shapes_are_not_zoo_shapes():
    assert not set(model.HELDOUT) & set(model.ZOO)
    assert not set(heldout.QUICK) & set(model.ZOO) and set(heldout.QUICK) <= set(model.HELDOUT)
    assert heldout.shapes_for(False) == model.HELDOUT and len(heldout.shapes_for(True)) == 2


def test_arguments_parse_on_the_cpu():
    args = heldout.parse_args(["--quick", "--out", "/tmp/x.json", "--budget", "5"])
    assert (args.quick, args.out, args.budget) == (True, "/tmp/x.json", 5.0)
    assert heldout.parse_args([]).out.endswith("book/data/level7_heldout.json")


def test_bytes_min_and_the_ridge_point_by_hand():
    assert heldout.bytes_min(1, 4096, 4096) == 4 * (4096 + 4096 * 4096 + 4096)
    # 1 x 4096 x 4096: 2 FLOP per 4-byte weight, far below 60 TFLOP/s / 4 TB/s = 15 FLOP per byte
    assert heldout.memory_bound(1, 4096, 4096, 60_000, 4_000)
    assert not heldout.memory_bound(4096, 4096, 4096, 60_000, 4_000)     # 683 FLOP per byte


def test_row_derivation_by_hand():
    choice = {"tile": "64x128", "split": 2}
    sweep = {"times": {"a": 0.5, "b": 0.4, "c": 0.6}, "chosen": "a",
             "choices": {"a": {"tile": "64x128", "split": 2}, "b": {"tile": "128x128", "split": 1}, "c": {}},
             "options": 5, "timed": 3}
    r = heldout.derive_row(1000, 3001, 777, 0.5, 0.45, choice, 4000.0, 60_000.0, sweep)
    need = 4 * (1000 * 777 + 777 * 3001 + 1000 * 3001)
    assert r["bytes_min"] == need and r["of_cublas"] == pytest.approx(0.9)
    assert r["dram_fraction"] == pytest.approx(need / 0.5e-3 / 4000e9)
    assert r["best_measured"] == {"choice": {"tile": "128x128", "split": 1}, "ms": 0.4}
    assert r["regret"] == pytest.approx(0.25) and r["chosen_in_sweep_ms"] == 0.5
    assert r["sweep"] == {"times": sweep["times"], "options": 5, "timed": 3}
    plain = heldout.derive_row(1000, 3001, 777, 0.5, 0.45, choice, 4000.0, 60_000.0)
    assert "regret" not in plain and "best_measured" not in plain
    assert heldout.regret({"a": 1.0}, "b") is None
    assert heldout.regret({"a": 1.0, "b": 2.0}, "a") == ("a", 1.0, 0.0)


def test_summary_by_hand():
    rows = [
        {"M": 1, "N": 4096, "K": 4096, "of_cublas": 0.5, "memory_bound": True, "dram_fraction": 0.4, "regret": 0.1},
        {"M": 512, "N": 4096, "K": 4096, "of_cublas": 2.0, "memory_bound": False, "dram_fraction": 0.1,
         "regret": 0.0},
        {"M": 64, "N": 64, "K": 64, "of_cublas": 0.96, "memory_bound": True, "dram_fraction": 0.1},
        {"M": 7, "N": 7, "K": 7, "rel_error": float("nan")},           # wrong: not timed, not summarised
    ]
    s = heldout.summary(rows)
    assert s["shapes"] == 3
    assert s["geomean_of_cublas"] == pytest.approx((0.5 * 2.0 * 0.96) ** (1 / 3))
    assert (s["worst_of_cublas"], s["worst_shape"]) == (0.5, [1, 4096, 4096])
    assert s["share_near_cublas"] == pytest.approx(2 / 3)
    assert s["regret_mean"] == pytest.approx(0.05) and s["regret_max"] == 0.1 and s["regret_shapes"] == 2
    assert s["regret_worst_shape"] == [1, 4096, 4096]
    assert s["memory_bound_dram_fraction"] == {"1x4096x4096": 0.4, "64x64x64": 0.1}
    assert s["memory_bound_dram_fraction_min"] == 0.1
    assert s["memory_bound_dram_fraction_geomean"] == pytest.approx(0.2)
    assert heldout.summary([]) == {}


def test_sweep_plan_leaves_out_what_is_predicted_slow():
    found = model.predictions(1000, 3001, 777, H100, 3350.0)
    kept, skipped = heldout.sweep_plan(found)
    best = found[0].total_us
    assert kept[0] is found[0] and skipped == len(found) - len(kept)
    assert all(p.total_us <= 3 * best for p in kept)
    assert all(p.total_us > 3 * best for p in found if p not in kept)
    assert heldout.sweep_plan(found, factor=1e9) == (found, 0)
    assert heldout.sweep_plan([]) == ([], 0)


def test_option_labels_name_tile_ring_and_split():
    p = model.choose(4096, 4096, 4096, H100, 3350.0)
    c = p.candidate
    assert forms.label(p) == f"{c.tile.name} BK{c.BK}x{c.STAGES} split {p.split}"
    d = forms.describe(p)
    assert (d["tile"], d["split"], d["BK"], d["STAGES"]) == (c.tile.name, p.split, c.BK, c.STAGES)
    assert not p.is_stream


# ----------------------------------------------------------------------------- the record (once it exists)

@pytest.mark.skipif(not RECORD.exists(), reason="book/data/level7_heldout.json is recorded on a GPU")
def test_heldout_record_follows_the_schema():
    data = json.loads(RECORD.read_text(encoding="utf-8"))
    for key in ("device", "cupy", "date", "command", "commit", "git_commit", "timing", "dram_gbs_measured"):
        assert data.get(key), key
    assert data["dram_gbs_measured"] > 0
    shapes = [(r["M"], r["N"], r["K"]) for r in data["rows"]]
    assert not set(shapes) & set(model.ZOO)
    assert set(shapes) <= set(model.HELDOUT)
    if not data.get("quick"):
        assert shapes == list(model.HELDOUT)
    for r in data["rows"]:
        assert r["rel_error"] < 1e-5, r
        for key in ROW_KEYS:
            assert key in r, key
        M, N, K = r["M"], r["N"], r["K"]
        assert r["of_cublas"] == pytest.approx(r["cublas_ms"] / r["level7_ms"])
        assert r["bytes_min"] == 4 * (M * K + K * N + M * N)
        assert r["dram_fraction"] == pytest.approx(r["bytes_min"] / (r["level7_ms"] * 1e-3)
                                                   / (data["dram_gbs_measured"] * 1e9))
        assert {"tile", "split"} <= set(r["choice"])
        if "regret" in r:
            assert r["regret"] >= 0 and r["best_measured"]["ms"] > 0
            assert r["regret"] == pytest.approx(r["chosen_in_sweep_ms"] / r["best_measured"]["ms"] - 1)
    s = data["summary"]
    ratios = [r["of_cublas"] for r in data["rows"]]
    assert s["geomean_of_cublas"] == pytest.approx(math.exp(sum(map(math.log, ratios)) / len(ratios)))
    assert s["worst_of_cublas"] == min(ratios)
