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
