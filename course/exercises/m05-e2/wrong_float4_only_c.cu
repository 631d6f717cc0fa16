// Exercise m05-e2, known-wrong attempt.
// expected-diagnosis: missing_instruction
// A and B are still read four bytes at a time; only C is read and written as float4. The SASS holds
// LDG.E.128 (from the read of C), which met the old rule "LDG.E.128 somewhere"; the rule names the
// operands now: the 128-bit loads must serve A and B.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (row >= M || col >= N) return;

    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < K; ++k) {
        const float a = A[(size_t)row * lda + k];
        const float* b = B + (size_t)k * ldb + col;
        acc[0] += a * b[0];
        acc[1] += a * b[1];
        acc[2] += a * b[2];
        acc[3] += a * b[3];
    }

    float4* c = reinterpret_cast<float4*>(C + (size_t)row * ldc + col);
    float4 out = make_float4(alpha * acc[0], alpha * acc[1], alpha * acc[2], alpha * acc[3]);
    if (beta != 0.0f) {
        const float4 old = *c;
        out.x += beta * old.x; out.y += beta * old.y; out.z += beta * old.z; out.w += beta * old.w;
    }
    *c = out;
}
