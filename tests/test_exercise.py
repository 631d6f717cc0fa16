"""Kernel exercises and their checker, without a GPU (course.autograder).

The course's exercises: schema, files, coverage of modules and diagnoses; every starter and solution
compiles through NVRTC and every solution keeps its SASS rules; the chapters hold each starter
verbatim in their %%exercise cell. The checker: compile errors at the learner's lines, SASS rule
matching, clear errors for input that is not CUDA, the shapes the GPU checks draw, timeouts of the
subprocess, sanitizer parsing, verdict priority and rendering, progress records, the notebook
session, the CLI and grade-code on a messy folder. The recorded H100 verdicts, where present.
"""
from __future__ import annotations

import csv
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from course.autograder import cases, diagnosis, gpu, spec as specs, static
from course.autograder.checker import check_source
from course.autograder.learner import ExerciseInputError, decode_source, read_source_file
from course.autograder.verdict import CHECKS, CheckResult, Verdict, verdict_table_html

from course import syllabus  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
RECORD = REPO / "book" / "data" / "exercises.json"
EXERCISES = specs.load_all()
BY_ID = {s.id: s for s in EXERCISES}
SGEMM_IDS = sorted(i for i, s in BY_ID.items() if s.kind == "sgemm")   # the cases of course.autograder.cases
# Modules with kernel exercises, and their chapters (course/syllabus.py declares both).
CHAPTERS = {m.number: m.page for m in syllabus.load() if m.exercises}


@pytest.fixture(autouse=True)
def no_gpu(monkeypatch):
    monkeypatch.setenv("COURSE_EXERCISE_CPU_ONLY", "1")


def run_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "course", *map(str, args)], capture_output=True, text=True,
                          cwd=REPO, env={**os.environ, "COURSE_EXERCISE_CPU_ONLY": "1", **(env or {})}, timeout=300)


def _compiler_ready() -> bool:
    try:
        from kernels.compiler import _nvrtc
        from kernels.sass import tool_dir

        _nvrtc()
        tool_dir()
        return True
    except Exception:
        return False


needs_compiler = pytest.mark.skipif(not _compiler_ready(), reason="NVRTC 또는 cuobjdump가 없습니다 (pip 패키지)")


# ----------------------------------------------------------------------------- the course's exercises

def test_at_least_eight_exercises_cover_modules_4_to_9():
    assert len(EXERCISES) >= 8
    assert {4, 5, 6, 7, 8, 9} <= {s.module for s in EXERCISES}


def test_wrong_attempts_cover_the_required_diagnoses():
    for s in EXERCISES:
        assert len(s.wrong_attempts) >= 2, s.id
        for w in s.wrong_attempts:
            assert w.diagnosis in diagnosis.DIAGNOSES and (s.folder / w.file).is_file(), (s.id, w.file)
    found = {w.diagnosis for s in EXERCISES for w in s.wrong_attempts}
    assert {"race", "out_of_bounds", "too_slow"} <= found


def test_expected_diagnosis_comments_agree_with_the_yaml():
    for s in EXERCISES:
        for w in s.wrong_attempts:
            m = re.search(r"expected-diagnosis:\s*(\w+)", (s.folder / w.file).read_text(encoding="utf-8"))
            if m:
                assert m.group(1) == w.diagnosis, f"{s.id}/{w.file}: comment {m.group(1)}, yaml {w.diagnosis}"


def test_every_exercise_folder_is_loaded():
    folders = sorted(p.name for p in specs.DEFAULT_ROOT.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert folders == sorted(BY_ID)


@pytest.mark.parametrize("exercise_id", sorted(BY_ID))
@needs_compiler
def test_starter_and_solution_compile_and_the_solution_keeps_the_sass_rules(exercise_id):
    s = BY_ID[exercise_id]
    for path in (s.starter, s.solution):
        result, _ = static.compile_check(s, read_source_file(path), path.name)
        assert result.status == "pass", f"{exercise_id}/{path.name}: {result.message_ko}"
    sass = static.sass_check(s, read_source_file(s.solution), "solution.cu")
    assert sass.status == "pass", f"{exercise_id}: {sass.message_ko}"


@pytest.mark.parametrize("exercise_id", sorted(BY_ID))
def test_wrong_sass_attempts_fail_their_rule_on_the_cpu(exercise_id):
    """A wrong attempt whose diagnosis is a SASS rule fails that rule without any GPU."""
    if not _compiler_ready():
        pytest.skip("NVRTC 또는 cuobjdump가 없습니다")
    s = BY_ID[exercise_id]
    for w in s.wrong_attempts:
        if w.diagnosis in ("local_memory", "missing_instruction", "too_many_registers", "compile_error",
                           "wrong_signature"):
            verdict = check_source(s, read_source_file(s.folder / w.file), w.file)
            assert verdict.diagnosis == w.diagnosis, verdict.text()


# ----------------------------------------------------------------------------- schema errors

def _write_exercise(root: Path, yaml_text: str, files=("starter.cu", "solution.cu", "wrong_a.cu", "wrong_b.cu")):
    folder = root / "m04-e7"
    folder.mkdir(parents=True)
    (folder / "exercise.yaml").write_text(yaml_text, encoding="utf-8")
    for name in files:
        (folder / name).write_text('extern "C" __global__ void my_sgemm() {}\n', encoding="utf-8")
    return folder


GOOD_YAML = """
id: m04-e7
module: 4
title_ko: "시험"
goal_ko: "시험용"
entry: my_sgemm
launch: {block: [16, 16], tile: [16, 16]}
shapes: {multiple_of: {M: 1, N: 4, K: 4}, aligned16: true}
checks:
  sass: {forbid: [LDL, STL], require: ["LDG.E.128"], max_registers: 64}
  correctness: {}
  hazards: {racecheck: true, synccheck: false, memcheck: true}
  speed: {reference: sgemm_naive, size: 1000, min_ratio: 0.8}
hints_ko: ["하나", "둘"]
wrong_attempts:
  - {file: wrong_a.cu, diagnosis: race, what_ko: "가"}
  - {file: wrong_b.cu, diagnosis: too_slow, what_ko: "나"}
"""


def test_a_valid_yaml_loads(tmp_path):
    _write_exercise(tmp_path, GOOD_YAML)
    s = specs.load("m04-e7", tmp_path)
    assert s.hazards == {"memcheck": True, "racecheck": True, "synccheck": False}
    assert s.grid(33, 65) == (5, 3, 1) and s.multiple_of == {"M": 1, "N": 4, "K": 4}


@pytest.mark.parametrize("change,fragment", [
    (("diagnosis: race", "diagnosis: leading_dimension"), "알 수 없는 진단"),
    (("file: wrong_b.cu", "file: wrong_c.cu"), "wrong_c.cu 파일이 없습니다"),
    (("reference: sgemm_naive", "reference: sgemm_nope"), "checks.speed.reference"),
    (("hints_ko: [\"하나\", \"둘\"]", "hints_ko: [\"하나\"]"), "hints_ko"),
    (("module: 4", "module: 5"), "module(5)"),
    (("aligned16: true", "aligned16: true, padded: 1"), "unknown key"),
    (("block: [16, 16]", "block: [64, 32]"), "1024"),
    (("require: [\"LDG.E.128\"]", "require: [\"ldg e\"]"), "SASS 명령 이름"),
])
def test_yaml_errors_name_the_key(tmp_path, change, fragment):
    _write_exercise(tmp_path, GOOD_YAML.replace(*change))
    with pytest.raises(specs.ExerciseError) as err:
        specs.load("m04-e7", tmp_path)
    assert fragment in str(err.value) and "exercise.yaml" in str(err.value)


def test_unknown_exercise_id_lists_the_known_ones():
    with pytest.raises(specs.ExerciseError) as err:
        specs.load("m99-e1")
    assert "알 수 없는 실습 번호" in str(err.value) and EXERCISES[0].id in str(err.value)


# ----------------------------------------------------------------------------- learner input

@pytest.mark.parametrize("content,kind", [
    (b"", "empty"),
    (b"  \n\t\n", "empty"),
    (b"\x7fELF\x02\x01\x00\x00binary", "binary"),
    ("// 커널\n".encode("euc-kr") + b'__global__ void f() {}\n', "unreadable"),
    (b"import cupy\n\ndef my_sgemm(A, B):\n    return A @ B\n", "not_cuda"),
    (b"int main() { return 0; }\n", "not_cuda"),
])
def test_files_that_are_not_cuda_are_refused_clearly(tmp_path, content, kind):
    path = tmp_path / "kernel.cu"
    path.write_bytes(content)
    with pytest.raises(ExerciseInputError) as err:
        read_source_file(path)
    assert err.value.kind == kind and re.search(r"[\uac00-\ud7a3]", str(err.value))
    if kind == "not_cuda" and b"import" in content:
        assert "파이썬(Python)" in str(err.value)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(ExerciseInputError) as err:
        read_source_file(tmp_path / "nope.cu")
    assert err.value.kind == "missing" and "파일이 없습니다" in str(err.value)
    with pytest.raises(ExerciseInputError) as err:
        read_source_file(tmp_path)
    assert err.value.kind == "not_a_file"


def test_utf8_with_bom_is_accepted():
    assert decode_source('\ufeff__global__ void f() {}'.encode("utf-8")).startswith("__global__")


@pytest.mark.parametrize("raw", [
    "__global__ void f() {}\n".encode("utf-16"),                   # with its byte-order mark
    "__global__ void f() {}\n".encode("utf-16-le"),                # without one
    "__global__ void f() {}\n".encode("utf-16-be"),
])
def test_a_utf16_file_is_told_to_be_saved_as_utf8(raw):
    with pytest.raises(ExerciseInputError) as err:
        decode_source(raw, "kernel.cu")
    assert err.value.kind == "utf16" and "UTF-8로" in str(err.value) and "바이너리" not in str(err.value)


def test_a_global_only_inside_a_comment_is_not_cuda():
    for text in ("// __global__ void f() {}\nint x;\n", "/* extern \"C\" __global__ void f()\n*/ int y;\n",
                 "int a; // line one \\\n __global__ continued comment\n"):
        with pytest.raises(ExerciseInputError) as err:
            decode_source(text.encode("utf-8"), "k.cu")
        assert err.value.kind == "not_cuda", text
    assert "주석 안에만" in str(err.value)
    assert decode_source(b'const char* s = "//"; __global__ void f() {}').startswith("const")


@pytest.mark.parametrize("line", [
    '#include "/etc/passwd"', "#include </etc/shadow>", '#  include "../../secret.h"', "#include SNEAKY_HEADER",
    '%:include "/etc/passwd"', '#include_next <stdio.h>', '#import "x.h"', '#embed "/etc/passwd"',
    "#include <cuda_fp16.h>", '#if __has_include("/etc/passwd")\n#endif',
])
def test_includes_outside_the_course_headers_are_refused_before_nvrtc(line):
    text = f"{line}\n__global__ void f() {{}}\n"
    with pytest.raises(ExerciseInputError) as err:
        decode_source(text.encode("utf-8"), "k.cu")
    assert err.value.kind == "forbidden_include"
    assert "sgemm_common.cuh" in str(err.value) or "__has_include" in line


def test_the_course_header_is_pasted_in_and_nothing_else_is_opened():
    from course.autograder.learner import course_headers, expand_includes

    text = '// #include "/etc/passwd" in a comment is fine\n#include "sgemm_common.cuh"\n__global__ void f() {}\n'
    assert decode_source(text.encode("utf-8"), "k.cu") == text
    expanded = expand_includes(text, "k.cu")
    assert "#include \"sgemm_common.cuh\"" not in expanded and "blend_output" in expanded
    assert '#line 1 "sgemm_common.cuh"' in expanded and '#line 3 "k.cu"' in expanded
    assert set(course_headers()) == {"sgemm_common.cuh"}


def test_a_korean_file_name_is_shown_as_written(tmp_path):
    from course.autograder.learner import display_name, program_name

    assert display_name("제출/홍길동_커널.cu") == "홍길동_커널.cu"
    assert program_name("홍길동_커널.cu").isascii()                # what NVRTC and #line get
    assert display_name("a\x1b[2Kb.cu") == "a\\x1b[2Kb.cu"       # a terminal escape made visible


# ----------------------------------------------------------------------------- compile and SASS

@needs_compiler
@needs_compiler
def test_state_kept_outside_the_kernel_is_refused_at_compile():
    """A __device__ variable outside the kernel outlives a launch: a kernel could keep the C it computed at the
    timed size and hand it back on later launches. The compile check refuses one the code writes (one it only reads,
    printf's own strings, constants and shared memory stay allowed); every later check is skipped."""
    s = BY_ID["m04-e1"]
    solution = read_source_file(s.solution)
    memo = "__device__ float saved_c[1 << 16];\n__device__ int launches = 0;\n" + solution.replace(
        "{", "{\n    if (threadIdx.x == 0) { saved_c[blockIdx.x] = 1.0f; atomicAdd(&launches, 1); }", 1)
    verdict = check_source(s, memo, "memo.cu")
    compiled = verdict.result("compile")
    assert compiled.diagnosis == verdict.diagnosis == "global_state", compiled.message_ko
    assert "saved_c" in compiled.message_ko and "launches" in compiled.message_ko
    assert all(c.status == "skip" for c in verdict.checks[1:])
    allowed = ('__constant__ float scale[4];\n__device__ float offset = 1.0f;\n' + solution.replace(
        "{", '{\n    if (threadIdx.x == 1000) printf("%f", scale[0] + offset);', 1))   # read only: allowed
    assert static.compile_check(s, allowed, "allowed.cu")[0].status == "pass"


def test_compile_errors_point_at_the_learners_lines():
    s = EXERCISES[0]
    source = ('extern "C" __global__ void my_sgemm(const float* A, const float* B, float* C, int M, int N, int K,\n'
              "    int lda, int ldb, int ldc, float alpha, float beta)\n{\n"
              "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
              "    C[row] = acc;\n}\n")                                      # line 5: acc undefined
    verdict = check_source(s, source, "mine.cu")
    compiled = verdict.result("compile")
    assert compiled.diagnosis == "compile_error" and verdict.diagnosis == "compile_error"
    assert "5행" in compiled.message_ko and "identifier \"acc\" is undefined" in compiled.message_ko
    assert "선언되지 않은 이름" in compiled.message_ko
    assert all(c.status == "skip" for c in verdict.checks[1:])
    shifted = check_source(s, source, "cell.cu", line_offset=1)   # the %%exercise line comes first
    assert "6행" in shifted.result("compile").message_ko


@needs_compiler
def test_missing_entry_and_missing_extern_c():
    s = EXERCISES[0]
    mangled = check_source(s, "__global__ void my_sgemm(float* C) { C[0] = 1.0f; }\n", "a.cu")
    assert mangled.diagnosis == "compile_error" and 'extern "C"' in mangled.result("compile").message_ko
    other = check_source(s, 'extern "C" __global__ void sgemm(float* C) { C[0] = 1.0f; }\n', "a.cu")
    message = other.result("compile").message_ko
    assert "진입점(entry)" in message and "sgemm" in message


SIGNATURE_OK = ('extern "C" __global__ void my_sgemm(const float* A, const float* B, float* C, int M, int N, int K,'
                " int lda, int ldb, int ldc, float alpha, float beta) { C[0] = A[0] * B[0]; }\n")


@needs_compiler
@pytest.mark.parametrize("params,fragment", [
    ("const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta", "8개"),
    ("const float* A, const float* B, float* C, int M, int N, int K, int lda, int ldb, int ldc, double alpha, "
     "double beta", "float여야"),
    ("const double* A, const double* B, double* C, int M, int N, int K, int lda, int ldb, int ldc, float alpha, "
     "float beta", "double"),
    ("float* C, const float* A, const float* B, int M, int N, int K, int lda, int ldb, int ldc, float alpha, "
     "float beta", None),                               # pointers in another order: same ABI, the values catch it
])
def test_a_wrong_parameter_list_is_named_before_anything_runs(params, fragment):
    s = EXERCISES[0]
    source = f'extern "C" __global__ void my_sgemm({params}) {{ }}\n'
    verdict = check_source(s, source, "mine.cu")
    if fragment is None:
        assert verdict.result("compile").status == "pass"
        return
    compiled = verdict.result("compile")
    assert compiled.diagnosis == "wrong_signature" and verdict.diagnosis == "wrong_signature"
    assert fragment in compiled.message_ko and "매개변수 목록" in compiled.message_ko
    assert "out of bounds" not in verdict.text()


@needs_compiler
def test_a_signature_written_with_the_course_macro_is_accepted():
    source = '#include "sgemm_common.cuh"\nextern "C" __global__ void my_sgemm(SGEMM_ARGS) { C[0] = A[0]; }\n'
    verdict = check_source(EXERCISES[0], source, "macro.cu")
    assert verdict.result("compile").status == "pass", verdict.text()


@needs_compiler
def test_operand_rules_name_the_operand_a_wide_load_must_serve():
    from course.autograder import ptx

    s = BY_ID["m05-e2"]
    assert s.operand_rules == (("LDG.E.128", ("A", "B")),)
    only_c = check_source(s, read_source_file(s.folder / "wrong_float4_only_c.cu"), "c.cu").result("sass")
    assert only_c.diagnosis == "missing_instruction" and "A 읽기, B 읽기에 쓰이지 않았습니다" in only_c.message_ko
    assert only_c.details["operand_uses"]["LDG.E.128"] == ["C"]
    solution = ptx.operand_uses(ptx.compile_ptx(read_source_file(s.solution), "s.cu"), s.entry)
    assert {"A", "B"} <= solution["LDG.E.128"] and solution["STG.E.128"] == {"C"}
    async_copies = ptx.operand_uses(ptx.compile_ptx(read_source_file(BY_ID["m09-e1"].solution), "s.cu"), "my_sgemm")
    assert async_copies["LDGSTS"] == {"A", "B"}


def test_the_data_flow_follows_pointers_through_helpers_and_loops():
    from course.autograder import ptx

    text = """
.visible .func (.param .b64 func_retval0) _Z5shiftPKf(.param .b64 _Z5shiftPKf_param_0)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [_Z5shiftPKf_param_0];
	add.s64 %rd2, %rd1, 16;
	st.param.b64 [func_retval0+0], %rd2;
	ret;
}
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2)
{
	.reg .f32 %f<9>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [k_param_0];
	ld.param.u64 %rd2, [k_param_1];
	ld.param.u64 %rd3, [k_param_2];
	{ .param .b64 param0; st.param.b64 [param0+0], %rd2; .param .b64 retval0;
	call.uni (retval0), _Z5shiftPKf, (param0); ld.param.b64 %rd5, [retval0+0]; }
$L__BB0_1:
	ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5];
	add.s64 %rd5, %rd5, 64;
	@%p1 bra $L__BB0_1;
	ld.global.f32 %f5, [%rd1];
	st.global.v4.f32 [%rd3], {%f1, %f2, %f3, %f4};
	ret;
}
"""
    uses = ptx.operand_uses(text, "k")
    assert uses == {"LDG.E.128": {"B"}, "STG.E.128": {"C"}, "LDGSTS": set()}
    assert ptx.entry_params(text, "k") == ["pointer", "pointer", "pointer"]
    assert ptx.operand_uses(text, "missing") is None


@pytest.mark.parametrize("rule,opcode,matches", [
    ("LDL", "LDL", True), ("LDL", "LDL.64", True), ("LDL", "LDG.E", False),
    ("LDG.E.128", "LDG.E.128", True), ("LDG.E.128", "LDG.E.128.CONSTANT", True), ("LDG.E.128", "LDG.E", False),
    ("LDG.E.32", "LDG.E", True), ("LDG.E.32", "LDG.E.CONSTANT", True), ("LDG.E.32", "LDG.E.128", False),
    ("LDG", "LDGSTS.E.BYPASS.128", False), ("LDGSTS", "LDGSTS.E.BYPASS.LTC128B.128", True),
    ("BAR.SYNC", "BAR.SYNC.DEFER_BLOCKING", True), ("BAR.SYNC", "BAR.ARV", False),
])
def test_sass_rule_matching(rule, opcode, matches):
    assert static.rule_matches(rule, opcode) is matches


@needs_compiler
def test_sass_check_names_each_rule(tmp_path):
    _write_exercise(tmp_path, GOOD_YAML)
    s = specs.load("m04-e7", tmp_path)
    scalar = ('extern "C" __global__ void my_sgemm(const float* A, const float* B, float* C, int M, int N, int K,'
              " int lda, int ldb, int ldc, float alpha, float beta) { C[threadIdx.x] = A[threadIdx.x]; }\n")
    result = static.sass_check(s, scalar, "a.cu")
    assert result.diagnosis == "missing_instruction" and "LDG.E.128" in result.message_ko
    spill = scalar.replace("{ C[threadIdx.x] = A[threadIdx.x]; }",
                           "{ float t[64]; for (int i = 0; i < K; ++i) t[(i * lda) & 63] += A[i]; C[0] = t[M & 63]; }")
    result = static.sass_check(s, spill, "b.cu")
    assert result.status == "fail" and "local_memory" in result.details["diagnoses"]


# ----------------------------------------------------------------------------- shapes and seeds

@pytest.mark.parametrize("exercise_id", SGEMM_IDS)
def test_shapes_honour_the_exercise_constraints(exercise_id):
    s = BY_ID[exercise_id]
    plan = cases.correctness_cases(s, seed=7)
    assert plan == cases.correctness_cases(s, seed=7)   # seeded: the same list for the same seed
    assert len(plan) >= 12
    everything = plan + cases.hazard_cases(s, 7) + cases.differential_cases(s, 7) + [cases.speed_case(s)]
    for c in everything:
        assert all(v % s.multiple_of[d] == 0 and v >= 1 for d, v in zip("MNK", (c.M, c.N, c.K)))
        if s.aligned16:
            assert all(ld % 4 == 0 for ld in cases.leading_dims(s, c))
    assert any(c.beta == 0.0 for c in plan[:3]) and any(c.beta != 0.0 for c in plan)
    assert any(c.edge for c in plan) and any(not c.edge for c in plan)


@pytest.mark.parametrize("exercise_id", SGEMM_IDS)
def test_every_stage_gives_b_and_c_different_row_strides(exercise_id):
    """A kernel that indexes C with ldb (or A with ldb ...) fails: padded rows everywhere, all three lds apart."""
    s = BY_ID[exercise_id]
    for seed in (0, 1, 12345):
        plan = cases.correctness_cases(s, seed)
        padded = [c for c in plan if c.padded]
        assert len(padded) >= len(plan) - 1                       # one tight case (ld = width) at most
        for stage in (padded, cases.hazard_cases(s, seed), cases.differential_cases(s, seed), [cases.speed_case(s)]):
            for c in stage:
                lda, ldb, ldc = cases.leading_dims(s, c)
                assert ldb != ldc and (ldb > c.N or ldc > c.N), (exercise_id, c)
        fixed = [c for c in padded if not c.drawn]
        # both orders among the fixed cases: a swapped stride writes past a row in one, short of it in the other
        assert any(c.pad_b > c.pad_c for c in fixed) and any(c.pad_b < c.pad_c for c in fixed)


@pytest.mark.parametrize("exercise_id", SGEMM_IDS)
def test_whole_tile_cases_exercise_the_product(exercise_id):
    """The 'edges only' hint needs whole-tile cases where a product bug shows: alpha != 0 and beta != 0."""
    s = BY_ID[exercise_id]
    whole = [c for c in cases.correctness_cases(s, 3) if not c.edge]
    assert any(c.alpha not in (0.0, 1.0) and c.beta != 0.0 for c in whole if not c.drawn)
    assert any(c.drawn for c in whole)                         # and one drawn from the seed


def test_drawn_cases_change_with_the_seed_and_fixed_ones_do_not():
    s = BY_ID["m06-e1"]
    runs = [cases.correctness_cases(s, seed) for seed in range(6)]
    fixed = [[c for c in run if not c.drawn] for run in runs]
    drawn = [tuple((c.M, c.N, c.K, c.alpha, c.beta) for c in run if c.drawn) for run in runs]
    assert all(f == fixed[0] for f in fixed)
    assert len(set(drawn)) == len(drawn)                       # every seed draws its own shapes
    assert all(len(d) >= 5 for d in drawn)
    assert cases.new_seed() != cases.new_seed() or cases.new_seed() != cases.new_seed()
    assert all(0 <= cases.new_seed() < cases.SEED_LIMIT for _ in range(20))


def test_a_kernel_fitted_to_the_fixed_shapes_meets_shapes_it_has_not_seen():
    """What wrong_fixed_shapes_only.cu relies on: the drawn shapes are not among the fixed ones."""
    s = BY_ID["m05-e1"]
    fixed = {(c.M, c.N, c.K) for c in cases.correctness_cases(s, 0) if not c.drawn}
    for seed in range(20):
        assert any((c.M, c.N, c.K) not in fixed for c in cases.correctness_cases(s, seed) if c.drawn)


# ----------------------------------------------------------------------------- subprocess, status channel, printf

def _fake_worker(*events, printed=(), sleep=120.0, flood_bytes=0) -> tuple:
    """A stand-in worker: prints `printed` lines on stdout (the kernel's printf), writes `events` to the
    status file (its last argument) and then sleeps. Extra arguments are ignored like the real worker's."""
    script = (
        "import json, sys, time\n"
        "status = open(sys.argv[-1], 'a')\n"
        f"for line in {list(printed)!r}: print(line, flush=True)\n"
        f"sys.stdout.write('x' * {flood_bytes}); sys.stdout.flush()\n"
        f"for e in {list(events)!r}: status.write(json.dumps(e) + '\\n'); status.flush()\n"
        f"time.sleep({sleep})\n")
    return (sys.executable, "-c", script)


def test_a_worker_that_never_ends_is_killed_at_its_limit():
    ready, stage = {"event": "ready"}, {"event": "stage", "what": "33×65×17"}
    run = gpu.run_worker({"mode": "correctness"}, time_limit=2.0, wrapper=_fake_worker(ready, stage))
    assert run.timed_out and run.seconds < 30 and run.stage == "33×65×17"
    result = gpu._abnormal("correctness", run, 2.0)
    assert result.diagnosis == "timeout" and "33×65×17" in result.message_ko and "제한 시간 2초" in result.message_ko


def test_the_kernel_clock_starts_when_the_worker_is_ready():
    """A slow start (cold caches) is not the learner's time; a start that never ends is reported as such."""
    import time

    slow_start = (sys.executable, "-c", "import json, sys, time; s = open(sys.argv[-1], 'a'); time.sleep(3); "
                                        "s.write(json.dumps({'event': 'ready'}) + '\\n'); s.flush(); time.sleep(1); "
                                        "s.write(json.dumps({'event': 'result'}) + '\\n'); s.flush()")
    run = gpu.run_worker({"mode": "correctness"}, time_limit=2.0, wrapper=slow_start, startup_limit=20.0)
    assert not run.timed_out and run.last("result") is not None and run.seconds >= 3
    started = time.monotonic()
    stuck = gpu.run_worker({"mode": "correctness"}, time_limit=1.0, wrapper=_fake_worker(), startup_limit=2.0)
    assert stuck.timed_out and time.monotonic() - started < 30
    assert "준비" in gpu._abnormal("correctness", stuck, 1.0).message_ko


FORGED = ['{"event": "ready"}', '{"event": "stage", "what": "FORGED STAGE"}', '{"event": "fault", "error": "forged"}',
          '{"event": "result", "device": "forged", "cases": []}', "\x1b[2K\x1b[1A 지워진 줄"]


def test_printed_lines_that_look_like_events_are_never_read_as_events():
    """The kernel's printf shares nothing with the checker's status channel."""
    events = ({"event": "ready"}, {"event": "stage", "what": "정확성 7×5×3"},
              {"event": "result", "device": "GPU", "cases": [{"outcome": "ok"}]})
    run = gpu.run_worker({"mode": "correctness"}, time_limit=20.0, wrapper=_fake_worker(*events, printed=FORGED, sleep=0))
    assert not run.timed_out
    assert [e["event"] for e in run.events] == ["ready", "stage", "result"]
    assert run.stage == "정확성 7×5×3" and run.last("fault") is None and run.last("result")["device"] == "GPU"
    assert gpu._abnormal("correctness", run, 20.0) is None
    shown = gpu.kernel_output(run)
    assert "FORGED STAGE" in shown and "\x1b" not in shown and "\\x1b" in shown   # shown, escaped, not obeyed


def test_a_printf_flood_is_capped_and_named_when_it_runs_out_the_clock():
    run = gpu.run_worker({"mode": "correctness"}, time_limit=2.0,
                         wrapper=_fake_worker({"event": "ready"}, {"event": "stage", "what": "정확성 33×65×17"},
                                              printed=['{"event": "stage", "what": "printf text"}'] * 50,
                                              flood_bytes=3 * gpu.OUTPUT_CAP))
    assert run.timed_out and run.stdout_bytes > gpu.OUTPUT_CAP >= len(run.stdout.encode("utf-8"))
    result = gpu._abnormal("correctness", run, 2.0)
    assert result.diagnosis == "timeout" and run.stage == "정확성 33×65×17"
    assert "마지막으로 하던 일: 정확성 33×65×17" in result.message_ko and "printf text\"}. " not in result.message_ko
    assert "printf로" in result.message_ko and f"{run.stdout_bytes:,}바이트" in result.message_ko
    shown = result.message_ko.split("커널이 printf로 출력한 내용", 1)[1]
    assert shown.count("\n    ") <= gpu.SHOWN_OUTPUT_LINES


def test_fault_and_crash_events_become_fault_verdicts():
    fault = gpu.WorkerRun(False, 0, [{"event": "stage", "what": "1×1×1"},
                                     {"event": "fault", "error": "CUDARuntimeError: cudaErrorIllegalAddress"}])
    result = gpu._abnormal("correctness", fault, 10)
    assert result.diagnosis == "fault" and "cudaErrorIllegalAddress" in result.message_ko
    crash = gpu.WorkerRun(False, -11, [], stderr="Segmentation fault")
    assert gpu._abnormal("speed", crash, 10).diagnosis == "fault"


SANITIZER_OUTPUT = """========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at my_sgemm+0x3f0 in m06-e1_cell.cu:24
=========     and Read access at my_sgemm+0x480 in m06-e1_cell.cu:28 [1024 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"""


def test_sanitizer_reports_point_at_source_lines():
    source = "\n".join(f"line {i}" for i in range(1, 40))
    parsed = gpu.parse_sanitizer(SANITIZER_OUTPUT.splitlines(), source)
    assert parsed["errors"][0].startswith("Error: Race reported")
    assert [ln["line"] for ln in parsed["lines"]] == [24, 28] and parsed["lines"][0]["code"] == "line 24"
    assert "RACECHECK SUMMARY" in parsed["summary"]
    runs = {"racecheck": gpu.WorkerRun(False, 3, [{"event": "result"}], sanitizer_text=SANITIZER_OUTPUT)}
    result = gpu._hazard_result(runs, [], gpu.Limits(), source)
    assert result.diagnosis == "race" and "24행" in result.message_ko and "__syncthreads()" in result.message_ko
    assert "타일" in result.message_ko                          # an SGEMM's advice speaks of tiles
    reduce = gpu._hazard_result(runs, [], gpu.Limits(), source, "splitk_reduce")
    assert reduce.diagnosis == "race" and "__syncthreads()" in reduce.message_ko and "타일" not in reduce.message_ko


# ----------------------------------------------------------------------------- verdicts

def _verdict(*statuses):
    checks = [CheckResult(c, st, d) for c, (st, d) in zip(CHECKS, statuses)]
    return Verdict("m06-e1", "a.cu", checks)


def test_the_root_cause_names_the_verdict():
    v = _verdict(("pass", None), ("fail", "local_memory"), ("fail", "wrong_values"), ("fail", "race"), ("skip", None))
    assert v.diagnosis == "race" and not v.passed and v.complete is False
    assert _verdict(*[("pass", None)] * 5).passed
    cpu_only = _verdict(("pass", None), ("pass", None), ("skip", None), ("skip", None), ("skip", None))
    assert not cpu_only.passed and cpu_only.diagnosis is None and "건너뛴" in cpu_only.summary_ko()


def test_the_verdict_records_its_seed_and_how_to_replay_it():
    v = _verdict(("pass", None), ("pass", None), ("fail", "wrong_values"), ("pass", None), ("skip", None))
    v.seed = 123456
    again = Verdict.from_dict(json.loads(json.dumps(v.to_dict())))
    assert again.seed == 123456 and again.to_dict()["seed"] == 123456
    assert "--seed 123456" in v.text() and "123456" in verdict_table_html(v.to_dict())
    assert Verdict.from_dict({k: val for k, val in v.to_dict().items() if k != "seed"}).seed is None   # old records


@needs_compiler
def test_a_check_without_a_gpu_records_no_seed_and_a_seeded_plan_replays():
    s = BY_ID["m04-e1"]
    verdict = check_source(s, read_source_file(s.solution), "solution.cu", seed=99)
    assert verdict.seed is None and "--seed" not in verdict.text()        # nothing was drawn
    assert cases.correctness_cases(s, 99) == cases.correctness_cases(s, 99)


def test_verdict_round_trip_and_accessible_table():
    v = _verdict(("pass", None), ("pass", None), ("fail", "unwritten_output"), ("pass", None), ("skip", None))
    again = Verdict.from_dict(json.loads(json.dumps(v.to_dict())))
    assert again.to_dict() == v.to_dict()
    markup = verdict_table_html(v.to_dict(), "판정")
    assert "<caption>판정</caption>" in markup and markup.count('scope="col"') == 4 and markup.count('scope="row"') == 5
    assert "실패 (fail)" in markup and "unwritten_output" in markup
    with pytest.raises(ValueError):
        CheckResult("compile", "fail", "leading_dimension")


# ----------------------------------------------------------------------------- CLI

def test_cli_list_and_show():
    listed = run_cli("exercise", "list")
    assert listed.returncode == 0 and all(s.id in listed.stdout for s in EXERCISES)
    shown = run_cli("exercise", "show", "m06-e1")
    assert shown.returncode == 0 and "속도" in shown.stdout and BY_ID["m06-e1"].speed_reference in shown.stdout


@pytest.mark.parametrize("option,value,fragment", [
    ("--time-limit", "-5", "0보다 크고"), ("--time-limit", "0", "0보다 크고"), ("--time-limit", "nan", "0보다 크고"),
    ("--time-limit", "inf", "0보다 크고"), ("--time-limit", "1e9", "0보다 크고"), ("--time-limit", "soon", "초 단위"),
    ("--seed", "-1", "0 이상"), ("--seed", "4294967296", "이하"), ("--seed", "1.5", "정수"), ("--seed", "abc", "정수"),
])
def test_cli_refuses_bad_option_values_with_a_korean_message(tmp_path, option, value, fragment):
    kernel = tmp_path / "k.cu"
    kernel.write_text(SIGNATURE_OK, encoding="utf-8")
    proc = run_cli("exercise", "check", "m04-e1", kernel, option, value)
    assert proc.returncode == 2 and fragment in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    code = run_cli("grade-code", "--exercise", "m04-e1", "--submissions", tmp_path, "--out", tmp_path / "o.csv",
                   option, value)
    assert code.returncode == 2 and fragment in code.stderr


def test_cli_refuses_a_malformed_exercise_id_and_accepts_a_seed(tmp_path):
    bad = run_cli("exercise", "check", "../m04-e1", tmp_path / "k.cu")
    assert bad.returncode == 2 and "m06-e1 같은 형식" in bad.stderr
    kernel = tmp_path / "k.cu"
    kernel.write_text("// only a comment: __global__\n", encoding="utf-8")
    proc = run_cli("exercise", "check", "m04-e1", kernel, "--seed", "4294967295", "--time-limit", "30")
    assert proc.returncode == 2 and "주석 안에만" in proc.stderr


def test_cli_errors_for_missing_exercise_and_non_cuda_files(tmp_path):
    missing = run_cli("exercise", "check", "m99-e1", tmp_path / "a.cu")
    assert missing.returncode == 2 and "알 수 없는 실습 번호" in missing.stderr
    python_file = tmp_path / "kernel.py"
    python_file.write_text("import cupy\nprint(1)\n", encoding="utf-8")
    not_cuda = run_cli("exercise", "check", "m06-e1", python_file)
    assert not_cuda.returncode == 2 and "CUDA 소스가 아닙니다" in not_cuda.stderr and "Traceback" not in not_cuda.stderr
    no_file = run_cli("exercise", "check", "m06-e1", tmp_path / "nope.cu")
    assert no_file.returncode == 2 and "파일이 없습니다" in no_file.stderr
    empty = tmp_path / "empty.cu"
    empty.write_text("", encoding="utf-8")
    assert run_cli("exercise", "check", "m06-e1", empty).returncode == 2


@needs_compiler
def test_cli_check_without_gpu_runs_compile_and_sass(tmp_path):
    s = BY_ID["m06-e1"]
    ok = run_cli("exercise", "check", "m06-e1", s.solution, "--json")
    assert ok.returncode == 4, ok.stderr
    verdict = json.loads(ok.stdout)
    assert [c["status"] for c in verdict["checks"]] == ["pass", "pass", "skip", "skip", "skip"]
    assert "GPU" in verdict["checks"][2]["message_ko"] and "python -m course exercise check" in verdict["checks"][2]["message_ko"]
    broken = tmp_path / "broken.cu"
    broken.write_text(read_source_file(s.solution).replace("__syncthreads();", "__syncthreads()", 1), encoding="utf-8")
    failed = run_cli("exercise", "check", "m06-e1", broken)
    assert failed.returncode == 1 and "compile_error" in failed.stdout


# ----------------------------------------------------------------------------- grade-code

@needs_compiler
def test_grade_code_on_a_messy_folder(tmp_path):
    s = BY_ID["m04-e1"]
    sub = tmp_path / "제출 폴더"
    (sub / "홍길동").mkdir(parents=True)
    (sub / "홍길동" / "my kernel.cu").write_text(read_source_file(s.solution), encoding="utf-8")
    (sub / "홍길동" / "notes.txt").write_text("메모", encoding="utf-8")
    (sub / "=cmd").mkdir()
    (sub / "=cmd" / "k.cu").write_text(read_source_file(s.starter).replace("{", "{ int x = ;", 1), encoding="utf-8")
    (sub / "empty.cu").write_text("", encoding="utf-8")
    (sub / "legacy.cu").write_bytes("// 한글\n".encode("euc-kr") + b"__global__ void f() {}\n")
    (sub / "script.cu").write_text("import os\n", encoding="utf-8")
    (sub / "link.cu").symlink_to(s.solution)
    (sub / "linked_dir").symlink_to(tmp_path, target_is_directory=True)
    out = tmp_path / "out.csv"
    proc = run_cli("grade-code", "--exercise", "m04-e1", "--submissions", sub, "--out", out, "--time-limit", "30")
    assert proc.returncode == 3, proc.stderr
    with open(out, encoding="utf-8-sig", newline="") as handle:
        rows = {r["file"]: r for r in csv.DictReader(handle)}
    assert set(rows) == {"홍길동/my kernel.cu", "'=cmd/k.cu"}   # spreadsheet-safe: a formula-like cell gets an apostrophe
    good = rows["홍길동/my kernel.cu"]
    assert good["learner"] == "홍길동" and good["compile_status"] == "pass" and good["sass_status"] == "pass"
    assert good["correctness_status"] == "skip" and good["passed"] == "incomplete"
    bad = rows["'=cmd/k.cu"]
    assert bad["learner"] == "'=cmd" and bad["compile_diagnosis"] == "compile_error" and bad["passed"] == "no"
    with open(tmp_path / "out_problems.csv", encoding="utf-8-sig", newline="") as handle:
        problems = {r["file"]: r["kind"] for r in csv.DictReader(handle)}
    assert problems == {"홍길동/notes.txt": "not_cuda_file", "empty.cu": "empty", "legacy.cu": "unreadable",
                        "script.cu": "not_cuda", "link.cu": "symlink", "linked_dir": "symlink"}
    assert "학생이 낸 코드" in proc.stderr


@needs_compiler
def test_grade_code_reads_no_hard_link_to_outside_and_records_seeds(tmp_path):
    s = BY_ID["m04-e1"]
    outside, sub = tmp_path / "outside", tmp_path / "subs"
    outside.mkdir()
    sub.mkdir()
    (outside / "secret.cu").write_text(read_source_file(s.solution), encoding="utf-8")
    os.link(outside / "secret.cu", sub / "linked.cu")                   # a hard link: no symlink bit to see
    (sub / "홍길동.cu").write_text(read_source_file(s.solution), encoding="utf-8")
    (sub / "twin_a.cu").write_text(read_source_file(s.solution), encoding="utf-8")
    os.link(sub / "twin_a.cu", sub / "twin_b.cu")                        # both names inside: fine
    out = tmp_path / "out.csv"
    proc = run_cli("grade-code", "--exercise", "m04-e1", "--submissions", sub, "--out", out, "--time-limit", "30",
                   "--seed", "77")
    assert proc.returncode == 3, proc.stderr
    with open(out, encoding="utf-8-sig", newline="") as handle:
        rows = {r["file"]: r for r in csv.DictReader(handle)}
    assert set(rows) == {"홍길동.cu", "twin_a.cu", "twin_b.cu"} and {r["seed"] for r in rows.values()} == {"77"}
    assert rows["홍길동.cu"]["learner"] == "홍길동"
    with open(tmp_path / "out_problems.csv", encoding="utf-8-sig", newline="") as handle:
        problems = {r["file"]: r for r in csv.DictReader(handle)}
    assert problems["linked.cu"]["kind"] == "hardlink" and "하드 링크" in problems["linked.cu"]["reason"]


def test_grade_code_usage_errors(tmp_path):
    assert run_cli("grade-code", "--exercise", "m99-e1", "--submissions", tmp_path, "--out", tmp_path / "o.csv").returncode == 2
    missing = run_cli("grade-code", "--exercise", "m04-e1", "--submissions", tmp_path / "nope", "--out", tmp_path / "o.csv")
    assert missing.returncode == 2 and "제출 폴더" in missing.stderr
    help_text = run_cli("grade-code", "--help").stdout
    assert "runs learners' code" in help_text and "exit codes" in help_text


# ----------------------------------------------------------------------------- progress and the notebook

def test_progress_keeps_exercise_attempts_and_hints(tmp_path):
    from course.quiz.progress import ProgressStore

    store = ProgressStore(tmp_path)
    v = _verdict(("pass", None), ("pass", None), ("fail", "race"), ("fail", "race"), ("skip", None)).to_dict()
    store.record_exercise_attempt(v, module=6)
    assert store.unlock_exercise_hint("m06-e1", 2) == 1 and store.unlock_exercise_hint("m06-e1", 2) == 2
    assert store.unlock_exercise_hint("m06-e1", 2) == 2
    fresh = ProgressStore(tmp_path)
    [attempt] = fresh.exercise_attempts("m06-e1")
    assert attempt["diagnosis"] == "race" and attempt["checks"]["speed"] == "skip" and not attempt["passed"]
    assert fresh.exercise_hints_unlocked("m06-e1") == 2 and not fresh.exercise_passed("m06-e1")
    # a damaged file: the exercise attempts are salvaged like the quiz attempts
    (tmp_path / "progress.json").write_text((tmp_path / "progress.json").read_text(encoding="utf-8")[:-40],
                                            encoding="utf-8")
    (tmp_path / "progress.json.bak").unlink()
    recovered = ProgressStore(tmp_path)
    assert [a["id"] for a in recovered.exercise_attempts()] == [attempt["id"]]
    assert any("실습 기록 1개" in n for n in recovered.notices)


def test_lab_session_checks_hints_and_solution(tmp_path):
    from course.autograder.lab import LabSession
    from course.quiz.progress import ProgressStore

    s = BY_ID["m06-e1"]
    session = LabSession(ProgressStore(tmp_path))
    text, note = session.start("m06-e1")
    assert text == f"%%exercise m06-e1\n{read_source_file(s.starter).rstrip()}\n" and "%%exercise" in repr(note)
    assert session.start("m99-e1")[0] is None
    refused = session.solution("m06-e1")
    assert "한 번 이상 제출한 뒤" in repr(refused)
    first = session.hint("m06-e1")
    assert "힌트 1/" in repr(first) and s.hints_ko[0] in repr(first) and s.hints_ko[1] not in repr(first)
    second = session.hint("m06-e1")
    assert s.hints_ko[1] in repr(second)
    assert "실습 번호" in repr(session.check("", "x")) and "알 수 없는" in repr(session.check("m99-e1", "x"))
    assert "not_cuda" in repr(session.check("m06-e1", "print('hello')"))
    if _compiler_ready():
        verdict = session.check("m06-e1", read_source_file(s.starter))
        assert verdict.result("correctness").status == "skip"
        assert "<table" in verdict._repr_html_() and len(session.store.exercise_attempts("m06-e1")) == 1
        shown = session.solution("m06-e1")
        assert read_source_file(s.solution).splitlines()[0] in repr(shown)
        assert "<pre" in shown._repr_html_()


def test_magics_register_in_ipython(tmp_path, monkeypatch):
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    from course.notebook import exercise_magic

    monkeypatch.setenv("SGEMM_COURSE_DATA", str(tmp_path))
    shell = InteractiveShell.instance()
    exercise_magic.load_ipython_extension(shell)
    assert {"exercise"} <= set(shell.magics_manager.magics["cell"])
    assert {"exercise_start", "exercise_hint", "exercise_solution", "exercise_show"} <= set(shell.magics_manager.magics["line"])
    shell.run_line_magic("exercise_start", "m04-e1")
    assert shell.rl_next_input.startswith("%%exercise m04-e1\n")   # the terminal's stand-in for replacing the cell
    note = shell.run_line_magic("exercise_hint", "m04-e1")
    assert "힌트 1/" in repr(note)


# ----------------------------------------------------------------------------- site and chapters

@pytest.mark.parametrize("module,page", sorted(CHAPTERS.items()))
def test_chapters_show_a_card_and_a_skipped_start_cell_per_exercise(module, page):
    text = (REPO / "book" / f"{page}.md").read_text(encoding="utf-8")
    assert "## 실습: 직접 짜 보기" in text
    assert re.search(r":tags: \[skip-execution\]\n%load_ext course\.notebook\.exercise_magic\n", text)
    for s in (s for s in EXERCISES if s.module == module):
        assert re.search(r":tags: \[remove-input\]\nfrom course\.autograder\.page import card\n\ncard\(\"" + s.id, text), \
            f"{page}: no card cell for {s.id}"
        assert re.search(r":tags: \[skip-execution\]\n%exercise_start " + re.escape(s.id) + r"\n", text), \
            f"{page}: no %exercise_start {s.id} cell tagged skip-execution"
        # the starter is read from starter.cu (card, %exercise_start), never pasted into the chapter
        todo = next(ln.strip() for ln in read_source_file(s.starter).splitlines() if "할 일" in ln)
        assert todo not in text


def test_cards_render_with_and_without_recorded_verdicts():
    from course.autograder import page

    for s in EXERCISES:
        bare = page.card_html(s.id, data={})
        assert "아직 기록되지 않았습니다" in bare and s.title_ko.split()[0] in bare
        todo = next(ln for ln in read_source_file(s.starter).splitlines() if "할 일" in ln)
        assert html.escape(todo.strip()) in bare and f"%exercise_start {s.id}" in bare and f"%exercise_hint {s.id}" in bare
        assert "<details" in bare and "시작 코드 보기" in bare
        assert bare.count("<caption>") == 1 and 'scope="row"' in bare
    assert "m04-e1" in page.index_html(data={})


# ----------------------------------------------------------------------------- recorded evidence

def _record() -> dict:
    return json.loads(RECORD.read_text(encoding="utf-8"))


def _current_record() -> bool:
    from course.autograder import CHECKER_VERSION

    return RECORD.exists() and _record().get("checker", {}).get("version", 1) >= CHECKER_VERSION


@pytest.mark.skipif(not RECORD.exists(), reason="book/data/exercises.json is not recorded yet")
def test_recorded_verdicts_show_every_solution_passing_and_every_diagnosis_matching():
    """The record's evidence holds for what it recorded; a record by an older checker covers only the
    attempts it knew (the newer ones: the next test)."""
    data = _record()
    for key in ("device", "driver", "cupy", "date", "command", "git_commit"):
        assert data.get(key), key
    # recorded on a GPU whose configuration is the shipped one (H100 or H200: cc 9.0, the same limits class)
    assert data["compute_capability"] in ("9.0", [9, 0], (9, 0)) and ("H100" in data["device"] or "H200" in data["device"])
    assert set(data["exercises"]) == set(BY_ID)
    for exercise_id, entry in data["exercises"].items():
        solution = entry["solution"]
        assert solution["passed"] and all(c["status"] == "pass" for c in solution["checks"]), exercise_id
        assert solution["checks"][4]["details"]["ratio"] >= BY_ID[exercise_id].min_ratio
        recorded = {w["file"]: w for w in entry["wrong_attempts"]}
        known = {w.file for w in BY_ID[exercise_id].wrong_attempts}
        assert set(recorded) <= known and (set(recorded) == known or not _current_record())
        for w in BY_ID[exercise_id].wrong_attempts:
            if w.file not in recorded:
                continue
            got = recorded[w.file]
            assert got["expected"] == w.diagnosis and got["got"] == w.diagnosis and got["matches"], (
                f"{exercise_id}/{w.file}: the yaml names {w.diagnosis}, the recorded verdict got {got['got']}; "
                "fix the attempt (or the checker) and re-record on a GPU: bash tools/gpu/record_exercises.sh")
            assert got["verdict"]["diagnosis"] == w.diagnosis and not got["verdict"]["passed"]
    assert data["all_solutions_pass"] and data["all_diagnoses_match"]
    diagnoses = {w["got"] for e in data["exercises"].values() for w in e["wrong_attempts"]}
    assert {"race", "out_of_bounds", "too_slow"} <= diagnoses


def test_every_wrong_attempt_is_recorded_by_the_current_checker():
    if not _current_record():
        missing = [f"{s.id}/{w.file}" for s in EXERCISES for w in s.wrong_attempts
                   if w.file not in {x["file"] for x in _record()["exercises"].get(s.id, {}).get("wrong_attempts", [])}] \
            if RECORD.exists() else ["(no record)"]
        pytest.skip("book/data/exercises.json comes from an older checker; run tools/gpu/record_exercises.sh on a GPU and "
                    f"copy its exercises.json to book/data/ (not yet recorded: {', '.join(missing)})")
    data = _record()
    for s in EXERCISES:
        assert {w["file"] for w in data["exercises"][s.id]["wrong_attempts"]} == {w.file for w in s.wrong_attempts}
        assert data["exercises"][s.id]["solution"].get("seed") is not None


def test_fault_advice_names_the_cause():
    misaligned = gpu.WorkerRun(False, 0, [{"event": "fault", "error": "CUDARuntimeError: cudaErrorMisalignedAddress"}])
    assert "16바이트" in gpu._abnormal("correctness", misaligned, 10).message_ko
    illegal = gpu.WorkerRun(False, 0, [{"event": "fault", "error": "cudaErrorIllegalAddress: an illegal memory access"}])
    assert "경계 검사" in gpu._abnormal("correctness", illegal, 10).message_ko


def test_the_record_tool_tables_every_submission_with_its_reason(monkeypatch, capsys):
    """tools/record_exercises.py on made-up verdicts (the GPU run itself: tools/gpu/record_exercises.sh)."""
    import importlib.util
    import types

    spec_file = importlib.util.spec_from_file_location("record_exercises", REPO / "tools" / "record_exercises.py")
    tool = importlib.util.module_from_spec(spec_file)
    spec_file.loader.exec_module(tool)
    monkeypatch.setattr(tool, "provenance", lambda command: {"device": "test", "command": command})
    s = BY_ID["m04-e1"]
    passed = _verdict(*[("pass", None)] * 5)
    passed.checks[2].details["shared_junk_seen"] = 1.0
    passed.seed = 5
    wrong = _verdict(("pass", None), ("pass", None), ("fail", "out_of_bounds"), ("fail", "out_of_bounds"), ("skip", None))
    wrong.checks[2].message_ko = "14가지 중 9가지에서 틀립니다. 처음 틀린 경우: 3번째 …\nmore"
    items = [{"exercise": s, "role": "solution", "file": "solution.cu", "expected": None, "what_ko": "",
              "verdict": passed, "check_seconds": {"compile": 1.0, "correctness": 12.0, "speed": 9.0}},
             {"exercise": s, "role": "wrong", "file": "wrong_ldb_for_ldc.cu", "expected": "out_of_bounds",
              "what_ko": "x", "verdict": wrong, "check_seconds": {"correctness": 8.0}},
             {"exercise": s, "role": "wrong", "file": "wrong_signature.cu", "expected": "wrong_signature",
              "what_ko": "y", "verdict": wrong, "check_seconds": {}}]
    args = types.SimpleNamespace(argv=["--only", "m04-e1"], reps=10, jobs=4, seed=None)
    record, problems = tool.record_of([s], items, args, gpu.Limits(), 0.0)
    assert record["checker"]["version"] >= 2 and not record["all_diagnoses_match"]
    assert problems == ["m04-e1/wrong_signature.cu: expected wrong_signature, got out_of_bounds (seed None)"]
    tool.print_table(items)
    tool.print_fill_and_limits(items, gpu.Limits())
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "wrong_ldb_for_ldc" in line)
    assert "out_of_bounds" in row and " yes " in row and "처음 틀린 경우: 3번째" in row and "more" not in row
    assert " NO " in next(line for line in out.splitlines() if "wrong_signature" in line)
    assert "fill seen by a fresh block: 1.0" in out and "correctness 12 s of 60 s" in out


@pytest.mark.parametrize("value,expected", [("30", 30.0), ("-5", 60.0), ("nan", 60.0), ("inf", 60.0), ("abc", 60.0),
                                            ("1e9", 60.0)])
def test_the_notebooks_time_limit_setting_is_validated(monkeypatch, value, expected):
    from course.autograder import lab
    monkeypatch.setenv(lab.TIME_LIMIT_ENV, value)
    assert lab._limits().correctness == expected
