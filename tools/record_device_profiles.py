"""Time each configuration class's kernels on this GPU: book/data/device_profiles.json (GPU needed).

    CUPY_TF32=0 python tools/record_device_profiles.py [--sizes 1024 2048 4096] [--reps 20] [--out FILE]

The listed GPUs fall into a few configuration classes (kernels/configs.py: T4; RTX 30xx/40xx, L4, A10G;
A100; H100/H200). For one device of each class, COURSE_DEVICE_PROFILE is set to it and the kernels whose
configuration follows the device (Levels 5 and 6) are checked against cuBLAS and timed beside it, in
alternation, at a few sizes (kernels.bench). Every number is this GPU's: a row under "T4" is the
configuration of device T4 timed on (say) an H100, never the T4's own speed, and its % of cuBLAS is against
this GPU's cuBLAS in the same run. The file says so in every entry ("label"), with the provenance of the run.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("CUPY_TF32", "0")

from kernels import bench, configs, devices, record, registry  # noqa: E402
from kernels.errors import DeviceLimitError  # noqa: E402

OUT = record.DATA_DIR / "device_profiles.json"
SIZES = (1024, 2048, 4096)


def class_representatives() -> list[tuple[str, list[str]]]:
    """(profile to run, every listed device that gets the same configurations), smallest GPU first."""
    return [(names[0], names) for names in configs.configuration_classes().values()]


def time_profile(name: str, sizes, reps: int) -> dict:
    """Every configurable kernel under COURSE_DEVICE_PROFILE=name, beside cuBLAS on this GPU."""
    previous = os.environ.get(devices.PROFILE_ENV)
    os.environ[devices.PROFILE_ENV] = name
    try:
        device = record.info()["device"]
        entry = {"profile": name, **record.profile_label(device),
                 "configs": {k: configs.config_text(configs.spec_for(k)) for k in registry.configurable()}}
        try:
            rows = bench.bench(list(registry.configurable()), sizes, reps=reps, show_progress=False)
            entry["rows"] = [r.as_row() for r in rows]
        except DeviceLimitError as exc:   # a profile bigger than this GPU: recorded as refused, not as a crash
            entry["refused"], entry["rows"] = str(exc), []
        return entry
    finally:
        if previous is None:
            os.environ.pop(devices.PROFILE_ENV, None)
        else:
            os.environ[devices.PROFILE_ENV] = previous


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--out", type=str, default=str(OUT))
    args = ap.parse_args(argv)
    if configs.active_profile() is not None:
        print("COURSE_DEVICE_PROFILE를 지우고 실행하세요: 이 도구가 프로필을 차례로 바꿉니다.", file=sys.stderr)
        return 2
    record.spin_up()
    result = record.provenance(f"python tools/record_device_profiles.py --sizes {' '.join(map(str, args.sizes))} "
                               f"--reps {args.reps}")
    result["what"] = ("each configuration class's Level 5 and Level 6 configuration, timed on this one GPU beside "
                      "its cuBLAS: a row under a profile is that device's configuration timed here, not its speed")
    result["profiles"] = []
    bad = 0
    for name, members in class_representatives():
        entry = time_profile(name, args.sizes, args.reps)
        entry["devices"] = members
        result["profiles"].append(entry)
        for r in entry["rows"]:
            if r["kernel"] == "cublas":
                continue
            ok = r["rel_error"] is not None and r["rel_error"] < 1e-5
            bad += not ok
            print(f"{name:<10} {r['kernel']:<22} {r.get('config_text', '-'):<36} {r['M']:>5}^3 "
                  f"{r['median_ms']:8.3f} ms {r['pct_cublas']:6.1f}% cuBLAS err {r['rel_error']:.1e}", flush=True)
        if entry.get("refused"):
            print(f"{name:<10} refused: {entry['refused']}", flush=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    print(f"wrote {args.out} ({result['device']}); {bad} rows with a wrong result")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
