// Exercise m06-e1: shared-memory tiling - the cooperative tile load and its two barriers.
// Each block computes a 16 x 16 tile of C. For every step of 16 in k, its 256 threads copy a
// 16 x 16 tile of A and one of B into shared memory, then each thread reads 16 values of each.
// Launch (fixed by the checker): block (16, 16); grid (ceil(N / 16), ceil(M / 16)). Any M, N, K.

#define TILE 16

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    __shared__ float As[TILE][TILE];   // As[r][k]: rows tile_row .. +15 of A, columns t0 .. t0+15
    __shared__ float Bs[TILE][TILE];   // Bs[k][c]: rows t0 .. t0+15 of B, columns tile_col .. +15

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tile_row = blockIdx.y * TILE, tile_col = blockIdx.x * TILE;
    const int row = tile_row + ty, col = tile_col + tx;   // the element of C this thread computes

    float acc = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TILE) {
        // 할 일 1 (협력 로드, cooperative load): 스레드마다 As[ty][tx]에 A[tile_row + ty][t0 + tx]를,
        //          Bs[ty][tx]에 B[t0 + ty][tile_col + tx]를 복사하세요. 행렬 밖의 원소는 0으로 채웁니다.

        // 할 일 2: 모든 스레드의 복사가 끝나기 전에는 아무도 타일을 읽지 않게 하세요.

        // 할 일 3: As의 ty행과 Bs의 tx열로 16개 곱을 acc에 더하세요.

        // 할 일 4: 모두가 이 타일을 다 읽기 전에는 아무도 다음 타일을 덮어쓰지 않게 하세요.
    }

    if (row < M && col < N) {
        float* c = C + (size_t)row * ldc + col;
        float out = alpha * acc;
        if (beta != 0.0f) out += beta * *c;
        *c = out;
    }
}
