"""Check every exercise's solution and known-wrong attempts on this GPU; write book/data/exercises.json.

    CUPY_TF32=0 python tools/record_exercises.py [--jobs 4] [--only m06-e1] [--out PATH]

Per exercise: the solution's verdict (it must pass every check) and each wrong attempt's verdict
with the diagnosis it received and whether that equals the one its exercise.yaml names. For the
race attempts, also what the stand-in for racecheck (repeated runs, used where compute-sanitizer is
missing) made of them. Compile, SASS, correctness and hazards run for several submissions at once;
the speed checks run afterwards one at a time, so that no timing shares the GPU.
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

from course.exercise import checker, gpu, load, load_all  # noqa: E402
from course.exercise.learner import read_source_file  # noqa: E402
from kernels.record import DATA_DIR, guard_book_record, provenance  # noqa: E402

OUT = DATA_DIR / "exercises.json"


def items_of(spec) -> list[dict]:
    out = [{"exercise": spec, "role": "solution", "file": "solution.cu", "expected": None, "what_ko": ""}]
    out += [{"exercise": spec, "role": "wrong", "file": w.file, "expected": w.diagnosis, "what_ko": w.what_ko}
            for w in spec.wrong_attempts]
    return out


def first_phase(item: dict, limits) -> dict:
    spec = item["exercise"]
    source = read_source_file(spec.folder / item["file"])
    started = time.monotonic()
    verdict = checker.check_source(spec, source, item["file"], use_gpu=True, limits=limits, include_speed=False)
    item.update(source=source, verdict=verdict, seconds=time.monotonic() - started)
    print(f"  checked {spec.id}/{item['file']}: {verdict.diagnosis or 'ok'} ({item['seconds']:.0f} s)", flush=True)
    return item


def fallback_race(item: dict, limits) -> dict:
    """What the repeated-run test (no compute-sanitizer) says about a race attempt."""
    result = gpu.differential_check(item["exercise"], item["source"], item["file"], limits)
    return {"status": result.status, "diagnosis": result.diagnosis, "message_ko": result.message_ko,
            "details": result.details}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--only", action="append", metavar="ID")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--reps", type=int, default=10, help="timings per kernel in the speed check")
    args = parser.parse_args(argv)
    specs = [load(i) for i in args.only] if args.only else load_all()
    limits = gpu.Limits()
    items = [item for spec in specs for item in items_of(spec)]
    started = time.monotonic()
    print(f"{len(specs)} exercises, {len(items)} submissions; compile/SASS/correctness/hazards with {args.jobs} jobs",
          flush=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        items = list(pool.map(lambda it: first_phase(it, limits), items))
    print("speed checks, one at a time", flush=True)
    for item in items:
        checker.measure_speed(item["exercise"], item["verdict"], item["source"], limits, reps=args.reps)
    for item in items:
        if item["expected"] == "race":
            item["fallback"] = fallback_race(item, limits)

    record = provenance(" ".join(["python tools/record_exercises.py", *(argv if argv is not None else sys.argv[1:])]))
    record["checker"] = {"sanitizer": gpu.sanitizer_path(), "limits_s": asdict(limits), "speed_reps": args.reps,
                         "jobs": args.jobs, "seconds": round(time.monotonic() - started, 1)}
    record["exercises"] = {}
    problems = []
    for spec in specs:
        entry = {"title_ko": spec.title_ko, "module": spec.module, "wrong_attempts": []}
        for item in (i for i in items if i["exercise"].id == spec.id):
            verdict = item["verdict"].to_dict()
            if item["role"] == "solution":
                entry["solution"] = verdict
                if not verdict["passed"]:
                    problems.append(f"{spec.id}/solution.cu: {verdict['diagnosis']}")
                continue
            matches = verdict["diagnosis"] == item["expected"]
            if not matches:
                problems.append(f"{spec.id}/{item['file']}: expected {item['expected']}, got {verdict['diagnosis']}")
            row = {"file": item["file"], "what_ko": item["what_ko"], "expected": item["expected"],
                   "got": verdict["diagnosis"], "matches": matches, "verdict": verdict}
            if "fallback" in item:
                row["fallback_without_sanitizer"] = item["fallback"]
            entry["wrong_attempts"].append(row)
        record["exercises"][spec.id] = entry
    record["all_solutions_pass"] = all(e["solution"]["passed"] for e in record["exercises"].values())
    record["all_diagnoses_match"] = all(w["matches"] for e in record["exercises"].values() for w in e["wrong_attempts"])
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    guard_book_record(out)
    out.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    print(f"\n{'exercise':<8} {'file':<32} {'expected':<24} {'got':<24} ok   seconds")
    for item in items:
        v = item["verdict"]
        expected = item["expected"] or "(pass)"
        got = v.diagnosis or ("pass" if v.passed else "incomplete")
        ok = (v.passed if item["role"] == "solution" else v.diagnosis == item["expected"])
        print(f"{item['exercise'].id:<8} {item['file']:<32} {expected:<24} {got:<24} {'yes' if ok else 'NO ':<4} "
              f"{item['seconds']:.0f}")
        speed = v.result("speed")
        if speed and speed.details.get("ratio"):
            print(f"{'':<8} speed ratio {speed.details['ratio']:.2f} (min {speed.details['min_ratio']})")
    for item in items:
        if "fallback" in item:
            print(f"fallback (no sanitizer) on {item['exercise'].id}/{item['file']}: {item['fallback']['diagnosis']}")
    print(f"\nwrote {out}; {len(problems)} problem(s)")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
