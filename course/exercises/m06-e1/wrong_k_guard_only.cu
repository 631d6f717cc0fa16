// Exercise m06-e1, known-wrong attempt.
// expected-diagnosis: out_of_bounds
// The tile load checks only the K edge (a_col < K, b_row < K), not the edges of C. In the last
// block row the threads with row >= M copy "rows" of A that lie past the end of A, and in the
// last block column the threads with col >= N read past the end of B's last row. Those tile
// entries only feed elements of C that are never stored, so the results are right; the reads
// are still outside the matrices.

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
        As[ty][tx] = (a_col < K) ? A[(size_t)row * lda + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < K) ? B[(size_t)b_row * ldb + col] : 0.0f;
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
