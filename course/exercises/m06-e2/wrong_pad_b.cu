// Exercise m06-e2, known-wrong attempt.
// expected-diagnosis: too_slow
// The padding went to the wrong tile: Bs, whose reads were already broadcasts, is padded, while
// As is still read down a column with a pitch of 16 floats. Correct, and as slow as before.

#define TILE 16
#define PITCH_A TILE
#define PITCH_B (TILE + 1)

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    __shared__ float As[TILE * PITCH_A];
    __shared__ float Bs[TILE * PITCH_B];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tile_row = blockIdx.y * TILE, tile_col = blockIdx.x * TILE;
    const int row = tile_row + tx, col = tile_col + ty;

    float acc = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TILE) {
        const int a_row = tile_row + ty, a_col = t0 + tx;
        const int b_row = t0 + ty, b_col = tile_col + tx;
        As[ty * PITCH_A + tx] = (a_row < M && a_col < K) ? A[(size_t)a_row * lda + a_col] : 0.0f;
        Bs[ty * PITCH_B + tx] = (b_row < K && b_col < N) ? B[(size_t)b_row * ldb + b_col] : 0.0f;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[tx * PITCH_A + k] * Bs[k * PITCH_B + ty];
        __syncthreads();
    }

    if (row < M && col < N) {
        float* c = C + (size_t)row * ldc + col;
        float out = alpha * acc;
        if (beta != 0.0f) out += beta * *c;
        *c = out;
    }
}
