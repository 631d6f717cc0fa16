"""Command line: python -m kernels {list,check,bench,record,sass,configs,doctor} [--help]."""
from __future__ import annotations

import argparse
import json
import random
import sys

from kernels import registry
from kernels.devices import UnknownDeviceError
from kernels.errors import CompileError, GPUUnavailableError, KernelInputError


def _kernel_names(selected: list[str] | None) -> list[str]:
    names = selected or list(registry.KERNELS)
    for n in names:
        registry.get(n)
    return names


def cmd_list(args) -> int:
    from kernels import configs

    profile = configs.active_profile()
    print(f"{'kernel':<31} {'lvl':>3} {'variant':<19} {'block':>8} {'tile':>9} {'smem B':>7} {'float4':<7} "
          f"{'cp.async':<8} 설명")
    specs = [configs.spec_for(n, profile) if profile else s for n, s in registry.KERNELS.items()]
    for s in specs:
        smem = s.static_smem + s.dynamic_smem
        print(f"{s.name:<31} {s.level:>3} {s.variant:<19} {s.block[0]:>4}x{s.block[1]:<3} "
              f"{s.tile[0]}x{s.tile[1]:>5} {smem:>7} {''.join(s.vec4) or '-':<7} {'yes' if s.async_copy else '-':<8} "
              f"{s.title_ko}")
    whose = f"장치 프로필 {profile.name}의 구성" if profile else "H100에서 고른 구성 (다른 GPU: python -m kernels configs)"
    print(f"\nLevel 5와 6의 모양: {whose}")
    return 0


def random_shapes(count: int, seed: int, largest: int = 600) -> list[tuple[int, int, int]]:
    """Random shapes, 1 .. largest per side (every kernel takes every shape)."""
    rng = random.Random(seed)
    return [tuple(rng.randint(1, largest) for _ in range(3)) for _ in range(count)]


def cmd_check(args) -> int:
    from kernels import check

    failures = 0
    total = 0
    for name in _kernel_names(args.kernel):
        spec = registry.get(name)
        cases = [(s, 1.0, 0.0) for s in check.awkward_shapes(spec)]
        cases += [(s, 1.0, 0.0) for s in random_shapes(args.random, args.seed)]
        cases += [((96, 128, 64), a, b) for a, b in check.ALPHA_BETA_CASES]
        worst = 0.0
        bad = []
        for i, ((M, N, K), alpha, beta) in enumerate(cases):
            r = check.check(name, M, N, K, alpha, beta, seed=args.seed + i)
            total += 1
            worst = max(worst, r.rel_error if r.rel_error == r.rel_error else float("inf"))
            if not r.ok:
                bad.append(r)
        failures += len(bad)
        status = "OK " if not bad else "FAIL"
        print(f"{status} {name:<31} {len(cases):>4} cases  worst rel.err {worst:.2e}")
        for r in bad[:5]:
            print(f"      {r.M}x{r.N}x{r.K} alpha={r.alpha} beta={r.beta}: rel.err={r.rel_error:.2e} non-finite={r.non_finite}")
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0


def cmd_bench(args) -> int:
    from kernels import bench, compiler

    names = _kernel_names(args.kernel)
    sizes = args.size or [1024, 2048, 4096]
    rows = bench.bench(names, sizes, warmup=args.warmup, reps=args.reps, show_progress=not args.no_progress)
    print(bench.format_table(rows))
    print(f"\ncompiled modules in this process: {compiler.compile_count}")
    return 0


def cmd_configs(args) -> int:
    from kernels import configs

    names = ["all"] if args.device is None else args.device
    limits = configs.resolve_devices(names)
    fits = configs.fits_for_many(limits)
    if args.json:
        print(json.dumps([f.row() for device_fits in fits for f in device_fits], ensure_ascii=False, indent=1))
    else:
        print("\n\n".join(configs.format_table(device_fits) for device_fits in fits))
    return 0 if all(f.fits for device_fits in fits for f in device_fits) else 1


def cmd_record(args) -> int:
    from kernels import bench, configs, record

    if configs.active_profile() is not None:
        raise KernelInputError(
            f"장치 프로필(COURSE_DEVICE_PROFILE={configs.active_profile().name})이 켜져 있어 benchmarks.json을 "
            "덮어쓰지 않습니다: 책의 기록은 이 GPU 자신의 구성이어야 합니다. 프로필별 측정은 "
            "`python tools/record_device_profiles.py`로 따로 기록하세요."
        )

    result = record.record(reps=args.reps)
    print(bench.format_table(result["rows"]))
    print("\nawkward shapes (staged operands, kernel alone on the padded buffers):")
    print(bench.format_table(result["awkward_rows"]))
    for r in result["pairs"]:
        print(f"  {r['new']} vs {r['old']} at {r['M']}^3 (alternating): {r['speedup']:.3f}x")
    for r in result["awkward_rows"]:
        if r.get("staged"):
            print(f"  {r['kernel']:<24} {r['M']}x{r['N']}x{r['K']}: staged {','.join(r['staged'])}, "
                  f"{r['median_ms']:.3f} ms with copies, {r['kernel_only_ms']:.3f} ms kernel alone")
    print(f"\nwrote {record.BENCH_FILE} ({result['device']}, {result['date']}); "
          f"copy bandwidth {result['bandwidth_gbs']:.0f} GB/s")
    return 0


def cmd_sass(args) -> int:
    from kernels import sass

    names = _kernel_names(args.kernel)
    print(f"{'kernel':<31} {'arch':<6} {'regs':>4} {'smem':>6} {'local':>5} {'FFMA':>5} {'LDG.128':>7} {'LDG.32':>6} "
          f"{'LDGSTS':>6} {'LDS widths':<26} spills")
    for arch in args.arch:
        for name in names:
            s = sass.summarize(name, arch)
            widths = ", ".join(f"{w}b:{n}" for w, n in sorted(s.lds_widths.items()))
            print(f"{name:<31} {arch:<6} {s.registers:>4} {s.smem_static:>6} {s.local_bytes:>5} {s.ffma:>5} "
                  f"{s.ldg_128:>7} {s.ldg_32:>6} {s.ldgsts:>6} {widths:<26} {s.spills}")
            if args.show:
                print(sass.excerpt(name, arch, limit=args.show))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m kernels",
                                description="강좌의 SGEMM 커널: 목록, 검증, 벤치마크, 기록, SASS (course SGEMM kernels)")
    sub = p.add_subparsers(dest="command", required=True)

    sub.add_parser("list", help="커널 목록과 실행 형태 (list kernels; no GPU needed)").set_defaults(func=cmd_list)

    c = sub.add_parser("check", help="cuBLAS와 비교 검증 (check against cuBLAS; GPU)")
    c.add_argument("--kernel", action="append", help="커널 이름 (반복 가능; 기본: 전부)")
    c.add_argument("--random", type=int, default=20, help="커널마다 무작위 크기 개수 (default 20)")
    c.add_argument("--seed", type=int, default=0)
    c.set_defaults(func=cmd_check)

    b = sub.add_parser("bench", help="cuBLAS 대비 성능 측정 (benchmark; GPU)")
    b.add_argument("--kernel", action="append", help="커널 이름 (반복 가능; 기본: 전부)")
    b.add_argument("--size", type=int, action="append", help="정사각 크기 n (반복 가능; 기본 1024 2048 4096)")
    b.add_argument("--reps", type=int, default=20, help="측정 반복 횟수 (default 20)")
    b.add_argument("--warmup", type=int, default=3)
    b.add_argument("--no-progress", action="store_true", help="진행 막대 끄기")
    b.set_defaults(func=cmd_bench)

    r = sub.add_parser("record", help="전체 결과를 book/data/benchmarks.json에 기록 (record results; GPU)")
    r.add_argument("--reps", type=int, default=50, help="측정 반복 횟수 (default 50)")
    r.set_defaults(func=cmd_record)

    s = sub.add_parser("sass", help="SASS 요약 (SASS summary; no GPU needed)")
    s.add_argument("--kernel", action="append", help="커널 이름 (반복 가능; 기본: 전부)")
    s.add_argument("--arch", action="append", help="아키텍처 (반복 가능; 기본 sm_80, sm_90)")
    s.add_argument("--show", type=int, default=0, metavar="N", help="핵심 명령어 N줄 보기")
    s.set_defaults(func=cmd_sass)

    g = sub.add_parser("configs", help="GPU마다 각 커널의 구성과 한도 (configurations per device; no GPU needed)")
    g.add_argument("--device", action="append", metavar="NAME",
                   help="T4, RTX3090, A10G, L4, RTX4090, A100-40GB, A100-80GB, H100, H200, current, all "
                        "(반복 가능; 기본: all)")
    g.add_argument("--json", action="store_true", help="JSON 목록으로 (kernel, device, cc, smem_bytes, ...)")
    g.set_defaults(func=cmd_configs)

    d = sub.add_parser("doctor", help="이 머신에서 GPU로 실행할 수 있는지 점검하고 해결 방법 안내 (check the GPU setup)")
    d.add_argument("--json", action="store_true", help="결과를 JSON으로 (machine-readable)")
    d.set_defaults(func=lambda a: __import__("kernels.doctor", fromlist=["main"]).main(as_json=a.json))
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "arch", None) is None and args.command == "sass":
        args.arch = ["sm_80", "sm_90"]
    try:
        return args.func(args)
    except (KernelInputError, GPUUnavailableError, CompileError, UnknownDeviceError) as exc:
        print(f"오류(error): {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
