// Exercise m04-e1, known-wrong attempt.
// expected-diagnosis: out_of_bounds
// The bounds check guards only the store. Threads of the last block row (row >= M) still walk
// their "row" of A, which lies past the end of A, and threads past the last column read past the
// end of B's last row. The values they compute are thrown away, so C is right, but the reads
// touch memory outside the matrices.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[(size_t)row * lda + k] * B[(size_t)k * ldb + col];

    if (row < M && col < N) {
        float* c = C + (size_t)row * ldc + col;
        float out = alpha * acc;
        if (beta != 0.0f) out += beta * *c;
        *c = out;
    }
}
