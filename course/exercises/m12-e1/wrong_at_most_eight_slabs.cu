// Exercise m12-e1, known-wrong attempt.
// expected-diagnosis: wrong_values
// Each half adds at most four slabs (the loop unrolled four times, "split-K never uses more than 8
// slabs"): right for S <= 8, and slabs 8 and up are dropped past that. The checker drew S <= 8; a
// fixed case with 19 slabs and drawn ones up to 24 are now among its cases.

#define COLS 16
#define ROWS 8

extern "C" __global__ void my_reduce(const float* __restrict__ P, float* __restrict__ C, int M, int N,
                                     int ldp, int ldc, int S, float alpha, float beta)
{
    __shared__ float odd_sum[ROWS][COLS];

    const int tx = threadIdx.x, half = threadIdx.y / ROWS, r = threadIdx.y % ROWS;
    const int row = blockIdx.y * ROWS + r, col = blockIdx.x * COLS + tx;
    const bool inside = row < M && col < N;
    const size_t slab = (size_t)M * ldp;

    // Each half adds its slabs in increasing order: a fixed order, so the result is the same on every run.
    float part = 0.0f;
    if (inside)
#pragma unroll
        for (int i = 0; i < 4; ++i) {          // the bug: slabs half, half + 2, half + 4, half + 6 only
            const int s = half + 2 * i;
            if (s < S) part += P[s * slab + (size_t)row * ldp + col];
        }

    if (half == 1) odd_sum[r][tx] = part;
    __syncthreads();                       // every thread gets here: no early return above
    if (half == 1 || !inside) return;

    // alpha and beta exactly once, after the whole sum; beta = 0 never reads C (it may hold NaN).
    float* c = C + (size_t)row * ldc + col;
    const float total = part + odd_sum[r][tx];
    *c = beta != 0.0f ? alpha * total + beta * *c : alpha * total;
}
