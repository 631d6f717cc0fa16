// Level 7: one SGEMM for every shape.
//
// Level 6 reaches cuBLAS on large squares with ONE block tile (128 x 256). A real workload brings
// other shapes: an LLM layer at batch 128 gives one row of tiles for 132 SMs, a long K leaves most
// SMs idle, M = 513 wastes a whole row of tiles on one row of C, N = 4097 breaks every 16-byte rule.
// This kernel is Level 6's code with what a fixed tile lacks; kernels/level7.py picks, per shape and
// per GPU, which of its compiled forms to launch and how (kernels/level7_model.py says why).
//
// [region: design]
//   * Compile-time knobs (L7_*): block tile BM x BN, warp tile WM x WN, thread tile TM x TN, K tile
//     BK and ring depth STAGES; L7_B16 says whether B's rows allow 16-byte copies.
//   * Tiles along grid x, split-K over gridDim.z: block (x, 0, z) computes tile x (in the swizzled
//     order) over the K slice z * k_per_split .. + k_per_split. Grid x holds 2^31 - 1 blocks, so any
//     M and N fit; y and z (65,535 each) would cap a tall C. With one slice it writes C (alpha, beta) itself; with
//     several it writes its partial tile to a workspace, and shape_aware_reduce adds the slices
//     in a fixed order (0, 1, 2, ...) and applies alpha and beta once. No float atomics: the
//     same inputs give bitwise the same C on every run, whatever order the blocks ran in.
//   * Edges by predication, never by staging: a copy of A or B that falls past M, N or the end of
//     the K slice has a source size of 0 (or fewer than 16 bytes), so cp.async reads only what
//     exists and fills the rest of the destination with zeros; C is stored under guards, a
//     float4 where ldc and C's address allow it and single floats elsewhere.
//   * B whose rows are not 16-byte aligned (ldb not a multiple of 4, or a view 4 bytes in) takes
//     4-byte copies (L7_B16 = 0) instead of being copied into an aligned buffer.
//   * Offsets into A, B, C and the workspace are 64-bit (size_t) wherever a row count multiplies a
//     leading dimension, so an operand may hold more than 2^31 elements.
// [end-region: design]
//
// Launch (kernels/level7.py): block (THREADS, 1, 1), grid (ceil(M / BM) x ceil(N / BN), 1, splits),
// SMEM_BYTES of dynamic shared memory; arguments as every course kernel plus the workspace
// (`partials`, splits x M x ldp floats, ldp a multiple of 4; unused with one slice) and the slice
// depth `k_per_split` (a multiple of BK; every slice non-empty). Below compute capability 8.0 the
// cp.async helpers compile to plain loads and stores (sgemm_common.cuh): slower, same results.
#include "sgemm_common.cuh"

#ifndef L7_BM
#define L7_BM 128
#endif
#ifndef L7_BN
#define L7_BN 256
#endif
#ifndef L7_BK
#define L7_BK 32
#endif
#ifndef L7_WM
#define L7_WM 64
#endif
#ifndef L7_WN
#define L7_WN 64
#endif
#ifndef L7_TM
#define L7_TM 8
#endif
#ifndef L7_TN
#define L7_TN 16
#endif
#ifndef L7_STAGES
#define L7_STAGES 4
#endif
#ifndef L7_GROUP
#define L7_GROUP 8
#endif
#ifndef L7_B16
#define L7_B16 1
#endif
#ifndef L7_MIN_BLOCKS
#define L7_MIN_BLOCKS 1
#endif
#ifndef L7_ROTATE
#define L7_ROTATE 0
#endif

// [region: shape]
namespace l7 {
constexpr int BM = L7_BM, BN = L7_BN, BK = L7_BK;   // block tile and K tile
constexpr int WM = L7_WM, WN = L7_WN;               // warp tile
constexpr int TM = L7_TM, TN = L7_TN;               // thread tile
constexpr int STAGES = L7_STAGES;                   // cp.async ring length
constexpr int B_WIDTH = L7_B16 ? 4 : 1;             // floats per copy of B (16 or 4 bytes)
constexpr int WARPS_N = BN / WN, WARPS = (BM / WM) * WARPS_N;
constexpr int THREADS = 32 * WARPS;
constexpr int LANES_M = WM / TM, LANES_N = WN / TN; // threads of a warp along M and N
constexpr int PITCH_A = BM + 4;                     // As[k][m]: +4 floats spread A's copies over the banks
constexpr int PITCH_B = BN;                         // Bs[k][n]
constexpr int STAGE_A = BK * PITCH_A, STAGE_B = BK * PITCH_B;   // floats per stage
constexpr int SMEM_BYTES = STAGES * (STAGE_A + STAGE_B) * 4;

static_assert(LANES_M * LANES_N == 32, "a warp tile holds exactly 32 thread tiles");
static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are read as float4");
static_assert(LANES_M <= 8 && LANES_N <= 8, "at most 8 distinct float4 per shared read, or banks conflict");
static_assert(BM % WM == 0 && BN % WN == 0 && BM % 32 == 0, "warp tiles cover the block tile");
static_assert(BK % 8 == 0, "A travels 8 k per copy instruction");
static_assert(STAGES >= 3, "the fragment pipeline refills a stage while the next one is read");
}  // namespace l7
// [end-region: shape]

// [region: partial-copy]
// A 16-byte cp.async that brings `bytes` (0, 4, 8, 12 or 16) from src and zeros for the rest:
// the last group of columns of B when N is not a multiple of 4. With 0 bytes nothing is read.
__device__ __forceinline__ void cp_async_16_upto(unsigned dst, const float* src, int bytes)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(dst), "l"(src), "r"(bytes) : "memory");
#else
    float v[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = 4 * i < bytes ? src[i] : 0.0f;
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" :: "r"(dst), "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3])
                 : "memory");
#endif
}
// [end-region: partial-copy]

// [region: slice-copier]
// The copies that bring one K tile of the block's slice into one stage (Level 6's plan, with edges):
//   A in 4-byte copies, transposed on arrival (As[k][m]): a warp instruction covers 4 rows x 8 k,
//     lane l taking row l / 8 and k = l % 8; rows past M have source size 0.
//   B in copies of B_WIDTH floats, a warp covering consecutive columns of one row; the group that
//     straddles N brings only the columns inside (source size), groups past N bring zeros.
//   A K tile past the end of the slice (only the slice's partial last tile has one) brings zeros
//     too; it is loaded FIRST, so that every tile of the main loop is whole and needs no k check.
struct SliceCopier {
    static constexpr int A_ROW_STEP = 4 * l7::WARPS;          // rows between a thread's A row groups
    static constexpr int A_GROUPS = l7::BM / A_ROW_STEP;      // row groups per thread
    static constexpr int K_GROUPS = l7::BK / 8;               // k groups per row group
    static constexpr int B_PER_ROW = l7::BN / l7::B_WIDTH;    // copies per row of the B tile
    static constexpr int B_ROW_STEP = l7::THREADS / B_PER_ROW;// rows between a thread's B copies
    static constexpr int B_COPIES = l7::BK / B_ROW_STEP;
    static_assert(l7::BM % A_ROW_STEP == 0, "A copy layout");
    static_assert(l7::THREADS % B_PER_ROW == 0 && l7::BK % B_ROW_STEP == 0, "B copy layout");

    const float* a;          // this thread's first A source in the current K tile
    const float* b;          // its first B source
    size_t a_step, b_step;   // floats between its A row groups, between its B copies
    int ldb;                 // B's leading dimension
    int a_k, b_k;            // k of its first A / B copy inside a K tile
    int a_dst, b_dst;        // float offset of its first A / B copy inside a stage
    unsigned a_rows_inside;  // bit g: row group g lies inside A
    int b_bytes;             // bytes of its B group that lie inside N (0 .. 4 x B_WIDTH)
#if L7_ROTATE
    // An experiment, off in every form the dispatcher launches (tools/level7_experiments.py measures it):
    // the block takes its whole K tiles from tile `first` on and wraps around, so that blocks sharing rows
    // of A or columns of B do not ask L2 for the same lines at the same moment.
    int wrap_in = 0;         // whole tiles left before the sources wrap back to tile 0
    int rot_a = 0, whole_a = 0;
    size_t rot_b = 0, whole_b = 0;

    __device__ __forceinline__ void rotate(int whole_tiles, int first)
    {
        rot_a = first * l7::BK;
        rot_b = static_cast<size_t>(rot_a) * ldb;
        whole_a = whole_tiles * l7::BK;
        whole_b = static_cast<size_t>(whole_a) * ldb;
        a += rot_a;
        b += rot_b;
        wrap_in = whole_tiles - first;
    }
#endif

    __device__ __forceinline__ SliceCopier(const float* A, const float* B, int M, int N, int lda, int ldb_,
                                           int row0, int col0, int tid)
    {
        const int warp = tid / 32, lane = tid % 32;
        const int a_m = warp * 4 + lane / 8;
        a_k = lane % 8;
        a_rows_inside = 0;
#pragma unroll
        for (int g = 0; g < A_GROUPS; ++g)
            a_rows_inside |= unsigned(row0 + a_m + g * A_ROW_STEP < M) << g;
        a = A + static_cast<size_t>(min(row0 + a_m, M - 1)) * lda + a_k;   // a valid address in any case
        a_step = static_cast<size_t>(A_ROW_STEP) * lda;
        a_dst = a_k * l7::PITCH_A + a_m;

        const int b_n = (tid % B_PER_ROW) * l7::B_WIDTH;
        const int left = N - (col0 + b_n);                    // columns of B from this group's start
        b_bytes = 4 * max(0, min(left, l7::B_WIDTH));
        b_k = tid / B_PER_ROW;
        ldb = ldb_;
        b = B + static_cast<size_t>(b_k) * ldb + (left > 0 ? col0 + b_n : 0);
        b_step = static_cast<size_t>(B_ROW_STEP) * ldb;
        b_dst = b_k * l7::PITCH_B + b_n;
    }

    __device__ __forceinline__ void copy_b(unsigned dst, const float* src, int bytes) const
    {
        if constexpr (l7::B_WIDTH == 4) cp_async_16_upto(dst, src, bytes);
        else cp_async_4(dst, src, bytes != 0);
    }

    // The K tile at k_offset (WHOLE: the next whole tile, sources at a and b; else the partial
    // tile at k_offset of a slice K deep). As, Bs: shared addresses of the stage.
    template <bool WHOLE>
    __device__ __forceinline__ void issue(unsigned As, unsigned Bs, const float* A, const float* B, int K,
                                          int k_offset) const
    {
#pragma unroll
        for (int g = 0; g < A_GROUPS; ++g) {
#pragma unroll
            for (int kg = 0; kg < K_GROUPS; ++kg) {
                bool inside = (a_rows_inside >> g) & 1u;
                if (!WHOLE) inside = inside && k_offset + kg * 8 + a_k < K;
                const float* src = WHOLE ? a + g * a_step + kg * 8 : inside ? a + g * a_step + k_offset + kg * 8 : A;
                cp_async_4(As + 4 * (a_dst + g * A_ROW_STEP + kg * 8 * l7::PITCH_A), src, inside);
            }
        }
#pragma unroll
        for (int j = 0; j < B_COPIES; ++j) {
            int bytes = b_bytes;
            if (!WHOLE && k_offset + b_k + j * B_ROW_STEP >= K) bytes = 0;
            const float* src = WHOLE ? b + j * b_step
                                     : bytes ? b + static_cast<size_t>(k_offset) * ldb + j * b_step : B;
            copy_b(Bs + 4 * (b_dst + j * B_ROW_STEP * l7::PITCH_B), src, bytes);
        }
    }

    __device__ __forceinline__ void issue_whole_tile(unsigned As, unsigned Bs, const float* A, const float* B, int K)
    {
        issue<true>(As, Bs, A, B, K, 0);
        a += l7::BK;
        b += static_cast<size_t>(l7::BK) * ldb;
#if L7_ROTATE
        if (--wrap_in == 0) {
            a -= whole_a;
            b -= whole_b;
        }
#endif
    }

    __device__ __forceinline__ void issue_partial_tile(unsigned As, unsigned Bs, const float* A, const float* B, int K)
    {
#if L7_ROTATE
        a -= rot_a;   // the partial tile's address counts from tile 0
        b -= rot_b;
        issue<false>(As, Bs, A, B, K, K - K % l7::BK);
        a += rot_a;
        b += rot_b;
#else
        issue<false>(As, Bs, A, B, K, K - K % l7::BK);
#endif
    }
};
// [end-region: slice-copier]

// [region: swizzle]
// GROUP tile rows are walked column by column, so that the blocks running together share rows of
// A and columns of B in L2 (Level 6's swizzle; the slices of one tile share its mapping). The tiles
// lie along grid x, one block each, in launch order: pid = blockIdx.x.
__device__ __forceinline__ void swizzled_tile7(int M, int N, int& tile_m, int& tile_n)
{
    const int tiles_n = (N + l7::BN - 1) / l7::BN, tiles_m = (M + l7::BM - 1) / l7::BM;
    const int pid = blockIdx.x;
    const int per_group = L7_GROUP * tiles_n;
    const int first_m = (pid / per_group) * L7_GROUP;
    const int rows = min(tiles_m - first_m, L7_GROUP);
    const int in_group = pid % per_group;
    tile_m = first_m + in_group % rows;
    tile_n = in_group / rows;
}
// [end-region: swizzle]

// [region: fragments]
// One k step of the warp tile: this thread's TM values of A and TN values of B (float4 each), then
// their TM x TN outer product. Row (column) groups lie LANES_M * 4 (LANES_N * 4) apart.
__device__ __forceinline__ void fragments7(const float* As, const float* Bs, int k, int a_off, int b_off,
                                           float (&a)[l7::TM], float (&b)[l7::TN])
{
#pragma unroll
    for (int i = 0; i < l7::TM / 4; ++i)
        load4<true>(As + k * l7::PITCH_A + a_off + i * l7::LANES_M * 4, a + 4 * i);
#pragma unroll
    for (int j = 0; j < l7::TN / 4; ++j)
        load4<true>(Bs + k * l7::PITCH_B + b_off + j * l7::LANES_N * 4, b + 4 * j);
}

__device__ __forceinline__ void outer7(float (&acc)[l7::TM][l7::TN], const float (&a)[l7::TM],
                                       const float (&b)[l7::TN])
{
#pragma unroll
    for (int i = 0; i < l7::TM; ++i)
#pragma unroll
        for (int j = 0; j < l7::TN; ++j)
            acc[i][j] += a[i] * b[j];
}
// [end-region: fragments]

// [region: guarded-store]
// One group of 4 columns c .. c + 3 of a row of C: out = v (already times alpha) + beta * C. It goes out as
// one float4 when it lies wholly inside C and C's rows are 16-byte aligned (ldc a multiple of 4, C's address
// too); otherwise element by element. C is never read when beta == 0 (it may hold NaN).
__device__ __forceinline__ void store_group(float* row, int c, int N, bool rows_aligned, float (&v)[4], float beta)
{
    if (rows_aligned && c + 4 <= N) {
        float4* dst = reinterpret_cast<float4*>(row + c);
        if (beta != 0.0f) {
            const float4 old = *dst;
            v[0] += beta * old.x; v[1] += beta * old.y; v[2] += beta * old.z; v[3] += beta * old.w;
        }
        *dst = make_float4(v[0], v[1], v[2], v[3]);
    } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
            if (c + e < N) row[c + e] = beta != 0.0f ? v[e] + beta * row[c + e] : v[e];
    }
}

__device__ __forceinline__ bool rows_16_byte_aligned(const float* C, int ldc)
{
    return ((reinterpret_cast<size_t>(C) | (static_cast<size_t>(ldc) * 4)) & 15) == 0;
}

// C = alpha * acc + beta * C for the thread tile whose first element is (r0, c0), inside M x N only.
__device__ __forceinline__ void store_c(float* C, int M, int N, int ldc, int r0, int c0,
                                        const float (&acc)[l7::TM][l7::TN], float alpha, float beta)
{
    const bool rows_aligned = rows_16_byte_aligned(C, ldc);
#pragma unroll
    for (int i = 0; i < l7::TM; ++i) {
        const int r = r0 + (i / 4) * l7::LANES_M * 4 + i % 4;
        if (r >= M) continue;
        float* row = C + static_cast<size_t>(r) * ldc;
#pragma unroll
        for (int j = 0; j < l7::TN / 4; ++j) {
            const int c = c0 + j * l7::LANES_N * 4;
            if (c >= N) continue;
            float v[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) v[e] = alpha * acc[i][4 * j + e];
            store_group(row, c, N, rows_aligned, v, beta);
        }
    }
}

// The raw sums of one K slice into its slab of the workspace (ldp a multiple of 4: always float4).
__device__ __forceinline__ void store_partial(float* P, int M, int N, int ldp, int r0, int c0,
                                              const float (&acc)[l7::TM][l7::TN])
{
#pragma unroll
    for (int i = 0; i < l7::TM; ++i) {
        const int r = r0 + (i / 4) * l7::LANES_M * 4 + i % 4;
        if (r >= M) continue;
#pragma unroll
        for (int j = 0; j < l7::TN / 4; ++j) {
            const int c = c0 + j * l7::LANES_N * 4;
            if (c < N)
                *reinterpret_cast<float4*>(P + static_cast<size_t>(r) * ldp + c) =
                    make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
        }
    }
}
// [end-region: guarded-store]

#ifndef L7S_ROWS   // a streaming form (L7S_ROWS defined) compiles only the streaming kernels and the reduction
// [region: kernel]
extern "C" __global__ void __launch_bounds__(l7::THREADS, L7_MIN_BLOCKS)
sgemm_shape_aware(SGEMM_ARGS, float* __restrict__ partials, int ldp, int k_per_split)
{
    extern __shared__ __align__(16) float smem[];
    float* As = smem;                                      // STAGES x [BK][BM + 4]
    float* Bs = smem + l7::STAGES * l7::STAGE_A;           // STAGES x [BK][BN]

    // [region: slice]
    // This block's K slice: A moves right and B moves down by its start, and the slice is all the
    // block sees of K (the host makes every slice non-empty; the last one may be shorter).
    const int k_begin = blockIdx.z * k_per_split;
    A += k_begin;
    B += static_cast<size_t>(k_begin) * ldb;
    K = max(0, min(K - k_begin, k_per_split));
    // [end-region: slice]

    int tile_m, tile_n;
    swizzled_tile7(M, N, tile_m, tile_n);
    const int row0 = tile_m * l7::BM, col0 = tile_n * l7::BN;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / l7::WARPS_N) * l7::WM, wn0 = (warp % l7::WARPS_N) * l7::WN;
    const int tr = lane / l7::LANES_N, tc = lane % l7::LANES_N;
    const int a_off = wm0 + tr * 4, b_off = wn0 + tc * 4;
    const int num_tiles = (K + l7::BK - 1) / l7::BK;

    SliceCopier copy(A, B, M, N, lda, ldb, row0, col0, tid);
#if L7_ROTATE
    if (K / l7::BK > 1)
        copy.rotate(K / l7::BK, blockIdx.x % (K / l7::BK));
#endif
    const unsigned as0 = shared_address(As), bs0 = shared_address(Bs);
    constexpr unsigned STAGE_A_BYTES = l7::STAGE_A * 4, STAGE_B_BYTES = l7::STAGE_B * 4;

    // [region: ring]
    // Prologue: STAGES - 1 groups, one per stage, committed even when empty so that group g is
    // always tile g; the partial tile of the slice, if any, goes first.
    const bool partial = K % l7::BK != 0;
#pragma unroll
    for (int s = 0; s < l7::STAGES - 1; ++s) {
        if (s == 0 && partial)
            copy.issue_partial_tile(as0, bs0, A, B, K);
        else if (s < num_tiles)
            copy.issue_whole_tile(as0 + s * STAGE_A_BYTES, bs0 + s * STAGE_B_BYTES, A, B, K);
        cp_async_commit();
    }

    // Two fragment sets alternate: step k + 1 loads while step k's FFMAs issue. The barrier of a
    // tile sits before its last step, and the stage of tile kt - 1 is refilled there (Level 6).
    float acc[l7::TM][l7::TN] = {};
    float a[2][l7::TM], b[2][l7::TN];
    int stage = 0, refill = l7::STAGES - 1;
    cp_async_wait<l7::STAGES - 2>();
    __syncthreads();
    fragments7(As, Bs, 0, a_off, b_off, a[0], b[0]);
    for (int kt = 0; kt < num_tiles; ++kt) {
        const float* as = As + stage * l7::STAGE_A;
        const float* bs = Bs + stage * l7::STAGE_B;
#pragma unroll
        for (int k = 0; k < l7::BK - 2; k += 2) {
            fragments7(as, bs, k + 1, a_off, b_off, a[1], b[1]);
            outer7(acc, a[0], b[0]);
            fragments7(as, bs, k + 2, a_off, b_off, a[0], b[0]);
            outer7(acc, a[1], b[1]);
        }
        fragments7(as, bs, l7::BK - 1, a_off, b_off, a[1], b[1]);
        outer7(acc, a[0], b[0]);                           // step BK - 2
        cp_async_wait<l7::STAGES - 3>();                   // tile kt + 1 has landed (this thread) ...
        __syncthreads();                                   // ... for all; all have left tile kt - 1
        stage = (stage + 1 == l7::STAGES) ? 0 : stage + 1;
        fragments7(As + stage * l7::STAGE_A, Bs + stage * l7::STAGE_B, 0, a_off, b_off, a[0], b[0]);
        if (kt + l7::STAGES - 1 < num_tiles)
            copy.issue_whole_tile(as0 + refill * STAGE_A_BYTES, bs0 + refill * STAGE_B_BYTES, A, B, K);
        cp_async_commit();
        refill = (refill + 1 == l7::STAGES) ? 0 : refill + 1;
        outer7(acc, a[1], b[1]);                           // step BK - 1
    }
    cp_async_wait<0>();
    // [end-region: ring]

    // [region: epilogue]
    if (gridDim.z == 1)
        store_c(C, M, N, ldc, row0 + a_off, col0 + b_off, acc, alpha, beta);
    else
        store_partial(partials + static_cast<size_t>(blockIdx.z) * M * ldp, M, N, ldp, row0 + a_off,
                      col0 + b_off, acc);
    // [end-region: epilogue]
}
// [end-region: kernel]
#endif

// [region: reduce]
// C = alpha * (slice 0 + slice 1 + ... + slice S-1) + beta * C, one float4 group of a row per thread.
// The slices are added in a fixed order (0, 1, 2, ...) for every element and on every run: the result
// does not depend on which block finished first (float addition is not associative, so atomics would
// make the last bits vary run to run). alpha and beta are applied here and nowhere else.
extern "C" __global__ void __launch_bounds__(256)
shape_aware_reduce(const float* __restrict__ partials, float* __restrict__ C, int M, int N, int ldp, int ldc,
                   int splits, float alpha, float beta)
{
    const int groups = ldp / 4;
    const long long g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (g >= static_cast<long long>(M) * groups) return;
    const int r = static_cast<int>(g / groups), c = static_cast<int>(g % groups) * 4;
    if (c >= N) return;
    const size_t slab = static_cast<size_t>(M) * ldp;
    const float* p = partials + static_cast<size_t>(r) * ldp + c;
    float4 sum = *reinterpret_cast<const float4*>(p);
    for (int z = 1; z < splits; ++z) {
        const float4 v = *reinterpret_cast<const float4*>(p + z * slab);
        sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
    }
    float v[4] = {alpha * sum.x, alpha * sum.y, alpha * sum.z, alpha * sum.w};
    store_group(C + static_cast<size_t>(r) * ldc, c, N, rows_16_byte_aligned(C, ldc), v, beta);
}
// [end-region: reduce]

// [region: stream-design]
// Level 7's memory-bound end: M <= 16 (a few tokens through a big weight) or N <= 16 (the mirror). Such a
// product does 2 x 16 FLOP or fewer per float of the big operand it reads, far below what the tile kernel
// needs to be compute-bound: its time is the time to stream the big operand out of DRAM once. A 128 x 256
// tile spends 128 rows of work on one row of C; these kernels spend nothing on rows that do not exist.
//   * L7S_ROWS: the small dimension rounded up to a power of two (1, 2, 4, 8, 16), so the accumulators of
//     M = 1 are 4 registers, not 64. L7S_B16: the streamed operand's rows allow 16-byte loads.
//   * sgemm_stream_b (small M): C = A B with B (K x N) streamed. A block owns 128 columns of C and one K
//     slice (grid (column strips, 1, slices)); its 8 warps take turns over the slice's rows of B, 8 rows
//     per warp at a time (4 from 8 rows of accumulators on), each thread a float4 of 4 columns per row (or 4
//     floats 32 columns apart when B's rows are not 16-byte aligned); from 2 rows on, a warp's next turn is
//     loaded before it multiplies the current one (two sets of registers). A's K x M chunk sits in shared
//     memory (two chunks: cp.async fills the next while the warps read the current one; B's chunks in stream-A
//     likewise); every lane of a warp reads the same k, so those reads are broadcasts. At the end the warps
//     add their partial sums in shared memory in a fixed order (warp 0, 1, ..., 7).
//   * sgemm_stream_a (small N): C = A B with A (M x K) streamed. A warp owns 4 rows of A, its lanes read
//     along K (a float4 each, 512 contiguous bytes per warp and row; the next step loaded before the current
//     one is multiplied), B's chunk of K x N sits in shared
//     memory laid out so that a lane's 4 k rows of one column are one conflict-free float4. The 32 lanes'
//     sums are added by a butterfly of shuffles (the same pairs on every run).
//   * As in the tile kernel: one slice writes C (alpha, beta; C is not read when beta = 0); several
//     write their raw sums to the workspace that shape_aware_reduce adds in slice order. No atomics.
// [end-region: stream-design]
#ifdef L7S_ROWS
#ifndef L7S_B16
#define L7S_B16 1
#endif
#ifndef L7S_MIN_BLOCKS
#define L7S_MIN_BLOCKS 2
#endif

// [region: stream-shape]
namespace l7s {
constexpr int R = L7S_ROWS;                  // rows of C (stream-B) or columns of C (stream-A), a power of 2
constexpr bool V4 = L7S_B16 != 0;            // float4 loads of the streamed operand
constexpr int THREADS = 256, WARPS = THREADS / 32;
// Software pipelining: a warp loads its next turn of the streamed operand into a second set of registers
// before it multiplies the current one, so its loads stay in flight while it computes. stream-B at 1 row runs
// 4 blocks per SM, 64 registers a thread: no room for a second set of 8 rows; 4 blocks keep its loads in flight.
constexpr bool PIPE_B = R >= 2, PIPE_A = true;
// stream-B
constexpr int STRIP = 128;                   // columns of C per block: 32 lanes x 4
// rows of B a warp loads per turn: fewer where 32 or 64 accumulators live beside two sets of rows
constexpr int UB = R >= 8 ? 4 : 8;
constexpr int KC_B = 256;                    // k rows per chunk of A in shared memory (4 or 8 turns per warp)
constexpr int TURNS_B = KC_B / (WARPS * UB);
// stream-A
constexpr int RA = 4;                        // rows of A per warp (each float of B read from shared memory serves 4)
constexpr int ROWS_A = WARPS * RA;           // rows of C per block
constexpr int STEP_A = 32 * 4;               // k a warp covers per load of every lane
constexpr int SA = 1;                        // steps a warp loads per turn and row (two sets in flight)
constexpr int KC_A = R >= 16 ? 128 : R >= 8 ? 256 : 512;   // k per chunk of B (two chunks in shared memory)
constexpr int TURNS_A = KC_A / (SA * STEP_A);
constexpr int PG = (R % 2) ? R : R + 1;      // float4 per group of 4 k rows: odd, so 8 lanes hit 8 bank groups
constexpr int CHUNK_A = KC_A / 4 * PG * 4;   // floats of one chunk of B
static_assert(R == 1 || R == 2 || R == 4 || R == 8 || R == 16, "L7S_ROWS is a power of two up to 16");
static_assert(KC_B % (WARPS * UB) == 0 && KC_A % (SA * STEP_A) == 0 && KC_B >= STRIP, "chunks hold whole turns");
static_assert((R * KC_B) % THREADS == 0 && (R * KC_A) % THREADS == 0, "every thread copies as many chunk floats");
}  // namespace l7s
// [end-region: stream-shape]

// Streamed loads: read once, so marked evict-first (ld.global.cs), leaving L2 to the small operand.
__device__ __forceinline__ float4 stream_load4(const float* p) { return __ldcs(reinterpret_cast<const float4*>(p)); }
__device__ __forceinline__ float stream_load(const float* p) { return __ldcs(p); }

// [region: stream-b]
// One row k of B for this thread: 4 columns from `col` (float4) or col, col + 32, col + 64, col + 96; zeros
// past N and for k outside the slice.
__device__ __forceinline__ void stream_b_row(const float* B, int ldb, int N, int k, int k_end, int col, float (&v)[4])
{
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = 0.0f;
    if (k >= k_end) return;
    const float* row = B + static_cast<size_t>(k) * ldb;
    if (l7s::V4) {
        if (col + 4 <= N) {
            const float4 t = stream_load4(row + col);
            v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
        } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) if (col + e < N) v[e] = stream_load(row + col + e);
        }
    } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) if (col + 32 * e < N) v[e] = stream_load(row + col + 32 * e);
    }
}

// The block's K x M chunk of A (k from kc) into As[m][k], by cp.async (zeros past M and the slice), one group.
__device__ __forceinline__ void stream_b_chunk(float* As, const float* A, int lda, int M, int kc, int k_end, int tid)
{
    using namespace l7s;
    const unsigned dst = shared_address(As);
#pragma unroll 4
    for (int i = 0; i < R * KC_B / THREADS; ++i) {
        const int idx = tid + i * THREADS, m = idx / KC_B, k = kc + idx % KC_B;
        const bool inside = m < M && k < k_end;
        cp_async_4(dst + 4 * idx, inside ? A + static_cast<size_t>(m) * lda + k : A, inside);
    }
    cp_async_commit();
}

// A warp's turn T of stream-B: rows k_begin + (T x WARPS + warp) x UB .. + UB - 1 of B, already in v. The chunk
// of A holding them sits in As[chunk % 2]. On a chunk's first turn the block waits for that chunk's copies and
// then starts those of the next one into the other buffer (every warp has left it: the barrier).
__device__ __forceinline__ void stream_b_turn(float* As, const float* A, int lda, int M, int k_begin, int k_end,
                                              int T, int warp, int tid, const float (&v)[l7s::UB][4],
                                              float (&acc)[l7s::R][4])
{
    using namespace l7s;
    const int chunk = T / TURNS_B;
    if (T % TURNS_B == 0) {
        cp_async_wait<0>();
        __syncthreads();
        if (k_begin + (chunk + 1) * KC_B < k_end)
            stream_b_chunk(As + ((chunk + 1) & 1) * R * KC_B, A, lda, M, k_begin + (chunk + 1) * KC_B, k_end, tid);
    }
    const float* as = As + (chunk & 1) * R * KC_B;
    const int kl = ((T % TURNS_B) * WARPS + warp) * UB;   // this warp's first row in the chunk
#pragma unroll
    for (int m = 0; m < R; ++m) {
        float a[UB];
#pragma unroll
        for (int u = 0; u < UB; u += 4) load4<true>(as + m * KC_B + kl + u, a + u);
#pragma unroll
        for (int u = 0; u < UB; ++u)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[m][e] += a[u] * v[u][e];
    }
}

__device__ __forceinline__ void stream_b_rows(const float* B, int ldb, int N, int k_begin, int k_end, int T, int warp,
                                              int col, float (&v)[l7s::UB][4])
{
#pragma unroll
    for (int u = 0; u < l7s::UB; ++u)
        stream_b_row(B, ldb, N, k_begin + (T * l7s::WARPS + warp) * l7s::UB + u, k_end, col, v[u]);
}

extern "C" __global__ void __launch_bounds__(l7s::THREADS, L7S_MIN_BLOCKS)
sgemm_stream_b(SGEMM_ARGS, float* __restrict__ partials, int ldp, int k_per_split)
{
    using namespace l7s;
    __shared__ __align__(16) float As[2 * R * KC_B];   // two chunks of A, As[m][k] each
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int col0 = blockIdx.x * STRIP;
    const int col = col0 + (V4 ? 4 * lane : lane);
    const int k_begin = blockIdx.z * k_per_split;
    const int k_end = min(K, k_begin + k_per_split);
    const int turns = (k_end - k_begin + WARPS * UB - 1) / (WARPS * UB);

    float acc[R][4] = {};
    float v0[UB][4], v1[UB][4];
    stream_b_chunk(As, A, lda, M, k_begin, k_end, tid);
    if constexpr (PIPE_B) {
        stream_b_rows(B, ldb, N, k_begin, k_end, 0, warp, col, v0);
#pragma unroll 1
        for (int T = 0; T < turns; T += 2) {
            stream_b_rows(B, ldb, N, k_begin, k_end, T + 1, warp, col, v1);   // zeros past the slice
            stream_b_turn(As, A, lda, M, k_begin, k_end, T, warp, tid, v0, acc);
            if (T + 1 == turns) break;
            stream_b_rows(B, ldb, N, k_begin, k_end, T + 2, warp, col, v0);
            stream_b_turn(As, A, lda, M, k_begin, k_end, T + 1, warp, tid, v1, acc);
        }
    } else {
#pragma unroll 1
        for (int T = 0; T < turns; ++T) {
            stream_b_rows(B, ldb, N, k_begin, k_end, T, warp, col, v0);
            stream_b_turn(As, A, lda, M, k_begin, k_end, T, warp, tid, v0, acc);
        }
    }

    // The 8 warps' sums, added in warp order into red[m][column] (the chunk buffers, no longer read).
    float* red = As;
    cp_async_wait<0>();
    __syncthreads();
#pragma unroll 1
    for (int w = 0; w < WARPS; ++w) {
        if (warp == w) {
#pragma unroll
            for (int m = 0; m < R; ++m)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    float& r = red[m * STRIP + (V4 ? 4 * lane + e : lane + 32 * e)];
                    r = w == 0 ? acc[m][e] : r + acc[m][e];
                }
        }
        __syncthreads();
    }
    const bool rows_aligned = rows_16_byte_aligned(C, ldc);
    for (int g = tid; g < M * (STRIP / 4); g += THREADS) {
        const int m = g / (STRIP / 4), c = col0 + 4 * (g % (STRIP / 4));
        if (c >= N) continue;
        float v[4];
        load4<true>(red + m * STRIP + (c - col0), v);
        if (gridDim.z == 1) {
#pragma unroll
            for (int e = 0; e < 4; ++e) v[e] *= alpha;
            store_group(C + static_cast<size_t>(m) * ldc, c, N, rows_aligned, v, beta);
        } else {
            *reinterpret_cast<float4*>(partials + (static_cast<size_t>(blockIdx.z) * M + m) * ldp + c) =
                make_float4(v[0], v[1], v[2], v[3]);
        }
    }
}
// [end-region: stream-b]

// [region: stream-a]
// This lane's 4 values of one row of A at the step starting at k0: k0 + 4 lane .. + 3 (float4) or k0 + lane,
// + 32, + 64, + 96; zeros past the slice and for rows past M.
__device__ __forceinline__ void stream_a_step(const float* row, bool inside, int k0, int k_end, int lane, float (&v)[4])
{
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = 0.0f;
    if (!inside) return;
    if (l7s::V4) {
        const int k = k0 + 4 * lane;
        if (k + 4 <= k_end) {
            const float4 t = stream_load4(row + k);
            v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
        } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) if (k + e < k_end) v[e] = stream_load(row + k + e);
        }
    } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) if (k0 + lane + 32 * e < k_end) v[e] = stream_load(row + k0 + lane + 32 * e);
    }
}

// The chunk of B at kc (KC_A x N, zeros past N and the slice) into Bs[group][n] float4 by cp.async, one group:
// group g holds the 4 k rows one lane multiplies at once, column n.
__device__ __forceinline__ void stream_a_chunk(float* Bs, const float* B, int ldb, int N, int kc, int k_end, int tid)
{
    using namespace l7s;
    const unsigned dst = shared_address(Bs);
#pragma unroll 4
    for (int i = 0; i < KC_A * R / THREADS; ++i) {
        const int idx = tid + i * THREADS, p = idx / R, n = idx % R, k = kc + p;
        // where lane l's value e of step s lives: k = s*128 + 4l + e (float4) or s*128 + l + 32e
        const int s = p / STEP_A, q = p % STEP_A;
        const int g = V4 ? p / 4 : s * 32 + q % 32, e = V4 ? p % 4 : q / 32;
        const bool inside = n < N && k < k_end;
        cp_async_4(dst + 4 * ((g * PG + n) * 4 + e), inside ? B + static_cast<size_t>(k) * ldb + n : B, inside);
    }
    cp_async_commit();
}

// This warp's rows of A at turn T (steps SA x T .. + SA - 1 of its slice), into a.
__device__ __forceinline__ void stream_a_steps(const float* const (&rows)[l7s::RA], int row0, int M, int k_begin,
                                               int k_end, int T, int lane, float (&a)[l7s::SA][l7s::RA][4])
{
#pragma unroll
    for (int s = 0; s < l7s::SA; ++s)
#pragma unroll
        for (int r = 0; r < l7s::RA; ++r)
            stream_a_step(rows[r], row0 + r < M, k_begin + (l7s::SA * T + s) * l7s::STEP_A, k_end, lane, a[s][r]);
}

// A warp's turn T of stream-A on the values in a; the chunks of B alternate between Bs's two halves as in stream-B.
__device__ __forceinline__ void stream_a_turn(float* Bs, const float* B, int ldb, int N, int k_begin, int k_end,
                                              int T, int lane, int tid, const float (&a)[l7s::SA][l7s::RA][4],
                                              float (&acc)[l7s::RA][l7s::R])
{
    using namespace l7s;
    const int chunk = T / TURNS_A;
    if (T % TURNS_A == 0) {
        cp_async_wait<0>();
        __syncthreads();
        if (k_begin + (chunk + 1) * KC_A < k_end)
            stream_a_chunk(Bs + ((chunk + 1) & 1) * CHUNK_A, B, ldb, N, k_begin + (chunk + 1) * KC_A, k_end, tid);
    }
    const float* bs = Bs + (chunk & 1) * CHUNK_A;
#pragma unroll
    for (int s = 0; s < SA; ++s) {
        const int g = (SA * (T % TURNS_A) + s) * 32 + lane;
#pragma unroll
        for (int n = 0; n < R; ++n) {
            float b[4];
            load4<true>(bs + (g * PG + n) * 4, b);
#pragma unroll
            for (int r = 0; r < RA; ++r)
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[r][n] += a[s][r][e] * b[e];
        }
    }
}

extern "C" __global__ void __launch_bounds__(l7s::THREADS, L7S_MIN_BLOCKS)
sgemm_stream_a(SGEMM_ARGS, float* __restrict__ partials, int ldp, int k_per_split)
{
    using namespace l7s;
    __shared__ __align__(16) float Bs[2 * CHUNK_A];   // two chunks of B
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int row0 = blockIdx.x * ROWS_A + warp * RA;
    const int k_begin = blockIdx.z * k_per_split;
    const int k_end = min(K, k_begin + k_per_split);
    const int turns = (k_end - k_begin + SA * STEP_A - 1) / (SA * STEP_A);
    const float* rows[RA];
#pragma unroll
    for (int r = 0; r < RA; ++r) rows[r] = A + static_cast<size_t>(min(row0 + r, M - 1)) * lda;

    float acc[RA][R] = {};
    float a0[SA][RA][4], a1[SA][RA][4];
    stream_a_chunk(Bs, B, ldb, N, k_begin, k_end, tid);
    if constexpr (PIPE_A) {
        stream_a_steps(rows, row0, M, k_begin, k_end, 0, lane, a0);
#pragma unroll 1
        for (int T = 0; T < turns; T += 2) {
            stream_a_steps(rows, row0, M, k_begin, k_end, T + 1, lane, a1);   // zeros past the slice
            stream_a_turn(Bs, B, ldb, N, k_begin, k_end, T, lane, tid, a0, acc);
            if (T + 1 == turns) break;
            stream_a_steps(rows, row0, M, k_begin, k_end, T + 2, lane, a0);
            stream_a_turn(Bs, B, ldb, N, k_begin, k_end, T + 1, lane, tid, a1, acc);
        }
    } else {
#pragma unroll 1
        for (int T = 0; T < turns; ++T) {
            stream_a_steps(rows, row0, M, k_begin, k_end, T, lane, a0);
            stream_a_turn(Bs, B, ldb, N, k_begin, k_end, T, lane, tid, a0, acc);
        }
    }
    cp_async_wait<0>();

    // The lanes' sums: a butterfly (xor 16, 8, 4, 2, 1) leaves every lane with the same total.
#pragma unroll
    for (int r = 0; r < RA; ++r)
#pragma unroll
        for (int n = 0; n < R; ++n)
#pragma unroll
            for (int off = 16; off > 0; off /= 2) acc[r][n] += __shfl_xor_sync(0xffffffffu, acc[r][n], off);
    if (lane != 0) return;
    const bool rows_aligned = rows_16_byte_aligned(C, ldc);
#pragma unroll
    for (int r = 0; r < RA; ++r) {
        if (row0 + r >= M) continue;
#pragma unroll
        for (int c = 0; c < R; c += 4) {
            if (c >= N) continue;
            float v[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) v[e] = c + e < R ? acc[r][c + e] : 0.0f;
            if (gridDim.z == 1) {
#pragma unroll
                for (int e = 0; e < 4; ++e) v[e] *= alpha;
                store_group(C + static_cast<size_t>(row0 + r) * ldc, c, N, rows_aligned, v, beta);
            } else {
                *reinterpret_cast<float4*>(partials + (static_cast<size_t>(blockIdx.z) * M + row0 + r) * ldp + c) =
                    make_float4(v[0], v[1], v[2], v[3]);
            }
        }
    }
}
// [end-region: stream-a]
#endif
