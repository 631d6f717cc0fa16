"""Facts of module 10, continued: what a CUDA event pair around one call measures, and the course's protocol.

Record: book/data/timing_protocols.json (tools/record_timing_protocols.py): Level 7 and cuBLAS on a few shapes,
timed four ways in one run: per call (events around every call, the same operands: the older protocol), hold
only (the host's launch cost hidden behind a hold kernel, the same operands), rotation only (no hold, the
calls rotating over operand copies larger than the L2) and the full protocol of kernels/timing.py. The
protocol's constants are read from kernels/timing.py itself.

Until the record exists every fact of the section reads "(기록 없음)" and one claim fails, so the site cannot be
built with an empty section. The pure functions take the record as an argument (tests run them on
tests/fixtures/timing_protocols.json).

Every claim is declared on course.facts.m10's `f`; course.facts.m10 imports this module at its end.
"""
from __future__ import annotations

import json

from course.facts.m10_core import benchmark_record, f
from kernels import timing
from kernels.record import DATA_DIR
from sims.shape_waves import shape_text

PROTOCOLS_FILE = "timing_protocols.json"
MISSING = "(기록 없음)"
PROTOCOLS = ("per_call", "hold", "rotation", "full")
PROTOCOL_LABEL = {"per_call": "호출마다 (이전 방식)", "hold": "홀드만", "rotation": "회전만", "full": "강좌의 방식 (둘 다)"}
# Names a record may use for the same four protocols.
ALIASES = {"per_call": ("per_call", "old", "per-call"), "hold": ("hold", "hold_only"),
           "rotation": ("rotation", "rotation_only", "rotate"), "full": ("full", "protocol", "alternate")}
TINY = (1, 4096, 4096)       # the decode-sized product: the host's cost is as long as the GPU's work
MID = (1024, 1024, 1024)     # operands that fit in the L2: a repeated call finds them there
BIG = (4096, 4096, 4096)     # milliseconds of work: the host's cost is lost in it


def _protocol_entry(row: dict, name: str) -> dict:
    holder = row.get("protocols", row)
    for alias in ALIASES[name]:
        if alias in holder:
            return holder[alias]
    raise KeyError(f"{PROTOCOLS_FILE}: {row['M']}×{row['N']}×{row['K']} 행에 '{name}' 방식의 시간이 없습니다")


def protocol_rows(record: dict) -> dict[tuple, dict[str, dict]]:
    """(M, N, K) -> protocol -> {"level7_ms", "cublas_ms", "speed"} (speed: cuBLAS time / Level 7 time)."""
    out = {}
    for row in record["rows"]:
        shape = (row["M"], row["N"], row["K"])
        out[shape] = {}
        for name in PROTOCOLS:
            e = _protocol_entry(row, name)
            out[shape][name] = {"level7_ms": e["level7_ms"], "cublas_ms": e["cublas_ms"],
                                "speed": e["cublas_ms"] / e["level7_ms"]}
    return out


def change_phrase(before: float, after: float, final: bool = True) -> str:
    """How a time moved, in Korean (the data decides the direction): a sentence's end ("줄었습니다"), or with
    final=False the joining form that leads into a second clause ("줄었고")."""
    r = after / before
    if r <= 0.97:
        return f"{100 * (1 - r):.0f}% " + ("줄었습니다" if final else "줄었고")
    if r >= 1.03:
        return f"{100 * (r - 1):.0f}% " + ("늘었습니다" if final else "늘었고")
    return "거의 그대로였습니다" if final else "거의 그대로였고"


def mib(M: int, N: int, K: int) -> float:
    """One set of FP32 operands (A, B and C) in MiB."""
    return 4 * (M * K + K * N + M * N) / 2**20


def rotation_effect(protocols: dict[str, dict], pairs=(("hold", "full"), ("per_call", "rotation"))) -> float:
    """The largest relative change rotation makes to a time, with the hold (hold -> full) or without (per call ->
    rotation only), over both subjects."""
    return max(abs(protocols[b][who] / protocols[a][who] - 1) for a, b in pairs for who in ("level7_ms", "cublas_ms"))


def per_call_excess(protocols: dict[str, dict], who: str) -> float:
    """How much longer one subject's time is timed call by call (older protocol) than by the course's protocol."""
    return protocols["per_call"][who] / protocols["full"][who] - 1


def host_share_ms(protocols: dict[str, dict], who: str) -> float:
    """What the hold (with back-to-back calls) took off one subject's time per call: the host's share of an
    event pair around a single call (per call minus hold only, the same operands)."""
    return protocols["per_call"][who] - protocols["hold"][who]


def timing_facts(record: dict | None) -> dict[str, str]:
    """The section's facts (display text); every record fact reads MISSING while the record is absent."""
    static = {"t_hold_ms": f"{timing.HOLD_MS:g}", "t_l2_multiple": str(timing.L2_MULTIPLE),
              "t_calls_ms": f"{timing.CALLS_TARGET_MS:g}", "t_max_calls": str(timing.MAX_CALLS),
              "t_rounds": str(timing.ROUNDS), "t_max_copies": str(timing.MAX_COPIES),
              "bench_protocol": ("이 장의 benchmarks.json도 이 방식으로 잰 기록입니다"
                                 if benchmark_record.provenance.get("timing") == timing.PROTOCOL else
                                 "이 장의 benchmarks.json은 이 방식이 생기기 전에 호출마다 이벤트 쌍을 둘러 잰 기록입니다. "
                                 "이 장이 견주는 4096³의 호출은 ms 단위라, 위 표의 4096³ 행처럼 두 방식의 차이가 작습니다")}
    if record is None:
        return static | {name: MISSING for name in RECORD_FACTS}
    rows = protocol_rows(record)
    tiny, mid, big = rows[TINY], rows[MID], rows[BIG]
    return static | {
        "tp_device": record["device"], "tp_date": str(record["date"])[:10],
        "tiny_old_speed": f"{tiny['per_call']['speed']:.2f}", "tiny_full_speed": f"{tiny['full']['speed']:.2f}",
        "tiny_old_cb_us": f"{1000 * tiny['per_call']['cublas_ms']:.1f}",
        "tiny_full_cb_us": f"{1000 * tiny['full']['cublas_ms']:.1f}",
        "tiny_old_l7_us": f"{1000 * tiny['per_call']['level7_ms']:.1f}",
        "tiny_full_l7_us": f"{1000 * tiny['full']['level7_ms']:.1f}",
        "tiny_hold_cb": change_phrase(tiny["per_call"]["cublas_ms"], tiny["hold"]["cublas_ms"]),
        "tiny_hold_l7": change_phrase(tiny["per_call"]["level7_ms"], tiny["hold"]["level7_ms"], final=False),
        "tiny_host_l7_us": f"{1000 * host_share_ms(tiny, 'level7_ms'):.0f}",
        "tiny_host_cb_us": f"{1000 * host_share_ms(tiny, 'cublas_ms'):.0f}",
        "small_set_mib": f"{timing.L2_MULTIPLE * record['l2_bytes'] / timing.MAX_COPIES / 2**20:.2f}",
        "tiny_rot_cb": change_phrase(tiny["hold"]["cublas_ms"], tiny["full"]["cublas_ms"]),
        "tiny_rot_l7": change_phrase(tiny["hold"]["level7_ms"], tiny["full"]["level7_ms"], final=False),
        "mid_mib": f"{mib(*MID):.0f}",
        "mid_rot_cb": change_phrase(mid["hold"]["cublas_ms"], mid["full"]["cublas_ms"]),
        "mid_rot_l7": change_phrase(mid["hold"]["level7_ms"], mid["full"]["level7_ms"], final=False),
        "mid_hold_speed": f"{mid['hold']['speed']:.2f}", "mid_full_speed": f"{mid['full']['speed']:.2f}",
        "big_rot_pct": f"{max(0.1, 100 * rotation_effect(big)):.1f}",
        "big_pc_cb": f"{100 * per_call_excess(big, 'cublas_ms'):.0f}",
        "big_pc_l7": f"{100 * per_call_excess(big, 'level7_ms'):.0f}",
        "big_pc_cb_us": f"{1000 * (big['per_call']['cublas_ms'] - big['full']['cublas_ms']):.0f}",
        "big_pc_l7_us": f"{1000 * (big['per_call']['level7_ms'] - big['full']['level7_ms']):.0f}",
        "big_mib": f"{mib(*BIG):.0f}",
        "big_old_speed": f"{big['per_call']['speed']:.2f}", "big_full_speed": f"{big['full']['speed']:.2f}",
        "tiny_mib": f"{mib(*TINY):.0f}",
        "tp_l2_mib": f"{record['l2_bytes'] / 2**20:.0f}",
        "tiny_copies": str(next(r["copies"] for r in record["rows"] if (r["M"], r["N"], r["K"]) == TINY)),
    }


RECORD_FACTS = ("tp_device", "tp_date", "tiny_old_speed", "tiny_full_speed", "tiny_old_cb_us", "tiny_full_cb_us",
                "tiny_old_l7_us", "tiny_full_l7_us", "tiny_hold_cb", "tiny_hold_l7", "tiny_rot_cb", "tiny_rot_l7",
                "mid_mib", "mid_rot_cb", "mid_rot_l7", "mid_hold_speed", "mid_full_speed", "big_rot_pct", "big_pc_cb",
                "big_pc_l7", "big_old_speed", "big_full_speed", "tiny_mib", "tp_l2_mib", "tiny_copies",
                "tiny_host_l7_us", "tiny_host_cb_us", "small_set_mib", "big_pc_cb_us", "big_pc_l7_us", "big_mib")


def timing_claims(record: dict | None, check) -> None:
    """The section's sentences, checked on a protocols record (the chapter's, or a test's fixture)."""
    if not check(record is not None, f"book/data/{PROTOCOLS_FILE}이 있어야 한다 (tools/record_timing_protocols.py로 기록)"):
        return
    rows = protocol_rows(record)
    if not check(TINY in rows and MID in rows and BIG in rows, "본문: 기록에 1×4096×4096, 1024³, 4096³이 있다"):
        return
    tiny, mid, big = rows[TINY], rows[MID], rows[BIG]
    l2_mib = record["l2_bytes"] / 2**20
    check(tiny["hold"]["cublas_ms"] < tiny["per_call"]["cublas_ms"],
          "본문: 1×4096×4096에서 홀드가 cuBLAS의 시간을 줄인다 (호스트의 준비 시간이 이벤트 사이에 있었다)")
    check(tiny["full"]["speed"] != tiny["per_call"]["speed"]
          and abs(tiny["full"]["speed"] / tiny["per_call"]["speed"] - 1) > 0.05,
          "본문: 1×4096×4096에서 두 방식의 Level 7 / cuBLAS가 5% 넘게 다르다")
    check(tiny["per_call"]["speed"] > 1 > tiny["full"]["speed"],
          "본문: 1×4096×4096에서 이전 방식으로는 Level 7이 cuBLAS보다 빨라 보이고, 강좌의 방식으로는 느리다")
    hosts = {w: host_share_ms(tiny, w) for w in ("level7_ms", "cublas_ms")}
    check(hosts["cublas_ms"] > hosts["level7_ms"] > 0,
          "본문: 홀드가 덜어 낸 호스트의 몫은 cupy.matmul(cuBLAS)이 미리 준비한 Level 7보다 길다")
    check(all(0.5 < hosts[w] / tiny["full"][w] < 2 for w in hosts),
          "본문: 1×4096×4096에서 호스트의 몫은 커널 자신의 시간과 맞먹는다 (0.5–2배)")
    check(tiny["full"]["cublas_ms"] >= 0.97 * tiny["hold"]["cublas_ms"]
          and tiny["full"]["level7_ms"] >= 0.97 * tiny["hold"]["level7_ms"],
          "본문: 회전을 더하면 시간이 줄지 않는다 (L2가 덜 데워진다)")
    check(mib(*TINY) > l2_mib and rotation_effect(tiny, (("hold", "full"),)) < 0.03,
          "본문: 1×4096×4096의 피연산자는 L2보다 커서, 홀드에 돌려 쓰기를 더해도 시간이 거의 그대로 (3% 안)")
    check(mib(*MID) < l2_mib and mid["full"]["cublas_ms"] > 1.05 * mid["hold"]["cublas_ms"]
          and abs(mid["full"]["speed"] / mid["hold"]["speed"] - 1) > 0.03,
          "본문: 피연산자가 L2에 드는 1024³에서는 돌려 쓰기가 cuBLAS의 시간을 5% 넘게 늘리고, 비율도 3% 넘게 바꾼다")
    big_row = next(r for r in record["rows"] if (r["M"], r["N"], r["K"]) == BIG)
    check(mib(*BIG) >= timing.L2_MULTIPLE * l2_mib and big_row["copies"] == 1
          and all(_protocol_entry(big_row, n).get("copies", 1) == 1 for n in PROTOCOLS),
          "본문: 4096³은 피연산자 한 벌이 이미 L2의 두 배를 넘어 사본이 한 벌뿐이다 (돌려 쓰기가 있든 없든 같은 측정)")
    check(all(_protocol_entry(big_row, n).get(k, 1) == 1 for n in PROTOCOLS for k in ("level7_calls", "cublas_calls")),
          "본문: 4096³은 네 방식 모두 이벤트 쌍마다 호출이 하나다 (홀드의 유무만 다르다)")
    check(rotation_effect(big) < 0.01, "본문: 4096³에서 같은 측정을 되풀이한 두 쌍의 차이는 1% 안")
    check(min(per_call_excess(big, "cublas_ms"), per_call_excess(big, "level7_ms")) > 0.02
          and abs(big["per_call"]["speed"] / big["full"]["speed"] - 1) > 0.02,
          "본문: 4096³에서 호출마다 재면 두 커널 모두 2% 넘게 길게 나오고, 비율도 2% 넘게 갈린다")
    check(max(per_call_excess(big, "cublas_ms"), per_call_excess(big, "level7_ms")) < 0.10,
          "본문: 4096³에서는 이벤트 쌍 하나로도 시간의 크기는 맞는다 (두 방식의 차이가 10% 안, 몇 %)")
    check(all(big["per_call"][w] - big["full"][w] > 2 * host_share_ms(tiny, w) for w in ("cublas_ms", "level7_ms")),
          "본문: 4096³에서 홀드 없이 잰 시간의 초과분은 1×4096×4096에서 잰 호스트의 몫의 두 배가 넘는다 (그것으로 설명되지 않는다)")
    check(all(p[n]["level7_ms"] > 0 and p[n]["cublas_ms"] > 0 for p in rows.values() for n in PROTOCOLS),
          "기록: 모든 시간이 양수")


_path = DATA_DIR / PROTOCOLS_FILE
protocols_record = json.loads(_path.read_text(encoding="utf-8")) if _path.exists() else None
for _name, _text in timing_facts(protocols_record).items():
    f.set(_name, _text)


def protocol_table_rows(record: dict) -> list[dict]:
    """One table row per (shape, protocol): Level 7 and cuBLAS in µs and their ratio."""
    out = []
    for shape, protocols in protocol_rows(record).items():
        for i, name in enumerate(PROTOCOLS):
            p = protocols[name]
            out.append({"shape": shape_text(*shape) if i == 0 else "", "how": PROTOCOL_LABEL[name],
                        "l7": f"{1000 * p['level7_ms']:,.1f}", "cb": f"{1000 * p['cublas_ms']:,.1f}",
                        "speed": f"{p['speed']:.2f}"})
    return out


PROTOCOL_COLUMNS = [("shape", "M×N×K"), ("how", "재는 방식"), ("l7", "Level 7 µs"), ("cb", "cuBLAS µs"),
                    ("speed", "Level 7 / cuBLAS")]


@f.claims
def timing_sentences(check):
    timing_claims(protocols_record, check)
    check(benchmark_record.provenance.get("timing") in (timing.PROTOCOL, "median of CUDA-event timings after warm-up"),
          "본문: benchmarks.json이 잰 방식은 강좌의 방식이거나 이전 방식 (문장이 둘 중 하나를 고른다)")


@f.absence("무엇이 달라지는지는 이 기록으로는 알 수 없습니다")
def per_call_cause_not_recorded(check):
    """Why a 4096³ call timed call by call (the GPU idle between calls) is longer: the record holds no clock,
    temperature or power per round, only the times."""
    keys = set()
    for row in (protocols_record or {}).get("rows", []):
        keys |= {k for entry in row.values() if isinstance(entry, dict) for k in entry}
    check(protocols_record is not None and not {k for k in keys if "clock" in k or "temp" in k or "power" in k},
          f"본문: 라운드마다의 클럭·온도·전력은 기록에 없다 ({sorted(keys)})")


def show_protocols(record: dict | None) -> None:
    """The recorded table of the four protocols with its provenance note (or why there is none)."""
    from course.page import note, table

    if record is None:
        note(f"네 방식을 견준 기록(book/data/{PROTOCOLS_FILE})이 아직 없습니다. GPU에서 "
             "`python tools/record_timing_protocols.py`로 기록할 수 있습니다.", kind="warning")
        return
    table(protocol_table_rows(record), PROTOCOL_COLUMNS,
          f"같은 실행에서 네 가지로 잰 Level 7과 cuBLAS ({PROTOCOLS_FILE}, {record['device']}, {str(record['date'])[:10]}; "
          "Level 7 / cuBLAS = cuBLAS의 시간 ÷ Level 7의 시간, 1보다 크면 Level 7이 빠름)")
    note(f"기록된 결과 (recorded): {record['device']}, CuPy {record['cupy']}, {str(record['date'])[:10]}, 명령 "
         f"`{record['command']}`, 커밋 {str(record.get('git_commit'))[:10]}. 강좌의 방식: {timing.PROTOCOL}",
         kind="recorded")
