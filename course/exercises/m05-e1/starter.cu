// Exercise m05-e1: make the warp's accesses coalesce.
// This kernel is CORRECT, but threadIdx.x picks the ROW of C: the 16 neighbouring threads of a
// half-warp read A and write C in 16 different rows, lda and ldc floats apart, so every thread
// needs a memory sector of its own.
// Launch (fixed by the checker): block (16, 16); grid (ceil(N / 16), ceil(M / 16)):
// blockIdx.x walks the columns of C, blockIdx.y its rows. Any M, N, K >= 1.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    // 할 일: 블록이 맡는 16×16 타일과 그리드는 그대로 두고, 타일 안에서 threadIdx.x가 열(col)을 고르도록
    //        바꾸세요. 그러면 이웃한 스레드가 B와 C의 이웃한 열을 읽고 쓰고, A[row][k]는 반 워프가 한 값을
    //        함께 읽습니다(브로드캐스트, broadcast). 아래 줄 두 개만 고치면 됩니다.
    const int row = blockIdx.y * blockDim.y + threadIdx.x;
    const int col = blockIdx.x * blockDim.x + threadIdx.y;
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[(size_t)row * lda + k] * B[(size_t)k * ldb + col];

    float* c = C + (size_t)row * ldc + col;
    float out = alpha * acc;
    if (beta != 0.0f) out += beta * *c;
    *c = out;
}
