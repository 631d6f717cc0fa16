"""tools/profile_levels.py without a GPU: how a supplementary run joins the record, and that a metric
ncu leaves out is found (it drops an unknown name without an error)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("profile_levels", REPO / "tools" / "profile_levels.py")
profile_levels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(profile_levels)


def _record():
    return {"date": "old", "kernels": [{"kernel": "k", "duration_ms": 1.0, "ldgsts_requests": 0}], "reference": []}


def test_a_variant_run_keeps_the_recorded_kernel_and_files_its_same_run_baseline():
    run = {"date": "new", "kernels": [{"kernel": "k", "duration_ms": 2.0}],
           "reference": [{"kernel": "k", "defines": {"PAD": "4"}, "duration_ms": 1.5}]}
    out = profile_levels.merge(_record(), run, None)
    assert out["kernels"] == [{"kernel": "k", "duration_ms": 1.0, "ldgsts_requests": 0}]
    assert out["reference"] == [{"kernel": "k", "defines": {"PAD": "4"}, "duration_ms": 1.5}]
    sup = out["supplements"][-1]
    assert sup["date"] == "new" and sup["profiled"] == ["k PAD=4"] and sup["keys"] == "all"
    assert sup["same_run"] == [{"kernel": "k", "duration_ms": 2.0}]


def test_a_keys_run_updates_only_those_values():
    run = {"date": "new", "kernels": [{"kernel": "k", "M": 9, "ldgsts_requests": 7}], "reference": []}
    out = profile_levels.merge(_record(), run, ("ldgsts_requests",))
    assert out["kernels"] == [{"kernel": "k", "duration_ms": 1.0, "ldgsts_requests": 7}]
    assert out["supplements"][-1]["profiled"] == ["k"] and "same_run" not in out["supplements"][-1]


def test_a_metric_missing_from_ncus_table_is_reported():
    assert profile_levels._missing(["a.sum", "b.sum"], ["ID", "a.sum"]) == ["b.sum"]
