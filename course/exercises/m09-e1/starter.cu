// Exercise m09-e1: a ring of 3 shared-memory stages filled by cp.async (asynchronous copy).
// The tiles reach shared memory without passing through registers, STAGES - 1 tiles ahead of the
// compute. Given: the cp.async wrappers, the copy plan, the micro-kernel and the store. To write:
// the two copy calls in issue_tile, and the commit/wait ring in the kernel, including its tail.
// Tiles and micro-kernel as in m07-e1 (128 x 128 block tile, K tiles of 8, 8 x 8 thread tile).
// Launch: block (16, 16); grid (ceil(N / 128), ceil(M / 128)); compute capability 8.0 or newer.
// Any M and K; N, ldb and ldc multiples of 4 and 16-byte aligned B and C (B travels in 16-byte
// copies, C in float4 stores). A travels in 4-byte copies, so lda may be anything.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define HALF 64
#define STAGES 3          // shared-memory stages in the ring
#define PITCH_A (BM + 4)  // As row pitch: +4 floats puts the 32 copies of a warp into 32 banks

// ---- cp.async in three small wrappers (PTX; below compute capability 8.0 a plain copy) ----------

// 4-byte copy global -> shared that does not pass through registers. With inside == false the
// source size is 0: nothing is read and the destination becomes 0.
__device__ __forceinline__ void copy_async_4(float* dst, const float* src, bool inside)
{
#if __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" :: "r"(d), "l"(src), "r"(inside ? 4 : 0) : "memory");
#else
    *dst = inside ? *src : 0.0f;
#endif
}

// 16-byte copy (cp.async.cg); dst and src 16-byte aligned.
__device__ __forceinline__ void copy_async_16(float* dst, const float* src, bool inside)
{
#if __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(d), "l"(src), "r"(inside ? 16 : 0) : "memory");
#else
    *reinterpret_cast<float4*>(dst) = inside ? *reinterpret_cast<const float4*>(src) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#endif
}

// Closes the copies this thread issued since its last commit into one group (possibly empty).
__device__ __forceinline__ void commit_copies()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most PENDING of this thread's most recently committed groups are unfinished.
template <int PENDING>
__device__ __forceinline__ void wait_copies()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" :: "n"(PENDING) : "memory");
#endif
}

// ---- the ring ------------------------------------------------------------------------------------

struct Ring {
    float (*As)[BK][PITCH_A];   // As[stage][k][m]: A tiles, transposed
    float (*Bs)[BK][BN];        // Bs[stage][k][n]
};

// Which copies this thread issues for every K tile, worked out once. A: 4 copies of 4 bytes; a warp
// copies 4 rows x 8 consecutive k per instruction (lane: row lane / 8, k lane % 8), the thread's
// 4 rows 32 apart. B: one 16-byte copy (row tid / 32, columns (tid % 32) * 4 .. +3).
struct CopyPlan {
    const float* a_src;     // A[row0 + a_m][a_k]: the first A copy of K tile 0
    const float* b_src;     // B[b_k][col0 + b_n]: the B copy of K tile 0
    int a_row_step;         // floats between the thread's A rows (32 rows)
    int a_m, a_k, b_k, b_n; // positions inside the tiles
    unsigned a_rows_inside; // bit g: A row a_m + 32 g lies inside A
    bool b_cols_inside;
};

__device__ __forceinline__ CopyPlan make_plan(const float* A, const float* B, int M, int N, int lda, int ldb,
                                              int row0, int col0, int tid)
{
    CopyPlan p;
    const int lane = tid % 32, warp = tid / 32;
    p.a_m = warp * 4 + lane / 8;
    p.a_k = lane % 8;
    p.a_rows_inside = 0;
#pragma unroll
    for (int g = 0; g < 4; ++g)
        p.a_rows_inside |= (unsigned)(row0 + p.a_m + 32 * g < M) << g;
    p.a_src = A + (size_t)min(row0 + p.a_m, M - 1) * lda + p.a_k;   // a real address even outside
    p.a_row_step = 32 * lda;
    p.b_k = tid / 32;
    p.b_n = (tid % 32) * 4;
    p.b_cols_inside = col0 + p.b_n < N;
    p.b_src = B + (size_t)p.b_k * ldb + (p.b_cols_inside ? col0 + p.b_n : 0);
    return p;
}

// The copies of the K tile at k0 into one stage. Outside the matrices the source size is 0: the
// stage gets zeros and nothing is read (src then points at the start of A or B).
__device__ __forceinline__ void issue_tile(const Ring& ring, int stage, const CopyPlan& p, const float* A,
                                           const float* B, int K, int ldb, int k0)
{
    const bool a_k_inside = k0 + p.a_k < K;
#pragma unroll
    for (int g = 0; g < 4; ++g) {
        const bool inside = a_k_inside && ((p.a_rows_inside >> g) & 1u);
        const float* src = inside ? p.a_src + g * p.a_row_step + k0 : A;
        float* dst = &ring.As[stage][p.a_k][p.a_m + 32 * g];
        // 할 일 1: src에서 dst로 4바이트를 비동기 복사(copy_async_4)로 발행하세요. inside가 거짓이면
        //          아무것도 읽지 않고 0이 들어갑니다.
        (void)dst; (void)src;
    }
    const bool inside = p.b_cols_inside && k0 + p.b_k < K;
    const float* src = inside ? p.b_src + (size_t)k0 * ldb : B;
    float* dst = &ring.Bs[stage][p.b_k][p.b_n];
    // 할 일 2: B는 16바이트 비동기 복사(copy_async_16) 하나입니다.
    (void)dst; (void)src;
}

// The micro-kernel of m07-e1 over the K tile in one stage.
__device__ __forceinline__ void compute_tile(const Ring& ring, int stage, float (&acc)[TM][TN], int tx, int ty)
{
#pragma unroll
    for (int k = 0; k < BK; ++k) {
        float a[TM], b[TN];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            a[i] = ring.As[stage][k][ty * 4 + i];
            a[4 + i] = ring.As[stage][k][HALF + ty * 4 + i];
            b[i] = ring.Bs[stage][k][tx * 4 + i];
            b[4 + i] = ring.Bs[stage][k][HALF + tx * 4 + i];
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j)
                acc[i][j] += a[i] * b[j];
    }
}

// C = alpha * acc + beta * C for the 8 x 8 thread tile, as 16 float4 stores.
__device__ __forceinline__ void store_tile(float* C, int M, int N, int ldc, int row0, int col0, int tx, int ty,
                                           const float (&acc)[TM][TN], float alpha, float beta)
{
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = row0 + ((i < 4) ? ty * 4 + i : HALF + ty * 4 + (i - 4));
        if (row >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int col = col0 + h * HALF + tx * 4;
            if (col >= N) continue;
            float4* dst = reinterpret_cast<float4*>(C + (size_t)row * ldc + col);
            float4 out = make_float4(alpha * acc[i][4 * h + 0], alpha * acc[i][4 * h + 1],
                                     alpha * acc[i][4 * h + 2], alpha * acc[i][4 * h + 3]);
            if (beta != 0.0f) {   // C is read only when beta != 0
                const float4 old = *dst;
                out.x += beta * old.x; out.y += beta * old.y; out.z += beta * old.z; out.w += beta * old.w;
            }
            *dst = out;
        }
    }
}

extern "C" __global__ void __launch_bounds__(256, 2)
my_sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
         int M, int N, int K, int lda, int ldb, int ldc, float alpha, float beta)
{
    __shared__ __align__(16) float As[STAGES][BK][PITCH_A];
    __shared__ __align__(16) float Bs[STAGES][BK][BN];
    const Ring ring{As, Bs};

    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int num_tiles = (K + BK - 1) / BK;
    const CopyPlan plan = make_plan(A, B, M, N, lda, ldb, row0, col0, tid);

    // 할 일 3 (프롤로그, prologue): 타일 0 .. STAGES-2를 스테이지(stage) 0 .. STAGES-2에 발행하고
    //          (issue_tile(ring, s, plan, A, B, K, ldb, s * BK)), 타일마다 commit_copies()로 그룹을 하나씩 닫으세요.
    //          K가 작아서 타일이 그보다 적을 때는 발행하지 않지만, 커밋은 그래도 합니다. 그래야 "그룹 g = 타일 g"가
    //          언제나 성립합니다.

    float acc[TM][TN] = {};
    for (int t = 0; t < num_tiles; ++t) {
        // 할 일 4 (링, ring): 타일 t를 계산하기 전에
        //   (1) wait_copies<N>()으로 타일 t의 그룹이 끝났음을 보장하세요. 지금까지 커밋된 그룹은
        //       0 .. t + STAGES - 2입니다. 가장 최근 몇 개까지는 아직 진행 중이어도 될까요?
        //   (2) __syncthreads()로 모든 스레드의 몫이 도착했고, 모두 타일 t - 1의 계산을 마쳤음을 확인하고,
        //   (3) 타일 t + STAGES - 1이 있으면 그 타일을 스테이지 (t + STAGES - 1) % STAGES(타일 t - 1이 쓰던 스테이지)에
        //       발행하고,
        //   (4) commit_copies()를 부르세요. 꼬리(tail)에서 발행할 타일이 없어도 커밋은 언제나 합니다.
        compute_tile(ring, t % STAGES, acc, tx, ty);
    }
    // 할 일 5: 블록이 끝날 때 진행 중인 복사가 남지 않게 모든 그룹을 기다리세요.

    store_tile(C, M, N, ldc, row0, col0, tx, ty, acc, alpha, beta);
}
