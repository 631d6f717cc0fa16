// Level 4: double buffering (software pipelining through registers).
//
// The tiles and the micro-kernel are those of Level 3. What changes is the schedule: two
// shared buffers alternate. While the block computes K tile kt from buffer kt % 2, the
// global loads of tile kt + 1 are already in flight into registers; after the compute
// the registers are stored into the other buffer, and ONE barrier ends the iteration.
// Launch and constraints as Level 3. Shared memory: 2 x (8 x 128 + 8 x 128) x 4 B = 16 KiB.
#include "sgemm_common.cuh"

// __launch_bounds__(256, 2): at most 128 registers per thread, so that two blocks fit on an SM.
extern "C" __global__ void __launch_bounds__(rb::THREADS, 2)
sgemm_double_buffer(SGEMM_ARGS)
{
    constexpr int TILE_A = rb::BK * rb::BM, TILE_B = rb::BK * rb::BN;
    // [region: shared-buffers]
    __shared__ __align__(16) float As[2][TILE_A];
    __shared__ __align__(16) float Bs[2][TILE_B];
    // [end-region: shared-buffers]

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int block_row = block_y() * rb::BM, block_col = blockIdx.x * rb::BN;   // y continues in z
    const TileFetch f = tile_fetch_map(ty * blockDim.x + tx);
    const int num_tiles = (K + rb::BK - 1) / rb::BK;

    // [region: prologue]
    float4 a, b;
    fetch_tile(A, B, M, N, K, lda, ldb, block_row, block_col, 0, f, a, b);
    stash_tile<rb::BM, rb::BN>(As[0], Bs[0], f, a, b);
    __syncthreads();
    // [end-region: prologue]

    // [region: pipelined-loop]
    float acc[rb::TM][rb::TN] = {};
    int kt = 0;
    // Steady state: there is always a next tile, so the loop body has no branch and the
    // compiler is free to start the loads of tile kt + 1 before the 512 FMAs of tile kt.
    for (; kt + 1 < num_tiles; ++kt) {
        const int cur = kt & 1;
        fetch_tile(A, B, M, N, K, lda, ldb, block_row, block_col, (kt + 1) * rb::BK, f, a, b);
        micro_kernel_tile<rb::BM, rb::BN, false>(As[cur], Bs[cur], acc, tx, ty);
        // Buffer cur ^ 1 was last read in iteration kt - 1, before that iteration's barrier.
        stash_tile<rb::BM, rb::BN>(As[cur ^ 1], Bs[cur ^ 1], f, a, b);
        __syncthreads();   // one barrier: publishes tile kt + 1 and retires the reads of tile kt
    }
    // The last tile: nothing left to prefetch.
    micro_kernel_tile<rb::BM, rb::BN, false>(As[kt & 1], Bs[kt & 1], acc, tx, ty);
    // [end-region: pipelined-loop]

    store_micro_tile(C, M, N, ldc, block_row, block_col, acc, tx, ty, alpha, beta);
}
