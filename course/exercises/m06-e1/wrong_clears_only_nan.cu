// Exercise m06-e1, known-wrong attempt.
// expected-diagnosis: uninitialized_shared
// The rows of the B tile past K are left as they are unless they hold NaN, which is taken for "shared
// memory nobody wrote" and cleared: a kernel fitted to a checker that filled shared memory with NaN.
// It reads cells it never wrote, and what an unwritten cell holds is anything at all: the checker now
// fills shared memory with bit patterns drawn per run (NaN, +-Inf, any bits), and 0 * Inf is NaN.

#define TILE 16

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tile_row = blockIdx.y * TILE, tile_col = blockIdx.x * TILE;
    const int row = tile_row + ty, col = tile_col + tx;

    float acc = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TILE) {
        const int a_col = t0 + tx, b_row = t0 + ty;
        As[ty][tx] = (row < M && a_col < K) ? A[(size_t)row * lda + a_col] : 0.0f;
        if (b_row < K)
            Bs[ty][tx] = (col < N) ? B[(size_t)b_row * ldb + col] : 0.0f;
        else if (Bs[ty][tx] != Bs[ty][tx])       // the bug: a cell past K is cleared only when it holds NaN
            Bs[ty][tx] = 0.0f;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }

    if (row < M && col < N) {
        float* c = C + (size_t)row * ldc + col;
        float out = alpha * acc;
        if (beta != 0.0f) out += beta * *c;
        *c = out;
    }
}
