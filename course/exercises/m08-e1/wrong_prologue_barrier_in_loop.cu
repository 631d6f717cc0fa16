// Exercise m08-e1, known-wrong attempt.
// expected-diagnosis: race
// The prologue's barrier was moved to the top of the loop ("every iteration starts with a barrier").
// With two K tiles or more nothing changes: the first iteration's barrier is the prologue's. With a
// single K tile (K <= BK) the loop never runs, and the last tile is computed from buffer 0 while other
// warps may still be writing it: a read-after-write race in shared memory. The checker's cases all had
// several K tiles; a single-K-tile case is now among its correctness and compute-sanitizer cases.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define HALF 64

// Which float4 of A and of B this thread moves in every K tile: A row a_m, k = a_k .. a_k+3;
// B row b_k, columns b_n .. b_n+3 (positions inside the tiles).
struct CopyPlan {
    int a_m, a_k, b_k, b_n;
};

__device__ __forceinline__ CopyPlan make_plan(int tid)
{
    return CopyPlan{tid / 2, (tid % 2) * 4, tid / 32, (tid % 32) * 4};
}

// Global -> registers: the K tile at k0 of the block at (row0, col0). Outside the matrices the
// registers get zeros; K and N are multiples of 4, so a group of four is wholly inside or outside.
__device__ __forceinline__ void fetch(const float* A, const float* B, int M, int N, int K, int lda, int ldb,
                                      int row0, int col0, int k0, const CopyPlan& p, float4& av, float4& bv)
{
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const int a_row = row0 + p.a_m, a_col = k0 + p.a_k;
    const int b_row = k0 + p.b_k, b_col = col0 + p.b_n;
    av = (a_row < M && a_col < K) ? *reinterpret_cast<const float4*>(A + (size_t)a_row * lda + a_col) : zero;
    bv = (b_row < K && b_col < N) ? *reinterpret_cast<const float4*>(B + (size_t)b_row * ldb + b_col) : zero;
}

// Registers -> one shared buffer: A transposed (As[k][m]), B as it is (Bs[k][n]).
__device__ __forceinline__ void stash(float (*As)[BM], float (*Bs)[BN], const CopyPlan& p,
                                      const float4& av, const float4& bv)
{
    As[p.a_k + 0][p.a_m] = av.x;
    As[p.a_k + 1][p.a_m] = av.y;
    As[p.a_k + 2][p.a_m] = av.z;
    As[p.a_k + 3][p.a_m] = av.w;
    *reinterpret_cast<float4*>(&Bs[p.b_k][p.b_n]) = bv;
}

// The micro-kernel of m07-e1 over one K tile held in one shared buffer.
__device__ __forceinline__ void compute_tile(const float (*As)[BM], const float (*Bs)[BN],
                                             float (&acc)[TM][TN], int tx, int ty)
{
#pragma unroll
    for (int k = 0; k < BK; ++k) {
        float a[TM], b[TN];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            a[i] = As[k][ty * 4 + i];
            a[4 + i] = As[k][HALF + ty * 4 + i];
            b[i] = Bs[k][tx * 4 + i];
            b[4 + i] = Bs[k][HALF + tx * 4 + i];
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j)
                acc[i][j] += a[i] * b[j];
    }
}

// C = alpha * acc + beta * C for the 8 x 8 thread tile, as 16 float4 stores.
__device__ __forceinline__ void store_tile(float* C, int M, int N, int ldc, int row0, int col0, int tx, int ty,
                                           const float (&acc)[TM][TN], float alpha, float beta)
{
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = row0 + ((i < 4) ? ty * 4 + i : HALF + ty * 4 + (i - 4));
        if (row >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int col = col0 + h * HALF + tx * 4;
            if (col >= N) continue;
            float4* dst = reinterpret_cast<float4*>(C + (size_t)row * ldc + col);
            float4 out = make_float4(alpha * acc[i][4 * h + 0], alpha * acc[i][4 * h + 1],
                                     alpha * acc[i][4 * h + 2], alpha * acc[i][4 * h + 3]);
            if (beta != 0.0f) {   // C is read only when beta != 0
                const float4 old = *dst;
                out.x += beta * old.x; out.y += beta * old.y; out.z += beta * old.z; out.w += beta * old.w;
            }
            *dst = out;
        }
    }
}

// __launch_bounds__(256, 2): at most 128 registers per thread, so that two blocks share an SM.
extern "C" __global__ void __launch_bounds__(256, 2)
my_sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
         int M, int N, int K, int lda, int ldb, int ldc, float alpha, float beta)
{
    __shared__ __align__(16) float As[2][BK][BM];   // two buffers of the A tile (transposed)
    __shared__ __align__(16) float Bs[2][BK][BN];   // two buffers of the B tile

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const CopyPlan plan = make_plan(ty * 16 + tx);
    const int num_tiles = (K + BK - 1) / BK;

    float acc[TM][TN] = {};
    float4 av, bv;   // the next K tile, between global and shared memory

    // Prologue: tile 0 into buffer 0.
    fetch(A, B, M, N, K, lda, ldb, row0, col0, 0, plan, av, bv);
    stash(As[0], Bs[0], plan, av, bv);

    int cur = 0;   // the buffer that holds the tile being computed
    for (int t = 0; t + 1 < num_tiles; ++t) {
        __syncthreads();   // the bug: the prologue's barrier, moved here, is missing when the loop never runs
        fetch(A, B, M, N, K, lda, ldb, row0, col0, (t + 1) * BK, plan, av, bv);   // tile t+1 in flight ...
        compute_tile(As[cur], Bs[cur], acc, tx, ty); // ... while tile t is computed
        // Buffer cur ^ 1 was last read in iteration t-1, before that iteration's barrier: safe to fill.
        stash(As[cur ^ 1], Bs[cur ^ 1], plan, av, bv);
        __syncthreads();   // the one barrier: tile t+1 is complete, and nobody reads tile t any more
        cur ^= 1;
    }
    compute_tile(As[cur], Bs[cur], acc, tx, ty);     // the last tile: nothing left to fetch

    store_tile(C, M, N, ldc, row0, col0, tx, ty, acc, alpha, beta);
}
