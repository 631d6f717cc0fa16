// Exercise m05-e1, reference solution: threadIdx.x picks the column, so a half-warp reads 16
// neighbouring floats of B, writes 16 neighbouring floats of C and shares one value of A.
// Launch: block (16, 16); grid (ceil(N / 16), ceil(M / 16)). Any M, N, K >= 1.

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
}
