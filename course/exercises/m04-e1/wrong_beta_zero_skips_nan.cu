// Exercise m04-e1, known-wrong attempt.
// expected-diagnosis: reads_c_with_beta_zero
// The epilogue reads C whatever beta is, and "repairs" a NaN it finds there. A C poisoned with NaN
// alone cannot see the difference; with +Inf or -Inf in C, beta * c is 0 * Inf = NaN.

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
    float old = *c;
    if (old != old) old = 0.0f;                  // skips NaN, not Inf
    *c = alpha * acc + beta * old;
}
