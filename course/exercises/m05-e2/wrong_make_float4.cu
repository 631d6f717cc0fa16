// Exercise m05-e2, known-wrong attempt.
// expected-diagnosis: missing_instruction
// The loop now works on float4 values, but each one is assembled with make_float4 from four
// separate array reads. A float4 variable is not a 128-bit load: the compiler cannot assume that
// A + row * lda + k is 16-byte aligned, so it still issues four 32-bit loads (LDG.E) per value.
// The results are right; the SASS has no LDG.E.128.

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (row >= M || col >= N) return;

    const float* a_row = A + (size_t)row * lda;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int k = 0; k < K; k += 4) {
        const float4 a4 = make_float4(a_row[k], a_row[k + 1], a_row[k + 2], a_row[k + 3]);
        const float a[4] = {a4.x, a4.y, a4.z, a4.w};
        for (int kk = 0; kk < 4; ++kk) {
            const float* b_row = B + (size_t)(k + kk) * ldb + col;
            const float4 b = make_float4(b_row[0], b_row[1], b_row[2], b_row[3]);
            acc.x += a[kk] * b.x;
            acc.y += a[kk] * b.y;
            acc.z += a[kk] * b.z;
            acc.w += a[kk] * b.w;
        }
    }

    float* c = C + (size_t)row * ldc + col;
    const float out[4] = {alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w};
    for (int j = 0; j < 4; ++j)
        c[j] = (beta != 0.0f) ? out[j] + beta * c[j] : out[j];
}
