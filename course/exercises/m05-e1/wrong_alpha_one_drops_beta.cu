// Exercise m05-e1, known-wrong attempt.
// expected-diagnosis: wrong_values
// A fast path for alpha == 1 that adds C without beta ("alpha = 1 is the plain update C += A * B").
// Right for beta = 0 (C not read) and beta = 1, the only pairings with alpha = 1 the checker drew;
// alpha = 1 with beta = -0.37 is now among the fixed cases.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[(size_t)row * lda + k] * B[(size_t)k * ldb + col];

    float* c = C + (size_t)row * ldc + col;
    float out;
    if (alpha == 1.0f)
        out = beta != 0.0f ? acc + *c : acc;   // the bug: acc + beta * C
    else {
        out = alpha * acc;
        if (beta != 0.0f) out += beta * *c;
    }
    *c = out;
}
