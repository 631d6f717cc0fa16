"""Reading a learner's file: what is refused before any compiler sees it, and why (in Korean).

A file that is missing, a folder, too large, binary, UTF-16, not UTF-8, empty, has no CUDA kernel at
all (a Python file handed in by mistake; a `__global__` that is only inside a comment), or includes a
file other than the course's own headers is an input error, not a verdict: ExerciseInputError
carries a stable English `kind` (for CSVs) and a Korean message with the English term.

Includes: NVRTC reads whatever path an `#include` names (`#include "/etc/passwd"` would put that
file's text into the compile log), so only the course's headers (kernels/*.cuh) are accepted, and
the checker pastes them in itself (expand_includes); NVRTC never opens a file.
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
import unicodedata
from pathlib import Path

MAX_SOURCE_BYTES = 256 * 1024      # a kernel exercise is a few KiB
_GLOBAL = re.compile(r"\b__global__\b")
# Preprocessor lines that read files (with the digraph %: for #); __has_include looks at the file system.
_FILE_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:)[ \t]*(include_next|include|import|embed)\b[ \t]*(.*)$", re.MULTILINE)
_HAS_INCLUDE = re.compile(r"\b__has_include(?:_next)?\b")
_ONE_LINE_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([\w.-]+)[>"][ \t]*(?://.*|/\*.*\*/[ \t]*)?$')
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
    "utf16": "saved as UTF-16 (save it as UTF-8)",
    "empty": "empty or only whitespace",
    "not_cuda": "no __global__ kernel outside comments (not a CUDA source)",
    "forbidden_include": "includes a file other than the course's headers",
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


def _looks_utf16(raw: bytes) -> bool:
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return True
    half = len(raw) // 2
    return half > 0 and (raw[1::2].count(0) > half * 0.6 or raw[0::2].count(0) > half * 0.6)


def decode_source(raw: bytes, where: str = "소스") -> str:
    if _looks_utf16(raw):
        raise ExerciseInputError("utf16", f"UTF-16으로 저장된 파일입니다 (UTF-16): {where}. 편집기에서 인코딩을 UTF-8로 "
                                          "바꿔 저장한 뒤 다시 내세요.")
    if b"\0" in raw:
        raise ExerciseInputError("binary", f"바이너리 파일(binary)입니다. CUDA 소스는 텍스트 파일이어야 합니다: {where}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ExerciseInputError("unreadable", f"UTF-8 텍스트가 아닙니다 (not UTF-8, {exc.start}번째 바이트): {where}. "
                                               "편집기에서 UTF-8로 저장하세요.") from None
    validate_source_text(text, where)
    return text


def strip_comments(text: str) -> str:
    """The source without // and /* */ comments (string and character literals kept, newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        ch, pair = text[i], text[i:i + 2]
        if pair == "//":
            end = i
            while end < n and text[end] != "\n":
                end += 2 if text[end] == "\\" and end + 1 < n else 1   # a backslash-newline continues it
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif pair == "/*":
            end = text.find("*/", i + 2)
            end = n if end == -1 else end + 2
            out.append(" " + "\n" * text.count("\n", i, end))
            i = end
        elif ch in "\"'":
            end = i + 1
            while end < n and text[end] not in (ch, "\n"):
                end += 2 if text[end] == "\\" else 1
            out.append(text[i:end + 1])
            i = end + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def course_headers() -> dict[str, str]:
    from kernels.source import headers

    return headers()


def _include_problem(code: str, where: str) -> str | None:
    """Why the (comment-free, line-spliced) source may not be compiled, or None."""
    allowed = course_headers()
    for m in _FILE_DIRECTIVE.finditer(code):
        directive, target = m.group(1), m.group(2).strip()
        name = target[1:-1] if len(target) > 2 and target[0] + target[-1] in ('""', "<>") else None
        if directive != "include" or name not in allowed:
            listed = ", ".join(f'"{h}"' for h in allowed) or "(없음)"
            return (f"이 실습에서는 강좌의 헤더({listed})만 #include할 수 있습니다 (forbidden include): "
                    f"`#{directive} {target[:80]}` ({where}). 필요한 코드는 파일 안에 직접 쓰세요.")
    if _HAS_INCLUDE.search(code):
        return f"__has_include로 파일 시스템을 살피는 코드는 받지 않습니다 (forbidden include): {where}."
    return None


def validate_source_text(text: str, where: str = "소스") -> None:
    """Refuse an empty source, one without any CUDA kernel outside comments, and foreign includes."""
    if not text.strip():
        raise ExerciseInputError("empty", f"빈 파일입니다 (empty): {where}. 커널 소스를 넣으세요.")
    code = strip_comments(text.replace("\\\r\n", "").replace("\\\n", ""))
    if not _GLOBAL.search(code):
        looks_python = bool(_PYTHON_HINTS.search(text))
        in_comment = bool(_GLOBAL.search(text))
        extra = (" 파이썬(Python) 코드로 보입니다. 실습에는 .cu 파일의 CUDA C++ 커널을 냅니다." if looks_python
                 else " __global__이 주석 안에만 있습니다." if in_comment
                 else " 커널은 extern \"C\" __global__ void ...(...)로 선언합니다.")
        raise ExerciseInputError("not_cuda", f"CUDA 소스가 아닙니다 (not a CUDA source): __global__ 커널이 없습니다: "
                                             f"{where}.{extra}")
    problem = _include_problem(code, where)
    if problem:
        raise ExerciseInputError("forbidden_include", problem)


def expand_includes(text: str, name: str) -> str:
    """The source with each course header pasted where it is included (NVRTC then opens no file)."""
    allowed = course_headers()
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        m = _ONE_LINE_INCLUDE.match(line)
        if m and m.group(1) in allowed:
            body = allowed[m.group(1)].replace("#pragma once", "")
            lines[number - 1] = f'#line 1 "{m.group(1)}"\n{body}\n#line {number + 1} "{name}"'
    expanded = "\n".join(lines)
    if _FILE_DIRECTIVE.search(strip_comments(expanded.replace("\\\n", ""))):
        raise ExerciseInputError("forbidden_include", f"#include는 한 줄에 `#include \"헤더\"` 형식으로만 씁니다: {name}.")
    return expanded


def display_name(path_or_name: str) -> str:
    """The file's own name as a person reads it (Korean kept), control characters made visible."""
    from course.instructor.safe_text import printable

    base = os.path.basename(str(path_or_name)) or "kernel.cu"
    return printable(unicodedata.normalize("NFC", base))


def program_name(path_or_name: str) -> str:
    """A file name NVRTC and the #line directive can carry (letters, digits, _.- only; ends in .cu)."""
    base = os.path.basename(str(path_or_name)) or "kernel.cu"
    safe = _NAME_CHARS.sub("_", base)
    return safe if safe.endswith(".cu") else safe + ".cu"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
