// Exercise m12-e1, known-wrong attempt.
// expected-diagnosis: wrong_values
// alpha is applied to every slab as it is added, and then once more to the total: the sum is scaled
// by alpha * alpha. Right only where alpha is 1 (or 0).

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
        for (int s = half; s < S; s += 2) part += alpha * P[s * slab + (size_t)row * ldp + col];

    if (half == 1) odd_sum[r][tx] = part;
    __syncthreads();                       // every thread gets here: no early return above
    if (half == 1 || !inside) return;

    // alpha and beta exactly once, after the whole sum; beta = 0 never reads C (it may hold NaN).
    float* c = C + (size_t)row * ldc + col;
    const float total = part + odd_sum[r][tx];
    *c = beta != 0.0f ? alpha * total + beta * *c : alpha * total;
}
