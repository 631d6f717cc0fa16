// Exercise m06-e2, known-wrong attempt.
// expected-diagnosis: too_slow
// The conflict-free pitch is used only at the size that used to be timed (2048 x 2048 x 2048); every
// other size keeps the pitch of 16 floats and its bank conflicts. Correct everywhere, fast only at
// that one shape: the checker now draws the timed shape per run, near that size but never it.

#define TILE 16
#define PITCH_B TILE

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    __shared__ float As[TILE * (TILE + 1)];
    __shared__ float Bs[TILE * PITCH_B];

    // the bug: the padding depends on the shape
    const int pitch_a = (M == 2048 && N == 2048 && K == 2048) ? TILE + 1 : TILE;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tile_row = blockIdx.y * TILE, tile_col = blockIdx.x * TILE;
    const int row = tile_row + tx, col = tile_col + ty;

    float acc = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TILE) {
        const int a_row = tile_row + ty, a_col = t0 + tx;
        const int b_row = t0 + ty, b_col = tile_col + tx;
        As[ty * pitch_a + tx] = (a_row < M && a_col < K) ? A[(size_t)a_row * lda + a_col] : 0.0f;
        Bs[ty * PITCH_B + tx] = (b_row < K && b_col < N) ? B[(size_t)b_row * ldb + b_col] : 0.0f;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[tx * pitch_a + k] * Bs[k * PITCH_B + ty];
        __syncthreads();
    }

    if (row < M && col < N) {
        float* c = C + (size_t)row * ldc + col;
        float out = alpha * acc;
        if (beta != 0.0f) out += beta * *c;
        *c = out;
    }
}
