"""Launch one of Level 7's predictions as it stands: the tools that time every option the model weighs
(tools/tune_level7.py, tools/record_heldout.py) use this instead of the dispatcher's own choice.

Every prediction, tile (with its ring, BK x STAGES) or streaming path, is launched through the dispatcher's own
launch class for it (kernels.level7.launch_class), exactly as the dispatcher launches its own choice, so a ring
other than the tile's default one, or any split the model weighs, can be timed.
"""
from __future__ import annotations

from kernels import launch, level7, registry


def label(p) -> str:
    """One prediction's label in tables and records: its candidate's name (path, ring: K tile x stages), split."""
    return f"{p.candidate.name} split {p.split}"


def describe(p) -> dict:
    """The prediction's choice as a record holds it (the keys of ShapeAwareLaunch.describe that it knows)."""
    cand = p.candidate
    return {"tile": cand.tile.name, "split": p.split, "label": label(p), "predicted_us": p.total_us,
            "BK": cand.BK, "STAGES": cand.STAGES, "resident": cand.resident}


def launch_for(p, A, B, C, b16: bool | None = None):
    """A prepared launch of prediction `p` on (A, B, C); b16 forces the streamed or copied operand's width
    (None: what its rows allow, as the dispatcher decides)."""
    plan = launch.plan(registry.get(level7.NAME), launch.Operand.of(A, "A"), launch.Operand.of(B, "B"),
                       launch.Operand.of(C, "C"))
    return level7.launch_class(p)(level7.NAME, plan, A, B, C, p, b16=b16)
