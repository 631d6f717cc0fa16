// Exercise m04-e1, known-wrong attempt.
// expected-diagnosis: reads_c_with_beta_zero
// A shortcut for alpha == 0: "nothing to multiply, C = beta * C". With beta == 0 too, BLAS asks for
// C = 0 without reading C, but this reads it: 0 * NaN (or 0 * Inf) left in C is NaN. The checker
// used to draw alpha = 0 only with beta != 0; alpha = beta = 0 is now among the fixed cases.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;

    float* c = C + (size_t)row * ldc + col;
    if (alpha == 0.0f) {                 // the bug: beta == 0 must not read C either
        *c = beta * *c;
        return;
    }

    const float* a = A + (size_t)row * lda;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += a[k] * B[(size_t)k * ldb + col];

    float out = alpha * acc;
    if (beta != 0.0f) out += beta * *c;
    *c = out;
}
