"""`python -m kernels doctor`: a clear, correct answer with and without a GPU, and the right fix for what is missing."""
from __future__ import annotations

import builtins
import json
import subprocess
import sys

import pytest

from conftest import REPO, gpu_present
from kernels import doctor


def _run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernels", "doctor", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.skipif(gpu_present(), reason="this machine has a GPU")
def test_without_a_gpu_the_doctor_says_so_and_what_still_works():
    out = _run_cli("--json")
    assert out.returncode == 0, "without a GPU the doctor informs; `make doctor` must not fail"
    report = json.loads(out.stdout)
    checks = {c["key"]: c for c in report["checks"]}
    assert not report["ok"]
    assert checks["driver"]["status"] in ("fail",) and "드라이버" in checks["driver"]["detail"]
    assert checks["driver"]["fix"], "a missing driver must come with what to do"
    assert checks["kernel"]["status"] == "skip"
    assert "기록된 결과" in report["summary"]
    # The libraries CuPy would load are still checked without a GPU.
    assert checks["cupy"]["status"] == "ok" and checks["nvrtc"]["status"] == "ok"

    assert checks["profile"]["status"] == "ok" and "자신의 구성" in checks["profile"]["detail"]
    assert checks["configs"]["status"] == "skip"
    assert doctor.modules_text(doctor.course_modules()) in report["summary"]

    text = _run_cli()
    assert text.returncode == 0
    assert text.stdout.startswith("GPU 환경 점검") and "[문제] NVIDIA 드라이버 (driver)" in text.stdout
    assert "결론(verdict): GPU로 실행할 수 없습니다" in text.stdout


def test_missing_cublas_is_a_failure_with_the_install_command(monkeypatch):
    real_import = builtins.__import__

    def no_cublas(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "cupy_backends.cuda.libs" and fromlist and "cublas" in fromlist:
            raise ImportError('Failure finding "libcublasLt.so.12"')
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", no_cublas)
    finding = doctor.check_cublas({"passed": {"cupy"}, "cupy_cuda_major": 12})
    assert finding.status == doctor.FAIL
    assert "cuBLAS" in finding.detail and "libcublasLt" in finding.detail
    assert finding.fix.endswith("-m pip install -r requirements-gpu.txt")
    cuda13 = doctor.check_cublas({"passed": {"cupy"}, "cupy_cuda_major": 13})
    assert 'cuda-toolkit[cublas,nvrtc]==13.*' in cuda13.fix


def test_a_driver_older_than_cupys_cuda_is_refused(monkeypatch):
    state = {"driver_cuda": 11080, "passed": set()}
    finding = doctor.check_cupy(state)
    assert finding.status == doctor.FAIL and "11.8" in finding.detail and finding.fix


def test_verdict_names_the_first_failing_requirement():
    rows = [(k, doctor.Finding(doctor.OK, "", check=t)) for k, t, _, _ in doctor.CHECKS]
    assert doctor.verdict(rows)[0]
    rows[5] = ("cublas", doctor.Finding(doctor.FAIL, "x", "fix", check="cuBLAS (기준 행렬 곱)"))
    ok, summary = doctor.verdict(rows)
    assert not ok and "cuBLAS" in summary
    rows[7] = ("clocks", doctor.Finding(doctor.WARN, "throttled", "f", check="클럭 (clocks)"))
    rows[5] = ("cublas", doctor.Finding(doctor.OK, "", check="cuBLAS (기준 행렬 곱)"))
    assert doctor.verdict(rows)[0], "a warning does not stop a GPU run"


def test_a_crashing_check_becomes_a_failure_not_a_traceback(monkeypatch):
    def boom(state):
        raise ValueError("unexpected")

    table = [("tools", "도구", boom, ())]
    monkeypatch.setattr(doctor, "CHECKS", table)
    (key, finding), = doctor.run_checks()
    assert finding.status == doctor.FAIL and "ValueError" in finding.detail


@pytest.mark.gpu
def test_on_a_gpu_every_required_check_passes():
    out = _run_cli("--json")
    report = json.loads(out.stdout)
    assert out.returncode == 0, report
    assert all(c["status"] in ("ok", "warn") for c in report["checks"] if c["key"] in doctor.REQUIRED)
    configs = next(c for c in report["checks"] if c["key"] == "configs")
    # Every listed device's configuration fits it, and the H100 runs them all: every module is live.
    assert configs["status"] == "ok" and "모듈 4, 5, 6, 7, 8, 9, 10, 11" in configs["detail"], configs
    assert "sgemm_warp_tiling" in configs["detail"] and "맞음" in configs["detail"]


def test_exit_code_fails_only_when_a_gpu_is_there_and_broken():
    rows = [(k, doctor.Finding(doctor.OK, "", check=t)) for k, t, _, _ in doctor.CHECKS]
    assert doctor.exit_code(rows) == 0
    broken = [(k, doctor.Finding(doctor.FAIL, "x") if k == "cublas" else f) for k, f in rows]
    assert doctor.exit_code(broken) == 1
    no_driver = [(k, doctor.Finding(doctor.FAIL, "x") if k in ("driver", "cublas") else f) for k, f in rows]
    assert doctor.exit_code(no_driver) == 0


def test_profile_check_names_the_profile_and_refuses_unknown_names(monkeypatch):
    monkeypatch.setenv("COURSE_DEVICE_PROFILE", "T4")
    state = {}
    finding = doctor.check_profile(state)
    assert finding.status == doctor.WARN and "T4" in finding.detail and "compute_75" in finding.detail
    assert "자신의 속도가 아닙니다" in finding.detail and state["profile"].name == "T4"
    monkeypatch.setenv("COURSE_DEVICE_PROFILE", "A100-40GB")
    assert "compute_75" not in doctor.check_profile({}).detail
    monkeypatch.setenv("COURSE_DEVICE_PROFILE", "GTX480")
    bad = doctor.check_profile({})
    assert bad.status == doctor.FAIL and "GTX480" in bad.detail and "RTX3090" in bad.detail and bad.fix
    monkeypatch.setenv("COURSE_DEVICE_PROFILE", "current")
    assert doctor.check_profile({}).status == doctor.OK


def test_every_module_lists_the_kernels_its_cells_launch():
    from kernels import registry

    modules = doctor.module_kernels()
    assert set(modules) == {spec.chapter for spec in registry.KERNELS.values()} | {10} >= set(range(4, 12))
    assert set(registry.LEVEL_REPRESENTATIVE.values()) <= modules[10]
    assert {"sgemm_warp_tiling", "sgemm_async_copy_vec", "sgemm_double_buffer"} <= modules[11] | modules[9]
    assert all(name in registry.KERNELS for names in modules.values() for name in names)


# ----------------------------------------------------------------------------- hosted platforms (Colab, a JupyterHub)

COLAB_ENV = {"COLAB_RELEASE_TAG": "release-colab-20260101"}
HUB_ENV = {"JUPYTERHUB_API_URL": "http://hub:8081/hub/api", "JUPYTERHUB_USER": "learner"}


def _platform(monkeypatch, env: dict):
    for key in [k for k in __import__("os").environ if k.startswith(("COLAB_", "JUPYTERHUB_"))]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)


def test_hosted_platform_is_told_by_its_environment():
    assert doctor.hosted_platform({}) is None
    assert doctor.hosted_platform(COLAB_ENV) == doctor.COLAB
    assert doctor.hosted_platform(HUB_ENV) == doctor.HUB
    assert doctor.hosted_platform({"JUPYTERHUB_SERVICE_PREFIX": "/user/x/"}) == doctor.HUB


def test_on_colab_without_a_gpu_the_fix_is_the_runtime_type_not_a_driver(monkeypatch):
    _platform(monkeypatch, COLAB_ENV)

    def no_libcuda(*args, **kwargs):
        raise OSError("libcuda.so.1: cannot open shared object file")

    monkeypatch.setattr(doctor.ctypes, "CDLL", no_libcuda)
    finding = doctor.check_driver({})
    assert finding.status == doctor.FAIL and "Colab" in finding.detail
    assert "런타임 유형 변경" in finding.fix and "T4 GPU" in finding.fix and "ubuntu-drivers" not in finding.fix
    rows = [("driver", finding)] + [(k, doctor.Finding(doctor.SKIP, "", check=t)) for k, t, _, _ in doctor.CHECKS[1:]]
    ok, summary = doctor.verdict(rows)
    assert not ok and "런타임 유형 변경" in summary and doctor.modules_text(doctor.course_modules()) in summary
    _platform(monkeypatch, HUB_ENV)
    hub = doctor.check_driver({})
    assert "Hub Control Panel" in hub.fix and "ubuntu-drivers" not in hub.fix


@pytest.mark.parametrize("env", [COLAB_ENV, HUB_ENV], ids=["colab", "jupyterhub"])
def test_on_a_hosted_platform_fixes_install_only_what_is_missing(monkeypatch, env):
    _platform(monkeypatch, env)
    fixes = {(missing, major): doctor._gpu_requirements_fix(major, missing)
             for missing in ("cupy", "cublas", "nvrtc") for major in (12, 13)}
    for fix in fixes.values():
        assert fix.startswith("!{sys.executable} -m pip install "), fix
        assert "requirements" not in fix and " -r " not in fix, "never the course's whole lock on a platform"
        for platform_package in ("numpy", "ipywidgets", "plotly", "jupyter-book", "playwright", "pytest"):
            assert platform_package not in fix
    assert '"nvidia-cublas-cu12==12.*"' in fixes[("cublas", 12)]
    assert fixes[("cublas", 12)].count("nvidia-") == (2 if env is HUB_ENV else 1)   # the Hub also gets the terminal form
    assert '"cupy-cuda12x>=13.2,<15"' in fixes[("cupy", 12)] and "cublas" not in fixes[("cupy", 12)]
    assert "cuda-toolkit[cublas]==13.*" in fixes[("cublas", 13)]


def test_on_colab_a_missing_cublas_is_fixed_by_the_cuda12_wheel_alone(monkeypatch):
    _platform(monkeypatch, COLAB_ENV)
    real_import = builtins.__import__

    def no_cublas(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "cupy_backends.cuda.libs" and fromlist and "cublas" in fromlist:
            raise ImportError('Failure finding "libcublasLt.so.12"')
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", no_cublas)
    finding = doctor.check_cublas({"passed": {"cupy"}, "cupy_cuda_major": 12})
    assert finding.fix == '!{sys.executable} -m pip install "nvidia-cublas-cu12==12.*"'


def test_off_a_platform_the_fix_stays_the_courses_gpu_requirements(monkeypatch):
    _platform(monkeypatch, {})
    assert doctor._gpu_requirements_fix(12).endswith("-m pip install -r requirements-gpu.txt")
    assert not doctor._gpu_requirements_fix(12).startswith("!")


def test_modules_come_from_the_syllabus():
    from course import syllabus

    assert doctor.course_modules() == list(syllabus.load().numbers)
    assert doctor.modules_text([4, 5, 6, 7, 8, 9, 10, 11, 12]) == "모듈 4–12"
    assert doctor.modules_text([4, 6, 9]) == "모듈 4, 6, 9"
    assert set(doctor.module_kernels()) <= set(doctor.course_modules())
