"""Reading a learner's file: what is refused before any compiler sees it, and why (in Korean).

A file that is missing, a folder, too large, binary, not UTF-8, empty, or has no CUDA kernel at all
(a Python file handed in by mistake) is an input error, not a verdict: ExerciseInputError carries a
stable English `kind` (for CSVs) and a Korean message with the English term.
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

MAX_SOURCE_BYTES = 256 * 1024      # a kernel exercise is a few KiB
_GLOBAL = re.compile(r"\b__global__\b")
_PYTHON_HINTS = re.compile(r"^\s*(import \w|from \w[\w.]* import |def \w+\(|print\(|class \w+[:(])", re.MULTILINE)
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]")


class ExerciseInputError(ValueError):
    """A submission that cannot be checked at all; kind is one of INPUT_ERROR_KINDS."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


INPUT_ERROR_KINDS = {
    "missing": "the file does not exist",
    "not_a_file": "a folder, device, FIFO or socket",
    "too_large": f"over {MAX_SOURCE_BYTES} bytes",
    "unreadable": "cannot be read, or is not UTF-8 text",
    "binary": "binary data (NUL bytes)",
    "empty": "empty or only whitespace",
    "not_cuda": "no __global__ kernel (not a CUDA source)",
}


def read_source_file(path: str | os.PathLike, follow_symlinks: bool = True) -> str:
    """The text of a learner's .cu file, or ExerciseInputError."""
    path = Path(path)
    try:
        info = os.stat(path, follow_symlinks=follow_symlinks)
    except FileNotFoundError:
        raise ExerciseInputError("missing", f"파일이 없습니다 (file not found): {path}") from None
    except OSError as exc:
        raise ExerciseInputError("unreadable", f"파일 정보를 읽을 수 없습니다 ({exc.strerror}): {path}") from None
    if stat.S_ISLNK(info.st_mode):
        raise ExerciseInputError("not_a_file", f"심볼릭 링크(symbolic link)는 따라가지 않습니다: {path}")
    if not stat.S_ISREG(info.st_mode):
        what = "폴더(directory)" if stat.S_ISDIR(info.st_mode) else "일반 파일이 아닌 것"
        raise ExerciseInputError("not_a_file", f"{what}입니다. CUDA 소스 파일(.cu)을 주세요: {path}")
    if info.st_size > MAX_SOURCE_BYTES:
        raise ExerciseInputError("too_large", f"커널 소스로 보기에 너무 큽니다 ({info.st_size:,} B > "
                                              f"{MAX_SOURCE_BYTES:,} B): {path}")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ExerciseInputError("unreadable", f"파일을 읽을 수 없습니다 ({exc.strerror}): {path}") from None
    return decode_source(raw, str(path))


def decode_source(raw: bytes, where: str = "소스") -> str:
    if b"\0" in raw:
        raise ExerciseInputError("binary", f"바이너리 파일(binary)입니다. CUDA 소스는 텍스트 파일이어야 합니다: {where}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ExerciseInputError("unreadable", f"UTF-8 텍스트가 아닙니다 (not UTF-8, {exc.start}번째 바이트): {where}. "
                                               "편집기에서 UTF-8로 저장하세요.") from None
    validate_source_text(text, where)
    return text


def validate_source_text(text: str, where: str = "소스") -> None:
    """Refuse an empty source or one without any CUDA kernel."""
    if not text.strip():
        raise ExerciseInputError("empty", f"빈 파일입니다 (empty): {where}. 커널 소스를 넣으세요.")
    if not _GLOBAL.search(text):
        looks_python = bool(_PYTHON_HINTS.search(text))
        extra = (" 파이썬(Python) 코드로 보입니다. 실습에는 .cu 파일의 CUDA C++ 커널을 냅니다." if looks_python
                 else " 커널은 extern \"C\" __global__ void ...(...)로 선언합니다.")
        raise ExerciseInputError("not_cuda", f"CUDA 소스가 아닙니다 (not a CUDA source): __global__ 커널이 없습니다: "
                                             f"{where}.{extra}")


def program_name(path_or_name: str) -> str:
    """A file name NVRTC and the #line directive can carry (letters, digits, _.- only; ends in .cu)."""
    base = os.path.basename(str(path_or_name)) or "kernel.cu"
    safe = _NAME_CHARS.sub("_", base)
    return safe if safe.endswith(".cu") else safe + ".cu"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
