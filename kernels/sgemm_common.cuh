// Shared pieces of the course's SGEMM kernels.
//
// Every kernel computes C = alpha * A * B + beta * C with row-major storage:
//   A is M x K (row stride lda), B is K x N (row stride ldb), C is M x N (row stride ldc).
// This header holds only what several levels use unchanged: the BLAS-style epilogue,
// the inline-PTX FMA, and the 8x8 register micro-kernel shared by Levels 3, 4 and 5.
#pragma once

// The uniform signature of every kernel, for the thin extern "C" wrappers of the variants.
#define SGEMM_ARGS const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, \
                   int M, int N, int K, int lda, int ldb, int ldc, float alpha, float beta
#define SGEMM_PASS A, B, C, M, N, K, lda, ldb, ldc, alpha, beta

// [region: tall-grid]
// A grid may hold 2^31 - 1 blocks along x but only 65,535 along y (and z). Levels 0-6 put the
// tile columns of C on x and the tile rows on y (the strided counter-example swaps the two), so
// a C more than 65,535 tiles tall continues its y blocks in z: the launcher (kernels/registry.py)
// asks for gridDim.y x gridDim.z >= the tiles, and a block's position along y is
//     blockIdx.z * gridDim.y + blockIdx.y
// which is plain blockIdx.y whenever gridDim.z == 1 (every C up to 65,535 tiles tall). The last z
// plane may hold a few positions past the last tile: their rows lie outside C, so they write nothing.
__device__ __forceinline__ int block_y()
{
    return blockIdx.z * gridDim.y + blockIdx.y;
}
// [end-region: tall-grid]

// [region: epilogue]
// BLAS semantics: when beta == 0, C is an output only and is never read, so whatever
// C held before (even NaN or Inf) cannot leak into the result.
__device__ __forceinline__ float blend_output(const float* c, float acc, float alpha, float beta)
{
    float out = alpha * acc;
    if (beta != 0.0f) out += beta * (*c);
    return out;
}

__device__ __forceinline__ void store_output(float* c, float acc, float alpha, float beta)
{
    *c = blend_output(c, acc, alpha, beta);
}
// [end-region: epilogue]

// [region: ptx-fma]
// d = a * b + d in one fused multiply-add, rounded to nearest even (fma.rn.f32).
// nvcc already fuses `d += a * b` into FFMA by itself; this form exists so that the
// course can show what the PTX instruction looks like, not to make anything faster.
__device__ __forceinline__ void fma_ptx(float& d, float a, float b)
{
    asm("fma.rn.f32 %0, %1, %2, %0;" : "+f"(d) : "f"(a), "f"(b));
}
// [end-region: ptx-fma]

template <bool USE_PTX>
__device__ __forceinline__ void fma_acc(float& d, float a, float b)
{
    if constexpr (USE_PTX) fma_ptx(d, a, b);
    else d += a * b;
}

// ---------------------------------------------------------------------------------
// Register blocking (Levels 3-5): a 128 x 128 block tile, BK = 8, 256 threads as a
// 16 x 16 block, and an 8 x 8 micro-tile per thread.
// ---------------------------------------------------------------------------------
namespace rb {
constexpr int BM = 128;       // rows of C per block
constexpr int BN = 128;       // columns of C per block
constexpr int BK = 8;         // depth of one K tile
constexpr int TM = 8;         // rows of C per thread
constexpr int TN = 8;         // columns of C per thread
constexpr int THREADS = 256;  // (BN / TN) x (BM / TM) = 16 x 16
constexpr int HALF = 64;      // the micro-tile is split into two 4-row / 4-column halves
}  // namespace rb

// Reads four consecutive floats from shared memory. With a pitch that keeps rows
// 16-byte aligned it is one LDS.128; otherwise it must be four scalar loads.
template <bool ALIGNED16>
__device__ __forceinline__ void load4(const float* p, float* r)
{
    if constexpr (ALIGNED16) {
        const float4 v = *reinterpret_cast<const float4*>(p);
        r[0] = v.x; r[1] = v.y; r[2] = v.z; r[3] = v.w;
    } else {
        r[0] = p[0]; r[1] = p[1]; r[2] = p[2]; r[3] = p[3];
    }
}

// [region: micro-kernel]
// One K tile of the outer-product micro-kernel. As is stored transposed (As[k][m]),
// Bs as Bs[k][n]. Thread (tx, ty) owns rows {ty*4 + i, 64 + ty*4 + i} and columns
// {tx*4 + j, 64 + tx*4 + j}: splitting the 8 x 8 micro-tile into two halves makes the
// 16 threads of a half-warp read 16 consecutive float4 of Bs (no bank conflict) while
// they all read one float4 of As (a broadcast). A warp-wide LDS.128 is served one half-warp
// at a time, so the two ty values of a warp do not share their reads.
template <int PITCH_A, int PITCH_B>
__device__ __forceinline__ void load_fragments_8x8(const float* As, const float* Bs, int k, int tx, int ty,
                                                   float (&a)[rb::TM], float (&b)[rb::TN])
{
    constexpr bool A_ALIGNED = (PITCH_A % 4) == 0;
    constexpr bool B_ALIGNED = (PITCH_B % 4) == 0;
    load4<A_ALIGNED>(As + k * PITCH_A + ty * 4, a);                // rows ty*4 .. +3
    load4<A_ALIGNED>(As + k * PITCH_A + rb::HALF + ty * 4, a + 4); // rows 64+ty*4 .. +3
    load4<B_ALIGNED>(Bs + k * PITCH_B + tx * 4, b);
    load4<B_ALIGNED>(Bs + k * PITCH_B + rb::HALF + tx * 4, b + 4);
}

template <bool USE_PTX>
__device__ __forceinline__ void outer_product_8x8(float (&acc)[rb::TM][rb::TN], const float (&a)[rb::TM],
                                                  const float (&b)[rb::TN])
{
#pragma unroll
    for (int i = 0; i < rb::TM; ++i)
#pragma unroll
        for (int j = 0; j < rb::TN; ++j)
            fma_acc<USE_PTX>(acc[i][j], a[i], b[j]);   // 64 independent FMAs
}

template <int PITCH_A, int PITCH_B, bool USE_PTX, int KSTEPS = rb::BK>
__device__ __forceinline__ void micro_kernel_tile(const float* As, const float* Bs,
                                                  float (&acc)[rb::TM][rb::TN], int tx, int ty)
{
#pragma unroll
    for (int k = 0; k < KSTEPS; ++k) {
        float a[rb::TM], b[rb::TN];
        load_fragments_8x8<PITCH_A, PITCH_B>(As, Bs, k, tx, ty, a, b);
        outer_product_8x8<USE_PTX>(acc, a, b);
    }
}
// [end-region: micro-kernel]

// Row (or column) of the block tile that micro-tile index i (0..7) of thread t maps to.
__device__ __forceinline__ int rb_offset(int t, int i)
{
    return (i < 4) ? t * 4 + i : rb::HALF + t * 4 + (i - 4);
}

// [region: store-tile]
// Writes the 8 x 8 micro-tile. N is a multiple of 4 for these kernels, so a group of
// four columns is either wholly inside C or wholly outside it: one float4 store each.
__device__ __forceinline__ void store_micro_tile(float* C, int M, int N, int ldc, int block_row,
                                                 int block_col, const float (&acc)[rb::TM][rb::TN],
                                                 int tx, int ty, float alpha, float beta)
{
#pragma unroll
    for (int i = 0; i < rb::TM; ++i) {
        const int row = block_row + rb_offset(ty, i);
        if (row >= M) continue;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int col = block_col + half * rb::HALF + tx * 4;
            if (col >= N) continue;
            float4* dst = reinterpret_cast<float4*>(C + static_cast<size_t>(row) * ldc + col);
            float4 out = make_float4(alpha * acc[i][half * 4 + 0], alpha * acc[i][half * 4 + 1],
                                     alpha * acc[i][half * 4 + 2], alpha * acc[i][half * 4 + 3]);
            if (beta != 0.0f) {   // never read C when beta == 0 (see blend_output)
                const float4 old = *dst;
                out.x += beta * old.x; out.y += beta * old.y;
                out.z += beta * old.z; out.w += beta * old.w;
            }
            *dst = out;
        }
    }
}
// [end-region: store-tile]

// Loads one float4 of a row-major matrix, or zeros when the 4-element group lies
// outside the matrix (the dimensions are multiples of 4, so a group is never split).
__device__ __forceinline__ float4 load_float4_or_zero(const float* base, size_t offset, bool inside)
{
    return inside ? *reinterpret_cast<const float4*>(base + offset) : make_float4(0.f, 0.f, 0.f, 0.f);
}

// [region: tile-fetch]
// Register-staged copy of one K tile (Levels 3 and 4). 256 threads move a 128 x 8 tile of A
// and an 8 x 128 tile of B with exactly one float4 each:
//   A: thread t reads row t / 2, columns (t % 2) * 4 .. +3  -> 16 rows x 32 B per warp
//   B: thread t reads row t / 32, columns (t % 32) * 4 .. +3 -> 512 contiguous bytes per warp
struct TileFetch {
    int a_row, a_k;   // position inside the A tile
    int b_k, b_col;   // position inside the B tile
};

__device__ __forceinline__ TileFetch tile_fetch_map(int tid)
{
    return TileFetch{tid / 2, (tid % 2) * 4, tid / 32, (tid % 32) * 4};
}

__device__ __forceinline__ void fetch_tile(const float* __restrict__ A, const float* __restrict__ B,
                                           int M, int N, int K, int lda, int ldb,
                                           int block_row, int block_col, int k0, const TileFetch& f,
                                           float4& a, float4& b)
{
    const int ar = block_row + f.a_row, ak = k0 + f.a_k;
    const int bk = k0 + f.b_k, bc = block_col + f.b_col;
    a = load_float4_or_zero(A, static_cast<size_t>(ar) * lda + ak, ar < M && ak < K);
    b = load_float4_or_zero(B, static_cast<size_t>(bk) * ldb + bc, bk < K && bc < N);
}

// Writes the staged registers into shared memory: A transposed (As[k][m]) so that the
// micro-kernel can read 4 consecutive rows of A with one LDS.128, B as it is (Bs[k][n]).
template <int PITCH_A, int PITCH_B>
__device__ __forceinline__ void stash_tile(float* As, float* Bs, const TileFetch& f,
                                           const float4& a, const float4& b)
{
    As[(f.a_k + 0) * PITCH_A + f.a_row] = a.x;
    As[(f.a_k + 1) * PITCH_A + f.a_row] = a.y;
    As[(f.a_k + 2) * PITCH_A + f.a_row] = a.z;
    As[(f.a_k + 3) * PITCH_A + f.a_row] = a.w;
    float* dst = Bs + f.b_k * PITCH_B + f.b_col;
    if constexpr (PITCH_B % 4 == 0) {
        *reinterpret_cast<float4*>(dst) = b;
    } else {
        dst[0] = b.x; dst[1] = b.y; dst[2] = b.z; dst[3] = b.w;
    }
}
// [end-region: tile-fetch]

// ---------------------------------------------------------------------------------
// Asynchronous copies (cp.async, compute capability 8.0+), used by Levels 5 and 6.
// Below 8.0 the same calls compile to plain loads and stores through registers: the
// schedule stays correct, it just does not overlap.
// ---------------------------------------------------------------------------------
// [region: cp-async-helpers]
__device__ __forceinline__ unsigned shared_address(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// The destination is a shared-memory address (shared_address of a __shared__ pointer), so
// that a kernel can compute it once and move it with integer additions.

// 4-byte asynchronous copy (cp.async.ca: the .cg form accepts only 16 bytes). When `inside`
// is false the source size is 0: nothing is read and the 4 destination bytes become zero.
__device__ __forceinline__ void cp_async_4(unsigned dst, const float* src, bool inside)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
                 :: "r"(dst), "l"(src), "r"(inside ? 4 : 0) : "memory");
#else
    const float v = inside ? *src : 0.0f;
    asm volatile("st.shared.f32 [%0], %1;\n" :: "r"(dst), "f"(v) : "memory");
#endif
}

// 16-byte asynchronous copy (cp.async.cg: bypasses L1); dst and src must be 16-byte aligned.
__device__ __forceinline__ void cp_async_16(unsigned dst, const float* src, bool inside)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :: "r"(dst), "l"(src), "r"(inside ? 16 : 0) : "memory");
#else
    const float4 v = inside ? *reinterpret_cast<const float4*>(src) : make_float4(0.f, 0.f, 0.f, 0.f);
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n"
                 :: "r"(dst), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
#endif
}

// Closes the group of copies this thread has issued since the last commit.
__device__ __forceinline__ void cp_async_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most N of this thread's most recent groups are still in flight.
// The count must be an immediate in PTX, hence the template parameter.
template <int N>
__device__ __forceinline__ void cp_async_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
#endif
}
// [end-region: cp-async-helpers]

// [region: tile-copier]
// The copies that bring one K tile into one stage of shared memory (Levels 5 and 6), planned
// once per thread so that moving on to the next K tile only adds to two pointers.
//   A travels in 4-byte copies, because the micro-kernels want it transposed (As[k][m]) and a
//     16-byte copy can only move 4 neighbours of one row. A warp instruction copies 4 rows x 8
//     consecutive k (4 whole 32-byte sectors of A); lane l takes row l / 8 and k = l % 8. With
//     a pitch of BM + 4 floats, As[k][m] lands in bank (4k + m) % 32: 32 lanes, 32 banks.
//   B is already in the layout the micro-kernels read (Bs[k][n]); it travels in copies of
//     B_WIDTH floats (4: 16-byte cp.async.cg, 1: 4-byte cp.async.ca), a warp covering
//     consecutive columns of one row.
// Copies that fall outside the matrices have source size 0 and write zeros. Rows of A and
// columns of B outside are known once; whether k is outside is checked only for the partial
// K tile (FULL = false), which the kernels load first.
template <int BM, int BN, int BK, int THREADS, int B_WIDTH>
struct TileCopier {
    static constexpr int WARPS = THREADS / 32;
    static constexpr int K_GROUPS = BK / 8;                        // 8 k per A copy instruction
    static constexpr int PITCH_A = BM + 4, PITCH_B = BN;
    static constexpr int A_COPIES = BM * BK / 32 / WARPS;          // per thread and K tile
    static constexpr int A_ROW_STEP = 4 * WARPS;                   // rows between a thread's row groups
    static constexpr int B_PER_ROW = BN / B_WIDTH;                 // copies per row of the B tile
    static constexpr int B_COPIES = BK * B_PER_ROW / THREADS;
    static constexpr int B_ROW_STEP = THREADS / B_PER_ROW;         // rows between them
    static_assert(BK % 8 == 0 && BM % A_ROW_STEP == 0 && A_COPIES == (BM / A_ROW_STEP) * K_GROUPS, "A copy layout");
    static_assert(BM % 32 == 0, "the +4 pitch spreads banks only when BM is a multiple of 32");
    static_assert(THREADS % B_PER_ROW == 0 && BK % B_ROW_STEP == 0, "B copy layout");

    const float* a;          // source of this thread's first A copy in the current K tile
    const float* b;          // source of its first B copy
    int a_step, b_step;      // floats between its row groups of A (successive B copies)
    int b_ld;                // leading dimension of B
    int a_dst, b_dst;        // float offset of the first copy inside a stage
    int a_k, b_k;            // k of the first copy inside a K tile
    unsigned a_rows_inside;  // bit j: the row of A copy j lies inside A
    bool b_cols_inside;      // this thread's B columns lie inside B

    __device__ __forceinline__ TileCopier(const float* A, const float* B, int M, int N, int lda, int ldb,
                                          int row0, int col0, int tid)
    {
        // Copy j of this thread: row group j / K_GROUPS (A_ROW_STEP rows apart), k group j % K_GROUPS
        // (8 floats apart in global memory, so the k groups of one row share a pointer).
        const int warp = tid / 32, lane = tid % 32;
        const int a_m = warp * 4 + lane / 8;
        a_k = lane % 8;
        a_rows_inside = 0;
#pragma unroll
        for (int g = 0; g < A_COPIES / K_GROUPS; ++g)
            a_rows_inside |= unsigned(row0 + a_m + g * A_ROW_STEP < M) << g;
        const int a_row = min(row0 + a_m, M - 1);   // a valid address even when the row is outside
        a = A + static_cast<size_t>(a_row) * lda + a_k;
        a_step = A_ROW_STEP * lda;
        a_dst = a_k * PITCH_A + a_m;

        const int b_n = (tid % B_PER_ROW) * B_WIDTH;
        b_k = tid / B_PER_ROW;
        b_cols_inside = col0 + b_n < N;
        b = B + static_cast<size_t>(b_k) * ldb + (b_cols_inside ? col0 + b_n : 0);
        b_step = B_ROW_STEP * ldb;
        b_ld = ldb;
        b_dst = b_k * PITCH_B + b_n;
    }

    // Copies of the K tile that starts at k0 = k_offset + (tiles already issued) * BK.
    // As, Bs: shared-memory addresses of the stage (see shared_address).
    template <bool FULL>
    __device__ __forceinline__ void issue(unsigned As, unsigned Bs, const float* A, const float* B, int K,
                                          int k_offset) const
    {
#pragma unroll
        for (int g = 0; g < A_COPIES / K_GROUPS; ++g) {
            const float* row = a + g * a_step;
#pragma unroll
            for (int kg = 0; kg < K_GROUPS; ++kg) {
                bool inside = (a_rows_inside >> g) & 1u;
                if (!FULL) inside = inside && k_offset + kg * 8 + a_k < K;
                // Outside A the source size is 0 and cp.async reads nothing at src.
                const float* src = FULL ? row + kg * 8 : inside ? row + k_offset + kg * 8 : A;
                cp_async_4(As + 4 * (a_dst + g * A_ROW_STEP + kg * 8 * PITCH_A), src, inside);
            }
        }
#pragma unroll
        for (int j = 0; j < B_COPIES; ++j) {
            bool inside = b_cols_inside;
            if (!FULL) inside = inside && k_offset + b_k + j * B_ROW_STEP < K;
            const float* src = FULL ? b + j * b_step
                                    : inside ? b + static_cast<size_t>(k_offset) * b_ld + j * b_step : B;
            const unsigned dst = Bs + 4 * (b_dst + j * B_ROW_STEP * PITCH_B);
            if constexpr (B_WIDTH == 4) cp_async_16(dst, src, inside);
            else cp_async_4(dst, src, inside);
        }
    }

    // The partial K tile K - K % BK .. K - 1 (only when K % BK != 0). Kernels load it FIRST,
    // so that every tile issued in the main loop is whole and needs no k check.
    __device__ __forceinline__ void issue_partial_tile(unsigned As, unsigned Bs, const float* A, const float* B,
                                                       int K) const
    {
        issue<false>(As, Bs, A, B, K, K - K % BK);
    }

    // The next whole K tile (0, BK, 2 BK, ...), then move the sources on by BK.
    __device__ __forceinline__ void issue_whole_tile(unsigned As, unsigned Bs, const float* A, const float* B, int K)
    {
        issue<true>(As, Bs, A, B, K, 0);
        advance();
    }

    // For kernels that spread the copies of a whole K tile over several k steps: copy number c
    // (0 .. COPIES - 1; A copies first), then advance() once all of them are issued.
    static constexpr int COPIES = A_COPIES + B_COPIES;
    __device__ __forceinline__ void issue_one(int c, unsigned As, unsigned Bs) const
    {
        if (c < A_COPIES) {
            const int g = c / K_GROUPS, kg = c % K_GROUPS;
            cp_async_4(As + 4 * (a_dst + g * A_ROW_STEP + kg * 8 * PITCH_A), a + g * a_step + kg * 8,
                       (a_rows_inside >> g) & 1u);
        } else {
            const int j = c - A_COPIES;
            const unsigned dst = Bs + 4 * (b_dst + j * B_ROW_STEP * PITCH_B);
            if constexpr (B_WIDTH == 4) cp_async_16(dst, b + j * b_step, b_cols_inside);
            else cp_async_4(dst, b + j * b_step, b_cols_inside);
        }
    }

    __device__ __forceinline__ void advance()
    {
        a += BK;
        b += BK * b_ld;
    }
};
// [end-region: tile-copier]
