// Exercise m05-e1, known-wrong attempt.
// expected-diagnosis: writes_inputs
// After its own dot product, the thread of column 0 scales its row of A by alpha "for next time"
// (casting away const). With alpha = 1 nothing changes; otherwise A is not what the caller passed,
// and threads of the same row in other blocks may read the scaled values. The old checker never
// looked at A and B after a run.

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
    float out = alpha * acc;
    if (beta != 0.0f) out += beta * *c;
    *c = out;

    if (col == 0) {
        float* a = const_cast<float*>(A) + (size_t)row * lda;
        for (int k = 0; k < K; ++k) a[k] *= alpha;
    }
}
