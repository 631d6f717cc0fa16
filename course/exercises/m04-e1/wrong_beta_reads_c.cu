// Exercise m04-e1, known-wrong attempt.
// expected-diagnosis: reads_c_with_beta_zero
// The epilogue always reads C. With beta == 0 BLAS treats C as an output only, so whatever it
// held (here NaN) must not reach the result, but 0 * NaN is NaN.

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

    const size_t idx = (size_t)row * ldc + col;
    C[idx] = alpha * acc + beta * C[idx];
}
