"""SASS facts for the chapters' text, read from a record instead of compiled on every import.

The chapters quote what the machine code of each kernel holds (FFMA and LDS.128 counts, registers, the
main loop's instruction order). Compiling and disassembling every kernel takes seconds to tens of
seconds on a small CPU, so a facts module asks this module instead of kernels.sass. Each answer comes
from book/data/sass_facts.json, keyed by the exact text that would be compiled (the kernel file with its
headers, or a named variant of it), the architecture and the compiler options, and stamped with the
NVRTC and cuobjdump versions that produced it:

- importing a facts module reads JSON and compiles nothing (the import stays well under a second);
- if the kernel's text changed since the record (a learner editing a kernel, or a developer before
  re-recording), the answer no longer matches any key and is computed live from the current text, so it
  is never stale; `misses()` lists those, and the tests require none for the shipped kernels;
- `python -m course.facts.recorded_sass --write` re-records by importing every facts module with live
  compilation, and `--check` (run by the tests) recomputes every recorded answer and compares.

The answers are the same objects kernels.sass returns (SassSummary, excerpt text), except `main_loop`,
which returns the loop's instructions without their addresses.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Callable

RECORD = Path(__file__).resolve().parent.parent.parent / "book" / "data" / "sass_facts.json"
LIVE_ENV = "COURSE_SASS_LIVE"         # "1": compile everything live and collect the answers (re-recording)
SCHEMA = 1


class _Variant:
    """A kernel file changed in one named way, for a sentence about what that change does to the SASS."""

    def __init__(self, name: str, file: str, transform: Callable[[str], str]):
        self.name, self.file, self.transform = name, file, transform

    def source(self) -> str:
        from kernels.compiler import expanded_source

        text = expanded_source(self.file)
        changed = self.transform(text)
        if changed == text:
            raise ValueError(f"SASS variant {self.name!r} no longer changes {self.file}: its text moved")
        return changed


class RecordedSass:
    """kernels.sass's questions, answered from the record (or live where the record has no answer)."""

    def __init__(self, path: Path = RECORD):
        self.path = path
        self._variants: dict[str, _Variant] = {}
        self._record: dict | None = None
        self._live = os.environ.get(LIVE_ENV) == "1"
        self._collected: dict[str, object] = {}    # every answer given in this process, by key
        self._misses: list[str] = []

    # -- variants -------------------------------------------------------------------------------------
    def variant(self, name: str, file: str, transform: Callable[[str], str]) -> str:
        """Declare a named variant of `file` (its expanded text through `transform`); returns the name."""
        known = self._variants.get(name)
        if known is not None and known.file != file:
            raise ValueError(f"SASS variant {name!r} is declared twice for different files")
        self._variants[name] = _Variant(name, file, transform)
        return name

    def _file_and_source(self, kernel: str, variant: str | None) -> tuple[str, str | None, str]:
        """(file, source to compile or None for the shipped file, the text that will be compiled)."""
        from kernels import registry
        from kernels.compiler import expanded_source

        file = registry.get(kernel).file
        if variant is None:
            return file, None, expanded_source(file)
        v = self._variants[variant]
        if v.file != file:
            raise ValueError(f"SASS variant {variant!r} changes {v.file}, not {kernel}'s {file}")
        source = v.source()
        return file, source, source

    # -- the record -----------------------------------------------------------------------------------
    def _load(self) -> dict:
        if self._record is None:
            try:
                self._record = json.loads(self.path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                self._record = {"answers": {}}
        return self._record

    @staticmethod
    def _key(kind: str, kernel: str, arch: str, text: str, variant: str | None, *args) -> str:
        from kernels.compiler import AOT_EXTRA_OPTIONS, NVRTC_OPTIONS

        digest = hashlib.sha256("\n".join([arch, *NVRTC_OPTIONS, *AOT_EXTRA_OPTIONS, text]).encode()).hexdigest()[:16]
        parts = [kind, kernel, arch, variant or "-", *(str(a) for a in args), digest]
        return "|".join(parts)

    def _answer(self, kind: str, kernel: str, arch: str, variant: str | None, args: tuple, compute: Callable):
        file, source, text = self._file_and_source(kernel, variant)
        key = self._key(kind, kernel, arch, text, variant, *args)
        answers = self._load().get("answers", {})
        if not self._live and key in answers:
            value = answers[key]
        else:
            if not self._live:
                self._misses.append(key)
            value = compute(file, source)
        self._collected[key] = value
        return value

    def misses(self) -> list[str]:
        """Keys answered live because the record had no answer for the current text."""
        return list(self._misses)

    # -- the questions ----------------------------------------------------------------------------------
    def summarize(self, kernel: str, arch: str = "sm_90", variant: str | None = None):
        """kernels.sass.summarize: registers, shared/local memory, instruction counts."""
        from kernels.sass import SassSummary

        def compute(file, source):
            from kernels import sass

            row = sass.summarize(kernel, arch, source=source)
            return {**row.as_row(), "counts": dict(sorted(row.counts.items()))}

        row = dict(self._answer("summary", kernel, arch, variant, (), compute))
        counts = Counter(row.pop("counts"))
        return SassSummary(**row, counts=counts)

    def excerpt(self, kernel: str, arch: str = "sm_90", pattern: str = r"FFMA|LDS|LDG|STS|LDGSTS|DEPBAR|BAR",
                limit: int = 40, variant: str | None = None) -> str:
        """kernels.sass.excerpt: the first `limit` instructions whose opcode matches `pattern`."""
        def compute(file, source):
            from kernels import sass

            return sass.excerpt(kernel, arch, pattern=pattern, limit=limit, source=source)

        return self._answer("excerpt", kernel, arch, variant, (pattern, limit), compute)

    def main_loop(self, kernel: str, arch: str = "sm_90", variant: str | None = None) -> list[str]:
        """The instructions (without addresses) of kernels.sass.main_loop: the loop holding the most FFMAs."""
        def compute(file, source):
            from kernels import sass

            return [inst for _, inst in sass.main_loop(kernel, arch, source)]

        return list(self._answer("main_loop", kernel, arch, variant, (), compute))

    def count_lines(self, kernel: str, pattern: str, arch: str = "sm_90", variant: str | None = None) -> int:
        """How many lines of the kernel's full disassembly match `pattern` (e.g. never-true `@!PT LDS`)."""
        def compute(file, source):
            from kernels import sass

            text = sass.disassemble(file, arch, source)[kernel]
            return sum(1 for line in text.splitlines() if re.search(pattern, line))

        return int(self._answer("count_lines", kernel, arch, variant, (pattern,), compute))

    def assembles(self, kernel: str, arch: str = "sm_90", variant: str | None = None) -> dict:
        """Whether the text assembles: {"ok": bool, "ptxas": the error came from ptxas}."""
        def compute(file, source):
            from kernels import sass
            from kernels.errors import CompileError

            try:
                sass.summarize(kernel, arch, source=source)
                return {"ok": True, "ptxas": False}
            except CompileError as exc:
                return {"ok": False, "ptxas": "ptxas" in str(exc)}

        return dict(self._answer("assembles", kernel, arch, variant, (), compute))

    def loop_counts(self, kernel: str, arch: str = "sm_90", variant: str | None = None) -> tuple[int, int]:
        """(FFMA, all instructions) of the main loop, predicated FFMAs counted too."""
        loop = self.main_loop(kernel, arch, variant)
        ffma = sum(re.sub(r"^@!?U?P\w+\s+", "", inst).startswith("FFMA") for inst in loop)
        return ffma, len(loop)


sass = RecordedSass()


# --------------------------------------------------------------------------- recording and checking
def tool_versions() -> dict:
    """NVRTC and cuobjdump versions: the compiler that produced the record."""
    import ctypes
    import subprocess

    from kernels import compiler
    from kernels import sass as live

    lib = compiler._nvrtc()
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    out = subprocess.run([os.path.join(live.tool_dir(), "cuobjdump"), "--version"], capture_output=True, text=True,
                         timeout=60).stdout
    release = re.search(r"release ([\d.]+)", out)
    return {"nvrtc": f"{major.value}.{minor.value}", "cuobjdump": release.group(1) if release else out.strip()[-40:]}


def _collect_live() -> dict:
    """Every answer the facts modules ask for, compiled live (imports them in a fresh interpreter)."""
    import subprocess

    from course import syllabus

    modules = [m.facts_module for m in syllabus.load()]
    code = ("import json, importlib, sys\n"
            f"for name in {modules!r}: importlib.import_module(name)\n"
            "from course.facts.recorded_sass import sass\n"
            "json.dump(sass._collected, sys.stdout, ensure_ascii=False)\n")
    env = dict(os.environ, **{LIVE_ENV: "1"})
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"importing the facts modules with live SASS failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout)


def _agreed_answers(rounds: int = 3) -> dict:
    """Live answers that two compiles agree on (ptxas may vary under CPU contention, see check()): collect
    twice, and settle any key the two disagree on by further rounds, keeping the answer seen most often."""
    runs = [_collect_live(), _collect_live()]
    disputed = {key for key in runs[0] if runs[0][key] != runs[1].get(key)}
    for _ in range(rounds - 2):
        if not disputed:
            break
        runs.append(_collect_live())
    answers = dict(runs[0])
    for key in disputed:
        seen = [json.dumps(run[key], sort_keys=True) for run in runs if key in run]
        answers[key] = json.loads(max(set(seen), key=seen.count))
    return answers


def write(path: Path = RECORD) -> dict:
    answers = _agreed_answers()
    record = {"schema": SCHEMA,
              "what": "SASS facts the chapters' text quotes, by kernel text (sha256 of arch, options and source)",
              "command": "python -m course.facts.recorded_sass --write",
              "tools": tool_versions(),
              "answers": dict(sorted(answers.items()))}
    path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return record


def check(path: Path = RECORD, attempts: int = 3) -> list[str]:
    """Differences between the record and a live recompilation (empty: the record is true).

    A key names the exact text compiled, the architecture, the options and (in the record) the tool
    versions, so an answer that differs for the same key can only come from the compiler itself. It does
    happen: under CPU contention NVRTC's ptxas sometimes schedules a kernel differently (seen on this
    project: the same Level 6 source gave one extra 32-bit LDS and a moved branch in about one compile of
    forty, with three compiles sharing two cores). So an answer that differs is recompiled up to
    `attempts` times, and only one that never reproduces the record is reported.
    """
    record = json.loads(path.read_text(encoding="utf-8"))
    problems = []
    if record.get("tools") != tool_versions():
        problems.append(f"tools: recorded {record.get('tools')}, installed {tool_versions()}")
    recorded = record.get("answers", {})
    live = _collect_live()
    for key in sorted(set(live) | set(recorded)):
        if key not in recorded:
            problems.append(f"not recorded: {key}")
        elif key not in live:
            problems.append(f"recorded but no facts module asks for it: {key}")
    differing = {key for key in set(live) & set(recorded) if live[key] != recorded[key]}
    for _ in range(attempts - 1):
        if not differing:
            break
        again = _collect_live()
        differing = {key for key in differing if again.get(key) != recorded[key]}
    problems += [f"differs in {attempts} compiles: {key}" for key in sorted(differing)]
    return problems


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m course.facts.recorded_sass",
                                     description="Record or check the SASS facts of the chapters (no GPU needed).")
    parser.add_argument("--write", action="store_true", help="re-record book/data/sass_facts.json")
    parser.add_argument("--check", action="store_true", help="recompute every answer and compare (exit 1 on a difference)")
    args = parser.parse_args(argv)
    if args.write:
        record = write()
        print(f"wrote {RECORD} ({len(record['answers'])} answers, {record['tools']})")
        return 0
    problems = check()
    for problem in problems:
        print(problem)
    print("SASS record up to date" if not problems else f"{len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
