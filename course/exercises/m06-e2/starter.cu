// Exercise m06-e2: remove a shared-memory bank conflict with padding.
// This tiled kernel is correct, but its threads are laid out so that threadIdx.x picks the ROW of
// C: in the inner loop the 16 threads of a half-warp read As down one COLUMN (As[tx][k]). With a
// row pitch of 16 floats those 16 addresses fall into only 2 of the 32 banks.
// Launch (fixed by the checker): block (16, 16); grid (ceil(N / 16), ceil(M / 16)). Any M, N, K.
// Keep the mapping (which thread computes which element); change only how the tiles are laid out.

#define TILE 16
// 할 일: 공유 메모리 타일의 행 간격(pitch, float 단위)을 바꿔서 As[tx][k]를 읽는 16개 스레드가
//        서로 다른 뱅크를 쓰게 하세요. 배열 크기와 인덱스는 모두 이 두 상수를 쓰고 있습니다.
#define PITCH_A TILE
#define PITCH_B TILE

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    __shared__ float As[TILE * PITCH_A];   // As[r * PITCH_A + k]
    __shared__ float Bs[TILE * PITCH_B];   // Bs[k * PITCH_B + c]

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tile_row = blockIdx.y * TILE, tile_col = blockIdx.x * TILE;
    const int row = tile_row + tx, col = tile_col + ty;   // threadIdx.x walks the rows of C

    float acc = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TILE) {
        // The copies stay coalesced: neighbouring tx read neighbouring columns of A and B.
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
