"""What an exercise's card says about its size limit, its correctness cases and its timed shape, in one place
for the site's card (course.autograder.page) and `python -m course exercise show` (course.autograder.cli)."""
from __future__ import annotations

from course.autograder import cases
from course.autograder.spec import ExerciseSpec
from korean_text import with_particle


def size_limit_text(s: ExerciseSpec) -> str:
    """The most elements one operand may span, in elements and bytes."""
    operands = ("작업 공간 P(S × M × ldp)와 C(M × ldc)가 각각 차지하는 원소" if s.kind == "splitk_reduce"
                else "A, B, C가 각각 차지하는 원소(행 수 × 선행 차원, 행 여백 포함)")
    exact = "(2³¹ − 1개)" if s.max_elements == 2 ** 31 - 1 else ""
    return (f"{operands}는 {s.max_elements:,}개{exact}, float로 "
            f"{4 * s.max_elements:,}바이트(약 {4 * s.max_elements / 2 ** 30:.3g} GiB) 이하입니다. 검사기도 이보다 큰 "
            "행렬은 내지 않으므로, 이 범위에서는 32비트 int로 계산한 오프셋(행 × 선행 차원 + 열)도 넘치지 않습니다")


def correctness_text(s: ExerciseSpec) -> str:
    if s.kind == "splitk_reduce":
        return ("고정된 경우와 실행마다 시드로 뽑는 경우(크기, 조각 수 S는 16개가 넘는 경우까지), alpha/beta의 모든 종류"
                "(0과 0, 0과 beta, alpha와 0, 1과 beta, alpha와 1, 음수와 정확히 표현되지 않는 값), ldp와 ldc가 다른 행 "
                "여백(작업 공간의 여백은 NaN), beta = 0이면 NaN과 ±Inf로 채운 C, P 안의 NaN·±Inf(기대값은 IEEE 규칙대로), "
                "실행마다 다른 무작위 비트 패턴 두 가지로 채운 공유 메모리(두 실행의 결과가 같아야 함), 실행 뒤 P가 "
                "그대로인지; float64로 더한 기준값과 상대 오차 1e-05 이내. 시드는 판정에 적히고 `--seed`로 같은 검사를 "
                "다시 할 수 있습니다")
    return ("고정된 경계 크기와 실행마다 시드로 뽑는 크기, alpha/beta의 모든 종류(0과 0, 0과 beta, alpha와 0, 1과 beta, "
            "alpha와 1, 음수와 정확히 표현되지 않는 값; 타일의 배수인 크기에서도 alpha·beta ≠ 0), k 타일 하나뿐인 K, "
            f"4096이 넘는 K({-(-cases.LONG_K // s.multiple_of['K']) * s.multiple_of['K']}), 타일의 배수가 아닌 K, lda·ldb·ldc가 모두 다른 행 여백, beta = 0이면 NaN과 "
            "±Inf로 채운 C, A·B 안의 NaN·±Inf(기대값은 IEEE 규칙대로: NaN의 자리와 Inf의 부호까지), 실행마다 다른 무작위 "
            "비트 패턴 두 가지로 채운 공유 메모리(두 실행의 결과가 같아야 함), 행렬 밖 보호 구역, 실행 뒤 A·B가 "
            "그대로인지; cuBLAS(float64)와 상대 오차 1e-05 이내. 시드는 판정에 적히고 `--seed`로 같은 검사를 다시 할 수 "
            "있습니다")


def speed_text(s: ExerciseSpec) -> str:
    sizes = cases.speed_sizes(s.speed_size)
    band = (f"{sizes[0]}–{sizes[-1]} 가운데 {with_particle(str(s.speed_size), '가')} 아닌 값" if len(sizes) > 1
            else f"{sizes[0]}")
    if s.kind == "splitk_reduce":
        from course.autograder.kinds import REDUCE_SPEED_SLICES

        shape = f"M, N을 실행마다 {band}에서 뽑은 M×N 조각 {REDUCE_SPEED_SLICES}개"
        target = f"강좌의 리덕션 커널 `{s.speed_reference}`"
    else:
        shape = f"M, N, K를 실행마다 {band}에서 하나씩 뽑은 크기"
        target = f"기준 커널 `{s.speed_reference}`"
    return (f"{shape}에서 {target}의 {s.min_ratio:g}배 이상 (번갈아 잰 중앙값의 비; 매 실행 전에 C를 NaN으로 채우고 "
            "실행 뒤에 값을 확인; 목표의 ±3% 안이면 더 길게 다시 재서 판정)")
