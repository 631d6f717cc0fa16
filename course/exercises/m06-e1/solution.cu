// Exercise m06-e1, reference solution: 16 x 16 shared-memory tiles, two barriers per tile.
// Launch: block (16, 16); grid (ceil(N / 16), ceil(M / 16)). Any M, N, K.

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
        // Every thread copies one element of each tile. Outside the matrices the tile holds 0, so
        // the partial tiles at the edges add nothing; no thread leaves early, because every
        // thread must reach both barriers and fill its slot.
        const int a_col = t0 + tx, b_row = t0 + ty;
        As[ty][tx] = (row < M && a_col < K) ? A[(size_t)row * lda + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < K && col < N) ? B[(size_t)b_row * ldb + col] : 0.0f;
        __syncthreads();   // barrier 1: the tiles are complete before anyone reads them

#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();   // barrier 2: nobody overwrites a tile another thread is still reading
    }

    if (row < M && col < N) {
        float* c = C + (size_t)row * ldc + col;
        float out = alpha * acc;
        if (beta != 0.0f) out += beta * *c;
        *c = out;
    }
}
