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
// the two ty values of a warp read only two float4 of As (a broadcast).
template <int PITCH_A, int PITCH_B, bool USE_PTX, int KSTEPS = rb::BK>
__device__ __forceinline__ void micro_kernel_tile(const float* As, const float* Bs,
                                                  float (&acc)[rb::TM][rb::TN], int tx, int ty)
{
    constexpr bool A_ALIGNED = (PITCH_A % 4) == 0;
    constexpr bool B_ALIGNED = (PITCH_B % 4) == 0;
#pragma unroll
    for (int k = 0; k < KSTEPS; ++k) {
        float a[rb::TM], b[rb::TN];
        load4<A_ALIGNED>(As + k * PITCH_A + ty * 4, a);                // rows ty*4 .. +3
        load4<A_ALIGNED>(As + k * PITCH_A + rb::HALF + ty * 4, a + 4); // rows 64+ty*4 .. +3
        load4<B_ALIGNED>(Bs + k * PITCH_B + tx * 4, b);
        load4<B_ALIGNED>(Bs + k * PITCH_B + rb::HALF + tx * 4, b + 4);
#pragma unroll
        for (int i = 0; i < rb::TM; ++i)
#pragma unroll
            for (int j = 0; j < rb::TN; ++j)
                fma_acc<USE_PTX>(acc[i][j], a[i], b[j]);   // 64 independent FMAs
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
