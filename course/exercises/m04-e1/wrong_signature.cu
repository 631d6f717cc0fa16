// Exercise m04-e1, known-wrong attempt.
// expected-diagnosis: wrong_signature
// The parameter list leaves out the leading dimensions (the matrices are assumed tight). Launched
// with the exercise's eleven arguments, alpha and beta would arrive as ints in the places of lda and
// ldb; the checker refuses it before running, naming the signature.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];

    float* c = C + (size_t)row * N + col;
    float out = alpha * acc;
    if (beta != 0.0f) out += beta * *c;
    *c = out;
}
