"""What every exercise's check draws, on the CPU: each hole a known-wrong attempt slipped through has its case.

For every exercise and several seeds: every class of (alpha, beta) with negative and inexact values, a case
with K past 4096 (small M and N), a single k tile (K <= 8, the smallest BK), K no multiple of a tile, NaN and
+-Inf inside the inputs, S past 16 for the split-K reduction; the shared-memory fills and the timed shape
differ between seeds; nothing exceeds the card's size limit.
"""
from __future__ import annotations

import numpy as np
import pytest

from course.autograder import cases, kind_splitk_reduce, kinds, spec as specs

EXERCISES = specs.load_all()
IDS = [s.id for s in EXERCISES]
SEEDS = (0, 1, 12345)


def _plan(s, seed):
    return kinds.of(s).correctness_cases(s, seed)


@pytest.mark.parametrize("exercise_id", IDS)
def test_every_class_of_alpha_and_beta_is_in_every_run(exercise_id):
    s = specs.load(exercise_id)
    for seed in SEEDS:
        plan = _plan(s, seed)
        fixed = {cases.alpha_beta_class(c.alpha, c.beta) for c in plan if not c.drawn}
        assert fixed == set(cases.ALPHA_BETA_CLASSES), (seed, set(cases.ALPHA_BETA_CLASSES) - fixed)
        values = [v for c in plan for v in (c.alpha, c.beta)]
        assert any(v < 0 for v in (c.alpha for c in plan)) and any(v < 0 for v in (c.beta for c in plan))
        assert any(float(np.float32(v)) != v for v in values)            # inexact in float32 (-0.37, 1.1)


def test_the_drawn_pairs_cover_every_class_too():
    drawn = {cases.alpha_beta_class(a, b) for a, b in cases.DRAWN_ALPHA_BETA}
    assert drawn == set(cases.ALPHA_BETA_CLASSES)
    assert all(a != 0.0 for a, _ in cases.alpha_beta_choices(specials=1))


@pytest.mark.parametrize("exercise_id", [s.id for s in EXERCISES if s.kind == "sgemm"])
def test_k_past_4096_a_single_k_tile_and_a_partial_k_tile_are_drawn(exercise_id):
    s = specs.load(exercise_id)
    rows, cols = s.tile
    for seed in SEEDS:
        plan = _plan(s, seed)
        long_k = [c for c in plan if c.K > 4096]
        assert long_k and all(c.M <= 2 * rows and c.N <= 2 * cols for c in long_k)   # cheap: few blocks
        single = [c for c in plan if c.K <= 8 and c.M > rows and c.N > cols]          # one k tile, several blocks
        assert single, seed
        assert any(c.K % 8 for c in plan if c.K > 8) or s.multiple_of["K"] % 8 == 0
        assert any(c.K % cases.K_TILE for c in plan)
    hazards = cases.hazard_cases(s, 0)
    assert any(c.K <= 8 for c in hazards) and any(c.K > 32 for c in hazards)
    assert any(c.K <= 8 for c in cases.differential_cases(s, 0))


@pytest.mark.parametrize("exercise_id", IDS)
def test_nan_and_inf_inputs_are_in_every_run_fixed_and_drawn(exercise_id):
    s = specs.load(exercise_id)
    for seed in SEEDS:
        special = [c for c in _plan(s, seed) if c.specials]
        assert any(c.beta == 0.0 for c in special) and any(c.beta != 0.0 for c in special)
        assert any(c.drawn for c in special) and all(c.alpha != 0.0 for c in special)
        assert all(c.specials >= 3 for c in special)      # NaN, +Inf and -Inf each at least once


def test_the_reduction_draws_more_than_16_slabs():
    s = specs.load("m12-e1")
    for seed in SEEDS:
        assert max(c.S for c in _plan(s, seed) if not c.drawn) >= 16
    assert max(kind_splitk_reduce.SLICES) > 16
    drawn = {c.S for seed in range(30) for c in _plan(s, seed) if c.drawn}
    assert any(S > 8 for S in drawn) and any(S > 16 for S in drawn)


@pytest.mark.parametrize("exercise_id", IDS)
def test_the_fills_and_the_timed_shape_differ_between_seeds(exercise_id):
    s = specs.load(exercise_id)
    speed = kinds.of(s).speed_case
    assert cases.shared_fill(s, 1) != cases.shared_fill(s, 2)
    assert all(a != b and a and b for a, b in (cases.shared_fill(s, seed) for seed in range(20)))
    shape = lambda c: tuple(getattr(c, d) for d in ("M", "N", "K", "S") if hasattr(c, d))   # noqa: E731
    assert len({shape(speed(s, seed)) for seed in range(20)}) >= 6
    assert cases.shared_fill(s, 7) == cases.shared_fill(s, 7) and shape(speed(s, 7)) == shape(speed(s, 7))


def _elements(s, c) -> list[int]:
    if s.kind == "splitk_reduce":
        return [c.S * c.M * c.ldp, c.M * c.ldc]
    lda, ldb, ldc = cases.leading_dims(s, c)
    return [c.M * lda, c.K * ldb, c.M * ldc]


@pytest.mark.parametrize("exercise_id", IDS)
def test_no_case_exceeds_the_size_limit_on_the_card(exercise_id):
    s = specs.load(exercise_id)
    k = kinds.of(s)
    assert s.max_elements == 2 ** 31 - 1
    for seed in SEEDS:
        for c in [*k.correctness_cases(s, seed), *k.hazard_cases(s, seed), *k.differential_cases(s, seed),
                  k.speed_case(s, seed)]:
            assert max(_elements(s, c)) <= s.max_elements


def test_the_size_limit_is_checked_and_shown(tmp_path):
    from course.autograder import page
    from course.autograder.card_text import size_limit_text

    s = specs.load("m06-e1")
    assert "2,147,483,647" in size_limit_text(s) and "8,589,934,588바이트" in size_limit_text(s)
    assert "2,147,483,647" in page.card_html("m06-e1", data={})
    folder = tmp_path / "m06-e1"
    folder.mkdir()
    for path in s.folder.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    text = (folder / "exercise.yaml").read_text(encoding="utf-8")
    (folder / "exercise.yaml").write_text(text.replace("max_elements: 2147483647", "max_elements: 4294967296"),
                                          encoding="utf-8")
    with pytest.raises(specs.ExerciseError, match="max_elements"):
        specs.load_folder(folder)
