// Exercise m06-e1, known-wrong attempt.
// expected-diagnosis: uninitialized_shared
// The A tile is zero-filled past K, so the B tile's rows past K "do not matter" and are left as they
// are. In a block whose first tile is already the last (K < 16) those rows of Bs were never written:
// the product adds 0 * (whatever shared memory held). Whatever was left there by earlier kernels was
// finite, and 0 * finite = 0; the checker now fills shared memory first with bit patterns that hold
// NaN and +-Inf among them, and 0 * NaN = 0 * Inf = NaN.

#define TILE 16

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TILE) {
        const int a_col = t0 + tx, b_row = t0 + ty;
        As[ty][tx] = (row < M && a_col < K) ? A[(size_t)row * lda + a_col] : 0.0f;
        if (b_row < K)                           // the bug: rows of Bs past K are never written
            Bs[ty][tx] = (col < N) ? B[(size_t)b_row * ldb + col] : 0.0f;
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
