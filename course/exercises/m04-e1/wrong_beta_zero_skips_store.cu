// Exercise m04-e1, known-wrong attempt.
// expected-diagnosis: unwritten_output
// "Do not read C when beta == 0" was read as "do not touch C when beta == 0": the whole
// epilogue sits inside the beta test. With beta != 0 every result is right; with beta == 0
// nothing is written at all and C keeps what it held before (the checker's NaN).

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
    if (beta != 0.0f)
        *c = alpha * acc + beta * *c;
}
