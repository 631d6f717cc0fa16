"""How the checker compares a kernel's C with the reference: special values exactly where IEEE arithmetic puts
them, the rest within a relative Frobenius error. Used by the correctness cases (worker) and by every timed
launch of the speed check (timing), so both judge a result the same way."""
from __future__ import annotations

TOLERANCE = 1e-5              # relative Frobenius error, as kernels.check.REL_TOLERANCE


def mismatch(C, ref):
    """Elements where C and the reference disagree on a special value: a NaN on one side only, or an infinity
    that is not the same infinity on the other side (its sign included)."""
    import cupy

    either_inf = cupy.isinf(C) | cupy.isinf(ref)
    return (cupy.isnan(C) != cupy.isnan(ref)) | (either_inf & (C != ref))


def error(C, ref) -> tuple[float, float]:
    """(relative Frobenius error, largest absolute difference) over the elements finite on both sides."""
    import cupy

    both = cupy.isfinite(C) & cupy.isfinite(ref)
    got = cupy.where(both, C, 0).astype(cupy.float64)
    want = cupy.where(both, ref, 0).astype(cupy.float64)
    diff = got - want
    norm = float(cupy.linalg.norm(want))
    err = float(cupy.linalg.norm(diff))
    return (err / norm if norm else err), float(cupy.abs(diff).max()) if diff.size else 0.0


def agrees(C, ref) -> bool:
    """Right: every special value where IEEE arithmetic puts it, the rest within TOLERANCE."""
    return not bool(mismatch(C, ref).any()) and error(C, ref)[0] <= TOLERANCE
