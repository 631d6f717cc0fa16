// Exercise m05-e2, known-wrong attempt.
// expected-diagnosis: wrong_values
// Every float4 that is loaded has its NaN lanes replaced by 0 ("a NaN is missing data"). BLAS
// propagates NaN: a NaN in row i of A makes row i of C NaN. The checker's A and B held no NaN; some
// cases now put NaN, +Inf and -Inf into A and B and expect what IEEE arithmetic gives.

__device__ __forceinline__ void scale_add(float4& acc, float s, const float4& v)
{
    acc.x += s * v.x;
    acc.y += s * v.y;
    acc.z += s * v.z;
    acc.w += s * v.w;
}

__device__ __forceinline__ float zero_nan(float v)
{
    return v != v ? 0.0f : v;
}

__device__ __forceinline__ float4 load4(const float* p)
{
    const float4 v = *reinterpret_cast<const float4*>(p);   // 16-byte aligned: one LDG.E.128
    return make_float4(zero_nan(v.x), zero_nan(v.y), zero_nan(v.z), zero_nan(v.w));   // the bug
}

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (row >= M || col >= N) return;   // N % 4 == 0: the whole strip is inside C

    const float* a = A + (size_t)row * lda;
    const float* b = B + col;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int k = 0; k < K; k += 4) {
        const float4 a4 = load4(a + k);   // A[row][k .. k+3]
        scale_add(acc, a4.x, load4(b)); b += ldb;
        scale_add(acc, a4.y, load4(b)); b += ldb;
        scale_add(acc, a4.z, load4(b)); b += ldb;
        scale_add(acc, a4.w, load4(b)); b += ldb;
    }

    float* c = C + (size_t)row * ldc + col;
    float4 out = make_float4(alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w);
    if (beta != 0.0f) scale_add(out, beta, load4(c));   // C is read only when beta != 0
    *reinterpret_cast<float4*>(c) = out;
}
