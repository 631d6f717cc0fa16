"""Level 7's tuner without a GPU: what it sweeps (rings, 4-byte B copies) and that its fit recovers known constants."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from kernels import devices
from kernels import level7_model as model

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
tune = importlib.import_module("tune_level7")

H100 = devices.profile("H100")
GBS = 3350.0


def test_arguments_quick_and_held_out_shapes_refused():
    args = tune.parse_args(["--quick", "--out", "/tmp/t.json"])
    assert tune.shapes_for(args) == list(tune.QUICK) and set(tune.QUICK) <= set(model.ZOO)
    assert tune.shapes_for(tune.parse_args([])) == list(model.ZOO)
    with pytest.raises(SystemExit):
        tune.parse_args(["--shape", "1x4096x4096"])          # a held-out shape


def test_sweep_adds_every_other_ring_and_a_narrow_b_at_each_tiles_best_split():
    cands, rings = model.candidates(H100), model.ring_candidates(H100)
    plain = tune.swept(1024, 1024, 1024, cands, H100, GBS)
    assert all(b16 is None and p.candidate in cands for p, b16 in plain[:-3])
    narrow = [p for p, b16 in plain if b16 is False]
    assert [p.candidate for p in narrow] == cands                 # one per tile, its own ring
    full = tune.swept(1024, 1024, 1024, cands, H100, GBS, rings)
    others = [p for p, b16 in full if p.candidate not in cands]
    for cand in cands:
        best = min((p for p, b16 in plain if p.candidate == cand and b16 is None), key=lambda p: p.total_us)
        mine = [p for p in others if p.candidate.tile == cand.tile]
        assert {p.split for p in mine} == {best.split}
        assert {p.candidate for p in mine} == {r for r in rings if r.tile == cand.tile and r != cand
                                               and model.allowed(1024, 1024, 1024, r, best.split)}
    # N = 4097: B takes 4-byte copies anyway, nothing to force
    assert all(b16 is None for _, b16 in tune.swept(4095, 4097, 4099, cands, H100, GBS, rings))


def _row(M, N, K, cand, split, b16, **kw):
    p = model.predict(M, N, K, cand, split, H100, GBS, b16=b16, **kw)
    return {"M": M, "N": N, "K": K, "tile": cand.tile.name, "BK": cand.BK, "STAGES": cand.STAGES,
            "resident": cand.resident, "split": p.split, "b16": b16, "rel_error": 0.0, "median_ms": p.total_us / 1e3,
            "pct_cublas": 100.0, "own_ring": cand in model.candidates(H100), "forced_narrow": False}


def test_fit_recovers_the_copy_width_and_ring_terms(monkeypatch):
    """Rows made by the model itself with known constants: the fit finds them again."""
    truth = dict(calibration={"128x256": model.Rate(0.8, 7.0, 1.08), "128x128": model.Rate(0.75, 1.5, 1.05),
                              "64x128": model.Rate(0.74, 0.5, 1.09)},
                 launch_us=12.0, reduce_launch_us=0.0, workspace_bandwidth=1.4, hiding_warps=0.75, last_wave=0.95,
                 ring_fill_us=0.02, ring_half_k=32.0)
    monkeypatch.setattr(tune, "HIDING_GRID", [0.5, 0.75, 1.0])
    monkeypatch.setattr(tune, "LAST_WAVE_GRID", [0.9, 0.95, 1.0])
    rows = []
    for shape in ((1024, 1024, 1024), (2048, 2048, 2048), (513, 8192, 8192), (3000, 5000, 2000), (4095, 4097, 4099)):
        for p, b16 in tune.swept(*shape, model.candidates(H100), H100, GBS, model.ring_candidates(H100)):
            rows.append(_row(*shape, p.candidate, p.split, shape[1] % 4 == 0 if b16 is None else b16, **truth))
            rows[-1]["forced_narrow"] = b16 is False
    f = tune.fit(rows, H100, GBS)
    assert f["rings_per_shape"] and f["narrow_rows"] > 0
    assert (f["hiding_warps"], f["last_wave"], f["ring_half_k"]) == (0.75, 0.95, 32.0)
    assert f["ring_fill_us"] == pytest.approx(0.02, rel=1e-3) and f["launch_us"] == pytest.approx(12.0, rel=1e-3)
    for tile, rate in truth["calibration"].items():
        got = f["calibration"][tile]
        assert got["efficiency"] == pytest.approx(rate.efficiency, rel=1e-3), tile
        assert got["narrow_b"] == pytest.approx(rate.narrow_b, rel=1e-3), tile
        assert got["overhead_us"] == pytest.approx(rate.overhead_us, rel=1e-2, abs=1e-2), tile
    assert f["max_abs_error"] < 1e-3
    picked = tune.choices(rows, f, H100, GBS)
    assert all(c["regret"] == pytest.approx(1.0) for c in picked)
    plain, extra = tune.split_rows(rows)
    assert plain and extra and all(r["own_ring"] and not r["forced_narrow"] for r in plain)
    assert all(not r["own_ring"] or r["forced_narrow"] for r in extra) and len(plain) + len(extra) == len(rows)


def test_a_fit_without_the_new_rows_keeps_them_neutral():
    rows = [_row(1024, 1024, 1024, c, s, True) for c in model.candidates(H100) for s in (1, 2)]
    f = tune.fit(rows, H100, GBS)
    assert not f["rings_per_shape"] and f["ring_fill_us"] == 0.0 and f["ring_half_k"] == 0.0
    assert all(v["narrow_b"] == 1.0 for v in f["calibration"].values())


def test_constants_text_is_python_the_model_region_can_take():
    f = {"calibration": {"64x128": {"efficiency": 0.75, "overhead_us": 0.1, "narrow_b": 1.09}}, "hiding_warps": 0.75,
         "last_wave": 0.95, "launch_us": 12.8, "reduce_launch_us": 0.0, "workspace_bandwidth": 1.45,
         "ring_fill_us": 0.0123, "ring_half_k": 32.0, "rings_per_shape": True}
    scope = {"Rate": model.Rate}
    exec(tune.constants_text(f), scope)
    assert scope["CALIBRATION"] == {"64x128": model.Rate(0.75, 0.1, 1.09)}
    assert (scope["RING_FILL_US"], scope["RING_HALF_K"], scope["RINGS_PER_SHAPE"]) == (0.0123, 32.0, True)
    assert (scope["LAUNCH_US"], scope["LAST_WAVE"], scope["WORKSPACE_BANDWIDTH"]) == (12.8, 0.95, 1.45)
