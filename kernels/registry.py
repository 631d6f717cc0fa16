"""Every kernel of the course, described once: where it lives, how it is launched, what it needs.

The launcher, the correctness harness, the benchmark, the SASS inspection and the book all
read this table; nothing else in the package knows a kernel's launch shape.
"""
from __future__ import annotations

from dataclasses import dataclass, field

KERNEL_DIR_NAME = "kernels"


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


# A grid holds up to 2^31 - 1 blocks along x and 65,535 along y and along z (every CUDA GPU since cc 3.0).
GRID_X_MAX = 2**31 - 1
GRID_YZ_MAX = 65535
INT32_MAX = 2**31 - 1       # kernels index with int: sizes, leading dimensions and tile coordinates stay below
# The most blocks fold() puts along y before z takes over: the grid's limit. The sanitizer scripts and tests
# lower it (to 3, say) so that small C's take the path of a C more than 65,535 tiles tall.
GRID_Y_FOLD = GRID_YZ_MAX


def fold(blocks: int, y_max: int | None = None) -> tuple[int, int]:
    """(gridDim.y, gridDim.z) for `blocks` positions along y: y alone while they fit, else spread over y and z
    with y x z >= blocks and as few extra positions as z allows (the kernels read block_y(), sgemm_common.cuh).

    y_max: the most blocks along y (default GRID_Y_FOLD, read at call time)."""
    y_max = GRID_Y_FOLD if y_max is None else y_max
    if blocks <= y_max:
        return blocks, 1
    z = _cdiv(blocks, y_max)
    return _cdiv(blocks, z), z


@dataclass(frozen=True)
class KernelSpec:
    """One compiled entry point and everything needed to launch it correctly."""

    name: str                      # extern "C" entry name, also the registry key
    file: str                      # .cu file under kernels/
    level: int                     # course level 0..7
    variant: str                   # short variant label
    title_ko: str                  # Korean description for tables
    block: tuple[int, int]         # (blockDim.x, blockDim.y)
    tile: tuple[int, int]          # (rows of C, columns of C) covered by one block
    grid_rows_from_x: bool = False # True when blockIdx.x walks the rows of C (strided mapping)
    # Operands read or written as float4 along their rows ("A": K and lda multiples of 4; "B"/"C":
    # N and ldb/ldc multiples of 4; all: 16-byte aligned). The launcher stages operands that are not.
    vec4: tuple = ()
    async_copy: bool = False       # uses cp.async when compute capability >= 8.0
    static_smem: int = 0           # bytes of static shared memory (checked against ptxas)
    dynamic_smem: int = 0          # bytes of dynamic shared memory per block (extern __shared__)
    chapter: int = 4               # module (chapter) that teaches it
    notes: tuple[str, ...] = field(default_factory=tuple)
    # What the recording tools do with it (kernels.record, tools/profile_levels.py), so that no tool keeps
    # its own list of kernels:
    awkward_shapes: bool = False   # also timed at record.AWKWARD_SHAPES (N or K not a multiple of 4)
    paired_with: tuple[str, ...] = ()   # older kernels it is timed against in direct alternation
    profiled: bool = True          # profiled by tools/profile_levels.py (Nsight Compute)
    # A kernel whose shape follows the device (Levels 5 and 6): its family ("level5", "level6"), the whole
    # configuration as sorted (knob, value) pairs, and the -D defines that differ from the .cu defaults
    # (none for the shipped H100 configuration, so its source and SASS are exactly the file's).
    family: str = ""
    config: tuple = ()
    defines: tuple = ()
    benchmarked: bool = True       # timed by `python -m kernels record` (benchmarks.json)
    # A module of kernels/ whose prepare_launch(name, plan, A, B, C) builds the launch, for a kernel whose
    # tile, grid and companion kernels depend on the shape and the GPU (Level 7); None: the fields above.
    dispatch: str | None = None
    # Offsets the kernel computes in 32-bit int: (operand, rows) pairs, each meaning "rows x that operand's
    # leading dimension is an int product" (Levels 5 and 6 step their cp.async sources through a tile that
    # way). The launcher refuses a leading dimension that would overflow it. Every other offset of every
    # kernel is 64-bit (size_t), so operands above 2^31 elements are fine.
    int32_spans: tuple = ()

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1]

    def grid(self, M: int, N: int) -> tuple[int, int, int]:
        """Grid shape for an M x N output: tile columns on x, tile rows on y (swapped for the strided mapping),
        and y continued in z past GRID_YZ_MAX (see fold)."""
        rows, cols = self.tile
        if self.grid_rows_from_x:
            return (_cdiv(M, rows), *fold(_cdiv(N, cols)))
        return (_cdiv(N, cols), *fold(_cdiv(M, rows)))


_RB_TILE = (128, 128)
_FLOAT = 4
_ABC = ("A", "B", "C")   # every operand through float4
_BC = ("B", "C")         # A through 4-byte copies, B and C through float4

# Level 5's ring and Level 6's shape, as tools/tune_async.py and tools/tune_level6.py chose them on
# the H100 (book/data/async_tuning.json, book/data/level6_tuning.json). The .cu files carry the same
# values as their macro defaults (a CPU test checks both). Other GPUs get theirs from kernels/configs.py,
# and `configured(name, cfg)` below turns any configuration into the kernel's launch shape.
LEVEL5 = {"BK": 32, "STAGES": 2, "EARLY_BARRIER": 0}
LEVEL6 = {"BM": 128, "BN": 256, "BK": 32, "WM": 64, "WN": 64, "TM": 8, "TN": 16, "STAGES": 4, "GROUP": 8,
          "FRAG_PREFETCH": 1, "ROLL": 0, "LANE_ORDER": 0, "SPREAD": 0, "MIN_BLOCKS": 1}
LEVEL5_MIN_BLOCKS = 2   # __launch_bounds__(256, L5_MIN_BLOCKS): Level 5 is built for two resident blocks
# The knobs of each family and the prefix of their macros (L5_BK, L6_STAGES, ...).
FAMILY_DEFAULTS = {"level5": LEVEL5, "level6": LEVEL6}
MACRO_PREFIX = {"level5": "L5_", "level6": "L6_"}


def level5_smem(cfg: dict) -> int:
    """Dynamic shared memory of one Level 5 block: STAGES x BK x (128 + 4 + 128) floats."""
    return cfg["STAGES"] * cfg["BK"] * (128 + 4 + 128) * _FLOAT


def level6_threads(cfg: dict) -> int:
    return 32 * (cfg["BM"] // cfg["WM"]) * (cfg["BN"] // cfg["WN"])


def level6_smem(cfg: dict) -> int:
    """Dynamic shared memory of one block: STAGES x BK x (BM + 4 + BN) floats."""
    return cfg["STAGES"] * cfg["BK"] * (cfg["BM"] + 4 + cfg["BN"]) * _FLOAT


def config_defines(family: str, cfg: dict) -> dict:
    """The -D defines that turn the .cu defaults (the H100 configuration) into `cfg`."""
    defaults = FAMILY_DEFAULTS[family]
    unknown = set(cfg) - set(defaults)
    if unknown:
        raise ValueError(f"{family}: unknown knobs {sorted(unknown)}")
    return {MACRO_PREFIX[family] + k: v for k, v in sorted(cfg.items()) if defaults[k] != v}


def ring_text(cfg: dict) -> str:
    """A configuration's stage ring as a learner reads it, e.g. "BK 32, 스테이지 2개" (the course's word for a
    pipeline stage is 스테이지; 단계 is never used for it: book/appendix/models.md)."""
    return f"BK {cfg['BK']}, 스테이지 {cfg['STAGES']}개"


def _level5_spec(name: str, cfg: dict) -> KernelSpec:
    cfg = {**LEVEL5, **cfg}
    vec16 = name == "sgemm_async_copy_vec"
    title = (f"cp.async A 4바이트 + B 16바이트, {ring_text(cfg)}" if vec16
             else f"cp.async 4바이트(A·B), {ring_text(cfg)}")
    return KernelSpec(name, "sgemm_async_copy.cu", 5, "cp.async-16B" if vec16 else "cp.async-4B", title,
                      (16, 16), _RB_TILE, vec4=_BC if vec16 else ("C",), async_copy=True,
                      dynamic_smem=level5_smem(cfg), chapter=9, awkward_shapes=vec16,
                      paired_with=("sgemm_double_buffer",), family="level5", config=tuple(sorted(cfg.items())),
                      defines=tuple(config_defines("level5", cfg).items()),
                      int32_spans=(("A", _RB_TILE[0]), ("B", cfg["BK"])))


def _level6_spec(name: str, cfg: dict) -> KernelSpec:
    cfg = {**LEVEL6, **cfg}
    return KernelSpec(name, "sgemm_warp_tiling.cu", 6, "warp-tiling",
                      f"워프 타일링 {cfg['BM']}×{cfg['BN']} 블록, {cfg['TM']}×{cfg['TN']} 스레드 타일, {ring_text(cfg)}",
                      (level6_threads(cfg), 1), (cfg["BM"], cfg["BN"]), vec4=_BC, async_copy=True,
                      dynamic_smem=level6_smem(cfg), chapter=11, awkward_shapes=True,
                      paired_with=("sgemm_async_copy_vec",), family="level6", config=tuple(sorted(cfg.items())),
                      defines=tuple(config_defines("level6", cfg).items()),
                      int32_spans=(("A", cfg["BM"]), ("B", cfg["BK"])))


_BUILDERS = {"level5": _level5_spec, "level6": _level6_spec}

KERNELS: dict[str, KernelSpec] = {}


def _add(spec: KernelSpec) -> None:
    if spec.name in KERNELS:
        raise ValueError(f"duplicate kernel {spec.name}")
    KERNELS[spec.name] = spec


_add(KernelSpec("sgemm_naive", "sgemm_naive.cu", 0, "naive",
                "한 스레드가 C 원소 하나(naive)", (16, 16), (16, 16), chapter=4))
_add(KernelSpec("sgemm_naive_strided", "sgemm_naive.cu", 0, "strided",
                "threadIdx.x가 행을 고르는 반례(strided)", (16, 16), (16, 16),
                grid_rows_from_x=True, chapter=5))
_add(KernelSpec("sgemm_coalesced", "sgemm_coalesced.cu", 1, "float4",
                "1×4 스트립 + float4 로드(coalesced)", (16, 16), (16, 64), vec4=_ABC, chapter=5,
                awkward_shapes=True))
_add(KernelSpec("sgemm_tiled", "sgemm_tiled.cu", 2, "basic",
                "16×16 공유 메모리 타일(tiled)", (16, 16), (16, 16),
                static_smem=2 * 16 * 16 * _FLOAT, chapter=6))
_add(KernelSpec("sgemm_tiled_padded", "sgemm_tiled.cu", 2, "padded",
                "타일 +1 패딩(padded)", (16, 16), (16, 16),
                static_smem=2 * 16 * 17 * _FLOAT, chapter=6))
_add(KernelSpec("sgemm_tiled_ptx", "sgemm_tiled.cu", 2, "ptx-fma",
                "인라인 PTX fma.rn.f32", (16, 16), (16, 16),
                static_smem=2 * 16 * 16 * _FLOAT, chapter=6))
_add(KernelSpec("sgemm_tiled_colwalk", "sgemm_tiled.cu", 2, "column-walk",
                "워프가 As의 열을 읽는 배치(뱅크 충돌)", (16, 16), (16, 16),
                static_smem=2 * 16 * 16 * _FLOAT, chapter=6))
_add(KernelSpec("sgemm_tiled_colwalk_padded", "sgemm_tiled.cu", 2, "column-walk-padded",
                "열 읽기 배치 + 패딩(충돌 제거)", (16, 16), (16, 16),
                static_smem=2 * 16 * 17 * _FLOAT, chapter=6))
_add(KernelSpec("sgemm_register_blocking", "sgemm_register_blocking.cu", 3, "basic",
                "128×128 블록, 8×8 레지스터 타일", (16, 16), _RB_TILE, vec4=_ABC,
                static_smem=2 * 8 * 128 * _FLOAT, chapter=7, awkward_shapes=True))
_add(KernelSpec("sgemm_register_blocking_padded", "sgemm_register_blocking.cu", 3, "padded-ptx",
                "+1 패딩 + PTX FMA(반례)", (16, 16), _RB_TILE, vec4=_ABC,
                static_smem=2 * 8 * 129 * _FLOAT, chapter=7))
_add(KernelSpec("sgemm_double_buffer", "sgemm_double_buffer.cu", 4, "double-buffer",
                "더블 버퍼링(레지스터 프리페치)", (16, 16), _RB_TILE, vec4=_ABC,
                static_smem=2 * 2 * 8 * 128 * _FLOAT, chapter=8, awkward_shapes=True))
_add(_level5_spec("sgemm_async_copy", LEVEL5))
_add(_level5_spec("sgemm_async_copy_vec", LEVEL5))
_add(_level6_spec("sgemm_warp_tiling", LEVEL6))

# Level 7 (module 12): Level 6's code with compile-time tile knobs, split-K and predicated edges. The file's
# defaults are Level 6's tile and ring; kernels/level7.py compiles the form each shape needs and launches it
# with its own grid (dispatch), and tools/record_shapes.py records it (book/data/shapes.json).
LEVEL7_DEFAULT = {"BM": 128, "BN": 256, "BK": 32, "STAGES": 4}
_add(KernelSpec("sgemm_shape_aware", "sgemm_shape_aware.cu", 7, "shape-aware",
                "모양에 맞춘 타일·split-K 선택(shape-aware)", (256, 1), (LEVEL7_DEFAULT["BM"], LEVEL7_DEFAULT["BN"]),
                async_copy=True, dynamic_smem=level6_smem(LEVEL7_DEFAULT), chapter=12, profiled=False,
                benchmarked=False, dispatch="level7"))

# The kernel that stands for each level in level-to-level comparisons.
LEVEL_REPRESENTATIVE = {
    0: "sgemm_naive",
    1: "sgemm_coalesced",
    2: "sgemm_tiled",
    3: "sgemm_register_blocking",
    4: "sgemm_double_buffer",
    5: "sgemm_async_copy_vec",
    6: "sgemm_warp_tiling",
}

STATIC_SMEM_LIMIT = 48 * 1024


def awkward_kernels() -> tuple[str, ...]:
    """Kernels also recorded at the awkward shapes (KernelSpec.awkward_shapes), in registry order."""
    return tuple(name for name, spec in KERNELS.items() if spec.awkward_shapes)


def pairs() -> tuple[tuple[str, str], ...]:
    """(new, old) kernel pairs timed in direct alternation (KernelSpec.paired_with), in registry order."""
    return tuple((name, old) for name, spec in KERNELS.items() for old in spec.paired_with)


def profiled_kernels() -> tuple[str, ...]:
    """Kernels tools/profile_levels.py profiles by default (KernelSpec.profiled)."""
    return tuple(name for name, spec in KERNELS.items() if spec.profiled)


def benchmarked_kernels() -> tuple[str, ...]:
    """Kernels `python -m kernels record` times into benchmarks.json (KernelSpec.benchmarked)."""
    return tuple(name for name, spec in KERNELS.items() if spec.benchmarked)


def get(name: str) -> KernelSpec:
    """Look a kernel up by name, with a helpful error listing the known names."""
    from kernels.errors import KernelInputError

    try:
        return KERNELS[name]
    except KeyError:
        known = ", ".join(KERNELS)
        raise KernelInputError(
            f"알 수 없는 커널 이름(kernel name)입니다: {name!r}. 사용할 수 있는 이름: {known}"
        ) from None


def configurable() -> dict[str, str]:
    """Kernels whose configuration follows the device, with their family."""
    return {name: spec.family for name, spec in KERNELS.items() if spec.family}


def configured(name: str, cfg: dict) -> KernelSpec:
    """The registry's kernel `name` with configuration `cfg` (knobs left out keep the H100 values).

    For a kernel with no configuration (every level but 5 and 6) only an empty `cfg` is accepted.
    """
    spec = get(name)
    if not spec.family:
        if cfg:
            raise ValueError(f"{name} has no configuration to change")
        return spec
    return _BUILDERS[spec.family](name, cfg)


def files() -> list[str]:
    """The .cu files, in level order."""
    seen: list[str] = []
    for spec in sorted(KERNELS.values(), key=lambda s: s.level):
        if spec.file not in seen:
            seen.append(spec.file)
    return seen


def flops(M: int, N: int, K: int) -> float:
    """Floating-point operations of one SGEMM: one multiply and one add per (i, j, k)."""
    return 2.0 * M * N * K


def min_bytes(M: int, N: int, K: int, beta_nonzero: bool = False) -> float:
    """Fewest bytes any SGEMM must move: read A and B once, write C once (and read it if beta != 0)."""
    c_passes = 2 if beta_nonzero else 1
    return 4.0 * (M * K + K * N + c_passes * M * N)


def compulsory_intensity(M: int, N: int, K: int) -> float:
    """Arithmetic intensity with compulsory traffic only (FLOP per byte)."""
    return flops(M, N, K) / min_bytes(M, N, K)


__all__ = [
    "KernelSpec", "KERNELS", "LEVEL_REPRESENTATIVE", "STATIC_SMEM_LIMIT", "GRID_X_MAX", "GRID_YZ_MAX", "GRID_Y_FOLD", "INT32_MAX",
    "fold", "LEVEL5", "LEVEL6", "LEVEL5_MIN_BLOCKS",
    "FAMILY_DEFAULTS", "MACRO_PREFIX", "level5_smem", "level6_threads", "level6_smem", "config_defines", "ring_text",
    "configurable", "configured", "LEVEL7_DEFAULT",
    "get", "files", "awkward_kernels", "pairs", "profiled_kernels", "benchmarked_kernels", "flops", "min_bytes",
    "compulsory_intensity",
]
