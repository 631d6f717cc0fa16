// Exercise m04-e1, known-wrong attempt.
// expected-diagnosis: wrong_values
// A fast path for beta == 1, "the plain update C += A * B", that forgets alpha. Right whenever
// alpha == 1 as well, which was the only pairing with beta == 1 the checker drew; alpha = 1.1 with
// beta = 1 is now among the fixed cases.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;

    const float* a = A + (size_t)row * lda;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += a[k] * B[(size_t)k * ldb + col];

    float* c = C + (size_t)row * ldc + col;
    float out;
    if (beta == 1.0f)
        out = acc + *c;                  // the bug: alpha * acc + C
    else {
        out = alpha * acc;
        if (beta != 0.0f) out += beta * *c;
    }
    *c = out;
}
