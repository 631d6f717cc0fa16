"""Launch one of Level 7's predictions as it stands: the tools that time every option the model weighs
(tools/tune_level7.py, tools/record_heldout.py) use this instead of the dispatcher's own choice.

A tile prediction carries its ring (BK x STAGES): it is launched through the dispatcher's launch class
(kernels.level7.ShapeAwareLaunch) exactly as the dispatcher launches its own choice, so a ring other than the
tile's default one can be timed. Any other prediction (a path that is not a tile, e.g. a streaming one) is
forced by its name through kernels.level7.prepare(tile=, split=), which checks it as the dispatcher would.
"""
from __future__ import annotations

from kernels import launch, level7, registry
from kernels import level7_model as model


def option_name(p) -> str:
    """The name of the path a prediction stands for: the tile (or the path's own name)."""
    cand = p.candidate
    tile = getattr(cand, "tile", None)
    return getattr(tile, "name", None) or getattr(cand, "name", None) or str(cand)


def label(p) -> str:
    """One prediction's label in tables and records: path, ring when it has one, split."""
    cand = p.candidate
    ring = f" BK{cand.BK}x{cand.STAGES}" if hasattr(cand, "BK") and hasattr(cand, "STAGES") else ""
    return f"{option_name(p)}{ring} split {p.split}"


def describe(p) -> dict:
    """The prediction's choice as a record holds it (the keys of ShapeAwareLaunch.describe that it knows)."""
    cand = p.candidate
    out = {"tile": option_name(p), "split": p.split, "label": label(p), "predicted_us": p.total_us}
    for key in ("BK", "STAGES", "resident"):
        if hasattr(cand, key):
            out[key] = getattr(cand, key)
    return out


def is_tile(p) -> bool:
    cand = p.candidate
    return isinstance(cand, model.Candidate) and getattr(cand.tile, "name", None) in model.TILE_BY_NAME


def launch_for(p, A, B, C, b16: bool | None = None):
    """A prepared launch of prediction `p` on (A, B, C); b16 forces B's copy width on the tile path (None:
    what B's rows allow, as the dispatcher decides)."""
    if is_tile(p):
        plan = launch.plan(registry.get(level7.NAME), launch.Operand.of(A, "A"), launch.Operand.of(B, "B"),
                           launch.Operand.of(C, "C"))
        return level7.ShapeAwareLaunch(level7.NAME, plan, A, B, C, p, b16=b16)
    return level7.prepare(A, B, C, tile=option_name(p), split=p.split)
