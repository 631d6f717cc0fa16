// Exercise m05-e1, known-wrong attempt.
// expected-diagnosis: wrong_values
// The dot product is summed in chunks of 4096 products (each chunk's partial sum added to acc), but
// the end of every chunk is computed from the chunk size alone, not from where the chunk starts: the
// first chunk is right, every later one is empty. Right for any K up to 4096, and the checker's K
// never went past 160; a case with K past 4096 is now among the fixed cases.

#define CHUNK 4096

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += CHUNK) {
        const int end = min(CHUNK, K);       // the bug: min(k0 + CHUNK, K)
        float part = 0.0f;
        for (int k = k0; k < end; ++k)
            part += A[(size_t)row * lda + k] * B[(size_t)k * ldb + col];
        acc += part;
    }

    float* c = C + (size_t)row * ldc + col;
    float out = alpha * acc;
    if (beta != 0.0f) out += beta * *c;
    *c = out;
}
