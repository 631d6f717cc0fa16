// Exercise m07-e1, known-wrong attempt.
// expected-diagnosis: global_state
// Once a launch at the timed size (M of 1536 or more) has finished all its blocks, every later launch at
// that size returns at once: "C already holds the answer". The first launch is right and the others take
// no time, so only one measured launch whose values are checked would let it through, reported many
// times faster than the reference. Its memory is a __device__ variable outside the kernel, which the
// compile check refuses (state that outlives a launch could also replay a saved C); the speed check
// would catch this one too, as it fills C with NaN before every timed launch and checks every one.

#define BM 128   // rows of C per block
#define BN 128   // columns of C per block
#define BK 8     // depth of one K tile
#define TM 8     // rows of C per thread
#define TN 8     // columns of C per thread
#define HALF 64  // distance between a thread's two 4-row (4-column) pieces

// Row (or column) inside the block tile of a thread's i-th row (column), i = 0..7.
__device__ __forceinline__ int piece_offset(int t, int i)
{
    return (i < 4) ? t * 4 + i : HALF + t * 4 + (i - 4);
}

// How many blocks have finished at the timed size, over every launch (the bug's memory).
__device__ unsigned int blocks_done = 0;

extern "C" __global__ void __launch_bounds__(256)
my_sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
         int M, int N, int K, int lda, int ldb, int ldc, float alpha, float beta)
{
    __shared__ __align__(16) float As[BK][BM];   // the A tile transposed: As[k][m]
    __shared__ __align__(16) float Bs[BK][BN];   // the B tile as it is: Bs[k][n]

    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool timed = M >= 1536;
    if (timed && blocks_done >= gridDim.x * gridDim.y) return;   // the bug: "computed once already"

    // Each thread moves one float4 of A (row a_m, k = a_k .. a_k+3) and one float4 of B
    // (row b_k, columns b_n .. b_n+3) per K tile. K and N are multiples of 4: a group of four is
    // wholly inside the matrix or wholly outside it.
    const int a_m = tid / 2, a_k = (tid % 2) * 4;
    const int b_k = tid / 32, b_n = (tid % 32) * 4;
    const bool a_row_inside = row0 + a_m < M;
    const bool b_col_inside = col0 + b_n < N;
    const float* a_src = A + (size_t)(a_row_inside ? row0 + a_m : 0) * lda + a_k;
    const float* b_src = B + (size_t)b_k * ldb + (b_col_inside ? col0 + b_n : 0);
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 av = (a_row_inside && k0 + a_k < K) ? *reinterpret_cast<const float4*>(a_src + k0) : zero;
        const float4 bv = (b_col_inside && k0 + b_k < K)
                              ? *reinterpret_cast<const float4*>(b_src + (size_t)k0 * ldb) : zero;
        As[a_k + 0][a_m] = av.x;   // transposed, so that 4 neighbouring rows of A are one float4 below
        As[a_k + 1][a_m] = av.y;
        As[a_k + 2][a_m] = av.z;
        As[a_k + 3][a_m] = av.w;
        *reinterpret_cast<float4*>(&Bs[b_k][b_n]) = bv;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            // The register fragments: 8 values of A (this thread's rows) and 8 of B (its columns).
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                a[i] = As[k][ty * 4 + i];
                a[4 + i] = As[k][HALF + ty * 4 + i];
                b[i] = Bs[k][tx * 4 + i];
                b[4 + i] = Bs[k][HALF + tx * 4 + i];
            }
            // Their outer product: 64 independent FMAs, each fragment value used 8 times.
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

    // Store the 8 x 8 tile as 16 float4: a group of four columns is wholly inside C or outside it.
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = row0 + piece_offset(ty, i);
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
    if (timed && tid == 0) atomicAdd(&blocks_done, 1u);
}
