"""The files of a submissions folder, shared by `grade` (quiz submissions) and `grade-code` (kernels).

Nothing outside the folder is ever read: symbolic links are listed, never followed; a hard link whose
other names lie outside the folder is listed, never read; FIFOs, devices and sockets are listed;
a file is opened with O_NOFOLLOW and checked again after opening (read_bytes_nofollow). File names
may hold any bytes (a CP949 name from a Korean Windows ZIP, control characters): the report's `add`
receives the path as found, and shows it through course.instructor.safe_text.shown_name.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["read_bytes_nofollow", "regular_files"]


def regular_files(folder: Path, report, suffixes: tuple, kind_wrong_suffix: str, wrong_suffix_reason: str,
                  max_bytes: int | None = None) -> list[Path]:
    """Regular files with one of `suffixes` under folder, never through a symbolic link; everything
    else found on the way goes to report.add (symbolic links, hard links with a name outside the
    folder, other file types, other suffixes, files over max_bytes). Shared by `grade` and `grade-code`."""
    found, links_inside = [], {}

    def unreadable_folder(error: OSError) -> None:
        report.add(Path(error.filename), "skipped", "unreadable", f"폴더를 읽을 수 없습니다 ({error.strerror})")

    entries = []
    for top, dirs, files in os.walk(folder, onerror=unreadable_folder, followlinks=False):
        top_path = Path(top)
        for name in sorted(dirs):
            if (top_path / name).is_symlink():
                report.add(top_path / name, "skipped", "symlink", "심볼릭 링크(symbolic link)인 폴더는 따라가지 않습니다")
        dirs[:] = sorted(d for d in dirs if not (top_path / d).is_symlink())
        for name in sorted(files):
            path = top_path / name
            try:
                info = path.lstat()
            except OSError as exc:
                report.add(path, "skipped", "unreadable", f"파일 정보를 읽을 수 없습니다 ({exc.strerror})")
                continue
            entries.append((path, info))
            if stat.S_ISREG(info.st_mode):
                key = (info.st_dev, info.st_ino)
                links_inside[key] = links_inside.get(key, 0) + 1
    for path, info in entries:
        if stat.S_ISLNK(info.st_mode):
            report.add(path, "skipped", "symlink", "심볼릭 링크(symbolic link)는 따라가지 않습니다")
        elif not stat.S_ISREG(info.st_mode):
            report.add(path, "skipped", "not_regular_file", "일반 파일이 아닙니다 (FIFO, 장치, 소켓 등)")
        elif info.st_nlink > links_inside[(info.st_dev, info.st_ino)]:
            report.add(path, "skipped", "hardlink", "하드 링크(hard link)이고 같은 파일의 다른 이름이 제출 폴더 밖에 "
                                                    "있습니다. 폴더 밖의 파일로 보고 읽지 않습니다 (심볼릭 링크와 같음)")
        elif path.suffix.lower() not in suffixes:
            report.add(path, "skipped", kind_wrong_suffix, wrong_suffix_reason)
        elif max_bytes is not None and info.st_size > max_bytes:
            report.add(path, "skipped", "too_large",
                       f"제출 파일로 보기에 너무 큽니다 ({info.st_size:,} B > {max_bytes:,} B)")
        else:
            found.append(path)
    return sorted(found)


def read_bytes_nofollow(path: Path, limit: int) -> bytes:
    """The file's bytes (at most limit + 1); refuses a path that became a symbolic link, a non-regular
    file or a hard link to something outside after it was listed (O_NOFOLLOW where the system has it)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    before = os.lstat(path)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(0, "일반 파일이 아닙니다")
        if (info.st_dev, info.st_ino, info.st_nlink) != (before.st_dev, before.st_ino, before.st_nlink):
            raise OSError(0, "목록을 만든 뒤 파일이 바뀌었습니다")
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)

