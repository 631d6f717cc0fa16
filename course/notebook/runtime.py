"""The GPU check an exported notebook runs after its install cell (course.notebook.cells).

It names the GPU the chapter's "실행해 보기" cells will measure on. Without one it says so in Korean,
tells a Colab learner how to switch the runtime to a GPU (런타임 → 런타임 유형 변경 → T4 GPU) and a Hub
learner to restart the server on a GPU, and lets the chapter go on: every cell that launches a kernel then
shows the recorded results, whose GPU it names from the record.
"""
from __future__ import annotations

import os

from kernels.doctor import COLAB, HUB, hosted_platform

COLAB_SWITCH = "런타임 → 런타임 유형 변경 → 하드웨어 가속기에서 T4 GPU를 고르고 저장"


def gpu_name() -> "str | None":
    """The first GPU's name, or None when CuPy sees none (no driver, a CPU runtime, no CuPy); never raises."""
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:
        return None


def recorded_device() -> str:
    """The GPU the book's recorded results were measured on (book/data/benchmarks.json)."""
    try:
        from course.page import recorded

        results = recorded()
        return str(results.provenance.get("device") or "") if results else ""
    except Exception:
        return ""


def message(gpu: "str | None", platform: "str | None", recorded_on: str = "") -> str:
    """What the GPU check prints for a runtime with `gpu` (None: none) on `platform` (COLAB, HUB or None)."""
    if gpu:
        return (f"GPU: {gpu}. 장의 '실행해 보기' 셀이 이 GPU에서 커널을 실행하고 같은 GPU의 cuBLAS와 함께 잽니다.")
    recorded = f"기록된 결과({recorded_on}에서 잰 값)" if recorded_on else "기록된 결과"
    go_on = f"이대로 계속해도 됩니다. 커널을 실행하는 셀은 {recorded}를 보여 줍니다."
    if platform == COLAB:
        return ("이 Colab 런타임에는 GPU가 없습니다 (CPU 런타임).\n"
                f"GPU로 실행하려면 메뉴에서 {COLAB_SWITCH}한 뒤, 맨 위의 설치 셀부터 다시 실행하세요.\n" + go_on)
    if platform == HUB:
        return ("이 JupyterHub 서버에는 GPU가 없습니다. Hub에 GPU 서버가 있다면 File → Hub Control Panel에서 서버를 "
                "멈추고 GPU가 있는 설정으로 다시 시작하세요.\n" + go_on)
    return ("GPU를 찾지 못했습니다. 까닭은 점검 명령이 알려 줍니다 (노트북 셀에서: import sys 다음 줄에 "
            "!{sys.executable} -m kernels doctor).\n" + go_on)


def show_runtime() -> str:
    """Print (and return) the message for this runtime."""
    text = message(gpu_name(), hosted_platform(os.environ), recorded_device())
    print(text)
    return text
