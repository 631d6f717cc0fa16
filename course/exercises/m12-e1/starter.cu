// Exercise m12-e1: the split-K reduction.
// The GEMM left S partial M x N tiles in a workspace: slab s starts at P + s * M * ldp, rows ldp apart
// (ldp a multiple of 4, at least N). Write C = alpha * (P_0 + ... + P_{S-1}) + beta * C.
// Launch (fixed by the checker): block (16, 16); grid (ceil(N / 16), ceil(M / 8)). Each block covers
// 8 rows x 16 columns of C; two threads share each element: the lower half (ty < 8) adds the even
// slabs, the upper half the odd ones, and the two halves meet in shared memory.

#define COLS 16
#define ROWS 8

extern "C" __global__ void my_reduce(const float* __restrict__ P, float* __restrict__ C, int M, int N,
                                     int ldp, int ldc, int S, float alpha, float beta)
{
    __shared__ float odd_sum[ROWS][COLS];

    const int tx = threadIdx.x, half = threadIdx.y / ROWS, r = threadIdx.y % ROWS;
    const int row = blockIdx.y * ROWS + r, col = blockIdx.x * COLS + tx;
    const bool inside = row < M && col < N;

    float part = 0.0f;
    // 할 일 1: inside인 스레드만, 조각 s = half, half + 2, half + 4, ... 의 (row, col) 원소를 차례로 part에 더하세요.
    //          조각 s의 (row, col)은 P[s * M * ldp + row * ldp + col]입니다 (곱은 size_t로).

    // 할 일 2: 위쪽 절반(half == 1)은 part를 odd_sum[r][tx]에 두고, 아래쪽 절반이 그것을 읽기 전에
    //          블록의 모든 스레드를 기다리게 하세요. 행렬 밖의 스레드도 여기까지 와야 합니다.

    // 할 일 3: 아래쪽 절반의 inside인 스레드만 C[row * ldc + col]에 alpha * (part + odd_sum[r][tx]) + beta * C를
    //          쓰세요. alpha와 beta는 한 번씩만, beta = 0이면 C를 읽지 않습니다.
}
