// Exercise m04-e1, reference solution: the naive SGEMM, one thread per element of C.
// Launch: block (16, 16); grid (ceil(N / 16), ceil(M / 16)). Any M, N, K >= 1.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    // Neighbouring threadIdx.x take neighbouring columns: a warp reads B and writes C in one stretch.
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;   // the grid is rounded up to whole blocks

    const float* a = A + (size_t)row * lda;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += a[k] * B[(size_t)k * ldb + col];

    float* c = C + (size_t)row * ldc + col;
    float out = alpha * acc;
    if (beta != 0.0f) out += beta * *c;   // C is an output only when beta == 0
    *c = out;
}
