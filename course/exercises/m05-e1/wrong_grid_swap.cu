// Exercise m05-e1, known-wrong attempt.
// expected-diagnosis: unwritten_output
// threadIdx.x now picks the column, but blockIdx.x and blockIdx.y were swapped as well. The grid
// still has ceil(N / 16) blocks in x and ceil(M / 16) in y, so when M and N differ some tiles of C
// are never visited (and others fall outside C and are skipped by the bounds check).

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    const int col = blockIdx.y * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[(size_t)row * lda + k] * B[(size_t)k * ldb + col];

    float* c = C + (size_t)row * ldc + col;
    float out = alpha * acc;
    if (beta != 0.0f) out += beta * *c;
    *c = out;
}
