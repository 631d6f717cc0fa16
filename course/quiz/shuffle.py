"""Seeded choice order: the same in Python (JupyterLab quiz, instructor tools) and in the
site's quiz_rules.js, so that any order a learner saw can be reproduced from its seed.

The seed of one question's order is the text ``"<learner id>:<attempt>:<question id>"``:

* the learner id is a random token made once per learner and stored with the progress
  (``ProgressStore.learner_id()`` in JupyterLab, ``state.learner`` in the site's localStorage);
* the attempt is the learner's attempt number for that module (1, 2, ...);
* the question id keeps the questions of one attempt from sharing an order.

The text is hashed with 32-bit FNV-1a over its UTF-8 bytes; the hash seeds a mulberry32
generator; a Fisher–Yates shuffle draws ``j = next() % (i + 1)`` for i = n-1 .. 1. Everything
is 32-bit integer arithmetic, so JavaScript and Python agree exactly
(tests/test_quiz_js.py runs both over the same seeds).
"""
from __future__ import annotations

import re
import secrets

__all__ = ["LEARNER_ID_PATTERN", "Mulberry32", "fnv1a32", "new_learner_id", "seed_text", "shuffled_ids",
           "valid_learner_id"]

MASK = 0xFFFFFFFF
FNV_OFFSET = 0x811C9DC5
FNV_PRIME = 0x01000193
LEARNER_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def fnv1a32(text: str) -> int:
    """32-bit FNV-1a hash of text's UTF-8 bytes."""
    value = FNV_OFFSET
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * FNV_PRIME) & MASK
    return value


def _imul(a: int, b: int) -> int:
    """Math.imul on unsigned 32-bit values (the low 32 bits of the product)."""
    return (a * b) & MASK


class Mulberry32:
    """The mulberry32 generator (Tommy Ettinger), 32-bit state, unsigned 32-bit outputs."""

    def __init__(self, seed: int):
        self.state = seed & MASK

    def next_u32(self) -> int:
        self.state = (self.state + 0x6D2B79F5) & MASK
        t = self.state
        t = _imul(t ^ (t >> 15), t | 1)
        t = ((t + _imul(t ^ (t >> 7), t | 61)) & MASK) ^ t
        return (t ^ (t >> 14)) & MASK


def seed_text(learner: str, attempt: int, qid: str) -> str:
    return f"{learner}:{int(attempt)}:{qid}"


def shuffled_ids(ids, learner: str, attempt: int, qid: str) -> list[str]:
    """The choice ids of question qid in the order this learner sees them in this attempt."""
    order = [str(i) for i in ids]
    rng = Mulberry32(fnv1a32(seed_text(learner, attempt, qid)))
    for i in range(len(order) - 1, 0, -1):
        j = rng.next_u32() % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def new_learner_id() -> str:
    """A random learner id (16 hex digits): anonymous, made once, stored with the progress."""
    return secrets.token_hex(8)


def valid_learner_id(value) -> bool:
    return isinstance(value, str) and LEARNER_ID_PATTERN.match(value) is not None
