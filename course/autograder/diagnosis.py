"""The checker's diagnosis vocabulary: every diagnosis a check can give, and which one names the root cause.

The schema (course.autograder.spec) accepts only these names for a known-wrong attempt, and a verdict
(course.autograder.verdict) reports the failed check's diagnosis that comes first in DIAGNOSIS_PRIORITY.
Imports nothing: it sits at the bottom of the package.
"""
from __future__ import annotations

# Every diagnosis the checker emits (and the only names an exercise.yaml may give a wrong attempt).
DIAGNOSES = {
    "compile_error": "NVRTC가 소스를 거부함 (compile error)",
    "wrong_signature": "커널의 매개변수 목록이 실습과 다름 (wrong signature)",
    "global_state": "커널 밖의 __device__ 변수에 실행 사이의 상태를 둠 (global state)",
    "local_memory": "SASS에 로컬 메모리 명령 LDL/STL이 있음 (local memory)",
    "missing_instruction": "요구한 명령이 SASS에 없음 (missing instruction)",
    "too_many_registers": "레지스터 수가 한도를 넘음 (too many registers)",
    "wrong_values": "기준 결과(cuBLAS 또는 float64 합)와 값이 다름 (wrong values)",
    "unwritten_output": "C의 일부 원소를 쓰지 않음 (unwritten output)",
    "reads_c_with_beta_zero": "beta = 0인데 C를 읽음 (reads C with beta = 0)",
    "out_of_bounds": "행렬 밖의 메모리에 접근함 (out of bounds)",
    "writes_inputs": "읽기만 하는 입력(A·B 또는 P)에 씀 (writes to inputs)",
    "uninitialized_shared": "쓰지 않은 공유 메모리를 읽음 (uninitialized shared memory)",
    "race": "공유 메모리 경쟁 상태 (race)",
    "sync_error": "배리어 사용 오류 (sync error)",
    "timeout": "제한 시간 안에 끝나지 않음 (timeout)",
    "fault": "잘못된 주소 접근 등으로 커널이 중단됨 (fault)",
    "too_slow": "정확하지만 목표 속도에 못 미침 (too slow)",
}

# When several checks fail, the verdict names the root cause first: a kernel that never ran or
# broke memory explains wrong values, and correctness comes before machine-code style and speed.
DIAGNOSIS_PRIORITY = ("compile_error", "wrong_signature", "global_state", "timeout", "fault", "out_of_bounds", "writes_inputs",
                      "race", "sync_error", "uninitialized_shared", "reads_c_with_beta_zero", "unwritten_output",
                      "wrong_values", "local_memory", "missing_instruction", "too_many_registers", "too_slow")
