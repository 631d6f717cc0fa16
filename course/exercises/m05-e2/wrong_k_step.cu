// Exercise m05-e2, known-wrong attempt.
// expected-diagnosis: fault
// The body reads A[row][k .. k+3] as one float4 and uses all four values, but the loop over k still
// steps by 1. At k = 1 the address of A[row][k] is 4 bytes past a 16-byte boundary, and a 128-bit
// load from there stops the kernel (misaligned address). (Were it aligned, every product would also
// be counted four times.)

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (row >= M || col >= N) return;

    const float* a_row = A + (size_t)row * lda;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int k = 0; k < K; ++k) {
        const float4 a4 = *reinterpret_cast<const float4*>(a_row + k);
        const float4 b0 = *reinterpret_cast<const float4*>(B + (size_t)k * ldb + col);
        const float4 b1 = *reinterpret_cast<const float4*>(B + (size_t)(k + 1) * ldb + col);
        const float4 b2 = *reinterpret_cast<const float4*>(B + (size_t)(k + 2) * ldb + col);
        const float4 b3 = *reinterpret_cast<const float4*>(B + (size_t)(k + 3) * ldb + col);
        acc.x += a4.x * b0.x + a4.y * b1.x + a4.z * b2.x + a4.w * b3.x;
        acc.y += a4.x * b0.y + a4.y * b1.y + a4.z * b2.y + a4.w * b3.y;
        acc.z += a4.x * b0.z + a4.y * b1.z + a4.z * b2.z + a4.w * b3.z;
        acc.w += a4.x * b0.w + a4.y * b1.w + a4.z * b2.w + a4.w * b3.w;
    }

    float4* c = reinterpret_cast<float4*>(C + (size_t)row * ldc + col);
    float4 out = make_float4(alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w);
    if (beta != 0.0f) {
        const float4 old = *c;
        out.x += beta * old.x; out.y += beta * old.y; out.z += beta * old.z; out.w += beta * old.w;
    }
    *c = out;
}
