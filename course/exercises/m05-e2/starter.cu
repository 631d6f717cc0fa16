// Exercise m05-e2: widen the loads to float4 (128-bit).
// Each thread computes a 1 x 4 strip of C: row `row`, columns col .. col+3. The kernel below is
// correct but moves every float with its own 4-byte load instruction.
// Launch (fixed by the checker): block (16, 16); grid (ceil(N / 64), ceil(M / 16)).
// Guaranteed by the checker: K and N are multiples of 4, so are lda, ldb and ldc, and A, B and C
// start on 16-byte boundaries - every group of 4 floats used below is 16-byte aligned.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = (blockIdx.x * blockDim.x + threadIdx.x) * 4;   // first of this thread's 4 columns
    if (row >= M || col >= N) return;                              // N % 4 == 0: col + 3 < N too

    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    // 할 일 1: A[row][k .. k+3]을 float4 로드 한 번으로 읽으세요 (reinterpret_cast<const float4*>).
    // 할 일 2: B[k][col .. col+3]도 float4 로드 한 번으로 읽으세요.
    for (int k = 0; k < K; k += 4) {
        for (int kk = 0; kk < 4; ++kk) {
            const float a = A[(size_t)row * lda + k + kk];
            for (int j = 0; j < 4; ++j)
                acc[j] += a * B[(size_t)(k + kk) * ldb + col + j];
        }
    }

    // 할 일 3: C의 네 원소도 float4 하나로 읽고(beta != 0일 때만) 쓰세요.
    for (int j = 0; j < 4; ++j) {
        float* c = C + (size_t)row * ldc + col + j;
        float out = alpha * acc[j];
        if (beta != 0.0f) out += beta * *c;
        *c = out;
    }
}
