// Exercise m04-e1: the naive SGEMM, one thread per element of C.
// C = alpha * A * B + beta * C, row-major: A is M x K (row stride lda), B is K x N (ldb), C is M x N (ldc).
// Launch (fixed by the checker): block (16, 16); grid (ceil(N / 16), ceil(M / 16)):
// blockIdx.x walks the columns of C, blockIdx.y its rows. Any M, N, K >= 1.
// __restrict__ promises that A, B and C never overlap, so the compiler may keep loads in flight.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    // 할 일 1: 이 스레드가 계산할 C 원소의 행(row)과 열(col)을 blockIdx, blockDim, threadIdx로 구하세요.
    //          이웃한 threadIdx.x가 이웃한 열을 맡게 하세요.
    const int row = 0;
    const int col = 0;

    // 할 일 2: 그리드는 블록 단위로 올림되어 있어서 C 밖에 있는 스레드도 있습니다.
    //          그런 스레드는 A와 B를 읽기 전에, 아무것도 쓰지 않고 끝내세요.

    // 할 일 3: A의 row행과 B의 col열의 내적(k = 0 .. K-1)을 acc에 모으세요.
    //          A[row][k]는 A[row * lda + k], B[k][col]은 B[k * ldb + col]에 있습니다.
    float acc = 0.0f;

    // 할 일 4: C[row][col] = alpha * acc + beta * C[row][col]을 쓰세요 (C[row][col]은 C[row * ldc + col]).
    //          BLAS 규칙: beta가 0이면 C를 읽지 않습니다. C에 NaN이 들어 있어도 결과가 깨지면 안 됩니다.
    (void)row; (void)col; (void)acc;
}
