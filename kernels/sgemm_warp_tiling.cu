// Level 6: warp tiling. Each warp owns a WM x WN sub-tile of the block tile, each thread a
// TM x TN micro-tile inside it, and K tiles arrive through the cp.async ring of Level 5.
//
// Why it is faster than Levels 4 and 5: an SM issues one instruction per clock per scheduler,
// and an FFMA is one of them, so the share of FFMA among all issued instructions bounds the
// speed. An 8 x 8 micro-tile does 64 FFMA per 4 shared loads (LDS.128); an 8 x 16 micro-tile
// does 128 FFMA per 6, and the copy, barrier and loop instructions of a K tile are spread over
// twice as many FFMA. The price is registers: 128 accumulators, so one 256-thread block per SM.
//
// Thread layout inside a warp: LANES_M x LANES_N threads; thread (tr, tc) owns rows
// tr*4 .. tr*4+3 of each of the TM/4 row groups of the warp tile (spaced LANES_M*4 apart) and
// columns tc*4 .. tc*4+3 of each of the TN/4 column groups (spaced LANES_N*4 apart). For one k,
// the lanes of a warp read LANES_M distinct float4 of As and LANES_N distinct float4 of Bs, each
// set contiguous and at most 128 bytes, so no two lanes want different words of one bank: no bank
// conflict (Nsight Compute counts none; a 128-bit shared load still takes several wavefronts, as
// any LDS.128 of a full warp does).
//
// Block order: consecutive blocks walk GROUP tile rows before the next tile column, so the
// blocks resident at one time share rows of A and columns of B in L2 (block swizzle).
//
// Pipeline: a ring of STAGES K tiles (BK = 32 deep) filled by cp.async as in Level 5, and two sets
// of register fragments: the shared loads of step k + 1 are in flight while the FFMAs of step k
// issue, and the barrier sits before the last step of a tile (FRAG_PREFETCH), so the next tile's
// first loads hide behind 128 FFMAs instead of stalling every warp after the barrier.
//
// Launch: block (THREADS, 1), grid (ceil(N / BN), ceil(M / BM)) (y continued in z past 65,535
// tile rows), dynamic shared memory SMEM_BYTES. Any M and K; the launcher stages B and C when N, ldb, ldc or the pointers do
// not suit 16-byte accesses. The shape macros are chosen by tools/tune_level6.py (the knobs
// ROLL, LANE_ORDER and SPREAD are experiments the tuner measures; the defaults leave them off).
#include "sgemm_common.cuh"

#ifndef L6_BM
#define L6_BM 128
#endif
#ifndef L6_BN
#define L6_BN 256
#endif
#ifndef L6_BK
#define L6_BK 32
#endif
#ifndef L6_WM
#define L6_WM 64
#endif
#ifndef L6_WN
#define L6_WN 64
#endif
#ifndef L6_TM
#define L6_TM 8
#endif
#ifndef L6_TN
#define L6_TN 16
#endif
#ifndef L6_STAGES
#define L6_STAGES 4
#endif
#ifndef L6_GROUP
#define L6_GROUP 8
#endif
#ifndef L6_MIN_BLOCKS
#define L6_MIN_BLOCKS 1
#endif
#ifndef L6_FRAG_PREFETCH
#define L6_FRAG_PREFETCH 1
#endif
#ifndef L6_ROLL
#define L6_ROLL 0
#endif
#ifndef L6_LANE_ORDER
#define L6_LANE_ORDER 0
#endif
#ifndef L6_SPREAD
#define L6_SPREAD 0
#endif
#define L6_STRING(x) #x
#define L6_PRAGMA(x) _Pragma(L6_STRING(x))

// [region: shape]
namespace l6 {
constexpr int BM = L6_BM, BN = L6_BN, BK = L6_BK;   // block tile and K tile
constexpr int WM = L6_WM, WN = L6_WN;               // warp tile
constexpr int TM = L6_TM, TN = L6_TN;               // thread (micro) tile
constexpr int STAGES = L6_STAGES;                   // cp.async ring length
constexpr int GROUP = L6_GROUP;                     // tile rows per swizzle group
constexpr int WARPS_N = BN / WN, WARPS = (BM / WM) * WARPS_N;
constexpr int THREADS = 32 * WARPS;
constexpr int LANES_M = WM / TM, LANES_N = WN / TN; // threads of a warp along M and N
using Copier = TileCopier<BM, BN, BK, THREADS, 4>;  // A in 4-byte copies, B in 16-byte copies
constexpr int PITCH_A = Copier::PITCH_A;            // As[k][m], BM + 4
constexpr int PITCH_B = Copier::PITCH_B;            // Bs[k][n]
constexpr int STAGE_FLOATS = BK * (PITCH_A + PITCH_B);
constexpr int SMEM_BYTES = STAGES * STAGE_FLOATS * 4;

static_assert(LANES_M * LANES_N == 32, "a warp tile must hold exactly 32 thread tiles");
static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are read as float4");
static_assert(LANES_M <= 8 && LANES_N <= 8, "more than 8 distinct float4 per read would span more than 128 bytes and conflict");
static_assert(BM % WM == 0 && BN % WN == 0 && BM % 32 == 0, "warp tiles must cover the block tile");
static_assert(STAGES >= 2, "a ring needs at least two stages");
}  // namespace l6
// [end-region: shape]

// [region: swizzle]
// Maps the launch order of blocks to C tiles: GROUP tile rows are walked column by column,
// so the blocks that run together reuse a few rows of A and columns of B from L2.
// A C more than 65,535 tiles tall continues grid y in z (block_y(), sgemm_common.cuh); the few
// tile rows past M that the last z plane may add compute on zeros and store nothing.
__device__ __forceinline__ void swizzled_tile(int& tile_m, int& tile_n)
{
    const int tiles_n = gridDim.x, tiles_m = gridDim.y * gridDim.z;
    const int pid = block_y() * tiles_n + blockIdx.x;
    const int per_group = l6::GROUP * tiles_n;
    const int first_m = (pid / per_group) * l6::GROUP;
    const int rows = min(tiles_m - first_m, l6::GROUP);
    const int in_group = pid % per_group;
    tile_m = first_m + in_group % rows;
    tile_n = in_group / rows;
}
// [end-region: swizzle]


// [region: warp-micro-kernel]
// The fragments of one k step: this thread's TM values of A (TM/4 LDS.128) and TN values of B
// (TN/4 LDS.128). a_off / b_off: its first row / column inside the stage (warp origin + 4 x lane
// position); its row (column) groups lie LANES_M * 4 (LANES_N * 4) apart.
__device__ __forceinline__ void load_fragments(const float* As, const float* Bs, int k, int a_off, int b_off,
                                               float (&a)[l6::TM], float (&b)[l6::TN])
{
#pragma unroll
    for (int i = 0; i < l6::TM / 4; ++i)
        load4<true>(As + k * l6::PITCH_A + a_off + i * l6::LANES_M * 4, a + 4 * i);
#pragma unroll
    for (int j = 0; j < l6::TN / 4; ++j)
        load4<true>(Bs + k * l6::PITCH_B + b_off + j * l6::LANES_N * 4, b + 4 * j);
}

// TM x TN independent FFMAs: the outer product of the two fragments.
__device__ __forceinline__ void outer_product(float (&acc)[l6::TM][l6::TN], const float (&a)[l6::TM],
                                              const float (&b)[l6::TN])
{
#pragma unroll
    for (int i = 0; i < l6::TM; ++i)
#pragma unroll
        for (int j = 0; j < l6::TN; ++j)
            acc[i][j] += a[i] * b[j];
}
// [end-region: warp-micro-kernel]

// [region: store-warp-tile]
// Writes the micro-tile, one float4 per row and column group (N is a multiple of 4 here, so a
// group of 4 columns is wholly inside or wholly outside C). C is not read when beta == 0.
__device__ __forceinline__ void store_warp_tile(float* C, int M, int N, int ldc, int row, int col,
                                                const float (&acc)[l6::TM][l6::TN], float alpha, float beta)
{
#pragma unroll
    for (int i = 0; i < l6::TM; ++i) {
        const int r = row + (i / 4) * l6::LANES_M * 4 + i % 4;
        if (r >= M) continue;
#pragma unroll
        for (int j = 0; j < l6::TN / 4; ++j) {
            const int c = col + j * l6::LANES_N * 4;
            if (c >= N) continue;
            float4* dst = reinterpret_cast<float4*>(C + static_cast<size_t>(r) * ldc + c);
            float4 out = make_float4(alpha * acc[i][4 * j], alpha * acc[i][4 * j + 1],
                                     alpha * acc[i][4 * j + 2], alpha * acc[i][4 * j + 3]);
            if (beta != 0.0f) {
                const float4 old = *dst;
                out.x += beta * old.x; out.y += beta * old.y; out.z += beta * old.z; out.w += beta * old.w;
            }
            *dst = out;
        }
    }
}
// [end-region: store-warp-tile]

// [region: kernel]
extern "C" __global__ void __launch_bounds__(l6::THREADS, L6_MIN_BLOCKS)
sgemm_warp_tiling(SGEMM_ARGS)
{
    extern __shared__ __align__(16) float smem[];
    float* As = smem;                                    // STAGES x [BK][BM + 4]
    float* Bs = smem + l6::STAGES * l6::BK * l6::PITCH_A; // STAGES x [BK][BN]

    int tile_m, tile_n;
    swizzled_tile(tile_m, tile_n);
    const int row0 = tile_m * l6::BM, col0 = tile_n * l6::BN;
    // [region: lane-layout]
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    // Warp origin inside the block tile, then this thread's first row and column in it.
    const int wm0 = (warp / l6::WARPS_N) * l6::WM, wn0 = (warp % l6::WARPS_N) * l6::WN;
#if L6_LANE_ORDER
    const int tr = lane % l6::LANES_M, tc = lane / l6::LANES_M;   // neighbouring lanes: neighbouring rows
#else
    const int tr = lane / l6::LANES_N, tc = lane % l6::LANES_N;   // neighbouring lanes: neighbouring columns
#endif
    const int a_off = wm0 + tr * 4, b_off = wn0 + tc * 4;
    // [end-region: lane-layout]
    const int num_tiles = (K + l6::BK - 1) / l6::BK;

    l6::Copier copy(A, B, M, N, lda, ldb, row0, col0, tid);

    // [region: ring-prologue]
    // Prologue: STAGES - 1 groups, one per stage, committed even when the tile does not exist;
    // the partial K tile, if any, first (see Level 5).
    const bool partial = K % l6::BK != 0;
    const unsigned as0 = shared_address(As), bs0 = shared_address(Bs);
    constexpr unsigned STAGE_A_BYTES = l6::BK * l6::PITCH_A * 4, STAGE_B_BYTES = l6::BK * l6::PITCH_B * 4;
    // With L6_SPREAD the loop keeps one stage less in flight: it issues tile kt + STAGES - 2 a copy
    // per k step during tile kt (into the stage of tile kt - 2), instead of all at once.
#pragma unroll
    for (int s = 0; s < l6::STAGES - 1 - L6_SPREAD; ++s) {
        if (s == 0 && partial)
            copy.issue_partial_tile(as0, bs0, A, B, K);
        else if (s < num_tiles)
            copy.issue_whole_tile(as0 + s * STAGE_A_BYTES, bs0 + s * STAGE_B_BYTES, A, B, K);
        cp_async_commit();
    }
    // [end-region: ring-prologue]

    float acc[l6::TM][l6::TN] = {};
    int stage = 0, refill = l6::STAGES - 1;
#if L6_FRAG_PREFETCH
    // [region: fragment-pipeline]
    // Two sets of fragments: while the FFMAs of step k run, the loads of step k + 1 are in
    // flight. The barrier of a K tile sits before its LAST step, so that the first fragments of
    // the next tile load while the last 128 FFMAs of this one issue; refilling the stage of tile
    // kt - 1 there is safe (every warp has passed its last read of it), and needs STAGES >= 3.
    static_assert(l6::STAGES >= 3 + L6_SPREAD, "the fragment pipeline refills a stage while the next one is read");
    static_assert(!L6_SPREAD || l6::Copier::COPIES < l6::BK - 1, "one copy per k step");
    float a[2][l6::TM], b[2][l6::TN];
    cp_async_wait<l6::STAGES - 2 - L6_SPREAD>();
    __syncthreads();
#if L6_SPREAD
    refill = l6::STAGES - 2;
#endif
    load_fragments(As, Bs, 0, a_off, b_off, a[0], b[0]);
    for (int kt = 0; kt < num_tiles; ++kt) {
        const float* as = As + stage * l6::BK * l6::PITCH_A;
        const float* bs = Bs + stage * l6::BK * l6::PITCH_B;
#if L6_SPREAD
        const bool refill_exists = kt + l6::STAGES - 2 < num_tiles;
        const unsigned as_refill = as0 + refill * STAGE_A_BYTES, bs_refill = bs0 + refill * STAGE_B_BYTES;
#define L6_SPREAD_COPY(c) if ((c) < l6::Copier::COPIES && refill_exists) copy.issue_one((c), as_refill, bs_refill)
#else
#define L6_SPREAD_COPY(c)
#endif
        // Steps 0 .. BK - 3 in pairs, so that the two fragment sets alternate at fixed names.
        // L6_ROLL = r > 0 unrolls only r pairs at a time (a shorter loop for the instruction cache).
#if L6_ROLL
        L6_PRAGMA(unroll L6_ROLL)
#else
#pragma unroll
#endif
        for (int k = 0; k < l6::BK - 2; k += 2) {
            load_fragments(as, bs, k + 1, a_off, b_off, a[1], b[1]);
            L6_SPREAD_COPY(k);
            outer_product(acc, a[0], b[0]);
            load_fragments(as, bs, k + 2, a_off, b_off, a[0], b[0]);
            L6_SPREAD_COPY(k + 1);
            outer_product(acc, a[1], b[1]);
        }
        load_fragments(as, bs, l6::BK - 1, a_off, b_off, a[1], b[1]);
        outer_product(acc, a[0], b[0]);                 // step BK - 2
#if L6_SPREAD
        if (refill_exists) copy.advance();
        cp_async_commit();                              // always: group g stays tile g
        refill = (refill + 1 == l6::STAGES) ? 0 : refill + 1;
#endif
        cp_async_wait<l6::STAGES - 3>();                // tile kt + 1 has landed (for this thread) ...
        __syncthreads();                                // ... for all, and all have read tile kt - 1
        stage = (stage + 1 == l6::STAGES) ? 0 : stage + 1;
        // The first fragments of tile kt + 1 go to shared memory before the copies do, so that
        // they do not queue behind them.
        load_fragments(As + stage * l6::BK * l6::PITCH_A, Bs + stage * l6::BK * l6::PITCH_B, 0, a_off, b_off,
                       a[0], b[0]);                     // tile kt + 1, step 0
#if !L6_SPREAD
        if (kt + l6::STAGES - 1 < num_tiles)
            copy.issue_whole_tile(as0 + refill * STAGE_A_BYTES, bs0 + refill * STAGE_B_BYTES, A, B, K);
        cp_async_commit();
        refill = (refill + 1 == l6::STAGES) ? 0 : refill + 1;
#endif
        outer_product(acc, a[1], b[1]);                 // step BK - 1
    }
    // [end-region: fragment-pipeline]
#else
    // [region: main-loop]
    for (int kt = 0; kt < num_tiles; ++kt) {
        cp_async_wait<l6::STAGES - 2>();   // tile kt has landed (for this thread) ...
        __syncthreads();                   // ... for every thread, and stage kt - 1 is free
        if (kt + l6::STAGES - 1 < num_tiles)
            copy.issue_whole_tile(as0 + refill * STAGE_A_BYTES, bs0 + refill * STAGE_B_BYTES, A, B, K);
        cp_async_commit();                 // always, so that group g stays tile g in the tail
        const float* as = As + stage * l6::BK * l6::PITCH_A;
        const float* bs = Bs + stage * l6::BK * l6::PITCH_B;
#pragma unroll
        for (int k = 0; k < l6::BK; ++k) {
            float a[l6::TM], b[l6::TN];
            load_fragments(as, bs, k, a_off, b_off, a, b);
            outer_product(acc, a, b);
        }
        stage = (stage + 1 == l6::STAGES) ? 0 : stage + 1;
        refill = (refill + 1 == l6::STAGES) ? 0 : refill + 1;
    }
    // [end-region: main-loop]
#endif
    cp_async_wait<0>();

    store_warp_tile(C, M, N, ldc, row0 + a_off, col0 + b_off, acc, alpha, beta);
}
// [end-region: kernel]
