"""What an exercise's card says about its size limit, its correctness cases and its timed shape, in one place
for the site's card (course.autograder.page) and `python -m course exercise show` (course.autograder.cli).
The parts that depend on the exercise's kind come from the kind (course.autograder.kinds)."""
from __future__ import annotations

from course.autograder import cases, kinds
from course.autograder.spec import ExerciseSpec
from korean_text import with_particle


def size_limit_text(s: ExerciseSpec) -> str:
    """The most elements one operand may span, in elements and bytes."""
    operands = kinds.of(s).operands_ko
    exact = "(2³¹ − 1개)" if s.max_elements == 2 ** 31 - 1 else ""
    return (f"{operands}는 {s.max_elements:,}개{exact}, float로 "
            f"{4 * s.max_elements:,}바이트(약 {4 * s.max_elements / 2 ** 30:.3g} GiB) 이하입니다. 검사기도 이보다 큰 "
            "행렬은 내지 않으므로, 이 범위에서는 32비트 int로 계산한 오프셋(행 × 선행 차원 + 열)도 넘치지 않습니다")


def correctness_text(s: ExerciseSpec) -> str:
    return kinds.of(s).correctness_text_ko(s)


def speed_text(s: ExerciseSpec) -> str:
    sizes = cases.speed_sizes(s.speed_size)
    band = (f"{sizes[0]}–{sizes[-1]} 가운데 {with_particle(str(s.speed_size), '가')} 아닌 값" if len(sizes) > 1
            else f"{sizes[0]}")
    kind = kinds.of(s)
    return (f"{kind.speed_shape_ko(band)}에서 {kind.speed_target_ko(s)}의 {s.min_ratio:g}배 이상 (번갈아 잰 중앙값의 비; "
            "매 실행 전에 C를 NaN으로 채우고 실행 뒤에 값을 확인; 목표의 ±3% 안이면 더 길게 다시 재서 판정)")
