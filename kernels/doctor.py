"""`python -m kernels doctor`: can this machine run the course's kernels, and if not, what fixes it?

Checks, in the order a GPU run needs them: the NVIDIA driver (through libcuda, no CuPy needed), a visible
GPU, the CuPy package and the CUDA version it was built for, NVRTC (run-time compilation), cuBLAS (the
reference every kernel is checked against), the compute capability, clocks, free memory, and finally one
course kernel checked against cuBLAS end to end. Each finding says in Korean (with the English term) what
was found and, when something is missing, the one command that fixes it.

It also says whether a device profile (COURSE_DEVICE_PROFILE) is active, lists each level's configuration
on this GPU (kernels/configs.py) with whether it fits, and which chapters will therefore run live.

On a hosted notebook platform (Colab, a JupyterHub: hosted_platform) the fixes never replace what the
platform installed (its NumPy, CuPy, ipywidgets, plotly): they install only the one missing piece (e.g. the
CUDA 12 cuBLAS wheel) into the notebook's own Python, written as a notebook line (`!{sys.executable} -m pip
install ...`), and a Colab runtime without a GPU is told to switch the runtime type, not to install a driver.

Which modules exist comes from the syllabus (course/syllabus.py), read when the doctor runs (kernels/ does not
import course/ at import time; without the course package the registry's chapters stand in).

Exit code: 0 when every check a GPU run needs passed, and 0 on a machine without a GPU or driver too (the
doctor informs there: the book works with recorded results, and `make doctor` must not fail); 1 when a GPU
is present but something it needs is broken.
"""
from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

OK, WARN, FAIL, SKIP = "ok", "warn", "fail", "skip"
LABEL = {OK: "정상", WARN: "주의", FAIL: "문제", SKIP: "건너뜀"}
REPO = Path(__file__).resolve().parent.parent
MIN_FREE_BYTES = 1 << 30   # 8192³ needs 3 x 256 MiB for A, B, C plus cuBLAS's output: about 1 GiB


@dataclass
class Finding:
    status: str         # ok | warn | fail | skip
    detail: str
    fix: str = ""       # one command (or action) that fixes a warn/fail
    check: str = ""     # Korean name with the English term (filled in from CHECKS)


COLAB, HUB = "colab", "jupyterhub"
COLAB_RUNTIME_FIX = ("Colab 메뉴에서 런타임 → 런타임 유형 변경 → 하드웨어 가속기에서 T4 GPU를 고르고 저장한 뒤, "
                     "노트북을 설치 셀부터 다시 실행하세요")
# Only what is missing, one package each, at the ranges pyproject.toml's extras use (cuda12 / cuda13).
MISSING_PACKAGES = {
    ("cupy", 12): '"cupy-cuda12x>=13.2,<15"', ("cupy", 13): '"cupy-cuda13x>=14.0,<15"',
    ("cublas", 12): '"nvidia-cublas-cu12==12.*"', ("cublas", 13): '"cuda-toolkit[cublas]==13.*"',
    ("nvrtc", 12): '"nvidia-cuda-nvrtc-cu12==12.*"', ("nvrtc", 13): '"cuda-toolkit[nvrtc]==13.*"',
}


def hosted_platform(environ=None) -> str | None:
    """COLAB or HUB when this runs on a hosted notebook platform whose packages the course must not replace."""
    env = os.environ if environ is None else environ
    if env.get("COLAB_RELEASE_TAG") or env.get("COLAB_GPU") is not None or env.get("COLAB_BACKEND_VERSION"):
        return COLAB
    if any(key.startswith("JUPYTERHUB_") for key in env):
        return HUB
    return None


def _python_path() -> Path:
    python = Path(sys.executable)
    try:
        python = python.relative_to(Path.cwd())
    except ValueError:
        pass
    return python


def _pip(args: str) -> str:
    """A pip command for the Python running this check (the venv's, when run through .venv/bin/python); on a
    hosted platform written for a notebook cell, which runs it with the kernel's own Python."""
    platform = hosted_platform()
    if platform == COLAB:
        return f"!{{sys.executable}} -m pip install {args}"
    if platform == HUB:
        return f"!{{sys.executable}} -m pip install {args}   (터미널에서는: {sys.executable} -m pip install {args})"
    return f"{_python_path()} -m pip install {args}"


def _gpu_requirements_fix(cuda_major: int | None, missing: str = "cublas") -> str:
    """The command that installs what a GPU run lacks: here the course's GPU requirements; on a hosted platform
    only the `missing` piece (cupy, cublas or nvrtc) for the CUDA major version in use."""
    if hosted_platform() is not None:
        return _pip(MISSING_PACKAGES[(missing, 13 if cuda_major == 13 else 12)])
    if cuda_major == 13:
        return _pip('"cuda-toolkit[cublas,nvrtc]==13.*"')
    req = REPO / "requirements-gpu.txt"
    return _pip(f"-r {req.relative_to(Path.cwd()) if req.is_relative_to(Path.cwd()) else req}")


# ----------------------------------------------------------------------------- driver (libcuda)

class _Driver:
    """The few CUDA driver API calls the doctor needs, through ctypes (works without CuPy)."""

    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self._call("cuInit", ctypes.c_uint(0))

    def _call(self, name, *args):
        err = getattr(self.lib, name)(*args)
        if err != 0:
            raise RuntimeError(f"{name} → CUDA 오류 {err}")

    def version(self) -> int:
        v = ctypes.c_int()
        self._call("cuDriverGetVersion", ctypes.byref(v))
        return v.value

    def device_count(self) -> int:
        n = ctypes.c_int()
        self._call("cuDeviceGetCount", ctypes.byref(n))
        return n.value


def _version_text(v: int) -> str:
    return f"{v // 1000}.{(v % 1000) // 10}"


def _smi(query: str) -> list[str] | None:
    if not shutil.which("nvidia-smi"):
        return None
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0 or not out.stdout.strip():
        return None
    return [x.strip() for x in out.stdout.strip().splitlines()[0].split(",")]


def check_driver(state: dict) -> Finding:
    try:
        drv = _Driver()
        version = drv.version()
    except OSError:
        platform = hosted_platform()
        if platform == COLAB:
            return Finding(FAIL, "이 Colab 런타임에는 GPU가 없습니다 (CPU 런타임: libcuda.so.1이 없음). GPU 없이도 노트북은 "
                                 "기록된 결과(recorded results)로 실행되고, SASS 보기도 됩니다.", COLAB_RUNTIME_FIX)
        if platform == HUB:
            return Finding(FAIL, "이 JupyterHub 서버에는 GPU가 없습니다 (libcuda.so.1이 없음). GPU 없이도 노트북은 기록된 "
                                 "결과(recorded results)로 실행되고, SASS 보기도 됩니다.",
                           "File → Hub Control Panel에서 서버를 멈추고 GPU가 있는 설정으로 다시 시작하세요 "
                           "(GPU 서버가 없는 Hub라면 관리자에게 문의하세요)")
        return Finding(FAIL,
                       "libcuda.so.1을 찾을 수 없습니다. 이 컴퓨터에는 NVIDIA GPU 드라이버가 없습니다. GPU 없이도 사이트와 "
                       "노트북은 기록된 결과(recorded results)로 읽을 수 있고, SASS 보기(`python -m kernels sass`)도 됩니다.",
                       "GPU 머신이라면 NVIDIA 드라이버를 설치하세요 (Ubuntu: sudo ubuntu-drivers install)")
    except RuntimeError as err:
        return Finding(FAIL, f"드라이버가 초기화되지 않습니다 ({err}). GPU가 없거나 드라이버와 커널 모듈의 버전이 다를 수 있습니다.",
                       "nvidia-smi로 상태를 확인하고, 드라이버를 다시 설치한 뒤 재부팅하세요")
    state["driver_cuda"] = version
    state["driver_api"] = drv
    smi = _smi("driver_version")
    shown = f"{smi[0]}, " if smi else ""
    return Finding(OK, f"{shown}CUDA {_version_text(version)}까지 지원")


def check_device(state: dict) -> Finding:
    count = state["driver_api"].device_count()
    if count == 0:
        return Finding(FAIL, "드라이버는 있지만 보이는 GPU가 없습니다 (CUDA_VISIBLE_DEVICES가 비어 있을 수 있습니다).",
                       "unset CUDA_VISIBLE_DEVICES 후 다시 실행하세요")
    return Finding(OK, f"GPU {count}개")


# ----------------------------------------------------------------------------- CuPy and its libraries

def _cupy_distribution() -> tuple[str, str] | None:
    for dist in metadata.distributions():
        dist_name = (dist.metadata.get("Name") or "").lower()
        if dist_name == "cupy" or dist_name.startswith("cupy-cuda"):
            return dist_name, dist.version
    return None


def _library_path(name: str) -> str:
    """Where a CUDA library was found (pip wheel or system), as CuPy's own finder sees it."""
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib

        return load_nvidia_dynamic_lib(name).abs_path
    except Exception:
        return f"lib{name}"


def check_cupy(state: dict) -> Finding:
    try:
        import cupy
    except Exception as err:   # ImportError, or a broken install raising something else
        driver = state.get("driver_cuda")
        major = 13 if driver is not None and driver // 1000 >= 13 else 12
        return Finding(FAIL, f"CuPy를 불러올 수 없습니다 ({type(err).__name__}: {err}).",
                       _gpu_requirements_fix(major if hosted_platform() else None, "cupy"))
    runtime = cupy.cuda.runtime.runtimeGetVersion()
    state["cupy_cuda_major"] = runtime // 1000
    dist = _cupy_distribution()
    package = f"{dist[0]} {dist[1]}" if dist else f"cupy {cupy.__version__}"
    detail = f"{package}, CUDA 런타임(runtime) {_version_text(runtime)}용"
    driver = state.get("driver_cuda")
    if driver is not None and driver // 1000 < runtime // 1000:
        fix = ("드라이버를 업데이트하거나, CUDA 12용 CuPy를 쓰세요: " + _gpu_requirements_fix(12) if hosted_platform() is None
               else "플랫폼이 설치한 CuPy와 드라이버가 맞지 않습니다. CuPy를 바꾸지 말고 플랫폼 관리자에게 알리세요"
               + (" (Colab: 런타임 → 런타임 연결 해제 및 삭제 후 다시 연결)" if hosted_platform() == COLAB else ""))
        return Finding(FAIL,
                       f"{detail}: 드라이버는 CUDA {_version_text(driver)}까지만 지원하므로 이 CuPy는 GPU를 쓰지 못합니다.", fix)
    return Finding(OK, detail)


def check_runtime(state: dict) -> Finding:
    import cupy

    try:
        rt = cupy.cuda.runtime
        props = rt.getDeviceProperties(0)
    except Exception as err:
        return Finding(FAIL, f"CuPy가 GPU를 열지 못했습니다 ({err}).", "nvidia-smi로 GPU 상태를 확인하세요")
    gpu_name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    state["cc"] = (int(props["major"]), int(props["minor"]))
    state["gpu"] = gpu_name
    return Finding(OK, f"{gpu_name}, SM {props['multiProcessorCount']}개")


def check_nvrtc(state: dict) -> Finding:
    try:
        from cupy_backends.cuda.libs import nvrtc

        version = ".".join(map(str, nvrtc.getVersion()))
    except Exception as err:
        return Finding(FAIL, f"NVRTC 라이브러리를 불러오지 못했습니다 ({type(err).__name__}: {err}).",
                       _gpu_requirements_fix(state.get("cupy_cuda_major"), "nvrtc"))
    if "runtime" not in state["passed"]:
        return Finding(OK, f"NVRTC {version} 라이브러리를 찾았습니다 (커널 실행 시험은 GPU가 있어야 합니다)")
    import cupy

    try:
        kernel = cupy.RawKernel(r'extern "C" __global__ void doctor_add(float* x) { x[threadIdx.x] += 1.0f; }',
                                "doctor_add")
        x = cupy.zeros(32, dtype=cupy.float32)
        kernel((1,), (32,), (x,))
        ok = bool((x == 1).all())
    except Exception as err:
        return Finding(FAIL, f"시험 커널을 컴파일하거나 실행하지 못했습니다 ({type(err).__name__}: {err}).",
                       _gpu_requirements_fix(state.get("cupy_cuda_major"), "nvrtc"))
    if not ok:
        return Finding(FAIL, "작은 시험 커널이 틀린 값을 냈습니다.", "nvidia-smi로 GPU 상태를 확인하세요")
    return Finding(OK, f"NVRTC {version}, 시험 커널을 컴파일해 실행함")


def check_cublas(state: dict) -> Finding:
    try:
        from cupy_backends.cuda.libs import cublas  # noqa: F401  (importing it loads libcublas)
    except Exception as err:
        return Finding(FAIL,
                       f"cuBLAS 라이브러리를 찾을 수 없습니다 ({err}). 모든 커널은 cuBLAS와 비교해 검증하므로 꼭 필요합니다.",
                       _gpu_requirements_fix(state.get("cupy_cuda_major")))
    if "runtime" not in state["passed"]:
        return Finding(OK, f"cuBLAS 라이브러리를 찾았습니다 ({_library_path('cublas')}; 행렬 곱 시험은 GPU가 있어야 합니다)")
    import cupy
    import numpy as np

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((64, 48), dtype=np.float32), rng.standard_normal((48, 40), dtype=np.float32)
    try:
        c = cupy.asnumpy(cupy.matmul(cupy.asarray(a), cupy.asarray(b)))
    except Exception as err:
        return Finding(FAIL, f"cuBLAS 호출이 실패했습니다 ({type(err).__name__}: {err}).",
                       _gpu_requirements_fix(state.get("cupy_cuda_major")))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    err = float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
    if err > 1e-3:
        return Finding(FAIL, f"cuBLAS 결과의 상대 오차가 {err:.1e}입니다.", "nvidia-smi로 GPU 상태를 확인하세요")
    return Finding(OK, f"{_library_path('cublas')}: 64×48×40 행렬 곱, 상대 오차 {err:.1e}")


def check_compute_capability(state: dict) -> Finding:
    major, minor = state["cc"]
    if (major, minor) >= (8, 0):
        return Finding(OK, f"{major}.{minor}: 모든 단계가 이 GPU의 명령으로 돕니다 (cp.async 포함)")
    if major >= 6:
        return Finding(WARN, f"{major}.{minor}: 8.0 미만이라 Level 5와 6은 cp.async 대신 동기 복사 폴백(fallback)으로 "
                             "컴파일됩니다.",
                       "cp.async를 직접 보려면 compute capability 8.0 이상(Ampere 이후) GPU에서 실행하세요")
    return Finding(WARN, f"{major}.{minor}: 강좌가 시험한 적 없는 오래된 GPU입니다.", "compute capability 7.0 이상 GPU를 권장합니다")


def check_clocks(state: dict) -> Finding:
    smi = _smi("clocks.sm,clocks.max.sm,temperature.gpu,clocks_event_reasons.active")
    if smi is None:
        return Finding(WARN, "nvidia-smi로 클럭을 읽지 못했습니다. FP32 최대 처리량은 CUDA가 알려 주는 최대 클럭으로 계산합니다.",
                       "nvidia-smi가 PATH에 있는지 확인하세요")
    sm, sm_max, temp, reasons = smi
    detail = f"SM {sm} / 최대 {sm_max} MHz, {temp} °C"
    try:
        active = int(reasons, 16)
    except ValueError:
        active = 0
    # 0x1 = GPU idle; anything else (power or thermal capping, application clocks) lowers measured speed.
    if active & ~0x1:
        return Finding(WARN, f"{detail}; 클럭 제한 사유 코드 {reasons}가 켜져 있어 측정이 느리게 나올 수 있습니다.",
                       "nvidia-smi -q -d PERFORMANCE로 사유를 확인하세요 (클럭은 바꾸지 마세요)")
    return Finding(OK, detail + " (쉬고 있을 때는 낮은 클럭이 정상입니다)")


def check_memory(state: dict) -> Finding:
    import cupy

    free, total = cupy.cuda.runtime.memGetInfo()
    detail = f"여유 {free / 2**30:,.1f} GiB / 전체 {total / 2**30:,.1f} GiB"
    if free < MIN_FREE_BYTES:
        return Finding(WARN, f"{detail}: 8192³ 측정에는 약 1 GiB가 필요합니다.",
                       "다른 프로세스를 끝내세요 (nvidia-smi로 확인)")
    return Finding(OK, detail)


def check_course_kernel(state: dict) -> Finding:
    from kernels.check import check

    try:
        r = check("sgemm_naive", 33, 65, 17, seed=1)
    except Exception as err:
        fix = (_gpu_requirements_fix(state.get("cupy_cuda_major")) if hosted_platform() is None
               else "위의 점검 결과를 먼저 확인하고, 런타임(커널)을 다시 시작한 뒤 다시 실행하세요")
        return Finding(FAIL, f"sgemm_naive를 실행하지 못했습니다 ({type(err).__name__}: {err}).", fix)
    if not r.ok:
        return Finding(FAIL, f"sgemm_naive 33×65×17의 상대 오차가 {r.rel_error:.1e}입니다.", "nvidia-smi로 GPU 상태를 확인하세요")
    return Finding(OK, f"sgemm_naive 33×65×17을 cuBLAS와 비교: 상대 오차 {r.rel_error:.1e}")


def check_profile(state: dict) -> Finding:
    from kernels import devices

    try:
        profile = devices.profile_from_env()
    except devices.UnknownDeviceError as err:
        return Finding(FAIL, str(err), f"unset {devices.PROFILE_ENV} 또는 위의 이름 중 하나로 설정하세요")
    if profile is None:
        return Finding(OK, f"설정 없음({devices.PROFILE_ENV}): 커널은 이 GPU 자신의 구성으로 실행됩니다.")
    state["profile"] = profile
    how = " PTX(compute_75)로 컴파일해 cp.async 없는 경로로 실행합니다." if not profile.has_cp_async else ""
    return Finding(WARN, f"{devices.PROFILE_ENV}={profile.name}: 커널을 {profile.title}의 구성(compute capability "
                         f"{profile.cc_text})으로 실행합니다.{how} 잰 값은 '{profile.name}의 구성을 이 GPU에서 잰 "
                         f"값'이며 {profile.name} 자신의 속도가 아닙니다.",
                   f"이 GPU 자신의 구성으로 돌아가려면: unset {devices.PROFILE_ENV}")


def module_kernels() -> dict[int, set[str]]:
    """For each module (chapter), the registry kernels its cells launch: its own, the older kernels they
    are timed beside (paired_with), and for module 10 every level's representative."""
    from kernels import registry

    out: dict[int, set[str]] = {}
    for name, spec in registry.KERNELS.items():
        out.setdefault(spec.chapter, set()).update({name, *spec.paired_with})
    out.setdefault(10, set()).update(registry.LEVEL_REPRESENTATIVE.values())
    return out


def course_modules() -> list[int]:
    """The course's module numbers, from the syllabus (course/syllabus.py); where the course package is not
    importable (a bare Python with kernels/ alone), the chapters the registry's kernels name."""
    try:
        from course import syllabus

        return list(syllabus.load().numbers)
    except Exception:
        return sorted(module_kernels())


def modules_text(numbers: list[int]) -> str:
    """'모듈 4–12' for a run of consecutive numbers, else '모듈 4, 6, 9'."""
    numbers = sorted(numbers)
    if not numbers:
        return "모듈 없음"
    if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"모듈 {numbers[0]}–{numbers[-1]}"
    return "모듈 " + ", ".join(map(str, numbers))


def _config_lines(fits) -> list[str]:
    from kernels import configs

    lines = []
    for f in fits:
        shape = configs.config_text(f.spec)
        status = "맞음" if f.fits else "맞지 않음: " + "; ".join(f.problems)
        lines.append(f"  Level {f.spec.level} {f.spec.name}" + (f" ({shape})" if shape != "-" else "")
                     + f": 공유 메모리 {f.smem_bytes:,} B / 한도 {f.device.smem_per_block_optin:,} B, "
                       f"레지스터 {f.registers}, SM당 블록 {f.blocks_per_sm}개 — {status}")
    return lines


def check_configs(state: dict) -> Finding:
    from kernels import configs, registry

    shown = sorted(set(registry.LEVEL_REPRESENTATIVE.values()) | set(registry.configurable()),
                   key=lambda n: (registry.get(n).level, n))
    device = configs.active_limits()
    fits = configs.fits_for(device, list(registry.KERNELS), configs.active_resources())
    if configs.active_profile() is not None:   # the profile's configuration must also fit the real GPU
        real = configs.current_limits()
        fits = [f if not f.fits else configs.fit(f.spec, real, configs.runtime_resources(f.spec, real))
                for f in fits]
    by_name = {f.spec.name: f for f in fits}
    lines = _config_lines([by_name[n] for n in shown])
    live, recorded = [], []
    kernels_of = module_kernels()
    for module in course_modules():
        (live if all(by_name[n].fits for n in kernels_of.get(module, ())) else recorded).append(module)
    summary = (f"{device.title}의 구성. 실시간으로 실행되는 장(live): 모듈 {', '.join(map(str, live)) or '없음'}"
               + (f"; 기록된 결과로 대신하는 장: 모듈 {', '.join(map(str, recorded))}" if recorded else ""))
    state["live_modules"] = live
    if recorded:
        return Finding(WARN, "\n".join([summary, *lines]),
                       "맞지 않는 커널은 실행하지 않고 기록된 결과를 보여 줍니다 (python -m kernels configs --device current)")
    return Finding(OK, "\n".join([summary, *lines]))


def check_tools(state: dict) -> Finding:
    found = [t for t in ("ncu", "compute-sanitizer") if shutil.which(t)]
    if len(found) == 2:
        return Finding(OK, "ncu, compute-sanitizer")
    missing = ", ".join(t for t in ("ncu", "compute-sanitizer") if t not in found)
    detail = (f"PATH에서 찾지 못한 도구: {missing}. 커널 실행과 측정에는 필요 없고, `make gpu-test`의 "
              "sanitizer 검사와 모듈 10의 프로파일링에만 씁니다.")
    if hosted_platform() is not None:   # nothing to install on a notebook platform: the chapters do without
        return Finding(WARN, detail + " 노트북의 장은 이 도구 없이 실행됩니다.", "설치하지 않아도 됩니다")
    return Finding(WARN, detail,
                   "CUDA Toolkit을 설치하세요 (https://developer.nvidia.com/cuda-downloads), 또는 이 단계는 건너뛰세요")


# (key, Korean name with the English term, check, keys of the checks it needs first)
CHECKS = [
    ("driver", "NVIDIA 드라이버 (driver)", check_driver, ()),
    ("device", "GPU 장치 (device)", check_device, ("driver",)),
    ("cupy", "CuPy", check_cupy, ()),
    ("runtime", "CUDA 런타임 (runtime)", check_runtime, ("device", "cupy")),
    ("nvrtc", "NVRTC (실행 중 컴파일, run-time compilation)", check_nvrtc, ("cupy",)),
    ("cublas", "cuBLAS (기준 행렬 곱)", check_cublas, ("cupy",)),
    ("profile", "장치 프로필 (device profile)", check_profile, ()),
    ("cc", "compute capability", check_compute_capability, ("runtime",)),
    ("clocks", "클럭 (clocks)", check_clocks, ("runtime",)),
    ("memory", "GPU 메모리 (memory)", check_memory, ("runtime",)),
    ("kernel", "강좌 커널 (course kernel)", check_course_kernel, ("runtime", "nvrtc", "cublas")),
    ("configs", "커널 구성 (configurations)", check_configs, ("runtime", "nvrtc", "profile")),
    ("tools", "프로파일·검사 도구 (tools)", check_tools, ()),
]
REQUIRED = {"driver", "device", "cupy", "runtime", "nvrtc", "cublas", "kernel", "profile"}


def run_checks() -> list[tuple[str, Finding]]:
    """Every check in order; one whose prerequisites did not pass is skipped, and none may crash the doctor."""
    passed: set[str] = set()
    state: dict = {"passed": passed}
    results: list[tuple[str, Finding]] = []
    for key, title, fn, needs in CHECKS:
        blocked = [k for k in needs if k not in passed]
        if blocked:
            finding = Finding(SKIP, "앞의 점검(" + ", ".join(blocked) + ")이 통과하지 않아 건너뜁니다.")
        else:
            try:
                finding = fn(state)
            except Exception as err:
                finding = Finding(FAIL, f"점검 중 예외: {type(err).__name__}: {err}")
        finding.check = title
        results.append((key, finding))
        if finding.status in (OK, WARN):
            passed.add(key)
    return results


def verdict(results: list[tuple[str, Finding]]) -> tuple[bool, str]:
    failed = [f for k, f in results if k in REQUIRED and f.status not in (OK, WARN)]
    platform = hosted_platform()
    if not failed:
        start = "노트북의 셀을 차례로 실행하세요." if platform else "`make lab`으로 시작하세요."
        return True, "이 머신에서 강좌의 커널을 실행하고 cuBLAS와 비교해 측정할 수 있습니다. " + start
    first = failed[0]
    every = modules_text(course_modules())
    if first is results[0][1] and platform == COLAB:
        return False, (f"GPU로 실행할 수 없습니다: 이 Colab 런타임에는 GPU가 없습니다. 모든 장({every})은 기록된 결과로 "
                       "실행됩니다. GPU로 실행하려면: " + COLAB_RUNTIME_FIX + ".")
    if first is results[0][1] and platform == HUB:
        return False, (f"GPU로 실행할 수 없습니다: 이 서버에는 GPU가 없습니다. 모든 장({every})은 기록된 결과로 "
                       "실행됩니다.")
    if first is results[0][1]:
        return False, ("GPU로 실행할 수 없습니다: NVIDIA 드라이버가 없습니다. 이 컴퓨터에서는 사이트(`make book`)와 "
                       f"노트북이 모든 장({every})에서 기록된 결과를 보여 줍니다.")
    return False, f"GPU로 실행할 수 없습니다: {first.check} 점검이 실패했습니다. 아래 해결 방법을 먼저 실행하세요."


def report(results: list[tuple[str, Finding]]) -> str:
    lines = ["GPU 환경 점검 (python -m kernels doctor)", ""]
    for _, f in results:
        lines.append(f"[{LABEL[f.status]}] {f.check}: {f.detail}")
        if f.fix and f.status in (WARN, FAIL):
            lines.append(f"       해결(fix): {f.fix}")
    ok, summary = verdict(results)
    lines += ["", "결론(verdict): " + summary]
    return "\n".join(lines)


def no_gpu(results: list[tuple[str, Finding]]) -> bool:
    """True when the machine has no GPU to run on at all (no driver, or none visible): nothing to fix."""
    status = dict((k, f.status) for k, f in results)
    return status.get("driver") == FAIL or status.get("device") == FAIL


def exit_code(results: list[tuple[str, Finding]]) -> int:
    ok, _ = verdict(results)
    return 0 if ok or no_gpu(results) else 1


def main(as_json: bool = False) -> int:
    results = run_checks()
    ok, summary = verdict(results)
    if as_json:
        print(json.dumps({"ok": ok, "summary": summary,
                          "checks": [{"key": k, **asdict(f)} for k, f in results]}, ensure_ascii=False, indent=1))
    else:
        print(report(results))
    return exit_code(results)
