// Level 5: asynchronous copies (cp.async, compute capability 8.0+) with a ring of
// shared-memory stages (3 stages: "triple buffering").
//
// cp.async copies global memory straight into shared memory without staging the data in
// registers; a thread groups its copies with commit_group and waits for them with
// wait_group(N) ("at most N of my most recent groups may still be pending").
//
// Variants:
//   sgemm_async_copy       4-byte copies, cp.async.ca (the .cg form accepts only 16 bytes).
//                          A is scattered into As[k][m] (transposed) as in Levels 3-4.
//   sgemm_async_copy_vec   16-byte copies, cp.async.cg (bypasses L1). A 16-byte copy cannot
//                          transpose, so A stays row-major in shared memory: As[m][k] with a
//                          pitch of BK floats, which keeps every row 16-byte aligned.
// Below compute capability 8.0 the same source compiles to a synchronous fallback (plain
// loads and stores through registers); the schedule stays correct, it just does not overlap.
// Launch and constraints as Level 3.
#include "sgemm_common.cuh"

#ifndef L5_BK
#define L5_BK 8
#endif
#ifndef L5_STAGES
#define L5_STAGES 3
#endif

namespace l5 {
constexpr int BK = L5_BK;                 // depth of one K tile (8 or 16)
constexpr int STAGES = L5_STAGES;         // buffers in the ring
constexpr int TILE_A = rb::BM * BK;       // floats of A per stage
constexpr int TILE_B = BK * rb::BN;       // floats of B per stage
constexpr int PASSES = BK / 8;            // float4 of A (and of B) each thread copies per tile
static_assert(BK % 8 == 0, "BK must be a multiple of 8 (one float4 per thread per pass)");
static_assert(STAGES * (TILE_A + TILE_B) * 4 <= 48 * 1024, "static shared memory is limited to 48 KiB");
}  // namespace l5

// [region: cp-async-helpers]
__device__ __forceinline__ unsigned shared_address(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 4-byte asynchronous copy. When `inside` is false the source size is 0: nothing is read
// and the 4 destination bytes are filled with zeros.
__device__ __forceinline__ void cp_async_4(float* dst, const float* src, bool inside)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
                 :: "r"(shared_address(dst)), "l"(src), "r"(inside ? 4 : 0) : "memory");
#else
    *dst = inside ? *src : 0.0f;
#endif
}

// 16-byte asynchronous copy; dst and src must both be 16-byte aligned.
__device__ __forceinline__ void cp_async_16(float* dst, const float* src, bool inside)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :: "r"(shared_address(dst)), "l"(src), "r"(inside ? 16 : 0) : "memory");
#else
    *reinterpret_cast<float4*>(dst) = inside ? *reinterpret_cast<const float4*>(src)
                                             : make_float4(0.f, 0.f, 0.f, 0.f);
#endif
}

__device__ __forceinline__ void cp_async_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// The count must be an immediate in PTX, hence the template parameter.
template <int N>
__device__ __forceinline__ void cp_async_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
#endif
}
// [end-region: cp-async-helpers]

// [region: issue-tile]
// Issues this thread's copies of K tile `tile` into one stage. Per pass, thread t moves
// float4 number q = t + 256 * pass of each tile:
//   A (BM x BK): row q / (BK / 4), columns (q % (BK / 4)) * 4 .. +3
//   B (BK x BN): row q / 32,       columns (q % 32) * 4 .. +3
template <bool VEC16>
__device__ __forceinline__ void issue_tile(const float* __restrict__ A, const float* __restrict__ B,
                                           float* As, float* Bs, int M, int N, int K, int lda, int ldb,
                                           int block_row, int block_col, int tile, int tid)
{
    const int k0 = tile * l5::BK;
#pragma unroll
    for (int pass = 0; pass < l5::PASSES; ++pass) {
        const int q = tid + pass * rb::THREADS;
        const int a_row = q / (l5::BK / 4), a_k = (q % (l5::BK / 4)) * 4;
        const int b_k = q / (rb::BN / 4), b_col = (q % (rb::BN / 4)) * 4;
        const int ar = block_row + a_row, ak = k0 + a_k;
        const int bk = k0 + b_k, bc = block_col + b_col;
        const bool a_inside = ar < M && ak < K, b_inside = bk < K && bc < N;
        // When nothing is read (source size 0) the source only has to be a valid address.
        const float* a_src = a_inside ? A + static_cast<size_t>(ar) * lda + ak : A;
        const float* b_src = b_inside ? B + static_cast<size_t>(bk) * ldb + bc : B;
        float* b_dst = Bs + b_k * rb::BN + b_col;
        if constexpr (VEC16) {
            cp_async_16(As + a_row * l5::BK + a_k, a_src, a_inside);   // As[m][k], row-major
            cp_async_16(b_dst, b_src, b_inside);
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                cp_async_4(As + (a_k + j) * rb::BM + a_row, a_src + (a_inside ? j : 0), a_inside);  // As[k][m]
                cp_async_4(b_dst + j, b_src + (b_inside ? j : 0), b_inside);
            }
        }
    }
}
// [end-region: issue-tile]

// [region: micro-kernel-row-major-a]
// Micro-kernel for the 16-byte variant, where As is row-major (As[m][k], pitch BK).
// KC k steps at a time: one load per row of A gives a[m][k .. k+KC-1] (a broadcast: the two
// ty values of a warp read two rows, so no bank conflict); then for each of the KC steps the
// 8 values of B are read and 64 FMAs follow.
#ifndef L5_KC
#define L5_KC 4
#endif
template <int KC> struct FragA;
template <> struct FragA<2> { using type = float2; };
template <> struct FragA<4> { using type = float4; };

__device__ __forceinline__ float pick(const float2& v, int k) { return k == 0 ? v.x : v.y; }
__device__ __forceinline__ float pick(const float4& v, int k)
{
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

__device__ __forceinline__ void micro_kernel_tile_row_major_a(const float* As, const float* Bs,
                                                              float (&acc)[rb::TM][rb::TN], int tx, int ty)
{
    constexpr int KC = L5_KC;
    using frag_t = typename FragA<KC>::type;
#pragma unroll
    for (int kc = 0; kc < l5::BK; kc += KC) {
        frag_t a[rb::TM];
#pragma unroll
        for (int i = 0; i < rb::TM; ++i)
            a[i] = *reinterpret_cast<const frag_t*>(As + rb_offset(ty, i) * l5::BK + kc);
#pragma unroll
        for (int kk = 0; kk < KC; ++kk) {
            float b[rb::TN];
            load4<true>(Bs + (kc + kk) * rb::BN + tx * 4, b);
            load4<true>(Bs + (kc + kk) * rb::BN + rb::HALF + tx * 4, b + 4);
#pragma unroll
            for (int i = 0; i < rb::TM; ++i)
#pragma unroll
                for (int j = 0; j < rb::TN; ++j)
                    acc[i][j] += pick(a[i], kk) * b[j];
        }
    }
}
// [end-region: micro-kernel-row-major-a]

template <bool VEC16>
__device__ __forceinline__ void sgemm_async_copy_body(SGEMM_ARGS)
{
    // [region: shared-ring]
    __shared__ __align__(16) float As[l5::STAGES][l5::TILE_A];
    __shared__ __align__(16) float Bs[l5::STAGES][l5::TILE_B];
    // [end-region: shared-ring]

    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * blockDim.x + tx;
    const int block_row = blockIdx.y * rb::BM, block_col = blockIdx.x * rb::BN;
    const int num_tiles = (K + l5::BK - 1) / l5::BK;

    // [region: prologue]
    // Fill STAGES - 1 stages. One group per stage, committed even when the tile does not
    // exist, so that "group g" always means "tile g" in the loop below.
#pragma unroll
    for (int s = 0; s < l5::STAGES - 1; ++s) {
        if (s < num_tiles)
            issue_tile<VEC16>(A, B, As[s], Bs[s], M, N, K, lda, ldb, block_row, block_col, s, tid);
        cp_async_commit();
    }
    // [end-region: prologue]

    // [region: pipeline-loop]
    float acc[rb::TM][rb::TN] = {};
    for (int kt = 0; kt < num_tiles; ++kt) {
        // Groups 0 .. kt + STAGES - 2 are committed; allowing STAGES - 2 of them to be
        // pending guarantees that group kt - tile kt - has landed (for this thread).
        cp_async_wait<l5::STAGES - 2>();
        // Makes every thread's copies of tile kt visible, and guarantees that everyone has
        // finished computing tile kt - 1, whose stage is refilled just below.
        __syncthreads();

        const int next = kt + l5::STAGES - 1;
        if (next < num_tiles)
            issue_tile<VEC16>(A, B, As[next % l5::STAGES], Bs[next % l5::STAGES], M, N, K, lda, ldb,
                              block_row, block_col, next, tid);
        cp_async_commit();   // ALWAYS, even empty: keeps the count right in the tail (no race)

        const int stage = kt % l5::STAGES;
        if constexpr (VEC16)
            micro_kernel_tile_row_major_a(As[stage], Bs[stage], acc, tx, ty);
        else
            micro_kernel_tile<rb::BM, rb::BN, false, l5::BK>(As[stage], Bs[stage], acc, tx, ty);
    }
    cp_async_wait<0>();   // leave no copy in flight when the block exits
    // [end-region: pipeline-loop]

    store_micro_tile(C, M, N, ldc, block_row, block_col, acc, tx, ty, alpha, beta);
}

// [region: variants]
// __launch_bounds__(256, 2): ask ptxas for at most 65536 / (2 x 256) = 128 registers per
// thread, so that two blocks (16 warps) fit on one SM.
#ifndef L5_MIN_BLOCKS
#define L5_MIN_BLOCKS 2
#endif
extern "C" __global__ void __launch_bounds__(rb::THREADS, L5_MIN_BLOCKS)
sgemm_async_copy(SGEMM_ARGS) { sgemm_async_copy_body<false>(SGEMM_PASS); }

extern "C" __global__ void __launch_bounds__(rb::THREADS, L5_MIN_BLOCKS)
sgemm_async_copy_vec(SGEMM_ARGS) { sgemm_async_copy_body<true>(SGEMM_PASS); }
// [end-region: variants]
