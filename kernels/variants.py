"""Variants that the chapters compare with a shipped kernel but that the course does not ship.

A variant is the shipped kernel file changed in one named way, built from the file's text so that it
follows every edit of the shipped kernel. tools/record_variants.py times each against its base kernel
in alternation on a GPU (book/data/variants.json); the chapters compile them for SASS without one.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kernels.compiler import expanded_source

# Level 4 before the tail was peeled: one loop with `if (has_next)` around the prefetch and its store.
LEVEL4_OLD_LOOP = """\
    for (int kt = 0; kt < num_tiles; ++kt) {
        const int cur = kt & 1;
        const bool has_next = kt + 1 < num_tiles;
        if (has_next)   // load only if there is a next tile
            fetch_tile(A, B, M, N, K, lda, ldb, block_row, block_col,
                       (kt + 1) * rb::BK, f, a, b);
        micro_kernel_tile<rb::BM, rb::BN, false>(As[cur], Bs[cur], acc, tx, ty);
        if (has_next)   // store only if there is a next tile
            stash_tile<rb::BM, rb::BN>(As[cur ^ 1], Bs[cur ^ 1], f, a, b);
        __syncthreads();
    }
"""
LEVEL4_BOUNDS_2 = "__launch_bounds__(rb::THREADS, 2)"
LEVEL4_BOUNDS_1 = "__launch_bounds__(rb::THREADS)"


def level4_old_loop(two_blocks_per_sm: bool = False) -> str:
    """The shipped Level 4 source with its loop and peeled tail replaced by the old single loop.

    two_blocks_per_sm keeps the shipped `__launch_bounds__(256, 2)`; without it the bound is
    `(256)`, as the old version had.
    """
    shipped = expanded_source("sgemm_double_buffer.cu")
    start_marker, end_marker = "    int kt = 0;\n", "    // [end-region: pipelined-loop]"
    if shipped.count(start_marker) != 1 or shipped.count(end_marker) != 1 or shipped.count(LEVEL4_BOUNDS_2) != 1:
        raise ValueError("sgemm_double_buffer.cu changed: the old-loop variant can no longer be built from it")
    start, end = shipped.index(start_marker), shipped.index(end_marker)
    source = shipped[:start] + LEVEL4_OLD_LOOP + shipped[end:]
    return source if two_blocks_per_sm else source.replace(LEVEL4_BOUNDS_2, LEVEL4_BOUNDS_1)


@dataclass(frozen=True)
class Variant:
    name: str            # key in book/data/variants.json
    base: str            # registry kernel it is compared with (same launch shape)
    entry: str           # extern "C" name in the variant's source
    what_ko: str
    source: callable = None               # () -> full source, or None: the base file with `defines`
    defines: dict = field(default_factory=dict)


VARIANTS = {v.name: v for v in (
    Variant("level4_old_loop", "sgemm_double_buffer", "sgemm_double_buffer",
            "이전 판 Level 4: if (has_next) 루프, __launch_bounds__(256)", source=lambda: level4_old_loop(False)),
    Variant("level4_old_loop_lb2", "sgemm_double_buffer", "sgemm_double_buffer",
            "이전 판 루프 + __launch_bounds__(256, 2)", source=lambda: level4_old_loop(True)),
    Variant("level3_pad4", "sgemm_register_blocking", "sgemm_register_blocking",
            "Level 3, 타일 행 간격 132(RB_PAD=4)", defines={"RB_PAD": 4}),
)}
