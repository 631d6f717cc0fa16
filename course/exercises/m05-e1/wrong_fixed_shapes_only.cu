// Exercise m05-e1, known-wrong attempt.
// expected-diagnosis: wrong_values
// A kernel fitted to the checker's fixed shapes (M, N, K of every fixed case, the sanitizer and the
// repeated-run cases, all visible in course/autograder/cases.py for a 16 x 16 tile): on those it is
// right, on any other shape it drops the last k. The shapes drawn from each run's seed (the timed
// one too) are not in its list.

__constant__ int known_shapes[20][3] = {{1, 1, 1}, {7, 5, 3}, {33, 65, 17}, {17, 19, 19}, {32, 32, 64},
                                         {16, 16, 32}, {129, 257, 63}, {41, 43, 151}, {19, 17, 21}, {33, 21, 37},
                                         {23, 35, 29}, {53, 35, 5}, {21, 19, 4133}, {35, 25, 69}, {25, 33, 41},
                                         {19, 21, 72}, {15, 31, 41}, {19, 21, 5}, {1027, 1029, 288},
                                         {1027, 1029, 5}};

__device__ bool known_shape(int M, int N, int K)
{
    const int (*shapes)[3] = known_shapes;
    for (int i = 0; i < 20; ++i)
        if (shapes[i][0] == M && shapes[i][1] == N && shapes[i][2] == K) return true;
    return false;
}

extern "C" __global__ void my_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K,
                                    int lda, int ldb, int ldc, float alpha, float beta)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;

    const int k_end = known_shape(M, N, K) ? K : K - 1;
    float acc = 0.0f;
    for (int k = 0; k < k_end; ++k)
        acc += A[(size_t)row * lda + k] * B[(size_t)k * ldb + col];

    float* c = C + (size_t)row * ldc + col;
    float out = alpha * acc;
    if (beta != 0.0f) out += beta * *c;
    *c = out;
}
