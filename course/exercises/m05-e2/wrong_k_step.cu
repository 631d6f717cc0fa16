// Exercise m05-e2, known-wrong attempt.
// expected-diagnosis: fault
// The loop over k still steps by 1 while A is read as float4: at k = 1 the address of A[row][k]
// is 4 bytes past a 16-byte boundary, and a 128-bit load from there stops the kernel
// (misaligned address).

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
        const float4 b = *reinterpret_cast<const float4*>(B + (size_t)k * ldb + col);
        acc.x += a4.x * b.x;
        acc.y += a4.x * b.y;
        acc.z += a4.x * b.z;
        acc.w += a4.x * b.w;
    }

    float4* c = reinterpret_cast<float4*>(C + (size_t)row * ldc + col);
    float4 out = make_float4(alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w);
    if (beta != 0.0f) {
        const float4 old = *c;
        out.x += beta * old.x; out.y += beta * old.y; out.z += beta * old.z; out.w += beta * old.w;
    }
    *c = out;
}
