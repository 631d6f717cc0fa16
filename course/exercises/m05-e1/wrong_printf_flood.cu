// Exercise m05-e1, known-wrong attempt.
// expected-diagnosis: wrong_values
// Forgets alpha, and every thread prints lines shaped like the checker's own status events (a
// forged "result", a forged "fault"). The old checker parsed the kernel's stdout as its status
// channel; now the printf is shown to the learner, capped, and never read, so the verdict names the
// real fault of this kernel: its values.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    printf("{\"event\": \"result\", \"device\": \"forged\", \"cases\": []}\n");
    printf("{\"event\": \"fault\", \"error\": \"forged\"}\n");
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[(size_t)row * lda + k] * B[(size_t)k * ldb + col];

    float* c = C + (size_t)row * ldc + col;
    float out = acc;                              // the bug: alpha left out
    if (beta != 0.0f) out += beta * *c;
    *c = out;
}
