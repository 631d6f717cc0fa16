"""Module 12 without a GPU: the exercise kind "splitk_reduce" (schema, signature, cases), the waves / split-K
simulator, the live zoo cell's recorded path, the Nsight tools' parsing, and the exercise record merge."""
from __future__ import annotations

import json
import math
import re
import sys

import pytest

from conftest import REPO
from course.autograder import kind_sgemm, kind_splitk_reduce, signatures
from course.autograder import spec as specs
from kernels import devices
from kernels import level7_model as model
from sims import shape_waves
from sims._common import SimInputError

AUTO_TILE = shape_waves.AUTO

sys.path.insert(0, str(REPO / "tools"))

REDUCE = specs.load("m12-e1")


# ----------------------------------------------------------------------------- the exercise kind

def test_the_exercise_declares_the_reduce_kind_and_its_signature():
    assert REDUCE.kind == "splitk_reduce" and REDUCE.parameters == kind_splitk_reduce.REDUCE_SIGNATURE
    assert REDUCE.signature_text() == ('extern "C" __global__ void my_reduce(const float* P, float* C, int M, int N, '
                                       "int ldp, int ldc, int S, float alpha, float beta)")
    assert REDUCE.speed_reference in kind_splitk_reduce.REDUCE_REFERENCES
    assert {w.diagnosis for w in REDUCE.wrong_attempts} >= {"wrong_values", "reads_c_with_beta_zero", "out_of_bounds",
                                                           "race"}
    assert len(REDUCE.wrong_attempts) >= 5
    # every SGEMM exercise is still the default kind, with the SGEMM signature
    others = [s for s in specs.load_all() if s.id != "m12-e1"]
    assert others and all(s.kind == "sgemm" and s.parameters == kind_sgemm.SGEMM_SIGNATURE for s in others)


@pytest.mark.parametrize("text,parsed", [
    (["const float* P", "int M", "float alpha"], (("P", "pointer"), ("M", "int"), ("alpha", "float"))),
    (["float *C"], (("C", "pointer"),)),
    (["double x"], None), (["int"], None), ("const float* P", None), ([], None),
])
def test_signature_strings_parse(text, parsed):
    assert signatures.parse_signature(text) == parsed


def _yaml_with(tmp_path, change):
    folder = tmp_path / "m12-e1"
    folder.mkdir()
    for path in REDUCE.folder.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    text = (folder / "exercise.yaml").read_text(encoding="utf-8")
    (folder / "exercise.yaml").write_text(change(text), encoding="utf-8")
    return folder


@pytest.mark.parametrize("change,fragment", [
    (lambda t: t.replace("kind: splitk_reduce", "kind: stencil"), "kind:"),
    (lambda t: t.replace('"int S", ', ""), "signature:"),
    (lambda t: t.replace('"int ldp", "int ldc"', '"int ldc", "int ldp"'), "signature:"),
    (lambda t: t.replace("reference: shape_aware_reduce", "reference: sgemm_naive"), "리덕션 커널"),
])
def test_a_yaml_that_contradicts_its_kind_is_refused_in_korean(tmp_path, change, fragment):
    folder = _yaml_with(tmp_path, change)
    with pytest.raises(specs.ExerciseError, match=fragment):
        specs.load_folder(folder)


def test_an_sgemm_exercise_cannot_name_a_reduction_as_its_speed_reference(tmp_path):
    folder = tmp_path / "m06-e1"
    folder.mkdir()
    source = REPO / "course" / "exercises" / "m06-e1"
    for path in source.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    text = (folder / "exercise.yaml").read_text(encoding="utf-8")
    (folder / "exercise.yaml").write_text(text.replace("reference: sgemm_tiled", "reference: shape_aware_reduce"),
                                          encoding="utf-8")
    with pytest.raises(specs.ExerciseError, match="레지스트리"):
        specs.load_folder(folder)


# ----------------------------------------------------------------------------- its cases

def test_reduce_cases_are_seeded_and_cover_what_the_checker_needs():
    plan = kind_splitk_reduce.reduce_correctness_cases(REDUCE, 7)
    assert plan == kind_splitk_reduce.reduce_correctness_cases(REDUCE, 7)
    assert [c for c in plan if not c.drawn] == [c for c in kind_splitk_reduce.reduce_correctness_cases(REDUCE, 8) if not c.drawn]
    assert [c for c in plan if c.drawn] != [c for c in kind_splitk_reduce.reduce_correctness_cases(REDUCE, 8) if c.drawn]
    assert len(plan) >= 12 and any(c.beta == 0.0 for c in plan[:2]) and any(c.beta != 0.0 for c in plan)
    assert any(c.edge for c in plan) and any(not c.edge for c in plan)
    assert any(c.S == 1 for c in plan) and max(c.S for c in plan) >= 8 and any(c.alpha == 0.0 for c in plan)
    whole = [c for c in plan if not c.edge and not c.drawn]
    assert any(c.alpha not in (0.0, 1.0) and c.beta not in (0.0, 1.0) and c.S > 1 for c in whole)


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_every_stage_gives_the_workspace_and_c_different_aligned_strides(seed):
    stages = (kind_splitk_reduce.reduce_correctness_cases(REDUCE, seed), kind_splitk_reduce.reduce_hazard_cases(REDUCE, seed),
              kind_splitk_reduce.reduce_differential_cases(REDUCE, seed), [kind_splitk_reduce.reduce_speed_case(REDUCE)])
    tight = 0
    for stage in stages:
        for c in stage:
            assert c.ldp % 4 == 0 and c.ldp >= c.N and c.ldc >= c.N and c.M >= 1 and c.S >= 1
            assert kind_splitk_reduce.reduce_strides(c.as_dict()) == (c.ldp, c.ldc)
            if c.pad_p == c.pad_c == 0:
                tight += 1
            else:
                assert c.ldp != c.ldc, c
    assert tight == 1                       # one tight case (ldp = ldc = N) among the fixed ones


def test_a_case_reads_as_the_learner_sees_it():
    case = kind_splitk_reduce.ReduceCase(9, 19, 4, -1.5, 0.0, 8, 1).as_dict()
    text = kind_splitk_reduce.reduce_shape_text({**case, "poison": "inf"})
    assert text == "M=9, N=19, 조각 S=4 (alpha=-1.5, beta=0, ldp=28, ldc=20, C를 ±Inf로 채움)"


def _reference(slabs, c0, alpha, beta):
    return alpha * slabs.sum(axis=0) + (beta * c0 if beta != 0.0 else 0.0)


def test_the_known_mistakes_differ_from_the_reference_on_the_fixed_cases():
    """The arithmetic behind the wrong attempts' expected verdicts: on the fixed cases each mistake leaves the
    tolerance somewhere (alpha applied twice, beta per slab, slabs M*N apart), so 'wrong_values' is reachable."""
    import numpy as np

    rng = np.random.default_rng(3)
    mistakes = {
        "alpha_per_slice": lambda P, C0, a, b: a * a * P.sum(axis=0) + (b * C0 if b else 0.0),
        "beta_per_slice": lambda P, C0, a, b: _beta_per_slice(P, C0, a, b),
    }
    found = {name: False for name in mistakes}
    for c in (c for c in kind_splitk_reduce.reduce_correctness_cases(REDUCE, 0) if not c.drawn):
        slabs = rng.uniform(-1, 1, (c.S, c.M, c.N))
        c0 = rng.uniform(-1, 1, (c.M, c.N))
        ref = _reference(slabs, c0, c.alpha, c.beta)
        for name, wrong in mistakes.items():
            got = wrong(slabs, c0, c.alpha, c.beta)
            if np.linalg.norm(got - ref) > 1e-5 * max(np.linalg.norm(ref), 1e-30):
                found[name] = True
    assert all(found.values()), found
    # slabs read M*N floats apart instead of M*ldp: different data wherever ldp != N and S > 1
    assert any(c.S > 1 and c.ldp != c.N for c in kind_splitk_reduce.reduce_correctness_cases(REDUCE, 0) if not c.drawn)


def _beta_per_slice(P, C0, alpha, beta):
    out = C0.copy() if beta != 0.0 else 0.0 * C0
    for s in range(P.shape[0]):
        out = alpha * P[s] + beta * out
    return out


def test_the_starter_and_the_attempts_name_their_diagnosis():
    for w in REDUCE.wrong_attempts:
        text = (REDUCE.folder / w.file).read_text(encoding="utf-8")
        assert re.search(r"expected-diagnosis:\s*" + w.diagnosis + r"\b", text), w.file
    starter = REDUCE.starter.read_text(encoding="utf-8")
    assert starter.count("할 일") == 3 and "__syncthreads" not in starter.split("{", 1)[1].replace("__syncthreads()를", "")


# ----------------------------------------------------------------------------- simulation 12

@pytest.mark.parametrize("shape", model.ZOO)
def test_the_simulator_takes_the_dispatchers_choice(shape):
    from kernels.devices import profile

    p = shape_waves.plan(*shape)
    q = model.choose(*shape, profile("H100"))
    assert (p.candidate.tile.name, p.split, p.total_us) == (q.candidate.tile.name, q.split, q.total_us)
    assert p.blocks == p.tiles_m * p.tiles_n * p.split
    assert p.waves == math.ceil(p.blocks / p.slots) or p.candidate.resident > 1


def test_hand_worked_waves():
    big = shape_waves.plan(128, 4096, 4096, tile="128x256", split=1)
    assert (big.blocks, big.waves, round(big.wave_fill, 3)) == (16, 1, round(16 / 132, 3))
    wide = shape_waves.plan(513, 8192, 8192, tile="128x256", split=1)
    assert (wide.tiles_m, wide.tiles_n, wide.blocks, wide.waves) == (5, 32, 160, 2)
    split = shape_waves.plan(128, 4096, 4096, tile="64x128", split=8)
    assert (split.blocks, split.slots, split.waves, split.k_per_split) == (512, 528, 1, 512)
    assert split.reduce_us > 0 and big.reduce_us == 0
    assert model.workspace_traffic(128, 4096, 8) == 2 * 8 * 128 * 4096 * 4


@pytest.mark.parametrize("args,fragment", [
    (dict(M=0, N=4, K=4), "M 값은 1 이상"),
    (dict(M=4, N=4.5, K=4), "N 값은 정수"),
    (dict(M=4, N=4, K=4, device="GTX480"), "목록에 없습니다"),
    (dict(M=4, N=4, K=4, tile="256x256"), "타일 '256x256'"),
    (dict(M=128, N=4096, K=200, split=8), "7조각만"),
    (dict(M=128, N=4096, K=1024, split=16), f"{model.MIN_SLICE_K}보다 짧습니다"),
    (dict(M=8192, N=8192, K=8192, split=16), "작업 공간(workspace)"),
    (dict(M=128, N=4096, K=4096, split=5), "조각 수(split)"),
])
def test_bad_simulator_input_gets_a_korean_message(args, fragment):
    with pytest.raises(SimInputError, match=re.escape(fragment)):
        shape_waves.plan(**args)


def test_the_explanation_and_the_table_agree_with_the_model():
    text = shape_waves.explain(shape_waves.plan(1024, 1024, 16384))
    assert "128x256 타일" in text and "× split 8" in text and "리덕션" in text
    assert "리덕션" not in shape_waves.explain(shape_waves.plan(8192, 8192, 8192))
    rows = shape_waves.rows(128, 4096, 4096)
    assert rows[0]["choice"] == "선택" and all(r["choice"] == "" for r in rows[1:])
    assert [float(r["total"].replace(",", "")) for r in rows] == sorted(float(r["total"].replace(",", "")) for r in rows)
    assert shape_waves.choice_sentence(128, 4096, 4096) == "128×4096×4096에서는 64x128 타일 × split 8을 고릅니다"


def test_the_simulator_names_the_ring_with_the_glossarys_terms():
    """A stage of the cp.async ring is 스테이지 (glossary), never 단계 or 고리."""
    p = shape_waves.plan(1024, 1024, 16384)
    text = shape_waves.explain(p)
    assert f"BK {p.candidate.BK}, 스테이지 {p.candidate.STAGES}개" in text
    with pytest.raises(SimInputError) as short:
        shape_waves.plan(128, 4096, 1024, split=16)
    html = shape_waves._render({"M": 2048, "N": 2048, "K": 2048, "device": "T4", "tile": "64x128", "split": 2})
    for shown in (text, str(short.value), html):
        assert "단계" not in shown and "고리" not in shown
    assert "스테이지 링" in str(short.value)


def test_the_two_records_table_marks_the_dispatchers_choice_once():
    from course.facts.m12 import LEVEL7_KERNEL, row_of, two_runs
    for shape, splits in (((4095, 4097, 4099), (1,)), ((2048, 2048, 2048), (1, 2))):
        rows = two_runs(shape, splits)
        choice = row_of[(LEVEL7_KERNEL, *shape)]["choice"]
        marked = [r["what"] for r in rows if r["what"].endswith(" (선택)")]
        assert marked == [f"{choice['tile'].replace('x', '×')} × split {choice['split']} (선택)"]
        assert len(rows) == 3 * len(splits)                        # every tile with every split asked for
        assert [float(r["a"]) for r in rows] == sorted(float(r["a"]) for r in rows)


def test_the_two_records_table_shows_each_rows_cublas_window():
    """Rows of a tuner record are timed in different alternation windows: the table shows the cuBLAS time of each
    row's own window (what tells the GPU's drift from the option's difference), taken from the right record."""
    from course.facts.m12 import tuning, tuning_check, tuning_options, two_runs
    shape = (2048, 2048, 2048)
    for row in two_runs(shape, (1, 2)):
        tile, split = row["what"].split(" (")[0].split(" × split ")
        tile = tile.replace("×", "x")
        for key, record in (("a_cb", tuning), ("b_cb", tuning_check)):
            measured = next(r for r in tuning_options(shape, record) if (r["tile"], r["split"]) == (tile, int(split)))
            assert row[key] == f"{measured['cublas_ms']:.3f}"
    windows = {row["a_cb"] for row in two_runs(shape, (1, 2))}
    assert len(windows) > 1                                       # the first record's windows differ


def test_the_memory_bound_end_by_hand():
    end = shape_waves.roofline_end(1, 4096, 4096, "H100")
    limits = devices.profile("H100")
    bandwidth = model.dram_gbs(limits)
    need = 4 * (4096 + 4096 * 4096 + 4096)
    assert end.bytes_min == need and end.intensity == pytest.approx(2 * 4096 * 4096 / need)
    assert end.intensity == pytest.approx(0.5, rel=1e-3) and end.memory_bound
    assert end.floor_us == pytest.approx(need / (bandwidth * 1e3))
    assert end.ridge == pytest.approx(model.sm_peak_gflops(limits) * limits.sm_count / bandwidth)
    assert end.tile is not None and shape_waves.is_tile(end.tile)
    assert end.tile.total_us > end.floor_us             # no path beats bytes / bandwidth in the model either
    if end.other is not None:                           # the streaming path, once the model has one
        assert not shape_waves.is_tile(end.other) and end.other.total_us >= end.floor_us
    big = shape_waves.roofline_end(4096, 4096, 4096, "H100")
    assert not big.memory_bound and big.compute_us > big.floor_us


def test_the_memory_bound_end_reads_in_korean_and_renders():
    text = shape_waves.end_sentence(1, 11008, 4096, "H200")
    assert "메모리 쪽" in text and "타일 경로" in text and "스트리밍 경로" in text and "GB/s" in text
    assert "연산 쪽" in shape_waves.end_sentence(4096, 4096, 4096)
    html = shape_waves._render({"M": 1, "N": 4096, "K": 4096, "device": "H100", "tile": AUTO_TILE, "split": AUTO_TILE})
    assert "산술 강도" in html and "꺾임점" in html
    fig = shape_waves.decode_figure()
    names = [t.name for t in fig.data]
    assert "타일 경로 (모델)" in names and "하한: 최소 바이트 ÷ DRAM 대역폭" in names
    assert list(fig.data[0].x) == list(shape_waves.DECODE_M) and fig.data[0].x[0] == 1
    with pytest.raises(SimInputError, match="M"):
        shape_waves.roofline_end(0, 4096, 4096)


def test_the_views_render():
    html = shape_waves._render({"M": 2048, "N": 2048, "K": 2048, "device": "H100", "tile": "64x128", "split": 2})
    assert "<caption>" in html and "느립니다" in html and 'scope="col"' in html
    fig = shape_waves.figure()
    spec = fig.to_plotly_json()
    menu = spec["layout"]["updatemenus"][0]["buttons"]
    assert len(menu) == len(shape_waves.PRESETS) and len(spec["data"]) == 2 * len(shape_waves.PRESETS)
    assert sum(bool(t.get("visible")) for t in spec["data"]) == 2
    from course.site import figure_text

    assert "보기 선택" in figure_text.figure_description(spec)
    box = shape_waves.widget()
    box.controls["K"].value = 1024
    box.controls["split"].value = 16                       # slices of 64 < MIN_SLICE_K: a message, no crash
    assert "짧습니다" in box.output.value and "<table" not in box.output.value


# ----------------------------------------------------------------------------- the live zoo cell, recorded path

def test_without_a_gpu_the_zoo_cell_shows_the_record():
    from course.page import shape_zoo

    results = shape_zoo.zoo_results(force_recorded=True)
    data = json.loads((REPO / "book" / "data" / "shapes.json").read_text(encoding="utf-8"))
    assert not results.live and len(results.rows) == len(data["zoo"])
    for r in results.rows:
        key = f"{r['M']}x{r['N']}x{r['K']}"
        assert abs(r["ratio"] - data["summary"]["level7_over_cublas"][key]) < 1e-9
    assert abs(results.geomean - data["summary"]["geometric_mean"]) < 1e-6
    assert "기록된 결과 (recorded)" in results.label() and data["device"] in results.label()
    rows = shape_zoo.table_rows(results)
    assert rows[0]["shape"] == "1024³" and " × split " in rows[0]["choice"]
    assert shape_zoo.figure(results).layout.title.text.startswith("모양 모음")


# ----------------------------------------------------------------------------- the Nsight tools

@pytest.mark.parametrize("name,expect", [
    ("sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x256x8_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     {"role": "GEMM", "tile": "128x256", "tile_k": 8, "split_k": False}),
    ("cutlass_80_simt_sgemm_256x128_8x4_nn_align4", {"role": "GEMM", "tile": "256x128", "stages": 4}),
    ("void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>(cublasSplitKParams<float>)",
     {"role": "split-K reduction"}),
    ("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x128x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel",
     {"role": "GEMM", "tile": "64x128", "tile_k": 8, "stages": 3}),
])
def test_cublas_kernel_names_are_read(name, expect):
    from profile_shapes import read_name

    got = read_name(name)
    assert {k: got.get(k) for k in expect} == expect


def _raw(name, grid, duration=1000.0):
    from profile_shapes import LAUNCH_METRICS

    return {"Kernel Name": name, LAUNCH_METRICS["grid_size"]: str(grid), LAUNCH_METRICS["block_size"]: "256",
            LAUNCH_METRICS["duration_ns"]: f"{duration:,.0f}", LAUNCH_METRICS["registers"]: "n/a"}


def test_the_names_tool_splits_ncu_rows_at_the_markers(monkeypatch):
    import profile_shapes

    rows = []
    for i, _ in enumerate(model.ZOO):
        rows.append(_raw("course_zoo_marker", i + 1, 2.0))
        rows.append(_raw("sm90_xmma_gemm_f32_tilesize128x128x8_stage3", 100 + i))
        if i == 7:
            rows.append(_raw("splitKreduce_kernel<32, 16>", 64, 500.0))
    monkeypatch.setattr(profile_shapes, "run_ncu", lambda metrics, args, extra: rows)
    body = profile_shapes.names()
    assert [(s["M"], s["N"], s["K"]) for s in body["shapes"]] == list(model.ZOO)
    assert [len(s["kernels"]) for s in body["shapes"]] == [1] * 7 + [2] + [1] * 4
    assert body["shapes"][7]["split_k_reduction"] and not body["shapes"][0]["split_k_reduction"]
    assert body["shapes"][7]["duration_us"] == pytest.approx(1.5)
    first = body["shapes"][0]["kernels"][0]
    assert first["grid_size"] == 100 and "registers" not in first     # a value that is not a number is left out


def test_the_gap_tool_keeps_the_second_call(monkeypatch):
    import profile_shapes

    def fake(metrics, args, extra):
        name = "sgemm_shape_aware" if args[0] == "level7" else "sm90_xmma_gemm_tilesize128x256x8"
        rows = []
        for call in range(2):
            raw = _raw(name, 128, 1000.0 * (call + 1))
            raw.update({profile_shapes.GAP_METRICS["sm_active_cycles"]: "90", profile_shapes.GAP_METRICS["sm_elapsed_cycles"]: "100"})
            rows.append(raw)
        return rows

    monkeypatch.setattr(profile_shapes, "run_ncu", fake)
    entries = profile_shapes.gap_one("level7", 2048, 2048, 2048)
    assert len(entries) == 1 and entries[0]["duration_us"] == pytest.approx(2.0)
    assert entries[0]["sm_busy_pct"] == pytest.approx(90.0) and entries[0]["who"] == "level7"


# ----------------------------------------------------------------------------- the exercise record

def test_a_partial_record_merges_with_its_own_provenance():
    from record_exercises import merge

    whole = json.loads((REPO / "book" / "data" / "exercises.json").read_text(encoding="utf-8"))
    part = {"device": "GPU X", "date": "2026-11-26", "command": "python tools/record_exercises.py --only m12-e1",
            "git_commit": "abc", "checker": {"version": 2},
            "exercises": {"m12-e1": {"title_ko": "t", "module": 12, "solution": {"passed": False},
                                     "wrong_attempts": [{"matches": True}]}}}
    merged = merge(part, whole)
    assert set(merged["exercises"]) == set(whole["exercises"]) | {"m12-e1"}
    assert merged["exercises"]["m12-e1"]["recorded"]["device"] == "GPU X"
    assert merged["device"] == whole["device"] and not merged["all_solutions_pass"]
    assert "m12-e1" not in whole["exercises"] or whole["exercises"]["m12-e1"] != merged["exercises"]["m12-e1"]


def test_the_xmma_second_pass_is_read_as_the_reduction_and_the_record_agrees():
    from profile_shapes import read_name

    name = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_execute_split_k_kernel__5x_cublas"
    assert read_name(name) == {"role": "split-K reduction"}
    data = json.loads((REPO / "book" / "data" / "cublas_kernels.json").read_text(encoding="utf-8"))
    assert data["reread"]["what"] and "H100" in data["device"]
    for shape in data["shapes"]:
        assert [k["reads_as"] for k in shape["kernels"]] == [read_name(k["function"]) for k in shape["kernels"]]
        assert shape["split_k_reduction"] == any(read_name(k["function"])["role"] == "split-K reduction"
                                                 for k in shape["kernels"])
    assert [(s["M"], s["N"], s["K"]) for s in data["shapes"]] == [tuple(s) for s in model.ZOO]


def test_the_gap_tool_matches_templated_cublas_kernels_by_their_demangled_name(monkeypatch):
    import profile_shapes

    seen = {}

    def fake(metrics, args, extra):
        seen["extra"] = extra
        return [_raw("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(T1::Params)", 128)] * 2

    monkeypatch.setattr(profile_shapes, "run_ncu", fake)
    profile_shapes.gap_one("cublas", 2048, 2048, 2048)
    extra = seen["extra"]
    assert extra[extra.index("--kernel-name-base") + 1] == "demangled"
    assert extra[extra.index("--kernel-name") + 1] == "regex:gemm|[Rr]educe"


def test_a_split_picked_by_hand_at_a_decode_shape_keeps_the_streaming_path():
    # the tile left on auto at M = 1 is the model's streaming path; a split chosen by hand must not look it up as a tile
    p = shape_waves.plan(1, 4096, 4096, "H200", tile=shape_waves.AUTO, split=3)
    assert p.candidate.tile.name == "stream-B" and p.split == 3
    assert "스트리밍 경로" in shape_waves.choice_sentence(1, 4096, 4096, "H200")
    assert "타일" in shape_waves.choice_sentence(4096, 4096, 4096, "H200")
