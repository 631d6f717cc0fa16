// Level 2: shared-memory tiling, 16 x 16 tiles, one output per thread.
//
// Each block stages a 16 x 16 tile of A and of B in shared memory, so every value loaded
// from global memory is used 16 times by the block instead of once.
// Launch: block (16, 16), grid (ceil(N / 16), ceil(M / 16)). Any M, N, K.
//
// Variants (same arithmetic, one template):
//   sgemm_tiled                 tiles As[16][16], Bs[16][16]
//   sgemm_tiled_padded          tiles padded to 17 columns ("+1 padding") - measured slower:
//                               the loads had no conflict to remove, and the stores gain one
//   sgemm_tiled_ptx             sgemm_tiled with the FMA written as inline PTX fma.rn.f32
//   sgemm_tiled_colwalk         threadIdx.x picks the ROW of C, so a warp reads a COLUMN of As:
//                               a real 8-way bank conflict ...
//   sgemm_tiled_colwalk_padded  ... which +1 padding does remove
#include "sgemm_common.cuh"

namespace l2 {
constexpr int TILE = 16;
}

template <int PAD, bool USE_PTX, bool COLUMN_WALK>
__device__ __forceinline__ void sgemm_tiled_body(const float* __restrict__ A, const float* __restrict__ B,
                                                 float* __restrict__ C, int M, int N, int K,
                                                 int lda, int ldb, int ldc, float alpha, float beta)
{
    using l2::TILE;
    // [region: shared-tiles]
    __shared__ float As[TILE][TILE + PAD];
    __shared__ float Bs[TILE][TILE + PAD];
    // [end-region: shared-tiles]

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tile_row = block_y() * TILE, tile_col = blockIdx.x * TILE;   // block_y(): y continued in z
    // The element of C this thread computes. The column-walk variant swaps the roles of
    // tx and ty here only; the loads below stay coalesced in both mappings.
    const int my_r = COLUMN_WALK ? tx : ty;
    const int my_c = COLUMN_WALK ? ty : tx;

    float acc = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TILE) {
        // [region: cooperative-load]
        // Every thread copies one element of each tile; elements past the edge of A or B
        // become 0 so that they add nothing to the sum.
        const int a_row = tile_row + ty, a_col = t0 + tx;
        const int b_row = t0 + ty, b_col = tile_col + tx;
        As[ty][tx] = (a_row < M && a_col < K) ? A[static_cast<size_t>(a_row) * lda + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < K && b_col < N) ? B[static_cast<size_t>(b_row) * ldb + b_col] : 0.0f;
        __syncthreads();   // barrier 1: the whole tile is in shared memory before anyone reads it
        // [end-region: cooperative-load]

        // [region: inner-product]
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            fma_acc<USE_PTX>(acc, As[my_r][k], Bs[k][my_c]);
        __syncthreads();   // barrier 2: nobody overwrites the tiles while others still read them
        // [end-region: inner-product]
    }

    const int row = tile_row + my_r, col = tile_col + my_c;
    if (row < M && col < N)
        store_output(C + static_cast<size_t>(row) * ldc + col, acc, alpha, beta);
}

// [region: variants]
extern "C" __global__ void sgemm_tiled(SGEMM_ARGS)                { sgemm_tiled_body<0, false, false>(SGEMM_PASS); }
extern "C" __global__ void sgemm_tiled_padded(SGEMM_ARGS)         { sgemm_tiled_body<1, false, false>(SGEMM_PASS); }
extern "C" __global__ void sgemm_tiled_ptx(SGEMM_ARGS)            { sgemm_tiled_body<0, true, false>(SGEMM_PASS); }
extern "C" __global__ void sgemm_tiled_colwalk(SGEMM_ARGS)        { sgemm_tiled_body<0, false, true>(SGEMM_PASS); }
extern "C" __global__ void sgemm_tiled_colwalk_padded(SGEMM_ARGS) { sgemm_tiled_body<1, false, true>(SGEMM_PASS); }
// [end-region: variants]
