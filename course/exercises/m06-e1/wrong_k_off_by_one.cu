// Exercise m06-e1, known-wrong attempt.
// expected-diagnosis: wrong_values
// The inner loop stops one short (k < TILE - 1): the 16th product of every full tile is lost. Small
// K (a single partial tile, whose last column is zero anyway) comes out right. The old checker's
// only whole-tile case had alpha = 0, so it passed, and the verdict said "right on tile multiples,
// check your edges"; whole-tile cases with alpha and beta != 0 now fail, and no such hint is given.

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
        Bs[ty][tx] = (b_row < K && col < N) ? B[(size_t)b_row * ldb + col] : 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE - 1; ++k)       // the bug: TILE - 1
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
