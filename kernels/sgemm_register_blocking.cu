// Level 3: register blocking. A block computes a 128 x 128 tile of C with 256 threads;
// each thread keeps an 8 x 8 micro-tile of C in registers and builds it as a sum of
// outer products (8 values of A x 8 values of B -> 64 FMAs per k).
//
// Three levels of tiling: block tile (BM x BN = 128 x 128) in shared memory over K tiles
// of BK = 8, thread tile (TM x TN = 8 x 8) in registers, and the k step inside a K tile.
// Launch: block (16, 16), grid (ceil(N / 128), ceil(M / 128)).
// Constraints: K and N multiples of 4, lda/ldb/ldc multiples of 4, 16-byte aligned pointers
// (the tiles are fetched as float4).
//
// Variants:
//   sgemm_register_blocking          As[8][128] (A transposed) and Bs[8][128]
//   sgemm_register_blocking_padded   rows padded to 129 floats and the FMA as inline PTX:
//                                    a measured counter-example - a pitch of 129 floats moves
//                                    most rows off 16-byte boundaries: 24 of the micro-kernel's
//                                    32 LDS.128 remain, the rest split into narrower loads.
//
// RB_PAD (default 0) pads the rows of the shipped kernel's tiles: compiled with RB_PAD=4
// (pitch 132 floats, still a multiple of 16 bytes) the transposed store of A no longer puts
// two lanes of a warp in one bank, and every LDS.128 stays (module 7 measures it).
#include "sgemm_common.cuh"

#ifndef RB_PAD
#define RB_PAD 0
#endif

template <int PAD, bool USE_PTX>
__device__ __forceinline__ void sgemm_register_blocking_body(SGEMM_ARGS)
{
    constexpr int PITCH_A = rb::BM + PAD;
    constexpr int PITCH_B = rb::BN + PAD;
    // [region: shared-tiles]
    __shared__ __align__(16) float As[rb::BK * PITCH_A];   // As[k][m]: A tile, transposed
    __shared__ __align__(16) float Bs[rb::BK * PITCH_B];   // Bs[k][n]
    // [end-region: shared-tiles]

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int block_row = block_y() * rb::BM, block_col = blockIdx.x * rb::BN;   // y continues in z
    const TileFetch f = tile_fetch_map(ty * blockDim.x + tx);

    // [region: main-loop]
    float acc[rb::TM][rb::TN] = {};          // 64 accumulators, all in registers
    for (int k0 = 0; k0 < K; k0 += rb::BK) {
        float4 a, b;
        fetch_tile(A, B, M, N, K, lda, ldb, block_row, block_col, k0, f, a, b);
        stash_tile<PITCH_A, PITCH_B>(As, Bs, f, a, b);
        __syncthreads();                     // the K tile is complete in shared memory
        micro_kernel_tile<PITCH_A, PITCH_B, USE_PTX>(As, Bs, acc, tx, ty);
        __syncthreads();                     // everyone is done with it before the next fetch
    }
    // [end-region: main-loop]

    store_micro_tile(C, M, N, ldc, block_row, block_col, acc, tx, ty, alpha, beta);
}

// [region: variants]
extern "C" __global__ void __launch_bounds__(rb::THREADS)
sgemm_register_blocking(SGEMM_ARGS) { sgemm_register_blocking_body<RB_PAD, false>(SGEMM_PASS); }

extern "C" __global__ void __launch_bounds__(rb::THREADS)
sgemm_register_blocking_padded(SGEMM_ARGS) { sgemm_register_blocking_body<1, true>(SGEMM_PASS); }
// [end-region: variants]
