"""Facts about the GPU in use: name, compute capability, SM count, clock, FP32 peak, provenance."""
from __future__ import annotations

import datetime as _dt
import functools
import subprocess

from kernels.errors import GPUUnavailableError

# FP32 lanes (CUDA cores) per SM by compute capability. Source: CUDA C++ Programming Guide,
# "Arithmetic Instructions" throughput table (32-bit floating-point add/multiply/FMA per clock
# per SM). Note sm_86/89/90 have 128, not the 64 of sm_70/75/80 (course-spec B4).
FP32_LANES_PER_SM = {
    (5, 0): 128, (5, 2): 128, (5, 3): 128,
    (6, 0): 64, (6, 1): 128, (6, 2): 128,
    (7, 0): 64, (7, 2): 64, (7, 5): 64,
    (8, 0): 64, (8, 6): 128, (8, 7): 128, (8, 9): 128,
    (9, 0): 128,
    (10, 0): 128, (10, 3): 128, (11, 0): 128, (12, 0): 128, (12, 1): 128,
}


def fp32_lanes(cc: tuple[int, int]) -> int:
    if cc in FP32_LANES_PER_SM:
        return FP32_LANES_PER_SM[cc]
    return 128 if cc >= (8, 6) else 64   # newest families have 128; be explicit in the output


def peak_gflops(sm_count: int, lanes: int, clock_mhz: float) -> float:
    """FP32 peak: SMs x lanes x clock x 2 FLOP per FMA."""
    return sm_count * lanes * clock_mhz * 1e6 * 2 / 1e9


def gpu_available() -> bool:
    """True when CuPy can talk to a CUDA device (never raises)."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def _require_cupy():
    if not gpu_available():
        raise GPUUnavailableError(
            "사용할 수 있는 CUDA GPU가 없습니다(no CUDA device). 이 컴퓨터에서는 기록된 결과(recorded "
            "results)만 볼 수 있습니다."
        )
    import cupy

    return cupy


def _max_sm_clock_mhz_from_smi() -> float | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.max.sm", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20)
        return float(out.stdout.strip().splitlines()[0])
    except Exception:
        return None


@functools.lru_cache(maxsize=None)
def info(device_id: int = 0) -> dict:
    """Properties of the device and the software stack, for tables and provenance."""
    cupy = _require_cupy()
    rt = cupy.cuda.runtime
    with cupy.cuda.Device(device_id):
        props = rt.getDeviceProperties(device_id)
        cc = (int(props["major"]), int(props["minor"]))
        sm_count = int(props["multiProcessorCount"])
        clock_khz = props.get("clockRate") or 0
        try:
            clock_khz = clock_khz or rt.deviceGetAttribute(rt.cudaDevAttrClockRate, device_id)
        except Exception:
            pass
        clock_mhz = clock_khz / 1000 if clock_khz else _max_sm_clock_mhz_from_smi()
        clock_source = "cudaDevAttrClockRate (maximum SM clock)" if clock_khz else "nvidia-smi clocks.max.sm"
        lanes = fp32_lanes(cc)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        free, total = rt.memGetInfo()
        driver = rt.driverGetVersion()
        runtime = rt.runtimeGetVersion()
    return {
        "device": name,
        "compute_capability": f"{cc[0]}.{cc[1]}",
        "sm_count": sm_count,
        "clock_mhz": clock_mhz,
        "clock_source": clock_source,
        "fp32_lanes_per_sm": lanes,
        "peak_gflops": peak_gflops(sm_count, lanes, clock_mhz) if clock_mhz else None,
        "memory_total_bytes": int(total),
        "smem_per_block_optin": int(props.get("sharedMemPerBlockOptin", 0)),
        "smem_per_sm": int(props.get("sharedMemPerMultiprocessor", 0)),
        "regs_per_sm": int(props.get("regsPerMultiprocessor", 0)),
        "cuda_driver": _version(driver),
        "cuda_runtime": _version(runtime),
        "driver": _driver_version(),
        "cupy": cupy.__version__,
    }


def free_memory_bytes() -> int:
    cupy = _require_cupy()
    return int(cupy.cuda.runtime.memGetInfo()[0])


def _version(v: int) -> str:
    return f"{v // 1000}.{(v % 1000) // 10}"


def _driver_version() -> str | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] or None
    except Exception:
        return None


def today() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
