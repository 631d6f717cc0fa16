"""Record every listed GPU's kernel configurations: book/data/device_configs.json (no GPU needed).

    python tools/record_device_configs.py            # write the file
    python tools/record_device_configs.py --check    # compare with the file (exit 1 when it differs)

The rows are `python -m kernels configs --device all --json`: for each device and kernel the
configuration kernels/configs.py chooses, threads, static + dynamic shared memory, registers from the
cubin NVRTC compiles for the device's compute capability, resident blocks per SM and whether it fits.
The file also records which listed devices share one configuration (the classes the device proof runs),
the compiler that produced the registers, the command, the date and the commit. Module 11's section
"같은 커널, 다른 GPU" shows it; tests/test_configs.py regenerates it and compares.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from importlib import metadata

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kernels import compiler, configs, devices, record  # noqa: E402
from kernels.device import today  # noqa: E402

OUT = record.DATA_DIR / "device_configs.json"
COMMAND = "python tools/record_device_configs.py"
# What a regenerated file must reproduce exactly; the rest is provenance.
COMPARED = ("devices", "classes", "rows")
# Fields that come from ptxas: they may change with the compiler, so they are compared only when the
# NVRTC that regenerates the file is the one that recorded it.
FROM_PTXAS = ("registers", "blocks_per_sm", "limiter", "smem_static")


def _package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def build() -> dict:
    """The whole record, computed from the registry, the device table and the cubins."""
    listed = list(devices.PROFILES.values())
    fits = configs.fits_for_many(listed)
    classes = [{"devices": names, "cp_async": devices.profile(names[0]).has_cp_async,
                "level5": configs.choose("level5", devices.profile(names[0])).config,
                "level6": configs.choose("level6", devices.profile(names[0])).config}
               for names in configs.configuration_classes().values()]
    return {
        "what": "kernels/configs.py: each listed GPU's configuration of every kernel, checked against its limits",
        "command": COMMAND,
        "date": today(),
        "git_commit": record.git_commit(),
        "compiler": {"nvrtc": compiler.nvrtc_version(),
                     "nvidia-cuda-nvrtc-cu12": _package_version("nvidia-cuda-nvrtc-cu12"),
                     "options": list(compiler.NVRTC_OPTIONS + compiler.AOT_EXTRA_OPTIONS)},
        "devices": [d.as_dict() for d in listed],
        "classes": classes,
        "rows": [f.row() for device_fits in fits for f in device_fits],
    }


def load() -> dict | None:
    return json.loads(OUT.read_text(encoding="utf-8")) if OUT.exists() else None


def differences(recorded: dict, fresh: dict) -> list[str]:
    """What a regenerated record changes (empty: the file is current)."""
    same_compiler = recorded.get("compiler", {}).get("nvrtc") == fresh["compiler"]["nvrtc"]
    out = []
    for key in COMPARED:
        old, new = recorded.get(key), fresh[key]
        if key == "rows" and not same_compiler:
            old = [{k: v for k, v in r.items() if k not in FROM_PTXAS} for r in old or []]
            new = [{k: v for k, v in r.items() if k not in FROM_PTXAS} for r in new]
        if old != new:
            out.append(key)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the recorded file instead of writing it")
    args = ap.parse_args(argv)
    fresh = build()
    if args.check:
        recorded = load()
        changed = differences(recorded, fresh) if recorded else ["(no file)"]
        print("device_configs.json: " + ("current" if not changed else "differs in " + ", ".join(changed)))
        return 1 if changed else 0
    OUT.write_text(json.dumps(fresh, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    bad = [r for r in fresh["rows"] if not r["fits"]]
    print(f"wrote {OUT}: {len(fresh['rows'])} rows, {len(fresh['classes'])} configuration classes, "
          f"{len(bad)} not fitting")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
