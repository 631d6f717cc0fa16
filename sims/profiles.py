"""Simulation 10 (c): reading profiles — SOL quadrant, stall reasons, mock exercise.

* SOL quadrant: SM throughput % against memory throughput %, split at the seeds'
  threshold of 60 % (a value at or above it counts as "high").
* Stall reasons with Nsight Compute's names and what they really mean (course-spec A8).
* The mock profile-reading exercise (course-spec §2.7): three *mock* kernels A/B/C whose
  fields are corrected so that they agree with each other and with the course's kernels
  (E2–E4, D5, D6, A7, F8). Each mock lists its corrections. The model holds the expected
  answers for the three steps (level with evidence, bottleneck and quadrant, next step
  by the decision tree) and the feedback for each choice.
* Recorded profiles from ``book/data/profiles.json`` (when present) are shown beside the
  mocks, labelled as measured: every recorded kernel, then cuBLAS's own kernel (``"reference"``).

Views: :func:`figure` (static plotly) and :func:`widget` (ipywidgets exercise).
"""
from __future__ import annotations

import html
import math
import numbers
from dataclasses import dataclass, field

from sims._common import (
    SimInputError,
    describe_controls,
    error_figure,
    error_html,
    group_visibility,
    require,
)
from sims.roofline import cublas_gflops, load_recorded, occupancy

__all__ = [
    "SOL_THRESHOLD_PCT",
    "QUADRANTS",
    "STALL_REASONS",
    "NEXT_STEPS",
    "LEVEL_NAMES",
    "ProfileCard",
    "MockKernel",
    "MOCK_KERNELS",
    "DecisionPath",
    "Feedback",
    "classify_sol",
    "decision_path",
    "check_answers",
    "percent_of_cublas",
    "recorded_cards",
    "reference_gflops",
    "cublas_for_cards",
    "figure",
    "widget",
]

SOL_THRESHOLD_PCT = 60.0      # the seeds' matrix treats ≥ 60 % as high (L2 60/60 … L3 60/70)

QUADRANTS = {
    "latency": "지연 시간 한계(latency bound)",
    "memory": "메모리 한계(memory bound)",
    "compute": "연산 한계(compute bound)",
    "balanced": "균형(balanced)",
}
QUADRANT_HINTS = {
    "latency": "SM과 메모리 모두 낮음: 진행 중인 요청이 적어 둘 다 기다리는 중",
    "memory": "메모리 처리량이 높고 SM은 낮음: 바이트당 연산(재사용)이 부족",
    "compute": "SM이 높고 메모리는 낮음: 연산 파이프가 한계 — '최적'이라는 뜻은 아님",
    "balanced": "둘 다 높음: 남은 스톨 원인을 하나씩 미세 조정",
}

# Nsight Compute warp-state names → (meaning, what usually helps). course-spec A8.
STALL_REASONS = {
    "Long Scoreboard": ("L1TEX 연산(글로벌·로컬 메모리 로드, cp.async 복사 등)의 스코어보드를 기다림: 로드 결과를 "
                        "쓰려는 명령, cp.async.wait_group(DEPBAR) 바로 다음 명령",
                        "로드를 일찍 발행해 겹치기: 프리페치, 더블 버퍼, cp.async"),
    "Barrier": ("__syncthreads() 같은 블록 배리어에서 다른 워프를 기다림",
                "배리어 수 줄이기, 배리어 사이 작업 늘리기"),
    "Wait": ("고정 지연(fixed-latency) 실행 의존성을 기다림 — 예: 직전 FFMA 결과가 필요한 명령",
             "독립 명령 늘리기(ILP), 의존 사슬 끊기"),
    "Math Pipe Throttle": ("연산 파이프(FMA 등)가 바빠 명령을 받지 못함",
                           "연산 자원을 많이 쓰는 신호 — FMA 외 명령을 줄일 여지 확인"),
    "MIO Throttle": ("MIO 명령 큐가 가득 참 — 공유 메모리 명령이 많거나 뱅크 충돌",
                     "공유 메모리 명령 줄이기: 128비트 LDS, 충돌 제거"),
    "Short Scoreboard": ("MIO 연산(주로 공유 메모리 로드)의 결과를 기다림",
                         "공유 메모리 지연 숨기기, 뱅크 충돌 제거, 레지스터 재사용"),
    "LG Throttle": ("로컬/글로벌(LG) 메모리 명령 큐가 가득 참 — 작은 로드를 너무 많이 발행",
                    "벡터 로드(float4)와 스레드당 재사용으로 로드 명령 수 줄이기"),
    "Not Selected": ("발행할 수 있었지만 스케줄러가 다른 워프를 고름",
                     "그 자체로는 문제 아님. 워프가 넉넉하다는 뜻도 아님: 명령을 못 낸 사이클(100% − 발행 활성)을 함께 볼 것"),
    "Selected": ("명령을 발행한 사이클 (스톨이 아님)", "—"),
    "No Instruction": ("명령 인출 대기 또는 명령 캐시 미스", "코드 크기·분기 줄이기"),
    "Dispatch Stall": ("디스패치 단계에서 막힘", "드묾"),
    "Membar": ("메모리 배리어(membar) 대기", "불필요한 fence 제거"),
    "Branch Resolving": ("분기 대상 계산 대기", "분기 줄이기"),
    "Drain": ("종료 전 메모리 쓰기가 비워지기를 기다림", "대개 무시"),
}
STALL_GROUPS = {
    "Long Scoreboard": "#d62728", "LG Throttle": "#ff9896", "Barrier": "#9467bd",
    "Wait": "#8c564b", "Math Pipe Throttle": "#2ca02c", "MIO Throttle": "#1f77b4",
    "Short Scoreboard": "#aec7e8", "Not Selected": "#bbbbbb", "Selected": "#dddddd",
}

NEXT_STEPS = {
    "coalesce": "메모리 코얼레싱 고치기 (섹터/요청 줄이기)",
    "latency": "레이턴시 은닉: 스레드당 독립 작업과 벡터 로드 늘리기 (Level 1: 1×4 스트립 + float4)",
    "reuse": "데이터 재사용 늘리기: 레지스터 블로킹 (Level 3)",
    "async": "글로벌 로드를 레지스터를 거치지 않고 겹치기: cp.async + 다단 파이프라인 (Level 5)",
    "occupancy": "점유율 올리기 (스레드당 레지스터 줄이기)",
    "sync": "동기화(__syncthreads) 줄이기",
    "instr": "FMA 외 명령 줄이기 (예: 스레드 타일을 키워 FFMA 비중 올리기)",
}

LEVEL_NAMES = {
    0: "Level 0 나이브(naive)",
    1: "Level 1 코얼레싱 + float4",
    2: "Level 2 공유 메모리 타일링",
    3: "Level 3 레지스터 블로킹",
    4: "Level 4 더블 버퍼링",
    5: "Level 5 cp.async 다단 파이프라인",
    6: "Level 6 워프 타일링",
}


# ====================================================================================
# SOL classification and the decision tree
# ====================================================================================

def _pct(value, label: str) -> float:
    ok = (isinstance(value, numbers.Real) and not isinstance(value, bool)
          and math.isfinite(float(value)) and 0 <= float(value) <= 100)
    require(ok, f"{label} 값은 0 이상 100 이하의 백분율이어야 합니다 (받은 값: {value!r})")
    return float(value)


def classify_sol(sm_pct, mem_pct, threshold=SOL_THRESHOLD_PCT) -> str:
    """Quadrant key: "latency", "memory", "compute" or "balanced" (high means ≥ threshold)."""
    sm = _pct(sm_pct, "SM 처리량(SM throughput %)")
    mem = _pct(mem_pct, "메모리 처리량(memory throughput %)")
    threshold = _pct(threshold, "기준선(threshold %)")
    sm_high, mem_high = sm >= threshold, mem >= threshold
    if sm_high:
        return "balanced" if mem_high else "compute"
    return "memory" if mem_high else "latency"


@dataclass(frozen=True)
class DecisionPath:
    quadrant: str
    questions: tuple[str, ...]     # the tree's questions with the answers taken
    top_stall: str | None
    recommendation: str            # key of NEXT_STEPS


# Stalls that are not a fix target in themselves.
_PASSIVE_STALLS = {"Selected", "Not Selected", "Math Pipe Throttle"}
LONG_SCOREBOARD_NOTABLE_PCT = 15.0


def _check_stalls(stalls: dict) -> dict:
    require(isinstance(stalls, dict), "스톨(stalls) 값은 {이름: 백분율} 사전이어야 합니다")
    return {str(name): _pct(v, f"스톨 '{name}'") for name, v in stalls.items()}


def decision_path(sm_pct, mem_pct, stalls, threshold=SOL_THRESHOLD_PCT) -> DecisionPath:
    """The corrected decision tree: SOL quadrant first, then (for the two 'SM high'
    quadrants) the stall reasons, read with their Nsight Compute meanings."""
    stalls = _check_stalls(stalls)
    quadrant = classify_sol(sm_pct, mem_pct, threshold)
    sm_q = f"SM 처리량 ≥ {threshold:g}%? {'예' if sm_pct >= threshold else '아니오'}"
    mem_q = f"메모리 처리량 ≥ {threshold:g}%? {'예' if mem_pct >= threshold else '아니오'}"
    questions = [sm_q, mem_q, f"→ {QUADRANTS[quadrant]}"]
    ranked = sorted(stalls, key=stalls.get, reverse=True)
    top = ranked[0] if ranked else None
    if quadrant == "memory":
        return DecisionPath(quadrant, tuple(questions + ["→ 바이트당 연산을 늘린다"]), top,
                            "reuse")
    if quadrant == "latency":
        return DecisionPath(quadrant, tuple(questions + ["→ 동시에 진행 중인 요청을 늘린다"]),
                            top, "latency")
    long_sb = stalls.get("Long Scoreboard", 0.0)
    questions.append(f"Long Scoreboard ≥ {LONG_SCOREBOARD_NOTABLE_PCT:g}%? "
                     f"{'예' if long_sb >= LONG_SCOREBOARD_NOTABLE_PCT else '아니오'}")
    if long_sb >= LONG_SCOREBOARD_NOTABLE_PCT:
        return DecisionPath(quadrant, tuple(questions + ["→ 글로벌 로드 지연을 더 숨긴다"]),
                            top, "async")
    active = [s for s in ranked if s not in _PASSIVE_STALLS]
    first = active[0] if active else None
    questions.append(f"가장 큰 능동 스톨: {first or '없음'}")
    if first == "Barrier":
        return DecisionPath(quadrant, tuple(questions), top, "sync")
    return DecisionPath(quadrant, tuple(questions), top, "instr")


def percent_of_cublas(gflops, cublas) -> float:
    """% of a *measured* cuBLAS figure (course-spec C8)."""
    ok = all(isinstance(v, numbers.Real) and not isinstance(v, bool) and v > 0
             for v in (gflops, cublas))
    require(ok, f"GFLOP/s 값은 0보다 커야 합니다 (받은 값: {gflops!r}, cuBLAS {cublas!r})")
    return 100.0 * gflops / cublas


# ====================================================================================
# Profile cards: mocks and recorded kernels
# ====================================================================================

@dataclass(frozen=True)
class ProfileCard:
    """What the exercise shows of one profile (mock or measured)."""

    key: str
    title: str
    source: str                     # "mock" or "measured"
    sm_pct: float
    mem_pct: float
    stalls: dict
    registers: int | None = None
    block_size: int | None = None
    smem_per_block: int | None = None
    sectors_per_request: float | None = None
    smem_wavefront_ratio: str | None = None
    achieved_occupancy_pct: float | None = None
    theoretical_occupancy_pct: float | None = None
    sass_top: tuple = ()
    gflops: float | None = None
    level: int | None = None

    @property
    def quadrant(self) -> str:
        return classify_sol(self.sm_pct, self.mem_pct)


@dataclass(frozen=True)
class MockKernel:
    card: ProfileCard
    corrections: tuple[str, ...]
    expected_level: int
    evidence: tuple[str, ...]
    bottleneck: str
    expected_next: str
    next_explanation: str
    level_feedback: dict = field(default_factory=dict)
    next_feedback: dict = field(default_factory=dict)


def _theoretical(registers: int, smem: int, block: int = 256) -> float:
    return occupancy(block, registers, smem, "sm_90").occupancy_pct


_MOCK_A = MockKernel(
    card=ProfileCard(
        key="A", title="모의 커널 A", source="mock", sm_pct=12.3, mem_pct=64.7,
        stalls={"Long Scoreboard": 62.1, "Barrier": 14.2, "Wait": 8.3},
        registers=32, block_size=256, smem_per_block=2048, sectors_per_request=4.0,
        smem_wavefront_ratio="1.0 (이상적인 값 대비, 초과 없음)", achieved_occupancy_pct=62.5,
        theoretical_occupancy_pct=_theoretical(32, 2048),
        sass_top=(("LDS", 36.5), ("FFMA", 31.2), ("LDG.E", 3.8), ("STS", 3.8), ("BAR", 3.8)),
        gflops=3847.0),
    corrections=(
        "메모리 처리량 54.7% → 64.7%: 원본은 60% 기준선 아래인데 '메모리 한계'라고 답함",
        "공유 메모리 8 KiB → 2,048 B: 8 KiB는 Level 3 타일(As[128][8]+Bs[8][128])의 크기라 "
        "32 레지스터와 모순 (D6). 과정의 Level 2(16×16, BK=16, 패딩 없음)는 2,048 B",
        "Sectors/Request 1.0 → 4.0: 32비트 로드가 완전히 코얼레싱되면 요청당 4섹터 (A9, E3)",
        "LDG.E.128/STS.128 → LDG.E/STS: 과정의 Level 2는 스레드가 타일마다 float 하나씩 읽음",
        "점유율 62.5%는 달성(achieved) 값으로 표시; 이론값은 100% (32 레지스터, 2 KiB) (D5)",
        "스톨 Not Selected 14.2% → Barrier 14.2%: SM 12%에서 Not Selected는 어색함 (F8); "
        "타일마다 __syncthreads 두 번이면 Barrier가 보임",
    ),
    expected_level=2,
    evidence=(
        "공유 메모리 2,048 B = 2 × 16 × 16 × 4 B: 16×16 타일 두 장 (타일링)",
        "레지스터 32개: 스레드당 출력 하나 (레지스터 블로킹 없음)",
        "LDG.E → STS → BAR → LDS 패턴: 글로벌 → 공유 → 레지스터",
        "Barrier 스톨 14.2%: 타일마다 __syncthreads() 두 번",
        "요청당 4섹터: 32비트 로드가 코얼레싱됨 (float4가 아님)",
    ),
    bottleneck=("메모리 한계: 메모리 64.7% ≥ 60%, SM 12.3% < 60%. Long Scoreboard 62.1%가 "
                "글로벌 로드 대기. 블록 단위 AI(모델 ii)가 4 FLOP/B로 H100 꺾임점(약 20)보다 낮음"),
    expected_next="reuse",
    next_explanation=("결정 트리: SM 낮음 → 메모리 높음 → 재사용 늘리기. 스레드가 8×8 출력을 "
                      "레지스터에 쥐는 레지스터 블로킹(Level 3)으로 AI가 모델 (ii)에서 4 → 32"),
    level_feedback={
        3: "레지스터 32개로는 8×8 누산기 64개를 담을 수 없습니다.",
        1: "Level 1은 공유 메모리를 쓰지 않습니다. 여기에는 2 KiB와 BAR가 있습니다.",
        0: "Level 0은 공유 메모리도 배리어도 없습니다.",
    },
    next_feedback={
        "latency": "메모리 처리량이 이미 높아 요청을 더 겹쳐도 대역폭에 막힙니다. 바이트당 연산이 필요합니다.",
        "coalesce": "요청당 4섹터는 32비트 로드의 이상적인 값입니다. 코얼레싱은 문제가 아닙니다.",
        "occupancy": "이론 점유율은 이미 100%입니다.",
    },
)

_MOCK_B = MockKernel(
    card=ProfileCard(
        key="B", title="모의 커널 B", source="mock", sm_pct=71.8, mem_pct=78.3,
        stalls={"Math Pipe Throttle": 34.5, "Wait": 22.1, "Long Scoreboard": 18.7},
        registers=96, block_size=256, smem_per_block=32768, sectors_per_request=16.0,
        smem_wavefront_ratio="1.0 (이상적인 값 대비, 초과 없음)", achieved_occupancy_pct=None,
        theoretical_occupancy_pct=_theoretical(96, 32768),
        sass_top=(("FFMA", 52.8), ("LDG.E.128", 11.2), ("LDS.128", 7.3), ("STS.128", 4.1)),
        gflops=14520.0),
    corrections=(
        "점유율 33.3% → 25%: 레지스터는 워프마다 256개 단위로 할당되어 256 스레드 블록에서 "
        "81–128 레지스터는 모두 SM당 2블록 = 16워프 = 25% (A7)",
        "Sectors/Request 1.0 → 16.0: float4(128비트) 로드가 코얼레싱되면 요청당 16섹터 (E3)",
        "공유 메모리 32 KiB = 버퍼 2개 × (128×16 + 16×128) × 4 B: BK = 16, 패딩 없는 더블 버퍼 "
        "변형 (과정의 Level 4는 BK = 8로 16,384 B) (D6)",
        "LDS.128/STS.128은 패딩 없는 타일에서만 가능: +1 패딩 행은 16 B 정렬이 아님 (E4)",
        "Wait의 뜻 수정: 동기화가 아니라 고정 지연 실행 의존성 (A8)",
    ),
    expected_level=4,
    evidence=(
        "공유 메모리 32 KiB = 128×16 타일 두 단: 더블 버퍼 (한 단이면 16 KiB)",
        "레지스터 96개, 이론 점유율 25%: 스레드당 8×8 누산기 (레지스터 블로킹)",
        "LDG.E.128 + STS.128: 로드가 레지스터를 거쳐 저장됨 — LDGSTS가 없으니 cp.async 아님",
        "FFMA 52.8%, Math Pipe Throttle 1위: 연산 비중이 큼",
        "요청당 16섹터: float4 로드가 코얼레싱됨",
    ),
    bottleneck=("균형: SM 71.8%, 메모리 78.3% 둘 다 ≥ 60%. Math Pipe Throttle 34.5%는 연산 "
                "파이프를 많이 쓴다는 뜻이고, Long Scoreboard 18.7%는 레지스터를 거치는 글로벌 "
                "로드 지연이 아직 보인다는 뜻"),
    expected_next="async",
    next_explanation=("결정 트리: 균형 → Long Scoreboard ≥ 15% → 글로벌 로드 지연을 더 숨김: "
                      "cp.async로 레지스터를 거치지 않고 여러 단을 미리 적재(Level 5). Wait 22.1%는 "
                      "동기화가 아니라 고정 지연 의존성이라 ILP·명령 순서로 다룸"),
    level_feedback={
        3: "Level 3은 한 단(8 KiB, BK=8)입니다. 32 KiB는 두 단의 버퍼를 뜻합니다.",
        6: "Level 6은 스레드당 레지스터가 200개를 넘고(8×16 누산기 128개) 이론 점유율이 12.5%이며, "
           "타일을 LDGSTS(cp.async)로 복사합니다.",
        5: "cp.async라면 SASS에 LDGSTS가 보입니다. 여기는 LDG.E.128 + STS.128 (레지스터 경유)입니다.",
        2: "레지스터 96개와 FFMA 52.8%는 스레드당 여러 출력을 뜻합니다.",
    },
    next_feedback={
        "sync": "Wait는 __syncthreads가 아닙니다: 고정 지연 실행 의존성입니다. 배리어 대기는 "
                "Barrier로 따로 보입니다.",
        "occupancy": "80 레지스터로 줄여도 37.5%일 뿐이고, 8×8 타일의 ILP를 잃습니다. "
                     "먼저 남은 글로벌 로드 지연(Long Scoreboard)을 다룹니다.",
        "reuse": "이미 레지스터 블로킹 단계입니다 (96 레지스터, 메모리 78%).",
    },
)

_MOCK_C = MockKernel(
    card=ProfileCard(
        key="C", title="모의 커널 C", source="mock", sm_pct=4.2, mem_pct=18.5,
        stalls={"Long Scoreboard": 84.3, "LG Throttle": 6.1, "Wait": 2.4},
        registers=16, block_size=256, smem_per_block=0, sectors_per_request=2.0,
        smem_wavefront_ratio=None, achieved_occupancy_pct=None,
        theoretical_occupancy_pct=_theoretical(16, 0),
        sass_top=(("LDG.E", 45.2), ("FFMA", 18.3), ("IADD3", 12.1)),
        gflops=487.0),
    corrections=(
        "Sectors/Request 4.2 → 2.0: 4.2는 '코얼레싱 불량'이 아니라 32비트 로드의 이상적인 값(4)에 "
        "가깝다. 과정의 나이브 매핑은 A 브로드캐스트 + B 코얼레싱으로 2.0을 측정 (E2, A6)",
        "스톨 Not Selected 6.1% → LG Throttle 6.1%: SM 4%에서 Not Selected는 어색함 (F8); "
        "FFMA 하나에 로드 두 개를 내는 커널은 LG 큐가 참",
        "% of cuBLAS(≈2.5%)는 삭제: 측정한 cuBLAS와 비교해야 함 (C8)",
    ),
    expected_level=0,
    evidence=(
        "공유 메모리 0: 타일링 없음",
        "LDG.E(32비트) 45.2% vs FFMA 18.3%: FMA마다 로드 두 개 이상 — 재사용 없음",
        "레지스터 16개, 이론 점유율 100%: 자원 제한 없음",
        "Long Scoreboard 84.3%: 거의 모든 시간 글로벌 로드 대기",
        "요청당 2.0섹터: A는 워프 안에서 두 주소 브로드캐스트, B는 코얼레싱 — 나이브 매핑",
    ),
    bottleneck=("지연 시간 한계: SM 4.2%, 메모리 18.5% 둘 다 < 60%. 워프들이 로드 결과를 "
                "기다리느라(Long Scoreboard 84.3%) 메모리도 바쁘지 않음"),
    expected_next="latency",
    next_explanation=("결정 트리: SM 낮음 → 메모리 낮음 → 지연 시간 한계 → 진행 중인 요청과 "
                      "스레드당 독립 작업을 늘림. 과정의 Level 1: 스레드마다 1×4 스트립을 float4로 "
                      "읽어 FMA당 로드 명령이 줄고(AI 모델 i: 0.25 → 0.4) 독립 FMA가 4배"),
    level_feedback={
        1: "Level 1이라면 LDG.E.128(float4)이 보여야 합니다.",
        2: "공유 메모리를 쓰지 않습니다.",
    },
    next_feedback={
        "coalesce": "요청당 2.0섹터는 이미 코얼레싱된 패턴입니다 (B는 연속, A는 브로드캐스트). "
                    "느린 이유는 재사용이 없고 로드가 FMA보다 많기 때문입니다.",
        "reuse": "재사용도 필요하지만, 메모리가 18.5%로 한가합니다: 먼저 요청을 충분히 "
                 "진행시키는 것이 결정 트리의 답입니다 (Level 2의 타일링은 그다음).",
        "occupancy": "이론 점유율은 이미 100%입니다.",
    },
)

MOCK_KERNELS = {m.card.key: m for m in (_MOCK_A, _MOCK_B, _MOCK_C)}


def stall_shares(raw: dict) -> dict:
    """Recorded stalls as % of all stall reasons.

    profiles.json keeps Nsight Compute's unit (average warps stalled per issue-active cycle), which
    is not a percentage and can exceed 100; the cards and bars compare shares, like the mocks.
    """
    values = {k: float(v) for k, v in raw.items() if v is not None and v > 0}
    total = sum(values.values())
    return {k: 100.0 * v / total for k, v in values.items()} if total else {}


def _smem_per_block(entry: dict) -> int | None:
    """Static plus dynamic shared memory of a recorded launch (None when neither is recorded)."""
    parts = [entry.get(k) for k in ("smem_static", "smem_dynamic")]
    if all(v is None for v in parts):
        return None
    return int(sum(v or 0 for v in parts))


def _wavefront_text(entry: dict) -> str | None:
    """Shared loads: wavefronts per instruction and the share of them that bank conflicts added."""
    inst, waves = entry.get("smem_ld_instructions"), entry.get("smem_ld_wavefronts")
    if not inst or not waves:
        return None
    conflicts = entry.get("smem_ld_bank_conflicts") or 0
    return f"로드 명령당 {waves / inst:.2f} (그중 뱅크 충돌 {100 * conflicts / waves:.1f}%)"


def recorded_cards(profiles: dict | None) -> list[ProfileCard]:
    """Cards for the measured kernels in profiles.json, then for the reference (cuBLAS's kernel);
    entries without SOL are skipped."""
    cards = []
    entries = list((profiles or {}).get("kernels") or []) + list((profiles or {}).get("reference") or [])
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        try:
            sm, mem = _pct(entry.get("sm_pct"), "sm_pct"), _pct(entry.get("mem_pct"), "mem_pct")
            stalls = _check_stalls(stall_shares(entry.get("stalls") or {}))
        except SimInputError:
            continue
        level = entry.get("level")
        name = str(entry.get("kernel", "?"))
        ratio = None
        if entry.get("smem_ld_ideal"):
            ratio = (f"{entry['smem_ld_wavefronts'] / entry['smem_ld_ideal']:.2f} (로드, 이상적인 값 대비)"
                     if entry.get("smem_ld_wavefronts") is not None else None)
        else:
            ratio = _wavefront_text(entry)
        gflops = None
        if entry.get("duration_ms") and all(entry.get(k) for k in ("M", "N", "K")):
            gflops = 2 * entry["M"] * entry["N"] * entry["K"] / (entry["duration_ms"] * 1e6)
        if level is not None:
            title = f"측정: L{level} {name}"
        else:
            title = "측정: cuBLAS (라이브러리 커널)" if name == "cublas" else f"측정: {name}"
        block = entry.get("block_size")
        cards.append(ProfileCard(
            key=f"rec:{name}", title=title, source="measured", sm_pct=sm, mem_pct=mem, stalls=stalls,
            registers=int(regs) if isinstance(regs := entry.get("registers"), numbers.Real) else None,
            smem_per_block=_smem_per_block(entry),
            block_size=int(block) if isinstance(block, numbers.Real) and block > 0 else None,
            sectors_per_request=entry.get("sectors_per_request"), smem_wavefront_ratio=ratio,
            achieved_occupancy_pct=entry.get("achieved_occupancy_pct"),
            theoretical_occupancy_pct=entry.get("theoretical_occupancy_pct"),
            gflops=gflops, level=level))
    return cards


# ====================================================================================
# Answer checking (the exercise)
# ====================================================================================

@dataclass(frozen=True)
class Feedback:
    step: int
    correct: bool | None           # None: not answered
    message: str


def check_answers(kernel, level=None, quadrant=None, next_step=None) -> list[Feedback]:
    """Feedback for the three steps of the exercise on mock kernel "A", "B" or "C"."""
    require(kernel in MOCK_KERNELS, f"모의 커널(mock kernel) 값은 A, B, C 중 하나여야 합니다 "
                                    f"(받은 값: {kernel!r})")
    mock = MOCK_KERNELS[kernel]
    out = []
    expected_level = LEVEL_NAMES[mock.expected_level]
    if level is None:
        out.append(Feedback(1, None, "1단계: 레벨을 고르세요."))
    else:
        require(level in LEVEL_NAMES, f"레벨(level) 값은 {min(LEVEL_NAMES)}부터 {max(LEVEL_NAMES)}까지의 정수여야 "
                                      f"합니다 (받은 값: {level!r})")
        ok = level == mock.expected_level
        extra = "" if ok else " " + mock.level_feedback.get(level, "")
        out.append(Feedback(1, ok, (f"1단계: {'정답' if ok else '다시 보세요'} — 기대한 답 "
                                    f"{expected_level}.{extra} 근거: " + "; ".join(mock.evidence))))
    if quadrant is None:
        out.append(Feedback(2, None, "2단계: SOL 사분면을 고르세요."))
    else:
        require(quadrant in QUADRANTS, f"사분면(quadrant) 값은 {', '.join(QUADRANTS)} 중 하나여야 "
                                       f"합니다 (받은 값: {quadrant!r})")
        ok = quadrant == mock.card.quadrant
        out.append(Feedback(2, ok, (f"2단계: {'정답' if ok else '다시 보세요'} — "
                                    f"{mock.bottleneck}")))
    if next_step is None:
        out.append(Feedback(3, None, "3단계: 다음 단계를 고르세요."))
    else:
        require(next_step in NEXT_STEPS, f"다음 단계(next step) 값은 {', '.join(NEXT_STEPS)} 중 "
                                         f"하나여야 합니다 (받은 값: {next_step!r})")
        ok = next_step == mock.expected_next
        extra = "" if ok else " " + mock.next_feedback.get(next_step, "")
        out.append(Feedback(3, ok, (f"3단계: {'정답' if ok else '다시 보세요'}.{extra} "
                                    f"{mock.next_explanation}")))
    return out


# ====================================================================================
# Text shared by both views
# ====================================================================================

def _fmt(value, unit="", digits=1) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.{digits}f}{unit}"
    return f"{value:,}{unit}"


CUBLAS_BENCH_LABEL = "기록된 cuBLAS 측정값"
CUBLAS_PROFILE_LABEL = "같은 프로파일 기록의 cuBLAS 커널"


def reference_gflops(profiles: dict | None) -> float | None:
    """GFLOP/s of cuBLAS's own kernel under the profiler (profiles.json "reference"), if recorded."""
    for entry in (profiles or {}).get("reference") or []:
        if isinstance(entry, dict) and entry.get("kernel") == "cublas" and entry.get("duration_ms") \
                and all(entry.get(k) for k in ("M", "N", "K")):
            return 2 * entry["M"] * entry["N"] * entry["K"] / (entry["duration_ms"] * 1e6)
    return None


def cublas_for_cards(profiles: dict | None, benchmarks: dict | None) -> tuple[float | None, str]:
    """The cuBLAS figure a measured card is compared with, and its label: cuBLAS's kernel profiled in the
    same record (same tool, one launch each) when there is one, else the benchmark's cuBLAS."""
    ref = reference_gflops(profiles)
    if ref:
        return ref, CUBLAS_PROFILE_LABEL
    return cublas_gflops(benchmarks), CUBLAS_BENCH_LABEL


def _card_lines(card: ProfileCard, cublas: float | None, cublas_label: str = CUBLAS_BENCH_LABEL) -> list[str]:
    kind = "모의 데이터 — 측정값 아님" if card.source == "mock" else "Nsight Compute 측정"
    lines = [
        f"{card.title} ({kind}), 4096³ 가정" if card.source == "mock" else f"{card.title} ({kind})",
        f"SOL: SM {card.sm_pct:.1f}% · 메모리 {card.mem_pct:.1f}%",
        f"요청당 섹터(sectors/request) {_fmt(card.sectors_per_request)} · 블록당 공유 메모리 "
        f"{_fmt(card.smem_per_block, ' B')} · 공유 메모리 웨이브프론트 {card.smem_wavefront_ratio or '해당 없음'}",
        f"레지스터 {_fmt(card.registers)} · 블록 {_fmt(card.block_size)} 스레드 · 이론 점유율 "
        f"{_fmt(card.theoretical_occupancy_pct, '%')} · 달성 점유율 {_fmt(card.achieved_occupancy_pct, '%')}",
    ]
    if card.sass_top:
        lines.append("상위 SASS: " + ", ".join(f"{op} {pct:.1f}%" for op, pct in card.sass_top))
    if card.gflops:
        perf = f"성능 {card.gflops:,.0f} GFLOP/s"
        if card.source == "mock":
            # A mock has no device and no cuBLAS run beside it (course-spec C8).
            perf += " (모의 값: 같은 장치의 cuBLAS 측정이 없어 cuBLAS 대비 %는 계산하지 않음)"
        elif card.key == "rec:cublas":
            perf += " (프로파일러 아래 한 번 실행, cuBLAS 자신)"
        elif cublas:
            perf += (f" = {cublas_label}({cublas:,.0f})의 "
                     f"{percent_of_cublas(card.gflops, cublas):.1f}%")
        else:
            perf += " (cuBLAS 대비 %는 측정한 cuBLAS가 있어야 계산)"
        lines.append(perf)
    return lines


def _answer_lines(key: str, card: ProfileCard) -> list[str]:
    if key in MOCK_KERNELS:
        m = MOCK_KERNELS[key]
        return ([f"1단계 답: {LEVEL_NAMES[m.expected_level]}"] + [f" · {e}" for e in m.evidence]
                + [f"2단계 답: {QUADRANTS[card.quadrant]} — {m.bottleneck}",
                   f"3단계 답: {NEXT_STEPS[m.expected_next]}", f" · {m.next_explanation}"])
    path = decision_path(card.sm_pct, card.mem_pct, card.stalls)
    return ([f"모델의 판정: {QUADRANTS[path.quadrant]}"] + [f" · {q}" for q in path.questions]
            + [f"결정 트리의 제안: {NEXT_STEPS[path.recommendation]}"])


def _display_width(text: str) -> int:
    # Hangul and other wide glyphs take about two Latin letters of width.
    return sum(2 if ord(ch) >= 0x1100 else 1 for ch in text)


def _wrap(text: str, width: int = 72) -> str:
    """Insert <br> so long lines fit a plotly text trace, which never wraps by itself."""
    out, line = [], ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if _display_width(candidate) > width and line:
            out.append(line)
            line = word
        else:
            line = candidate
    out.append(line)
    return "<br>".join(out)


def _corrections_lines(key: str) -> list[str]:
    if key not in MOCK_KERNELS:
        return []
    return ["원 자료에서 고친 점:"] + [f" · {c}" for c in MOCK_KERNELS[key].corrections]


# ====================================================================================
# Figure view
# ====================================================================================

SEED_CLAIMED_SOL = [(0, 5, 20), (1, 10, 50), (2, 30, 60), (3, 60, 70), (4, 75, 80), (5, 85, 85)]


def _stall_bar(go, card: ProfileCard):
    names = sorted(card.stalls, key=card.stalls.get)
    return go.Bar(
        orientation="h", x=[card.stalls[n] for n in names], y=names,
        marker={"color": [STALL_GROUPS.get(n, "#7f7f7f") for n in names]},
        customdata=[[STALL_REASONS.get(n, ("(설명 없음)", ""))[0],
                     STALL_REASONS.get(n, ("", "—"))[1]] for n in names],
        hovertemplate="%{y}: %{x:.1f}%<br>뜻: %{customdata[0]}<br>대응: %{customdata[1]}"
                      "<extra></extra>",
        xaxis="x2", yaxis="y2", showlegend=False, name=card.title)


def _text_trace(go, text: str, axis: str, colour: str = "#222222"):
    return go.Scatter(x=[0], y=[1], mode="text", text=[text], textposition="bottom right",
                      textfont={"size": 11, "color": colour}, hoverinfo="skip",
                      cliponaxis=False, showlegend=False, xaxis=f"x{axis}", yaxis=f"y{axis}")


_HIDDEN = "rgba(0,0,0,0)"


def figure(kernel="A", profiles=None, benchmarks=None, data_dir=None, show_answers=False):
    """SOL quadrant + stall bars + profile card, with buttons per kernel (mocks A/B/C and
    recorded profiles) and a button pair that shows or hides the expected answers."""
    import plotly.graph_objects as go

    if profiles is None:
        profiles = load_recorded("profiles.json", data_dir)
    if benchmarks is None:
        benchmarks = load_recorded("benchmarks.json", data_dir)
    cards = [m.card for m in MOCK_KERNELS.values()] + recorded_cards(profiles)
    keys = [c.key for c in cards]
    if kernel not in keys:
        return error_figure(SimInputError(
            f"커널(kernel) 값은 {', '.join(keys)} 중 하나여야 합니다 (받은 값: {kernel!r})"),
            "프로파일 읽기")
    cublas, cublas_label = cublas_for_cards(profiles, benchmarks)
    active = keys.index(kernel)

    traces, groups = [], []
    traces.append(go.Scatter(
        x=[c.mem_pct for c in cards], y=[c.sm_pct for c in cards], mode="markers+text",
        text=[c.title for c in cards], textposition="top center",
        marker={"size": 10, "symbol": ["diamond" if c.source == "mock" else "circle"
                                       for c in cards],
                "color": ["#ff7f0e" if c.source == "mock" else "#1f77b4" for c in cards]},
        hovertemplate="%{text}<br>메모리 %{x:.1f}% · SM %{y:.1f}%<extra></extra>",
        name="커널 (◆ 모의, ● 측정)", xaxis="x", yaxis="y"))
    groups.append(None)
    traces.append(go.Scatter(
        x=[c[2] for c in SEED_CLAIMED_SOL], y=[c[1] for c in SEED_CLAIMED_SOL],
        mode="markers+text", text=[f"L{c[0]}" for c in SEED_CLAIMED_SOL],
        textposition="bottom center", marker={"symbol": "x", "color": "#aaaaaa"},
        name="원 자료의 예상 위치(측정 아님)", visible="legendonly",
        hovertemplate="원 자료의 주장 %{text}: 메모리 %{x}% · SM %{y}%<extra></extra>",
        xaxis="x", yaxis="y"))
    groups.append(None)
    answer_idx = []
    for index, card in enumerate(cards):
        traces.append(go.Scatter(x=[card.mem_pct], y=[card.sm_pct], mode="markers",
                                 marker={"size": 22, "color": _HIDDEN,
                                         "line": {"width": 3, "color": "black"}},
                                 hoverinfo="skip", showlegend=False, xaxis="x", yaxis="y"))
        traces.append(_stall_bar(go, card))
        traces.append(_text_trace(go, "<br>".join(_wrap(line) for line in
                                                  _card_lines(card, cublas, cublas_label)), "3"))
        answers = "<br>".join(_wrap(line) for line in _answer_lines(card.key, card))
        traces.append(_text_trace(go, answers, "4",
                                  "#1e4d2b" if show_answers else _HIDDEN))
        answer_idx.append(len(traces) - 1)
        fixes = "<br>".join(_wrap(line, 150) for line in _corrections_lines(card.key))
        traces.append(_text_trace(go, fixes, "5", "#5a3d00" if show_answers else _HIDDEN))
        answer_idx.append(len(traces) - 1)
        groups += [index] * 5
    fig = go.Figure(data=traces)
    for trace, visible in zip(fig.data, group_visibility(groups, active)):
        if trace.visible != "legendonly":
            trace.visible = visible

    def vis(index):
        return [v if t.visible != "legendonly" else "legendonly"
                for v, t in zip(group_visibility(groups, index), fig.data)]

    kernel_buttons = [{"label": c.title, "method": "update",
                       "args": [{"visible": vis(i)}, {"title.text": _title(c)}]}
                      for i, c in enumerate(cards)]
    answer_buttons = [
        {"label": "정답 보기", "method": "restyle",
         "args": [{"textfont.color": ["#1e4d2b", "#5a3d00"] * len(cards)}, answer_idx]},
        {"label": "정답 숨기기", "method": "restyle",
         "args": [{"textfont.color": _HIDDEN}, answer_idx]},
    ]
    t = SOL_THRESHOLD_PCT
    shapes = [
        {"type": "line", "x0": t, "x1": t, "y0": 0, "y1": 100, "xref": "x", "yref": "y",
         "line": {"dash": "dash", "color": "#888888"}},
        {"type": "line", "x0": 0, "x1": 100, "y0": t, "y1": t, "xref": "x", "yref": "y",
         "line": {"dash": "dash", "color": "#888888"}},
    ]
    # Region names in the outer corners, away from the points.
    region = [("latency", 1, t - 1, "left", "top"), ("memory", 99, t - 1, "right", "top"),
              ("compute", 1, 99, "left", "top"), ("balanced", 99, 99, "right", "top")]
    annotations = [{"x": x, "y": y, "xref": "x", "yref": "y", "showarrow": False,
                    "xanchor": xa, "yanchor": ya, "text": QUADRANTS[k].replace("(", "<br>("),
                    "opacity": 0.6, "font": {"size": 11}} for k, x, y, xa, ya in region]
    annotations.append({"x": 0, "y": 0.555, "xref": "paper", "yref": "paper",
                        "xanchor": "left", "yanchor": "top", "showarrow": False,
                        "font": {"size": 11},
                        "text": f"사분면 기준선: 원 자료의 {t:g}% (이상이면 '높음'). "
                                "모의 커널 A/B/C는 연습용 가짜 데이터입니다."})
    if not profiles:
        annotations.append({"x": 1, "y": 0.555, "xref": "paper", "yref": "paper",
                            "xanchor": "right", "yanchor": "top", "showarrow": False,
                            "font": {"size": 11, "color": "#7a4b00"},
                            "text": "기록된 프로파일(book/data/profiles.json)이 없습니다"})
    fig.update_layout(
        title={"text": _title(cards[active]), "font": {"size": 13}, "y": 0.99,
               "yanchor": "top"},
        height=1080, margin={"t": 170, "b": 40, "l": 60, "r": 30},
        xaxis={"domain": [0, 0.42], "range": [0, 100], "anchor": "y",
               "title": {"text": "메모리 처리량 (% of peak)"}},
        yaxis={"domain": [0.62, 1.0], "range": [0, 100], "anchor": "x",
               "title": {"text": "SM 처리량 (% of peak)"}},
        xaxis2={"domain": [0.6, 1.0], "anchor": "y2", "title": {"text": "스톨 비율 (%)"},
                "rangemode": "tozero"},
        yaxis2={"domain": [0.62, 1.0], "anchor": "x2", "automargin": True},
        xaxis3={"domain": [0, 0.48], "anchor": "y3", "visible": False, "range": [0, 1]},
        yaxis3={"domain": [0.25, 0.53], "anchor": "x3", "visible": False, "range": [0, 1]},
        xaxis4={"domain": [0.52, 1.0], "anchor": "y4", "visible": False, "range": [0, 1]},
        yaxis4={"domain": [0.25, 0.53], "anchor": "x4", "visible": False, "range": [0, 1]},
        xaxis5={"domain": [0, 1.0], "anchor": "y5", "visible": False, "range": [0, 1]},
        yaxis5={"domain": [0.0, 0.22], "anchor": "x5", "visible": False, "range": [0, 1]},
        shapes=shapes, annotations=annotations,
        legend={"orientation": "h", "x": 0, "y": 1.04, "yanchor": "bottom",
                "font": {"size": 11}},
        updatemenus=[
            {"name": "커널", "type": "buttons", "direction": "right", "active": active,
             "buttons": kernel_buttons, "x": 0.0, "y": 1.1, "xanchor": "left",
             "yanchor": "bottom"},
            {"name": "정답", "type": "buttons", "direction": "right", "active": 0 if show_answers else 1,
             "buttons": answer_buttons, "x": 1.0, "y": 1.1, "xanchor": "right",
             "yanchor": "bottom"},
        ],
    )
    return fig


def _title(card: ProfileCard) -> str:
    kind = "모의" if card.source == "mock" else "측정"
    return (f"프로파일 읽기 연습 — {card.title} ({kind})<br><sup>왼쪽: SOL 사분면 · 오른쪽: "
            "스톨 원인(마우스를 올리면 Nsight Compute의 뜻) · 아래: 프로파일 요약과 정답"
            "(정답 보기 버튼)</sup>")


# ====================================================================================
# Widget view
# ====================================================================================

def _card_html(card: ProfileCard, cublas) -> str:
    items = "".join(f"<li>{html.escape(line)}</li>" for line in _card_lines(card, cublas))
    stalls = "".join(
        f"<tr><td>{html.escape(n)}</td><td>{v:.1f}%</td>"
        f"<td>{html.escape(STALL_REASONS.get(n, ('—', ''))[0])}</td></tr>"
        for n, v in sorted(card.stalls.items(), key=lambda kv: -kv[1]))
    return (f"<ul>{items}</ul><table border='1' cellpadding='3' style='border-collapse:"
            f"collapse;font-size:12px'><caption>스톨 원인별 비율과 뜻</caption><tr><th>스톨</th><th>비율</th><th>뜻</th></tr>"
            f"{stalls}</table>")


def _feedback_html(items: list[Feedback]) -> str:
    colour = {True: "#1e6b30", False: "#922b21", None: "#555555"}
    return "".join(f"<p style='color:{colour[f.correct]}'>{html.escape(f.message)}</p>"
                   for f in items)


TOOLTIPS = {
    "kernel": "연습할 모의 커널 (모의 데이터, 측정값 아님)",
    "level": "1단계 답: 이 프로파일은 어느 레벨의 커널과 닮았나",
    "quadrant": "2단계 답: SOL 사분면에서 어디에 있나",
    "next_step": "3단계 답: 다음에 할 최적화",
    "check": "세 답을 확인하고 피드백 보기",
}


def widget(kernel="A", data_dir=None):
    """ipywidgets exercise: pick a mock kernel, answer steps 1–3, get feedback."""
    import ipywidgets as widgets

    cublas = cublas_gflops(load_recorded("benchmarks.json", data_dir))
    kernel_box = widgets.Dropdown(options=[(m.card.title, k) for k, m in MOCK_KERNELS.items()],
                                  value=kernel if kernel in MOCK_KERNELS else "A",
                                  description="커널")
    level_box = widgets.Dropdown(options=[("(선택)", None)] +
                                 [(v, k) for k, v in LEVEL_NAMES.items()], description="1단계")
    quadrant_box = widgets.Dropdown(options=[("(선택)", None)] +
                                    [(v, k) for k, v in QUADRANTS.items()], description="2단계")
    next_box = widgets.Dropdown(options=[("(선택)", None)] +
                                [(v, k) for k, v in NEXT_STEPS.items()], description="3단계",
                                layout={"width": "720px"})
    check = widgets.Button(description="답 확인")
    card_out = widgets.HTML()
    feedback_out = widgets.HTML()

    def show_card(_change=None):
        card_out.value = _card_html(MOCK_KERNELS[kernel_box.value].card, cublas)
        feedback_out.value = ""

    def on_check(_button=None):
        try:
            feedback_out.value = _feedback_html(check_answers(
                kernel_box.value, level_box.value, quadrant_box.value, next_box.value))
        except SimInputError as err:
            feedback_out.value = error_html(err)

    kernel_box.observe(show_card, names="value")
    check.on_click(on_check)
    show_card()
    box = widgets.VBox([kernel_box, card_out, level_box, quadrant_box, next_box, check,
                        feedback_out])
    box.controls = {"kernel": kernel_box, "level": level_box, "quadrant": quadrant_box,
                    "next_step": next_box, "check": check}
    describe_controls(box.controls, TOOLTIPS)
    box.output = feedback_out
    box.card = card_out
    return box
