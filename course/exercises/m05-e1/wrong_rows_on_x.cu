// Exercise m05-e1, known-wrong attempt.
// expected-diagnosis: too_slow
// The loop was rewritten to walk B with a pointer, but the mapping was left alone: threadIdx.x
// still picks the row. Every result is right, yet each warp request for A and C still touches
// one sector per thread instead of a few shared ones, so the kernel stays several times slower.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.x;
    const int col = blockIdx.x * blockDim.x + threadIdx.y;
    if (row >= M || col >= N) return;

    const float* a = A + (size_t)row * lda;
    const float* b = B + col;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc += a[k] * *b;
        b += ldb;
    }

    float* c = C + (size_t)row * ldc + col;
    float out = alpha * acc;
    if (beta != 0.0f) out += beta * *c;
    *c = out;
}
