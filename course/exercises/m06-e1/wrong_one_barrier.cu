// Exercise m06-e1, known-wrong attempt.
// expected-diagnosis: race
// The second barrier is missing. A warp that finishes its 16 products goes round the loop and
// overwrites As and Bs with the next tile while other warps of the block are still reading the
// current one (a write-after-read race in shared memory).

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
        Bs[ty][tx] = (b_row < K && col < N) ? B[(size_t)b_row * ldb + col] : 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
    }

    if (row < M && col < N) {
        float* c = C + (size_t)row * ldc + col;
        float out = alpha * acc;
        if (beta != 0.0f) out += beta * *c;
        *c = out;
    }
}
