// Exercise m06-e2, reference solution: pad the rows of As to 17 floats.
// Reading As[tx][k] for tx = 0..15 then touches addresses tx * 17 + k, which fall into 16
// different banks. Bs needs no padding: a warp reads Bs[k][ty] for only two values of ty, and
// threads reading the same address share it (a broadcast).
// Launch: block (16, 16); grid (ceil(N / 16), ceil(M / 16)). Any M, N, K.

#define TILE 16
#define PITCH_A (TILE + 1)
#define PITCH_B TILE

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
