// Level 5: asynchronous copies (cp.async, compute capability 8.0+) into a ring of
// shared-memory stages (BK = 32 and 2 stages by default, chosen by tools/tune_async.py: with
// tiles this deep one tile of look-ahead already hides the copies; deeper rings measured no faster).
//
// cp.async copies global memory straight into shared memory without passing the data
// through registers; a thread closes its copies into a group with commit_group and waits
// for old groups with wait_group(N) ("at most N of my most recent groups may be pending").
//
// [region: design]
// The block tile, the thread tile and the micro-kernel are those of Levels 3 and 4. What changes
// is how a K tile reaches shared memory, and how far ahead it does:
//   A must arrive transposed (As[k][m]) so that the micro-kernel reads 4 rows with one LDS.128.
//     A 16-byte copy moves 4 neighbours of ONE row (4 consecutive k) and cannot transpose, so A
//     travels in 4-byte copies: each lands exactly where the transposed layout wants it.
//     A warp copies 4 rows x 8 k per instruction (4 whole 32-byte sectors), and a pitch of
//     BM + 4 floats puts the 32 destinations in 32 different banks.
//   B is already in the layout the micro-kernel reads (Bs[k][n]), so 16-byte copies fit.
//   With no registers spent on staging, the K tile can be 32 deep (4x Level 4's): the copies,
//   the barrier and the loop control are spread over 4x as many FMAs. The ring then outgrows the
//   48 KiB of static shared memory and lives in dynamic shared memory (2 stages: 66,560 B; two
//   blocks per SM). With 3+ stages the barrier of a tile may move before its last k step
//   (EARLY_BARRIER, measured by the tuner; Level 6 builds on it).
// [end-region: design]
// Variants:
//   sgemm_async_copy       every copy 4 bytes (cp.async.ca), B too: 4x more B copy instructions
//   sgemm_async_copy_vec   B in 16-byte copies (cp.async.cg), A in 4-byte copies
// Below compute capability 8.0 the same source compiles to a synchronous fallback (plain
// loads and stores through registers): the schedule stays correct, it just does not overlap.
// Launch as Level 3 plus SMEM_BYTES of dynamic shared memory. Any M and K; the launcher stages
// B and C when N, ldb, ldc or the pointers do not suit 16-byte accesses (kernels/launch.py).
#include "sgemm_common.cuh"

#ifndef L5_BK
#define L5_BK 32
#endif
#ifndef L5_STAGES
#define L5_STAGES 2
#endif
#ifndef L5_MIN_BLOCKS
#define L5_MIN_BLOCKS 2
#endif
#ifndef L5_EARLY_BARRIER
#define L5_EARLY_BARRIER 0
#endif

namespace l5 {
constexpr int BK = L5_BK;                 // depth of one K tile (8, 16 or 32)
constexpr int STAGES = L5_STAGES;         // buffers in the ring
constexpr int PITCH_A = rb::BM + 4;       // As[k][m] row pitch: +4 floats spreads the A copies over all banks
constexpr int TILE_A = BK * PITCH_A;      // floats of A per stage
constexpr int TILE_B = BK * rb::BN;       // floats of B per stage
constexpr int SMEM_BYTES = STAGES * (TILE_A + TILE_B) * 4;   // the ring, in dynamic shared memory
static_assert(STAGES >= 2, "a ring needs at least two stages");
}  // namespace l5


template <bool VEC16>
__device__ __forceinline__ void sgemm_async_copy_body(SGEMM_ARGS)
{
    // [region: shared-ring]
    // STAGES x (A tile + B tile). With BK = 32 and 2 stages the ring needs 2 x 32 x (132 + 128) x 4 B
    // = 66,560 B: more than the 48 KiB a kernel may declare statically, so it lives in dynamic shared
    // memory (extern __shared__), sized at launch; two blocks still fit in an SM's 228 KiB.
    extern __shared__ __align__(16) float ring[];
    float (*As)[l5::TILE_A] = reinterpret_cast<float (*)[l5::TILE_A]>(ring);   // As[stage][k * PITCH_A + m]
    float (*Bs)[l5::TILE_B] = reinterpret_cast<float (*)[l5::TILE_B]>(ring + l5::STAGES * l5::TILE_A);
    // [end-region: shared-ring]

    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * blockDim.x + tx;
    const int block_row = block_y() * rb::BM, block_col = blockIdx.x * rb::BN;   // y continues in z
    const int num_tiles = (K + l5::BK - 1) / l5::BK;
    // [region: copy-plan]
    // 16-byte or 4-byte copies for B; A always in 4-byte copies (see TileCopier).
    TileCopier<rb::BM, rb::BN, l5::BK, rb::THREADS, VEC16 ? 4 : 1> copy(A, B, M, N, lda, ldb, block_row,
                                                                          block_col, tid);
    // [end-region: copy-plan]

    // [region: prologue]
    // Fill STAGES - 1 stages. One group per stage, committed even when the tile does not
    // exist, so that "group g" always means "tile g" in the loop below. A partial K tile
    // (K not a multiple of BK) goes first: then every tile of the loop is whole.
    // cp.async takes shared-memory addresses: those of stage 0, plus s * STAGE_BYTES for stage s.
    const unsigned as0 = shared_address(As[0]), bs0 = shared_address(Bs[0]);
    constexpr unsigned STAGE_A_BYTES = l5::TILE_A * 4, STAGE_B_BYTES = l5::TILE_B * 4;
    const bool partial = K % l5::BK != 0;
#pragma unroll
    for (int s = 0; s < l5::STAGES - 1; ++s) {
        if (s == 0 && partial)
            copy.issue_partial_tile(as0, bs0, A, B, K);
        else if (s < num_tiles)
            copy.issue_whole_tile(as0 + s * STAGE_A_BYTES, bs0 + s * STAGE_B_BYTES, A, B, K);
        cp_async_commit();
    }
    // [end-region: prologue]

    // [region: pipeline-loop]
    float acc[rb::TM][rb::TN] = {};
    int stage = 0;                        // stage of tile kt
    int refill = l5::STAGES - 1;          // stage of tile kt + STAGES - 1
#if L5_EARLY_BARRIER
    // [region: early-barrier-loop]
    // The barrier of tile kt moves one k-step earlier (before its last k-step, not one tile): the
    // first fragments of tile kt + 1 then load while the last FMAs of tile kt issue. Every shared-memory
    // read of tile kt is issued before that barrier, so refilling tile kt's own stage after it would be
    // safe with two stages. This loop keeps the ring's convention instead (tile kt + STAGES - 1 goes into
    // the stage of tile kt - 1), and with two stages that is the stage of tile kt + 1: hence three.
    static_assert(l5::STAGES >= 3,
                  "this loop's refill convention (tile kt + STAGES - 1 into tile kt - 1's stage) needs a third stage");
    float a[2][rb::TM], b[2][rb::TN];
    cp_async_wait<l5::STAGES - 2>();
    __syncthreads();
    load_fragments_8x8<l5::PITCH_A, rb::BN>(As[0], Bs[0], 0, tx, ty, a[0], b[0]);
    for (int kt = 0; kt < num_tiles; ++kt) {
#pragma unroll
        for (int k = 0; k < l5::BK - 2; k += 2) {
            load_fragments_8x8<l5::PITCH_A, rb::BN>(As[stage], Bs[stage], k + 1, tx, ty, a[1], b[1]);
            outer_product_8x8<false>(acc, a[0], b[0]);
            load_fragments_8x8<l5::PITCH_A, rb::BN>(As[stage], Bs[stage], k + 2, tx, ty, a[0], b[0]);
            outer_product_8x8<false>(acc, a[1], b[1]);
        }
        load_fragments_8x8<l5::PITCH_A, rb::BN>(As[stage], Bs[stage], l5::BK - 1, tx, ty, a[1], b[1]);
        outer_product_8x8<false>(acc, a[0], b[0]);
        cp_async_wait<l5::STAGES - 3>();  // tile kt + 1 has landed (for this thread) ...
        __syncthreads();                  // ... for all, and all have read tile kt - 1
        stage = (stage + 1 == l5::STAGES) ? 0 : stage + 1;
        // The first fragments of tile kt + 1 before the copies, so that they do not queue behind them.
        load_fragments_8x8<l5::PITCH_A, rb::BN>(As[stage], Bs[stage], 0, tx, ty, a[0], b[0]);
        if (kt + l5::STAGES - 1 < num_tiles)
            copy.issue_whole_tile(as0 + refill * STAGE_A_BYTES, bs0 + refill * STAGE_B_BYTES, A, B, K);
        cp_async_commit();
        refill = (refill + 1 == l5::STAGES) ? 0 : refill + 1;
        outer_product_8x8<false>(acc, a[1], b[1]);
    }
    // [end-region: early-barrier-loop]
#else
    // [region: ring-loop]
    for (int kt = 0; kt < num_tiles; ++kt) {
        // Groups 0 .. kt + STAGES - 2 are committed; allowing STAGES - 2 of them to be
        // pending guarantees that group kt - tile kt - has landed (for this thread).
        cp_async_wait<l5::STAGES - 2>();
        // Makes every thread's copies of tile kt visible, and guarantees that everyone has
        // finished computing tile kt - 1, whose stage is refilled just below.
        __syncthreads();

        if (kt + l5::STAGES - 1 < num_tiles)   // tile kt + STAGES - 1 goes into the stage of tile kt - 1
            copy.issue_whole_tile(as0 + refill * STAGE_A_BYTES, bs0 + refill * STAGE_B_BYTES, A, B, K);
        cp_async_commit();   // ALWAYS, even empty: keeps the count right in the tail (no race)

        micro_kernel_tile<l5::PITCH_A, rb::BN, false, l5::BK>(As[stage], Bs[stage], acc, tx, ty);
        stage = (stage + 1 == l5::STAGES) ? 0 : stage + 1;
        refill = (refill + 1 == l5::STAGES) ? 0 : refill + 1;
    }
    // [end-region: ring-loop]
#endif
    cp_async_wait<0>();   // leave no copy in flight when the block exits
    // [end-region: pipeline-loop]

    store_micro_tile(C, M, N, ldc, block_row, block_col, acc, tx, ty, alpha, beta);
}

// [region: variants]
// __launch_bounds__(256, 2): ask ptxas for at most 65536 / (2 x 256) = 128 registers per
// thread, so that two blocks (16 warps) fit on one SM.
extern "C" __global__ void __launch_bounds__(rb::THREADS, L5_MIN_BLOCKS)
sgemm_async_copy(SGEMM_ARGS) { sgemm_async_copy_body<false>(SGEMM_PASS); }

extern "C" __global__ void __launch_bounds__(rb::THREADS, L5_MIN_BLOCKS)
sgemm_async_copy_vec(SGEMM_ARGS) { sgemm_async_copy_body<true>(SGEMM_PASS); }
// [end-region: variants]
