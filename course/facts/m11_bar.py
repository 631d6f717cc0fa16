"""Facts of module 11, continued: the bar at 2048³ read across its two records. benchmarks.json and the tuner's
level6_tuning.json time the same shipped Level 6 beside cuBLAS, but on the devices and with the timing protocols
each record names (the GPU-time protocol of kernels/timing.py, or CUDA events around each call); at 4096³ and
8192³ they agree, at 2048³ they part, and no record times Level 6 at 2048³ both ways on one device.

Every claim is declared on course.facts.m11's `f`; course.facts.m11 imports this module at its end.
"""
from __future__ import annotations

import json

from course.facts import quiz_text
from course.facts.m11_core import (BIG, KERNELS, LEVEL6_KERNEL, bench_provenance, bench_row, f, shipped_tuning_pct,
                              tuning_record, two_record_gap)
from kernels import timing
from kernels.record import DATA_DIR

_protocols_path = DATA_DIR / "timing_protocols.json"     # module 10's record of the four ways of timing
_protocol_rows = (json.loads(_protocols_path.read_text(encoding="utf-8"))["rows"] if _protocols_path.exists() else [])
_at_2048 = [bench_row[(k, 2048)]["pct_cublas"] for k in KERNELS]
f.set("pc_2048_low", min(_at_2048), ".1f")
f.set("pc_2048_high", max(_at_2048), ".1f")
f.set("t_device", tuning_record["device"])
f.set("two_record_big", max(two_record_gap[n] for n in BIG), ".1f")
f.set("two_record_2048", two_record_gap[2048], ".1f")


@f.claims
def the_two_records_at_2048(check):
    check(bench_provenance["timing"] == timing.PROTOCOL and tuning_record["timing"] != timing.PROTOCOL,
          "본문: benchmarks.json은 강좌의 방식, 튜너의 기록은 호출마다 이벤트를 두른 이전 방식")
    check(bench_provenance["device"] != tuning_record["device"], "본문: 두 기록의 장치가 다르다")
    check(two_record_gap[2048] > 5 * max(two_record_gap[n] for n in BIG),
          "본문: 2048³에서 두 기록은 큰 두 크기에서보다 훨씬 크게 갈린다")
    check(shipped_tuning_pct[2048] >= 95 > bench_row[(LEVEL6_KERNEL, 2048)]["pct_cublas"],
          "본문: 2048³의 막대(95%)를 튜너의 기록에서는 넘고 benchmarks.json에서는 넘지 못한다")
    small = [r for r in _protocol_rows if r["M"] * r["N"] * r["K"] < 4096 ** 3]
    check(small and all(r["per_call"]["cublas_ms"] > 1.1 * r["full"]["cublas_ms"] for r in small),
          "본문(모듈 10의 기록): 작은 곱셈에서 호출마다 재면 cuBLAS의 시간이 10% 넘게 길게 잡힌다")
    check(small and all(r["per_call"]["cublas_ms"] / r["full"]["cublas_ms"] > r["per_call"]["level7_ms"] / r["full"]["level7_ms"]
                        and r["per_call"]["ratio"] > r["full"]["ratio"] for r in small),
          "본문(모듈 10의 기록): 호출마다 재면 cuBLAS의 시간이 준비된 커널의 시간보다 더 길어져, 비율이 우리 커널 쪽으로 기운다")


@f.absence("두 몫을 이 기록으로는 가를 수 없습니다")
def protocol_and_device_not_split_at_2048(check):
    """No record times Level 6 at 2048³ with both protocols on one device: timing_protocols.json times Level 7."""
    check(not any(r["M"] == r["N"] == r["K"] == 2048 for r in _protocol_rows),
          "본문: 네 방식을 견준 기록에 2048³이 없다 (Level 6을 두 방식으로 같은 장치에서 잰 기록이 없다)")


@f.claims
def quiz_q07_device(check):
    short = bench_provenance["device"].replace("NVIDIA ", "").split()[0]
    check(f"기록된 GPU({short})의 SM {bench_provenance['sm_count']}개" in quiz_text(11, "m11-q07"),
          f"퀴즈 m11-q07: 블록 수를 견주는 SM 수는 기록된 {short}의 것")
