// Exercise m04-e1, known-wrong attempt.
// expected-diagnosis: out_of_bounds
// The store computes C's address with B's row stride. The old checker gave B and C the same stride
// in every case, so this passed; with ldb != ldc the rows of C land in the wrong place: past the end
// of a row (into the padding) where ldb > ldc, short of it (leaving elements unwritten) where ldb < ldc.

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

    float* c = C + (size_t)row * ldb + col;      // the bug: ldb where ldc belongs
    float out = alpha * acc;
    if (beta != 0.0f) out += beta * *c;
    *c = out;
}
