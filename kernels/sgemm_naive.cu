// Level 0: the naive SGEMM. One thread computes one element of C.
//
// C = alpha * A * B + beta * C, row-major, A: M x K, B: K x N, C: M x N.
// Launch: block (16, 16), grid (ceil(N / 16), ceil(M / 16)); a C more than 65,535 blocks tall
// spreads its rows of blocks over grid y and z (block_y() in sgemm_common.cuh).
#include "sgemm_common.cuh"

// [region: naive-kernel]
extern "C" __global__ void sgemm_naive(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int M, int N, int K,
                                       int lda, int ldb, int ldc, float alpha, float beta)
{
    // [region: mapping]
    // threadIdx.x picks the column: the 16 threads of a half-warp touch 16 neighbouring
    // columns of B and C (coalesced) and share one row of A (a broadcast). block_y() is
    // blockIdx.y, continued in z when C is more than 65,535 blocks tall (sgemm_common.cuh).
    const int row = block_y() * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    // [end-region: mapping]

    // [region: bounds]
    // The grid is rounded up to whole blocks; threads past the edge of C do nothing.
    if (row >= M || col >= N) return;
    // [end-region: bounds]

    // [region: k-loop]
    const float* a_row = A + static_cast<size_t>(row) * lda;
    const float* b_col = B + col;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += a_row[k] * b_col[static_cast<size_t>(k) * ldb];   // 2 loads per FMA, no reuse
    // [end-region: k-loop]

    store_output(C + static_cast<size_t>(row) * ldc + col, acc, alpha, beta);
}
// [end-region: naive-kernel]

// [region: strided-kernel]
// Counter-example for module 5: the same arithmetic with threadIdx.x picking the ROW.
// Neighbouring threads now read B in the same column (a broadcast) but A and C in rows
// that are lda / ldc floats apart, so one warp request touches up to 32 sectors.
// Launch: block (16, 16), grid (ceil(M / 16), ceil(N / 16)).
extern "C" __global__ void sgemm_naive_strided(const float* __restrict__ A, const float* __restrict__ B,
                                               float* __restrict__ C, int M, int N, int K,
                                               int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = block_y() * blockDim.y + threadIdx.y;   // y continues in z (sgemm_common.cuh)
    if (row >= M || col >= N) return;

    const float* a_row = A + static_cast<size_t>(row) * lda;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += a_row[k] * B[static_cast<size_t>(k) * ldb + col];
    store_output(C + static_cast<size_t>(row) * ldc + col, acc, alpha, beta);
}
// [end-region: strided-kernel]
