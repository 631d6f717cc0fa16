"""Facts of module 12, continued: shapes the model never saw, and the memory-bound end of the roofline.

Records: book/data/level7_heldout.json (tools/record_heldout.py: Level 7 and cuBLAS in alternation on
kernels.level7_model.HELDOUT, every allowed candidate swept for the regret, a DRAM bandwidth measured in the same
run) beside book/data/level7_tuning.json (the zoo, where the model's constants were fitted). Every number is
computed here from the record's rows (not from its summary), so a row that changes moves every sentence that
quotes it.

Until the held-out record exists, every fact reads "(기록 없음)" and one claim fails, so the site cannot be
built with an empty section. The pure functions take the record as an argument (tests run them on
tests/fixtures/level7_heldout.json).

Every claim is declared on course.facts.m12's `f`; course.facts.m12 imports this module at its end.
"""
from __future__ import annotations

import math
import statistics

from course.facts.m12_core import _load, f, regret_unseen, shape_label, tuning
from kernels.record import REPO_ROOT
from kernels import devices
from sims import roofline

HELDOUT_FILE = "level7_heldout.json"
MISSING = "(기록 없음)"
SMALL_SIDE = 16           # M or N up to this: the decode end, where the streaming path may run (model.STREAM_MAX)
PASS_SHARE = 0.95         # "near cuBLAS": Level 7 at 95% of cuBLAS's speed or better
DECODE_EXAMPLE = (1, 4096, 4096)
LAYER = (4096, 4096)      # N x K of the layer the intensity curve is drawn for


# ---------------------------------------------------------------------------- pure helpers (no record read)
def _heldout_shapes() -> tuple:
    from kernels import level7_model as model

    return model.HELDOUT


def _smallest_bm() -> int:
    from kernels import level7_model as model

    return min(t.BM for t in model.TILES)


def _pairs(shape: tuple) -> tuple:
    """(M, K), (K, N), (M, N): the three matrices' sizes whose sum, times 4 bytes, is the least traffic."""
    M, N, K = shape
    return ((M, K), (K, N), (M, N))


def intensity(M: int, N: int, K: int) -> float:
    """The course's compulsory-traffic intensity (models page, model (iv)): 2MNK / 4(MK + KN + MN)
    = (M / 2) / (1 + M/N + M/K)."""
    return roofline.ai_compulsory(M, N, K)


def crossover_m(ridge: float, N: int = LAYER[0], K: int = LAYER[1]) -> int:
    """The smallest M whose intensity reaches the ridge point for an N x K layer."""
    M = 1
    while intensity(M, N, K) < ridge and M < 1 << 20:
        M += 1
    return M


def memory_bound(row: dict) -> bool:
    """Below the ridge point as the record judged it (tools/record_heldout.py), else: M or N up to SMALL_SIDE."""
    return bool(row["memory_bound"]) if "memory_bound" in row else min(row["M"], row["N"]) <= SMALL_SIDE


def timed_rows(record: dict) -> list[dict]:
    """Rows with times (a row whose result was wrong holds its error and no time)."""
    return [r for r in record["rows"] if "level7_ms" in r]


def choice_text(choice) -> str:
    """A dispatcher's choice as the chapter writes it: "64×128 × split 2", "stream-B × split 4"."""
    if isinstance(choice, dict):
        tile = str(choice.get("tile", choice.get("candidate", "?"))).replace("x", "×")
        split = choice.get("split")
        return f"{tile} × split {split}" if split is not None else tile
    return str(choice).replace("x", "×")


def _key(choice) -> tuple:
    if isinstance(choice, dict):
        return (str(choice.get("tile", choice.get("candidate"))), choice.get("split"))
    return (str(choice), None)


def is_stream(choice) -> bool:
    return _key(choice)[0].startswith("stream")


def shape_of(row: dict) -> tuple:
    return (row["M"], row["N"], row["K"])


def gbs(row: dict, key: str = "level7_ms") -> float:
    """GB/s of the minimal bytes at a row's time."""
    return row["bytes_min"] / (row[key] * 1e6)


def peak_gflops(record: dict) -> float:
    """FP32 peak of the recorded GPU: the record's own provenance, else the listed profile of that name."""
    if record.get("peak_gflops"):
        return float(record["peak_gflops"])
    from kernels import level7_model as model

    limits = record_limits(record)
    return model.sm_peak_gflops(limits) * limits.sm_count


def record_limits(record: dict) -> devices.DeviceLimits:
    """The listed GPU profile a record was made on (its device name, e.g. "NVIDIA H100 80GB HBM3" -> H100)."""
    name = next(n for n in devices.PROFILES if n.replace("-", " ") in record["device"].replace("-", " "))
    return devices.profile(name)


def heldout_numbers(record: dict, tuning_record: dict) -> dict:
    """Every number the two new sections quote, from the held-out rows and the zoo's tuning record."""
    rows = timed_rows(record)
    speed = {shape_of(r): r["cublas_ms"] / r["level7_ms"] for r in rows}
    worst = min(speed, key=speed.get)
    best = max(speed, key=speed.get)
    regret = {shape_of(r): r["regret"] for r in rows if "regret" in r}
    worst_regret = max(regret, key=regret.get)
    fitted = [c["regret"] - 1 for c in tuning_record["choices"]]
    mb = [r for r in rows if memory_bound(r)]
    dram = record["dram_gbs_measured"]
    frac = {shape_of(r): r["bytes_min"] / (r["level7_ms"] * 1e-3) / (dram * 1e9) for r in mb}
    cb_frac = {shape_of(r): r["bytes_min"] / (r["cublas_ms"] * 1e-3) / (dram * 1e9) for r in mb}
    ridge = peak_gflops(record) / dram
    return {
        "n": len(rows), "n_regret": len(regret), "geomean": statistics.geometric_mean(speed.values()), "worst": speed[worst], "worst_shape": worst,
        "best": speed[best], "best_shape": best, "n_faster": sum(v >= 1 for v in speed.values()),
        "n_near": sum(v >= PASS_SHARE for v in speed.values()),
        "regret_mean": statistics.fmean(regret.values()), "regret_max": regret[worst_regret],
        "regret_max_shape": worst_regret, "n_regret_zero": sum(v <= 1e-9 for v in regret.values()),
        "fit_regret_mean": statistics.fmean(fitted), "fit_regret_max": max(fitted),
        "check_regret_mean": statistics.fmean(v - 1 for v in regret_unseen.values()),
        "mb_n": len(mb), "mb_geomean": statistics.geometric_mean(speed[shape_of(r)] for r in mb) if mb else float("nan"),
        "mb_frac_min": min(frac.values()) if mb else float("nan"),
        "mb_frac_max": max(frac.values()) if mb else float("nan"),
        "mb_frac_median": statistics.median(frac.values()) if mb else float("nan"),
        "mb_cb_frac_median": statistics.median(cb_frac.values()) if mb else float("nan"),
        "mb_stream": sum(is_stream(r["choice"]) for r in mb), "dram_gbs": dram, "ridge": ridge,
        "peak_gflops": peak_gflops(record), "crossover_m": crossover_m(ridge),
        "frac": frac, "speed": speed,
    }


def heldout_facts(record: dict | None, tuning_record: dict) -> dict[str, str]:
    """The facts (display text) of the two sections; every name reads MISSING while the record is absent."""
    ai1 = intensity(*DECODE_EXAMPLE)
    static = {"ai_m1": f"{ai1:.2f}", "ai_m16": f"{intensity(16, *LAYER):.1f}",
              "ai_m128": f"{intensity(128, *LAYER):.0f}", "small_side": str(SMALL_SIDE),
              "pass_share": f"{PASS_SHARE:.2f}", "ho_listed": str(len(_heldout_shapes())),
              "tile_bm_min": str(_smallest_bm())}
    if record is None:
        return static | {name: MISSING for name in RECORD_FACTS}
    n = heldout_numbers(record, tuning_record)
    pct = lambda x: f"{100 * x:.0f}"          # noqa: E731
    return static | {
        "ho_device": record["device"], "ho_date": str(record["date"])[:10], "ho_n": str(n["n"]),
        "ho_n_regret": str(n["n_regret"]),
        "ho_geomean": f"{n['geomean']:.3f}", "ho_worst": f"{n['worst']:.3f}",
        "ho_worst_shape": shape_label(*n["worst_shape"]), "ho_best": f"{n['best']:.2f}",
        "ho_best_shape": shape_label(*n["best_shape"]), "ho_n_faster": str(n["n_faster"]),
        "ho_n_near": str(n["n_near"]),
        "ho_regret_mean": f"{100 * n['regret_mean']:.1f}", "ho_regret_max": f"{100 * n['regret_max']:.1f}",
        "ho_regret_max_shape": shape_label(*n["regret_max_shape"]), "ho_n_regret_zero": str(n["n_regret_zero"]),
        "fit_regret_mean": f"{100 * n['fit_regret_mean']:.1f}", "fit_regret_max": f"{100 * n['fit_regret_max']:.1f}",
        "check_regret_mean": f"{100 * n['check_regret_mean']:.1f}",
        "regret_direction": ("더 컸습니다" if n["regret_mean"] > 1.2 * n["fit_regret_mean"] + 0.005 else
                             "더 작았습니다" if n["regret_mean"] < 0.8 * n["fit_regret_mean"] - 0.005 else
                             "거의 같았습니다"),
        "mb_n": str(n["mb_n"]), "mb_geomean": f"{n['mb_geomean']:.2f}", "mb_stream": str(n["mb_stream"]),
        "mb_frac_min": pct(n["mb_frac_min"]), "mb_frac_max": pct(n["mb_frac_max"]),
        "mb_frac_median": pct(n["mb_frac_median"]), "mb_cb_frac_median": pct(n["mb_cb_frac_median"]),
        "ho_dram_gbs": f"{n['dram_gbs']:,.0f}", "ho_peak_tf": f"{n['peak_gflops'] / 1000:.1f}",
        "ho_ridge": f"{n['ridge']:.1f}", "crossover_m": str(n["crossover_m"]),
        "tuning_device": tuning_record["device"],
        "tile_waste_us": f"{2.0 * _smallest_bm() * DECODE_EXAMPLE[1] * DECODE_EXAMPLE[2] / (n['peak_gflops'] * 1e3):.0f}",
        "byte_floor_us": f"{4 * sum(a * b for a, b in _pairs(DECODE_EXAMPLE)) / (n['dram_gbs'] * 1e3):.0f}",
        "device_note": ("두 기록은 같은 GPU에서 같은 방식으로 잰 것입니다"
                        if (record["device"], record.get("timing")) == (tuning_record["device"], tuning_record.get("timing"))
                        else "두 기록은 같은 GPU에서 잰 것이지만 재는 방식이 달라, 이 차이에는 방식의 차이도 섞여 있습니다"
                        if record["device"] == tuning_record["device"] else
                        f"두 기록은 GPU({tuning_record['device']}, {record['device']})도 재는 방식(튜너는 CUDA 이벤트의 "
                        "중앙값, 처음 보는 모양은 GPU 시간)도 다르므로, 이 차이에는 그 차이도 섞여 있습니다"),
        "sweep_factor": f"{record.get('sweep_rule', {}).get('predicted_factor', float('nan')):g}",
    }


RECORD_FACTS = ("ho_device", "ho_date", "ho_n", "ho_n_regret", "ho_geomean", "ho_worst", "ho_worst_shape", "ho_best",
                "ho_best_shape", "ho_n_faster", "ho_n_near", "ho_regret_mean", "ho_regret_max",
                "ho_regret_max_shape", "ho_n_regret_zero", "fit_regret_mean", "fit_regret_max",
                "check_regret_mean", "regret_direction", "mb_n", "mb_geomean", "mb_stream", "mb_frac_min",
                "mb_frac_max", "mb_frac_median", "mb_cb_frac_median", "ho_dram_gbs", "ho_peak_tf", "ho_ridge",
                "crossover_m", "tuning_device", "device_note", "sweep_factor", "tile_waste_us", "byte_floor_us")


def heldout_claims(record: dict | None, tuning_record: dict, check, complete: bool = True) -> None:
    """The sentences of the two sections, checked on a held-out record (the chapter's, or a test's fixture;
    complete=False: a subset of HELDOUT, as a fixture or a --quick run holds)."""
    if not check(record is not None, f"book/data/{HELDOUT_FILE}이 있어야 한다 (tools/record_heldout.py로 기록)"):
        return
    from kernels import level7_model as model

    shapes = [shape_of(r) for r in record["rows"]]
    check(len(timed_rows(record)) == len(record["rows"]),
          "본문: 처음 보는 모양 모두에서 Level 7의 결과가 맞았다 (틀린 결과로 시간 없이 남은 행이 없다)")
    check(set(shapes) == set(model.HELDOUT) or not complete,
          "본문: HELDOUT의 모양을 모두 쟀다")
    check(set(shapes) <= set(model.HELDOUT) and not set(shapes) & set(model.ZOO),
          "본문: 처음 보는 모양은 모두 HELDOUT에 있고, 모양 모음(ZOO)과 겹치지 않는다")
    check(len(set(shapes)) == len(shapes), "본문: 처음 보는 모양은 한 번씩만 잰다")
    n = heldout_numbers(record, tuning_record)
    for r in timed_rows(record):
        where = shape_label(*shape_of(r))
        check(math.isclose(r["of_cublas"], r["cublas_ms"] / r["level7_ms"], rel_tol=1e-3),
              f"기록 {where}: of_cublas = cuBLAS 시간 ÷ Level 7 시간")
        check(r["bytes_min"] == 4 * (r["M"] * r["K"] + r["K"] * r["N"] + r["M"] * r["N"]),
              f"기록 {where}: bytes_min = 4(MK + KN + MN)")
        check("regret" not in r or (r["regret"] >= -1e-9 and r["best_measured"]["ms"] > 0),
              f"기록 {where}: 후회는 0 이상")
        check(memory_bound(r) == (min(r["M"], r["N"]) <= SMALL_SIDE),
              f"본문 {where}: 꺾임점 아래인 모양은 M이나 N이 16 이하인 모양이다")
    check(n["mb_n"] > 0, "본문: 처음 보는 모양에 M이나 N이 16 이하인 모양이 있다")
    check(n["ridge"] > intensity(SMALL_SIDE, *LAYER) and n["ridge"] < intensity(128, *LAYER),
          "본문: M ≤ 16의 산술 강도는 꺾임점보다 낮고, M = 128은 꺾임점보다 높다")
    check(n["crossover_m"] > SMALL_SIDE, "본문: 꺾임점에 닿는 M은 16보다 크다 (M ≤ 16은 모두 메모리 쪽)")
    waste = 2.0 * _smallest_bm() * DECODE_EXAMPLE[1] * DECODE_EXAMPLE[2] / (n["peak_gflops"] * 1e3)
    floor = 4 * sum(a * b for a, b in _pairs(DECODE_EXAMPLE)) / (n["dram_gbs"] * 1e3)
    check(waste > floor, "본문: 1×4096×4096에서 가장 작은 타일의 행을 모두 계산하는 시간이 바이트의 하한보다 길다")
    check(min(min(s[0], s[1]) for s in model.ZOO) > SMALL_SIDE, "본문: M이나 N이 16 이하인 모양은 모양 모음에 없다")
    check(all(f <= 1.02 for f in n["frac"].values()),
          "본문: 메모리 한계 모양의 유효 대역폭은 잰 DRAM 대역폭을 넘지 않는다 (넘으면 L2에서 읽은 것)")
    check(record.get("timing") not in (None, ""), "본문: 기록이 시간을 잰 방식을 적는다")
    check(record.get("sweep_rule", {}).get("predicted_factor", 0) > 1,
          "본문: 기록이 재지 않은 후보의 규칙(가장 빠른 예측의 몇 배)을 적는다")


# ---------------------------------------------------------------------------- the chapter's record
heldout = _load(HELDOUT_FILE)
for _name, _text in heldout_facts(heldout, tuning).items():
    f.set(_name, _text)


def heldout_table_rows(record: dict) -> list[dict]:
    """The held-out table: every row, memory-bound ones first (by M and N), then the rest by speed."""
    rows = sorted(timed_rows(record), key=lambda r: (not memory_bound(r), r["cublas_ms"] / r["level7_ms"]))
    dram = record["dram_gbs_measured"]
    out = []
    for r in rows:
        mb = memory_bound(r)
        out.append({"shape": shape_label(*shape_of(r)), "l7": f"{r['level7_ms'] * 1000:,.1f}",
                    "cb": f"{r['cublas_ms'] * 1000:,.1f}", "ratio": f"{r['cublas_ms'] / r['level7_ms']:.3f}",
                    "choice": choice_text(r["choice"]), "best": choice_text(r["best_measured"]["choice"]) if "best_measured" in r else "—",
                    "regret": f"{100 * r['regret']:.1f}%" if "regret" in r else "(재지 않음)",
                    "dram": f"{gbs(r):,.0f} ({100 * gbs(r) / dram:.0f}%)" if mb else "—"})
    return out


HELDOUT_COLUMNS = [("shape", "M×N×K"), ("l7", "Level 7 µs"), ("cb", "cuBLAS µs"), ("ratio", "Level 7 / cuBLAS"),
                   ("choice", "모델의 선택"), ("best", "가장 빠르게 잰 후보"), ("regret", "후회"),
                   ("dram", "GB/s (잰 DRAM 대역폭 대비)")]


@f.claims
def heldout_sentences(check):
    heldout_claims(heldout, tuning, check)


def memory_table_rows(record: dict) -> list[dict]:
    """The memory-bound rows: GB/s of the least bytes for Level 7 and cuBLAS beside the measured DRAM bandwidth."""
    dram = record["dram_gbs_measured"]
    rows = sorted((r for r in timed_rows(record) if memory_bound(r)), key=lambda r: (min(r["M"], r["N"]), r["M"]))
    return [{"shape": shape_label(*shape_of(r)), "ai": f"{intensity(*shape_of(r)):.2f}",
             "choice": choice_text(r["choice"]), "mib": f"{r['bytes_min'] / 2**20:,.0f}",
             "l7": f"{gbs(r):,.0f} ({100 * gbs(r) / dram:.0f}%)",
             "cb": f"{gbs(r, 'cublas_ms'):,.0f} ({100 * gbs(r, 'cublas_ms') / dram:.0f}%)",
             "ratio": f"{r['cublas_ms'] / r['level7_ms']:.2f}"} for r in rows]


MEMORY_COLUMNS = [("shape", "M×N×K"), ("ai", "산술 강도 (FLOP/B)"), ("choice", "Level 7의 선택"),
                  ("mib", "최소 바이트 (MiB)"), ("l7", "Level 7 GB/s (DRAM 대비)"), ("cb", "cuBLAS GB/s (DRAM 대비)"),
                  ("ratio", "Level 7 / cuBLAS")]


@f.claims
def memory_end_sentences(check):
    """The sentences about the held-out list and the streaming path that need no held-out record."""
    from kernels import level7_model as model
    from sims import shape_waves

    check({s[0] for s in model.HELDOUT if s[1:] in ((11008, 4096), (4096, 11008), (14336, 4096), (4096, 14336))}
          == {1, 8, 16, 64, 512}, "본문: 디코드(1, 8, 16)와 프리필(64, 512)이 4096, 11008, 14336 폭의 층을 양쪽 방향으로")
    tuner = (REPO_ROOT / "tools" / "tune_level7.py").read_text(encoding="utf-8")
    check("held = set(model.HELDOUT) & set(args.shape)" in tuner and "ap.error(" in tuner
          and not set(model.HELDOUT) & set(model.ZOO),
          "본문: 튜너는 처음 보는 모양을 받지 않는다 (그 목록으로 상수를 맞추지 않는다)")
    decode = shape_waves.plan(1, 4096, 4096, tile="128x256", split=1)
    check(decode.blocks == shape_waves.plan(128, 4096, 4096, tile="128x256", split=1).blocks == 4096 // 256,
          "본문: 1×4096×4096을 128×256으로 자르면 출력 타일이 128×4096×4096과 같은 16개")
    check(getattr(model, "STREAM_MAX", None) == SMALL_SIDE, "본문: 스트리밍 경로는 M이나 N이 16 이하인 모양을 맡는다")
    for device in ("H100", "H200"):
        end = shape_waves.roofline_end(1, 4096, 4096, device)
        check(end.memory_bound and end.other is not None and not shape_waves.is_tile(end.other),
              f"본문: {device}에서 1×4096×4096은 꺾임점 아래이고, 모델에 타일이 아닌 경로(스트리밍)가 있다")
        check(end.other is None or shape_waves.plan(1, 4096, 4096, device).total_us <= end.tile.total_us,
              f"본문: 모델은 {device}의 1×4096×4096에서 예측이 더 빠른 경로를 고른다")
    from course.facts import _bank, quiz_text
    check(len(_bank(12).questions) == 9, "본문: 장 끝의 퀴즈는 아홉 문항")
    q9 = quiz_text(12, "m12-q09")
    ai = intensity(1, 11008, 4096)
    from course.facts.models import f as models_facts
    ridges = [float(str(models_facts.ridge))] + ([heldout_numbers(heldout, tuning)["ridge"]] if heldout else [])
    check(f"약 {ai:.1f} FLOP/B" in q9 and all(ai < r / 10 for r in ridges),
          "퀴즈 q09: 1×11008×4096의 산술 강도 약 0.5 FLOP/B, 기록된 GPU들의 꺾임점보다 한참(10분의 1 아래) 낮다")
    check("2·S·M·N·4" in q9 and model.workspace_traffic(1, 11008, 8) < 4 * 11008 * 4096 / 100,
          "퀴즈 q09: M = 1이면 split의 교통(2·S·M·N·4)은 B를 읽는 양의 1%도 안 된다 (S = 8)")


@f.absence("느린 후보는 재지 않았")
def slow_options_not_timed(check):
    """The sweep left out the options predicted slower than its factor x the best prediction (the record counts
    them per row and states the rule)."""
    check(heldout is not None and heldout.get("sweep_rule", {}).get("predicted_factor", 0) > 1
          and all("not_timed_predicted_slow" in r["sweep"] for r in timed_rows(heldout) if isinstance(r.get("sweep"), dict)),
          "본문: 처음 보는 모양의 후보 가운데 예측이 가장 빠른 예측의 몇 배보다 느린 것은 재지 않았다 (기록이 그 수를 센다)")


# ---------------------------------------------------------------------------- the streaming path's constants
def stream_fit_shapes() -> tuple:
    """The shapes tools/stream_bench.py fits the streaming constants on (its CALIBRATION, read as text)."""
    import ast

    tree = ast.parse((REPO_ROOT / "tools" / "stream_bench.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "CALIBRATION")
    return tuple(tuple(s) for s in ast.literal_eval(node.value))


def _stream_constants():
    from kernels import level7_model as model

    return getattr(model, "STREAM_EFFICIENCY", {})


stream_record = _load("level7_stream.json")
_fit_shapes = stream_fit_shapes()
_eff = _stream_constants()
f.set("stream_fit_shapes", ", ".join(shape_label(*s) for s in _fit_shapes))
f.set("stream_eff", ", ".join(f"{name} {100 * e:.0f}%" for name, e in _eff.items()) or MISSING)


@f.claims
def stream_constant_sentences(check):
    from kernels import level7_model as model

    check(bool(_eff) and not set(_fit_shapes) & set(model.HELDOUT),
          "본문: 스트리밍 효율은 처음 보는 목록 밖의 모양(stream_bench.py의 CALIBRATION)에서 맞춘다")
    if stream_record is not None and isinstance(stream_record.get("fit"), dict):
        check(all(math.isclose(_eff[n], stream_record["fit"][n]["efficiency"], rel_tol=1e-2) for n in _eff),
              "본문: 모델의 스트리밍 효율은 level7_stream.json의 맞춘 값과 같다")


# ---------------------------------------------------------------------------- review 2026-11-29: what the records add
def devices_dram_h200() -> float:
    """The DRAM bandwidth the simulator (kernels/level7_model.py's list) uses for the H200."""
    from kernels import level7_model as model

    return model.dram_gbs(devices.profile("H200"))


# The streaming model's two constants as the chapter states them: the fixed cost, and the efficiency as a share of
# the bandwidth the model lists for the GPU (tools/stream_bench.py fits it against that listed value, not the copy).
_listed_gbs = (heldout or {}).get("level7_device", {}).get("bandwidth_gbs")
from kernels.level7_model import STREAM_LAUNCH_US  # noqa: E402

f.set("stream_launch_us", STREAM_LAUNCH_US, ".1f")
f.set("ho_listed_gbs", f"{_listed_gbs:,.0f}" if _listed_gbs else MISSING)
f.set("sim_h200_gbs", f"{devices_dram_h200():,.0f}")
f.set("stream_eff_of_measured", ", ".join(f"{name} {100 * e * _listed_gbs / heldout['dram_gbs_measured']:.0f}%"
                                          for name, e in _eff.items()) if heldout and _listed_gbs else MISSING)


def _bench_shapes() -> tuple:
    """The shapes tools/stream_bench.py times (its SHAPES, read as text): the kernels' development benchmark."""
    import ast

    tree = ast.parse((REPO_ROOT / "tools" / "stream_bench.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "SHAPES")
    return tuple(tuple(s) for s in ast.literal_eval(node.value))


def _side_rows(record: dict, side: int) -> list[dict]:
    return [r for r in timed_rows(record) if memory_bound(r) and min(r["M"], r["N"]) == side]


def _span(values, scale: float = 100, fmt: str = ".0f") -> str:
    values = list(values)
    return f"{scale * min(values):{fmt}}–{scale * max(values):{fmt}}"


def _swing(values, up: bool = False) -> int:
    """How far the largest of `values` is above the smallest, in whole percent: rounded down for a sentence that
    says "more than" (넘게), up for one that says "within" (안에서)."""
    values = list(values)
    share = 100 * (max(values) / min(values) - 1)
    return math.ceil(share) if up else math.floor(share)


def _stream_predictions(row) -> dict:
    """The model's predicted time (us) of the streaming path cut into K slices (split > 1) at a held-out row's
    shape, on the listed GPU the record was made on, by split."""
    from kernels import level7_model as model
    limits = record_limits(heldout)
    return {p.split: p.total_us for p in model.predictions(*shape_of(row), limits)
            if p.is_stream and p.split > 1}


if heldout is not None:
    _dram = heldout["dram_gbs_measured"]
    _ones, _sixteens = _side_rows(heldout, 1), _side_rows(heldout, SMALL_SIDE)
    _frac = lambda r, key="level7_ms": r["bytes_min"] / (r[key] * 1e-3) / (_dram * 1e9)   # noqa: E731
    f.set("mb1_n", len(_ones), "d")
    f.set("mb1_l7", _span(_frac(r) for r in _ones))
    f.set("mb1_cb", _span(_frac(r, "cublas_ms") for r in _ones))
    f.set("mb1_ratio", _span((r["cublas_ms"] / r["level7_ms"] for r in _ones), 1, ".2f"))
    f.set("mb16_l7", _span(_frac(r) for r in _sixteens))
    f.set("mb8_l7", _span(_frac(r) for r in _side_rows(heldout, 8)))
    f.set("mb16_slower", sum(r["cublas_ms"] < r["level7_ms"] for r in _sixteens), "d")
    f.set("mb_multi_cb", _span(_frac(r, "cublas_ms") for r in timed_rows(heldout) if memory_bound(r) and min(r["M"], r["N"]) > 1))
    _by_regret = sorted((r for r in timed_rows(heldout) if "regret" in r), key=lambda r: -r["regret"])
    _top2 = _by_regret[:2]
    f.set("ho_regret_top2", ", ".join(f"{shape_label(*shape_of(r))} {100 * r['regret']:.1f}%" for r in _top2))
    f.set("ho_top_pick", choice_text(_top2[0]["choice"]))
    f.set("ho_top_shape", shape_label(*shape_of(_top2[0])))
    # the mean regret over the held-out shapes without the two largest
    f.set("ho_regret_mean_rest", 100 * statistics.fmean(r["regret"] for r in _by_regret[2:]), ".1f")
    f.set("ho_top_best", choice_text(_top2[0]["best_measured"]["choice"]))
    _top_times = _top2[0]["sweep"]["times"]
    _top_stream = {k: v for k, v in _top_times.items()          # the streaming path cut into K slices (split > 1)
                   if k.startswith(_top2[0]["choice"]["tile"] + " ") and not k.endswith(" split 1")}
    f.set("ho_top_meas_span", _span((v * 1000 for v in _top_stream.values()), 1, ".0f"))
    f.set("ho_top_meas_swing", _swing(_top_stream.values()), "d")
    _top_preds = _stream_predictions(_top2[0])
    f.set("ho_top_pred_span", _span(_top_preds.values(), 1, ".0f"))
    f.set("ho_top_pred_swing", _swing(_top_preds.values(), up=True), "d")
    f.set("sweep_rounds", heldout["sweep_rule"]["rounds"], "d")
f.set("bench_heldout", ", ".join(shape_label(*s) for s in _bench_shapes() if s in set(_heldout_shapes())))


@f.claims
def review_memory_end_sentences(check):
    """Review of 2026-11-29: the memory-bound end read by the number of rows, the regret's window, the largest
    held-out regrets, the streaming model's constants and which held-out shapes the kernels' benchmark timed."""
    from kernels import level7_model as model

    check(heldout is not None and _listed_gbs is not None and _listed_gbs > heldout["dram_gbs_measured"]
          and heldout["device"].endswith("H200") and math.isclose(model.dram_gbs(devices.profile("H200")), _listed_gbs, rel_tol=0.01),
          "본문: 기록한 H200에서 모델이 쓴 DRAM 대역폭(메모리 클럭 × 버스 폭)은 잰 복사 대역폭보다 크고, "
          "시뮬레이터의 목록 값과 1% 안에서 같다")
    if stream_record is not None and isinstance(stream_record.get("fit"), dict):
        launches = [stream_record["fit"][n]["launch_us"] for n in model.STREAM_NAMES]
        check(math.isclose(model.STREAM_LAUNCH_US, sum(launches) / len(launches), abs_tol=0.05)
              and math.isclose(stream_record["model_bandwidth_gbs"], _listed_gbs, rel_tol=1e-3),
              "본문: 고정 비용은 level7_stream.json의 두 값의 평균이고, 효율은 모델의 적힌 대역폭에 대한 비율로 맞췄다")
    if heldout is None:
        return
    ones, sixteens = _side_rows(heldout, 1), _side_rows(heldout, SMALL_SIDE)
    multi = [r for r in timed_rows(heldout) if memory_bound(r) and min(r["M"], r["N"]) > 1]
    frac = lambda r, key="level7_ms": r["bytes_min"] / (r[key] * 1e-3) / (heldout["dram_gbs_measured"] * 1e9)  # noqa: E731
    check(ones and min(frac(r, "cublas_ms") for r in ones) > 0.8 and min(frac(r) for r in ones) > 0.7
          and all(r["cublas_ms"] / r["level7_ms"] < 1.1 for r in ones)
          and sum(r["cublas_ms"] / r["level7_ms"] < 1 for r in ones) > len(ones) / 2,
          "본문: 한 행(M = 1이나 N = 1)에서는 cuBLAS도 잰 대역폭의 80% 넘게 쓰고, Level 7은 70% 넘게 쓰지만 대부분 cuBLAS보다 조금 느리다")
    check(multi and max(frac(r, "cublas_ms") for r in multi) < 0.6
          and statistics.geometric_mean(r["cublas_ms"] / r["level7_ms"] for r in multi) > 1.2,
          "본문: 8행과 16행에서는 cuBLAS가 잰 대역폭의 60%에도 못 미치고, Level 7이 평균으로 앞선다")
    eights = _side_rows(heldout, 8)
    check(sixteens and eights and max(frac(r) for r in sixteens) < min(frac(r) for r in ones)
          and max(frac(r) for r in sixteens) < min(frac(r) for r in eights),
          "본문: 16행에서는 Level 7이 쓴 대역폭의 비율이 한 행과 8행의 어느 모양보다도 낮다")
    big_wins = [r for r in timed_rows(heldout) if memory_bound(r) and r["cublas_ms"] / r["level7_ms"] > 1.1]
    check(big_wins and all(min(r["M"], r["N"]) > 1 for r in big_wins)
          and 0 < sum(r["cublas_ms"] < r["level7_ms"] for r in sixteens) < len(sixteens),
          "본문: Level 7이 크게(10% 넘게) 앞서는 메모리 한계 모양은 모두 8행이나 16행이고, 16행 가운데 일부에서는 cuBLAS보다 느리다")
    top = sorted((r for r in timed_rows(heldout) if "regret" in r), key=lambda r: -r["regret"])[:2]
    check(all(is_stream(r["choice"]) and r["choice"]["split"] == 8 and r["best_measured"]["choice"]["split"] == 2
              and r["N"] == 14336 and r["regret"] > 0.05 for r in top),
          "본문: 후회가 가장 큰 두 모양은 N = 14336의 스트리밍 경로로, 모델은 split 8을 골랐고 split 2가 가장 빨랐다")
    regrets = sorted((r["regret"] for r in timed_rows(heldout) if "regret" in r), reverse=True)
    rest = statistics.fmean(regrets[2:])
    fitted = statistics.fmean(c["regret"] - 1 for c in tuning["choices"])
    checked = statistics.fmean(v - 1 for v in regret_unseen.values())
    check(statistics.fmean(regrets) > max(fitted, checked) and rest <= max(fitted, checked)
          and max(abs(rest - fitted), abs(rest - checked)) < 0.003,
          "본문: 처음 보는 모양의 후회 평균은 모양 모음의 두 기록보다 크지만, 가장 큰 두 곳을 빼면 그 둘을 넘지 않고 "
          "0.3%p 안에서 비슷하다 (차이는 그 두 곳에서 왔다)")
    t = top[0]
    preds = _stream_predictions(t)
    times = {int(k.rsplit(" ", 1)[1]): v * 1000 for k, v in t["sweep"]["times"].items()
             if k.startswith(t["choice"]["tile"] + " ") and not k.endswith(" split 1")}
    check(set(preds) == set(times) and min(preds) == 2 and max(preds) == 16
          and max(preds.values()) / min(preds.values()) - 1 <= int(f.ho_top_pred_swing) / 100 < 0.15
          and max(times.values()) / min(times.values()) - 1 > int(f.ho_top_meas_swing) / 100 >= 0.15
          and min(preds, key=preds.get) == t["choice"]["split"] and min(times, key=times.get) != t["choice"]["split"],
          "본문: 그 모양에서 모델은 split 2–16을 적힌 비율(15% 미만) 안에서 비슷하다고 보고 split 8을 가장 빠르다고 "
          "보지만, 잰 시간은 split에 따라 적힌 비율(15% 이상)보다 더 오르내리고 가장 빠른 것은 다른 split이다")
    limits = record_limits(heldout)
    now = {shape_of(r): model.choose(*shape_of(r), limits) for r in timed_rows(heldout)}
    check(all((now[shape_of(r)].candidate.tile.name, now[shape_of(r)].split) == (r["choice"]["tile"], r["choice"]["split"])
              for r in timed_rows(heldout)),
          "본문: 지금의 모델(스트리밍 상수를 다시 맞춘 뒤)도 처음 보는 모양마다 기록이 고른 후보를 그대로 고른다 "
          "(그래서 지금 모델의 예측으로 기록의 선택을 설명할 수 있다)")
    rule = heldout["sweep_rule"]
    check(rule["rounds"] == 3 and "own alternation" in rule["note"],
          "본문: 처음 보는 모양의 후회는 후보들을 한 번의 번갈아 재기(3라운드)에서 잰 시간으로 매긴다")
    bench = set(_bench_shapes())
    check(bench & set(_heldout_shapes()) and not set(_fit_shapes) & set(_heldout_shapes()),
          "본문: stream_bench.py가 커널을 잰 모양에는 처음 보는 모양이 섞여 있고, 상수를 맞춘 모양에는 없다")


@f.claims
def odd_shape_on_the_zoo_gpu(check):
    """Review of 2026-11-29: the odd shape's loss on the zoo's GPU (H200) is larger than the tuner's records (H100)
    leave, and on that GPU forcing 4-byte B copies costs 128x128 more than the fitted term charges."""
    from course.facts.m12_core import ODD, b4_mid, experiments, fit_cal, odd_best, ratio, shapes_record

    check(100 * ratio[ODD] < min(odd_best[n]["pct_cublas"] for n in "ab") - 3
          and shapes_record["device"] != tuning["device"] and experiments["device"] == shapes_record["device"],
          "본문: 모양 모음(H200)의 128×128은 튜너의 두 기록(H100)에서보다 3%p 넘게 더 뒤진다")
    check(1 / b4_mid["speedup"] - 1 > 2 * (fit_cal["128x128"]["narrow_b"] - 1),
          "본문: H200에서 4바이트 B 복사가 128×128에 매긴 값은 H100에 맞춘 항(narrow_b)의 두 배가 넘는다")


# ---------------------------------------------------------------------------- the streaming kernels as built
# The form the re-made streaming records measured (kernels/sgemm_shape_aware.cu, regions stream-shape and stream-b):
# two chunks of the small operand in shared memory filled by cp.async, and the next turn of the streamed operand
# loaded into a second set of registers before the current one is multiplied (not at one row in stream-B).
_STREAM_SOURCE = (REPO_ROOT / "kernels" / "sgemm_shape_aware.cu").read_text(encoding="utf-8")
from kernels.level7_model import STREAM_MIN_BLOCKS  # noqa: E402

f.set("stream_b1_blocks", STREAM_MIN_BLOCKS[1], "d")


@f.claims
def streaming_kernel_design(check):
    src = _STREAM_SOURCE
    check("__shared__ __align__(16) float As[2 * R * KC_B];" in src and "cp_async_4(" in src
          and "constexpr int CHUNK_A = KC_A / 4 * PG * 4;" in src and "(two chunks in shared memory)" in src,
          "본문: 작은 쪽 피연산자의 K 조각은 공유 메모리의 두 자리에 담기고, cp.async가 다음 조각을 채운다 (stream-B, stream-A)")
    check("constexpr bool PIPE_B = R >= 2, PIPE_A = true;" in src
          and "float v0[UB][4], v1[UB][4];" in src,
          "본문: 다음 차례의 로드를 두 번째 레지스터 묶음에 먼저 낸다 (stream-B는 2행부터, stream-A는 늘)")
    check(STREAM_MIN_BLOCKS[1] > max(v for r, v in STREAM_MIN_BLOCKS.items() if r > 1)
          and "stream-B at 1 row runs" in src and f"{STREAM_MIN_BLOCKS[1]} blocks per SM" in src,
          "본문: 한 행짜리 stream-B는 SM마다 블록을 더 많이 올려 로드를 날아가게 한다")


@f.absence("스트리밍 경로의 프로파일은 기록에 없")
def stream_path_not_profiled(check):
    from course.facts.m12_core import level7_profiles

    profiled = level7_profiles["profiles"] if level7_profiles else []
    check(not any(min(q["M"], q["N"]) <= SMALL_SIDE or "stream" in str(q.get("function", "")) for q in profiled),
          "본문: Nsight Compute 기록(level7_profiles.json)에 스트리밍 커널이나 M, N이 16 이하인 모양이 없다")


@f.claims
def quiz_q09_wasted_rows(check):
    from course.facts import quiz_text

    q9 = quiz_text(12, "m12-q09")
    check("256×256처럼" in q9 and f"{256 - 1}행을 버리며" in q9 and "127행" not in q9,
          "퀴즈 q09: 보기 a의 256×256 타일은 M = 1이면 256행 가운데 255행을 버린다")
    row = next((r for r in timed_rows(heldout or {"rows": []}) if shape_of(r) == (1, 11008, 4096)), None)
    split_ms = {} if row is None else {int(k.rsplit(" ", 1)[1]): v for k, v in row["sweep"]["times"].items()
                                       if k.startswith(row["choice"]["tile"] + " ")}
    check("K를 나누는 것이 DRAM을 채우는 방법" in q9 and row is not None and row["choice"]["split"] > 1
          and 1 in split_ms and max(v for s, v in split_ms.items() if s > 1) < split_ms[1],
          "퀴즈 q09: 1×11008×4096에서 모델은 K를 나누고, 잰 스트리밍 경로는 K를 나눈 어느 split도 split 1보다 빠르다")
