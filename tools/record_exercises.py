"""Check every exercise's solution and known-wrong attempts on this GPU; write book/data/exercises.json.

    CUPY_TF32=0 python tools/record_exercises.py [--jobs 4] [--only m06-e1] [--out PATH] [--seed N]
    python tools/record_exercises.py --merge-from PART.json [--out PATH]
        (no GPU: put the exercises of a partial record, e.g. one made with --only, into the book's record;
        each merged exercise keeps its own run's provenance under "recorded")

Per exercise: the solution's verdict (it must pass every check) and each wrong attempt's verdict
with the diagnosis it received and whether that equals the one its exercise.yaml names. For the
race attempts, also what the stand-in for racecheck (repeated runs, used where compute-sanitizer is
missing) made of them. Compile, SASS, correctness and hazards run for several submissions at once;
the speed checks run afterwards one at a time, so that no timing shares the GPU.

The closing table has one row per submission: exercise, file, expected verdict, the verdict got,
whether they agree, the seconds each check took, and the reason (the first line of the deciding
check's message). Below it: whether the shared-memory fill was seen by a fresh block on this GPU,
and the slowest check against its time limit (the fill and the extra cases must not push a correct
solution near a limit). Every verdict records its seed; --seed N gives all submissions that seed.
Exit code 1 when a solution fails or a wrong attempt gets another diagnosis.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

os.environ.setdefault("CUPY_TF32", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from course.autograder import CHECKER_VERSION, checker, gpu, load, load_all  # noqa: E402
from course.autograder.cases import new_seed  # noqa: E402
from course.autograder.learner import read_source_file  # noqa: E402
from kernels.record import DATA_DIR, guard_book_record, provenance  # noqa: E402

OUT = DATA_DIR / "exercises.json"
CHECK_NAMES = {"컴파일": "compile", "SASS": "sass", "정확성": "correctness", "경쟁": "hazards", "속도": "speed"}


def items_of(spec) -> list[dict]:
    out = [{"exercise": spec, "role": "solution", "file": "solution.cu", "expected": None, "what_ko": ""}]
    out += [{"exercise": spec, "role": "wrong", "file": w.file, "expected": w.diagnosis, "what_ko": w.what_ko}
            for w in spec.wrong_attempts]
    return out


class _Clock:
    """Seconds per check, from the checker's progress callback (called as each check starts)."""

    def __init__(self):
        self.marks: list[tuple[str, float]] = []

    def __call__(self, what: str) -> None:
        check = next((v for k, v in CHECK_NAMES.items() if what.startswith(k)), what)
        self.marks.append((check, time.monotonic()))

    def seconds(self, end: float) -> dict:
        out = {}
        for (check, start), (_, stop) in zip(self.marks, self.marks[1:] + [("", end)]):
            out[check] = round(stop - start, 1)
        return out


def first_phase(item: dict, limits, seed: int | None) -> dict:
    spec = item["exercise"]
    source = read_source_file(spec.folder / item["file"])
    clock = _Clock()
    started = time.monotonic()
    verdict = checker.check_source(spec, source, item["file"], use_gpu=True, limits=limits, include_speed=False,
                                   progress=clock, seed=new_seed() if seed is None else seed)
    item.update(source=source, verdict=verdict, seconds=time.monotonic() - started,
                check_seconds=clock.seconds(time.monotonic()))
    print(f"  checked {spec.id}/{item['file']}: {verdict.diagnosis or 'ok'} ({item['seconds']:.0f} s, "
          f"seed {verdict.seed})", flush=True)
    return item


def measure_speed(item: dict, limits, reps: int) -> None:
    started = time.monotonic()
    checker.measure_speed(item["exercise"], item["verdict"], item["source"], limits, reps=reps)
    if item["verdict"].result("speed").status != "skip":
        item["check_seconds"]["speed"] = round(time.monotonic() - started, 1)


def fallback_race(item: dict, limits) -> dict:
    """What the repeated-run test (no compute-sanitizer) says about a race attempt."""
    result = gpu.differential_check(item["exercise"], item["source"], "wrong.cu", limits, item["verdict"].seed or 0)
    return {"status": result.status, "diagnosis": result.diagnosis, "message_ko": result.message_ko,
            "details": result.details}


def reason(verdict) -> str:
    """The first line of the message of the check that decided the verdict (or of the last check)."""
    deciding = next((c for c in verdict.checks if c.diagnosis == verdict.diagnosis), None) if verdict.diagnosis \
        else verdict.checks[-1]
    text = (deciding.message_ko if deciding else "").splitlines()
    return (text[0] if text else "")[:160]


def speed_line(item: dict) -> str:
    """The timed shape drawn for the submission, the ratio against the bar, a second measurement, wrong launches."""
    d = item["verdict"].result("speed").details
    shape = "x".join(str(d[k]) for k in ("M", "N", "K", "S") if d.get(k) is not None)
    line = (f"speed {item['exercise'].id}/{item['file']}: {shape} ratio {d['ratio']:.3f} (min {d['min_ratio']}), "
            f"{d.get('launches_checked')} launches checked, {d.get('wrong_launches')} wrong")
    if d.get("remeasured"):
        line += f"; first measurement {d['first_ratio']:.3f} was within {d['band']:.0%} of the bar: measured again"
    return line


def agrees(item: dict) -> bool:
    verdict = item["verdict"]
    return verdict.passed if item["role"] == "solution" else verdict.diagnosis == item["expected"]


def print_table(items: list) -> None:
    print(f"\n{'attempt':<40} {'expected':<22} {'got':<22} ok   {'seconds (compile/sass/correct/hazards/speed)':<44} reason")
    for item in items:
        v = item["verdict"]
        expected = item["expected"] or "(pass)"
        got = v.diagnosis or ("pass" if v.passed else "incomplete")
        secs = item["check_seconds"]
        timing = "/".join(f"{secs.get(c, 0):.0f}" for c in ("compile", "sass", "correctness", "hazards", "speed"))
        print(f"{item['exercise'].id + '/' + item['file']:<40} {expected:<22} {got:<22} "
              f"{'yes' if agrees(item) else 'NO ':<4} {timing:<44} {reason(v)}")


def print_fill_and_limits(items: list, limits) -> None:
    seen = [i["verdict"].result("correctness").details.get("shared_junk_seen") for i in items
            if i["role"] == "solution" and i["verdict"].result("correctness").status != "skip"]
    seen = [s for s in seen if s is not None]
    print(f"\nshared-memory fill seen by a fresh block: {min(seen) if seen else 'n/a'} "
          "(share of its words found, min over solutions; 1.0 = always)")
    limit_of = {"correctness": limits.correctness, "hazards": limits.hazards, "speed": limits.speed}
    worst = max(((secs / limit_of[c], c, i) for i in items if i["role"] == "solution"
                 for c, secs in i["check_seconds"].items() if c in limit_of), default=None, key=lambda t: t[0])
    if worst:
        share, check, item = worst
        print(f"slowest solution check against its limit: {item['exercise'].id} {check} "
              f"{item['check_seconds'][check]:.0f} s of {limit_of[check]:g} s ({share:.0%}; start-up included)")
    after = [(i["verdict"].result("correctness").details.get("seconds", {}).get("after_ready"), i) for i in items
             if i["verdict"].result("correctness") is not None]
    after = [(s, i) for s, i in after if s is not None]
    if after:
        seconds, item = max(after, key=lambda pair: pair[0])
        print(f"slowest correctness check after start-up (what its limit counts): {item['exercise'].id}/{item['file']} "
              f"{seconds:.0f} s of {limits.correctness:g} s")


def record_of(specs, items, args, limits, started) -> tuple[dict, list]:
    record = provenance(" ".join(["python tools/record_exercises.py", *(args.argv or [])]))
    record["checker"] = {"version": CHECKER_VERSION, "sanitizer": gpu.sanitizer_path(), "limits_s": asdict(limits), "speed_reps": args.reps,
                         "jobs": args.jobs, "seconds": round(time.monotonic() - started, 1), "seed": args.seed}
    record["exercises"] = {}
    problems = []
    for spec in specs:
        entry = {"title_ko": spec.title_ko, "module": spec.module, "wrong_attempts": []}
        for item in (i for i in items if i["exercise"].id == spec.id):
            verdict = item["verdict"].to_dict()
            if item["role"] == "solution":
                entry["solution"] = verdict
                entry["solution_check_seconds"] = item["check_seconds"]
                if not verdict["passed"]:
                    problems.append(f"{spec.id}/solution.cu: {verdict['diagnosis']} (seed {verdict['seed']})")
                continue
            matches = verdict["diagnosis"] == item["expected"]
            if not matches:
                problems.append(f"{spec.id}/{item['file']}: expected {item['expected']}, got {verdict['diagnosis']} "
                                f"(seed {verdict['seed']})")
            row = {"file": item["file"], "what_ko": item["what_ko"], "expected": item["expected"],
                   "got": verdict["diagnosis"], "matches": matches, "verdict": verdict,
                   "check_seconds": item["check_seconds"]}
            if "fallback" in item:
                row["fallback_without_sanitizer"] = item["fallback"]
            entry["wrong_attempts"].append(row)
        record["exercises"][spec.id] = entry
    record["all_solutions_pass"] = all(e["solution"]["passed"] for e in record["exercises"].values())
    record["all_diagnoses_match"] = all(w["matches"] for e in record["exercises"].values() for w in e["wrong_attempts"])
    return record, problems


PROVENANCE_KEYS = ("device", "driver", "cuda_runtime", "cupy", "date", "command", "git_commit", "checker")


def merge(part: dict, whole: dict) -> dict:
    """`whole` with the exercises of `part` replacing its own; each keeps `part`'s provenance."""
    out = json.loads(json.dumps(whole))
    for exercise_id, entry in part["exercises"].items():
        out["exercises"][exercise_id] = {**entry, "recorded": {k: part.get(k) for k in PROVENANCE_KEYS}}
    out["all_solutions_pass"] = all(e["solution"]["passed"] for e in out["exercises"].values())
    out["all_diagnoses_match"] = all(w["matches"] for e in out["exercises"].values() for w in e["wrong_attempts"])
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--only", action="append", metavar="ID")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--reps", type=int, default=10, help="timings per kernel in the speed check")
    parser.add_argument("--seed", type=int, help="one seed for every submission (default: a fresh seed each)")
    parser.add_argument("--merge-from", metavar="PART", help="merge a partial record into --out (no GPU needed)")
    args = parser.parse_args(argv)
    args.argv = argv if argv is not None else sys.argv[1:]
    if args.merge_from:
        out = Path(args.out)
        merged = merge(json.loads(Path(args.merge_from).read_text(encoding="utf-8")),
                       json.loads(out.read_text(encoding="utf-8")))
        out.write_text(json.dumps(merged, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"merged {', '.join(json.loads(Path(args.merge_from).read_text(encoding='utf-8'))['exercises'])} into {out}")
        return 0 if merged["all_solutions_pass"] and merged["all_diagnoses_match"] else 1
    specs = [load(i) for i in args.only] if args.only else load_all()
    limits = gpu.Limits()
    items = [item for spec in specs for item in items_of(spec)]
    started = time.monotonic()
    print(f"{len(specs)} exercises, {len(items)} submissions; compile/SASS/correctness/hazards with {args.jobs} jobs",
          flush=True)
    # One solution of each kind first, alone: CuPy compiles its own kernels on first use, and several workers
    # compiling the same ones at once on a cold machine only slow each other down.
    first = {}
    for item in items:
        first.setdefault(item["exercise"].kind, item)
    for item in first.values():
        first_phase(item, limits, args.seed)
    rest = [item for item in items if "verdict" not in item]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(lambda it: first_phase(it, limits, args.seed), rest))
    print("speed checks, one at a time", flush=True)
    for item in items:
        measure_speed(item, limits, args.reps)
    for item in items:
        if item["expected"] == "race":
            item["fallback"] = fallback_race(item, limits)

    record, problems = record_of(specs, items, args, limits, started)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    guard_book_record(out)
    out.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    print_table(items)
    for item in items:
        speed = item["verdict"].result("speed")
        if speed and speed.details.get("ratio"):
            print(speed_line(item))
    for item in items:
        if "fallback" in item:
            print(f"fallback (no sanitizer) on {item['exercise'].id}/{item['file']}: {item['fallback']['diagnosis']}")
    print_fill_and_limits(items, limits)
    print(f"\nwrote {out}; {len(problems)} problem(s); {record['checker']['seconds']:.0f} s in all")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
