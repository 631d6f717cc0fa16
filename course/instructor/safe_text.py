"""Text that is safe to show an instructor: CSV cells a spreadsheet never runs, terminal lines that
obey no escape sequence, and file names of any bytes.

Every CSV the instructor tools write goes through ``write_safe_csv``: text cells that a spreadsheet
would run as a formula are neutralised (``safe_cell``: also behind invisible leading characters and
in every Unicode form of = + - @), control characters are made visible, numbers stay numbers, and
nothing that cannot be written as UTF-8 (a lone surrogate from a hand-made JSON file, the bytes of a
file name that is not UTF-8) can stop the writing half-way: the file is built in memory and then
replaces the old one in one step. Terminal output goes through ``printable``; a file name found on
disk goes through ``shown_name`` (bytes that are not UTF-8 become ``\\xNN``), and ``name_note`` says,
in Korean, what was odd about it (a CP949 name from a Korean Windows ZIP is also read as CP949).
"""
from __future__ import annotations

import csv
import io
import math
import os
import re
import tempfile
import unicodedata
from pathlib import Path

__all__ = [
    "FORMULA_TRIGGERS",
    "formula_start",
    "name_note",
    "printable",
    "safe_cell",
    "shown_name",
    "unneutralised",
    "write_safe_csv",
]

# A cell starting with one of these is read as a formula by Excel, LibreOffice or Google Sheets
# (OWASP "CSV Injection"); the full-width forms are included because some spreadsheet setups
# (East Asian input) convert them to their ASCII twins. safe_cell goes further (formula_start).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
# Every Unicode form of = + - @ (full-width, small, superscript, subscript, heavy, the minus sign ...).
_FORMULA_NAME = re.compile(r"\b(EQUALS SIGN|PLUS SIGN|MINUS SIGN|MINUS|HYPHEN-MINUS|COMMERCIAL AT)$")
# Letters that show nothing: a leading one hides a formula from the eye but not from a spreadsheet.
_BLANK_LETTERS = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"}
_CONTROL_NAMES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Control (Cc), format (Cf: bidirectional overrides, zero-width characters), lone surrogates (Cs),
# line and paragraph separators (Zl, Zp) and unassigned code points or noncharacters (Cn).
_ESCAPED_CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp", "Cn")
_PLAIN_INT_LIMIT = 10 ** 15         # beyond this a spreadsheet shows an integer rounded (a double)


def _invisible(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zs", "Zl", "Zp", "Mn", "Me") or ch in _BLANK_LETTERS


def _formula_char(ch: str) -> bool:
    if ch in FORMULA_TRIGGERS or unicodedata.normalize("NFKC", ch)[:1] in "=+-@":
        return True
    return bool(_FORMULA_NAME.search(unicodedata.name(ch, "")))


def formula_start(text: str) -> bool:
    """Would a spreadsheet (or a person copying the cell) read this text as a formula?"""
    if text[:1] in FORMULA_TRIGGERS:
        return True
    for ch in text:
        if not _invisible(ch):
            return _formula_char(ch)
    return False


def _escaped(ch: str) -> bool:
    return unicodedata.category(ch) in _ESCAPED_CATEGORIES


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch in _CONTROL_NAMES:
        return _CONTROL_NAMES[ch]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _text(value) -> str:
    """str(value), also for an integer too long for str() (Python limits int -> text to 4,300 digits)."""
    if isinstance(value, str):
        return value
    try:
        return str(value)
    except ValueError:
        if isinstance(value, int):
            return f"({'-' if value < 0 else ''}{value.bit_length()}비트 정수, integer too long to print)"
        return f"({type(value).__name__})"


def printable(text, keep_tabs: bool = False, keep_newlines: bool = False) -> str:
    """Text safe to print on a terminal or keep in a CSV: control and format characters (ANSI escapes,
    bidirectional overrides, zero-width characters), lone surrogates and unassigned code points become
    visible escapes such as \\x1b, \\u202e or \\udcb1. The result always encodes as UTF-8."""
    out = []
    for ch in _text(text):
        if (ch == "\t" and keep_tabs) or (ch == "\n" and keep_newlines) or not _escaped(ch):
            out.append(ch)
        else:
            out.append(_escape(ch))
    return "".join(out)


def shown_name(name) -> str:
    """A file name (or path) as found on disk, for a CSV cell or a terminal line: bytes that are not
    UTF-8 (Python keeps them as surrogates, \\udcNN) become \\xNN, control and bidirectional
    characters become visible escapes (printable)."""
    text = os.fspath(name) if isinstance(name, os.PathLike) else _text(name)
    if isinstance(text, bytes):
        raw = text
    else:
        try:
            raw = os.fsencode(text)
        except UnicodeError:                  # a lone surrogate that did not come from the file system
            return printable(text)
    return printable(raw.decode("utf-8", "backslashreplace"))


def _raw_name(name) -> bytes | None:
    text = os.fspath(name) if isinstance(name, os.PathLike) else name
    if isinstance(text, bytes):
        return text
    try:
        return os.fsencode(text)
    except (UnicodeError, TypeError):
        return None


def name_note(name) -> str:
    """A Korean note on what is odd about a file name ("" when nothing is): bytes that are not UTF-8
    (with the CP949 reading, when there is one, since a ZIP made on Korean Windows gives such names),
    or control and bidirectional characters that the CSV shows escaped."""
    raw = _raw_name(name)
    if raw is None:
        return "파일 이름에 UTF-8로 쓸 수 없는 문자가 있어 \\uXXXX로 적었습니다"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        note = ("파일 이름이 UTF-8이 아니어서(not UTF-8) 그 바이트를 \\xNN으로 적었습니다; 한국어 Windows에서 만든 "
                "ZIP을 풀면 이렇게 됩니다 (CP949 이름)")
        korean = _cp949_reading(raw)
        if korean:
            note += f". CP949로 읽으면 '{korean}'입니다"
        return note
    if printable(text) != text:
        return "파일 이름에 제어 문자나 방향 바꿈 문자(bidi)가 있어 \\x1b, \\u202e처럼 보이게 적었습니다"
    return ""


def _cp949_reading(raw: bytes) -> str:
    """The name read part by part (UTF-8 where it is, else CP949), or "" when a part is neither."""
    parts = []
    for part in raw.split(b"/"):
        for encoding in ("utf-8", "cp949"):
            try:
                parts.append(part.decode(encoding))
                break
            except UnicodeDecodeError:
                continue
        else:
            return ""
    text = "/".join(parts)
    return text if printable(text) == text else ""


def _plain_number(value) -> bool:
    """A number a spreadsheet shows as it is: finite, and not an integer too long for a double."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, int):
        return abs(value) < _PLAIN_INT_LIMIT
    return math.isfinite(value)


def safe_cell(value):
    """One CSV cell that a spreadsheet shows and never runs.

    Numbers (int below 10**15 or finite float, not bool) stay numbers, so negative values in numeric
    columns are untouched (floats are rounded to 4 decimals, integral ones written as ints); a
    310-digit integer becomes text. Everything else becomes text: control characters made visible
    (printable; line breaks and tabs kept), and text that starts with a formula trigger, also after
    invisible leading characters or in any Unicode form, gets a leading apostrophe, as OWASP
    recommends: ``=1+1`` -> ``'=1+1``, ``-3`` (text) -> ``'-3``. None is the empty cell.
    """
    if value is None:
        return ""
    if _plain_number(value):
        if isinstance(value, float):
            return int(value) if value.is_integer() else round(value, 4)
        return value
    raw = _text(value)
    text = printable(raw, keep_tabs=True, keep_newlines=True)
    if formula_start(raw) or formula_start(text):
        return "'" + text
    return text


def write_safe_csv(path: str | os.PathLike, header, rows) -> Path:
    """Write a CSV for spreadsheets: UTF-8 with BOM (Excel reads the Korean), every cell through
    safe_cell, every text cell in double quotes (so a separator or quote inside a value cannot
    start a new cell, whatever separator the spreadsheet assumes), numbers unquoted.

    The whole file is built first and then replaces `path` in one step (a temporary file beside it,
    os.replace): a half-written CSV never stays behind."""
    path = Path(path)
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow([safe_cell(cell) for cell in header])
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    payload = buffer.getvalue().encode("utf-8-sig", "backslashreplace")
    if path.exists() and not path.is_file():           # /dev/stdout, a pipe: written through, not replaced
        with open(path, "wb") as out:
            out.write(payload)
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def unneutralised(text: str) -> str:
    """A value read back from one of our CSVs, without the apostrophe safe_cell added."""
    if text.startswith("'") and formula_start(text[1:]):
        return text[1:]
    return text
