"""The learner's kernel as PTX (NVRTC ahead of time, no GPU): its parameter list, and which kernel
argument each wide global load, wide store or asynchronous copy serves.

Why PTX: the parameter list there is the ABI the launch relies on (.u64 for a pointer, .u32 for an
int, .f32 for a float), and every register is named, so following where an address came from is a
small data-flow pass, where SASS would need a disassembler's register allocation undone.

    signature_problem(spec, ptx_text, source)   Korean message, or None when the list is right
    operand_uses(ptx_text, entry)               {"LDG.E.128": {"A", "C"}, "LDGSTS": {...}, ...}

The data-flow pass is a may-analysis over the whole function, flow-insensitive (loops need nothing
special): a register derives from kernel argument i when any instruction writes it from a register
that does. A value loaded from memory is data, not an address (except through .local memory, where
NVVM keeps a pointer it could not keep in a register). Calls to .func helpers pass the taint along
their parameters. It errs on the side of "this load serves A", never the other way.
"""
from __future__ import annotations

import ctypes
import functools
import re

from kernels.errors import CompileError

PTX_ARCH = "compute_90"
NVRTC_OPTIONS = ("-std=c++17", "-ftz=true")
# The exercise signature: (const float* A, const float* B, float* C, int M, int N, int K,
#                          int lda, int ldb, int ldc, float alpha, float beta)
EXPECTED = (("A", "pointer"), ("B", "pointer"), ("C", "pointer"), ("M", "int"), ("N", "int"), ("K", "int"),
            ("lda", "int"), ("ldb", "int"), ("ldc", "int"), ("alpha", "float"), ("beta", "float"))
OPERAND_NAMES = ("A", "B", "C")
KIND_TEXT = {"pointer": "포인터", "int": "int", "float": "float"}
_PARAM_TYPE = {"u64": "pointer", "b64": "pointer", "s64": "pointer", "u32": "int", "s32": "int", "b32": "int",
               "f32": "float"}
_REG = re.compile(r"%[A-Za-z_][\w$]*")


@functools.lru_cache(maxsize=64)
def compile_ptx(source: str, name: str, arch: str = PTX_ARCH) -> str:
    """PTX of a source (CompileError with NVRTC's log when it does not compile)."""
    from kernels.compiler import _check, _nvrtc

    lib = _nvrtc()
    prog = ctypes.c_void_p()
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None))
    try:
        opts = [f"-arch={arch}".encode(), *(o.encode() for o in NVRTC_OPTIONS)]
        _check(lib, lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts)), prog)
        size = ctypes.c_size_t()
        _check(lib, lib.nvrtcGetPTXSize(prog, ctypes.byref(size)))
        buf = ctypes.create_string_buffer(size.value)
        _check(lib, lib.nvrtcGetPTX(prog, buf))
        return buf.value.decode(errors="replace")
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


# ----------------------------------------------------------------------------- functions and parameters

def _functions(ptx: str) -> dict[str, tuple[list[str], str]]:
    """{name: (declared parameter lines, body)} of every .entry and .func with a body."""
    found = {}
    for m in re.finditer(r"\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)\s*\(([^)]*)\)", ptx):
        name, params = m.group(1), [p.strip() for p in m.group(2).split(",") if p.strip()]
        start = ptx.find("{", m.end())
        semicolon = ptx.find(";", m.end())
        if start == -1 or (semicolon != -1 and semicolon < start):
            continue                       # a declaration (prototype) without a body
        depth, i = 0, start
        while i < len(ptx):
            depth += {"{": 1, "}": -1}.get(ptx[i], 0)
            if depth == 0:
                break
            i += 1
        found[name] = (params, ptx[start + 1:i])
    return found


def _param_name(line: str) -> str:
    return re.split(r"\s+", line.strip())[-1].split("[")[0]


def entry_params(ptx: str, entry: str) -> list[str] | None:
    """Kinds of the entry's parameters ("pointer", "int", "float" or "other:<ptx type>"); None if absent."""
    function = _functions(ptx).get(entry)
    if function is None:
        return None
    kinds = []
    for line in function[0]:
        m = re.search(r"\.param\s+\.(\w+)", line)
        ptx_type = m.group(1) if m else "b8"
        if "[" in line or ptx_type not in _PARAM_TYPE:
            kinds.append(f"other:{line.split()[-1] if not m else ptx_type}")
        else:
            kinds.append(_PARAM_TYPE[ptx_type])
    return kinds


def _source_params(source: str, entry: str) -> str | None:
    """The entry's parameter list as written (comments removed), for the message; None when not found."""
    from course.autograder.learner import strip_comments

    text = strip_comments(source)
    m = re.search(r"__global__[^;{]*?\b" + re.escape(entry) + r"\s*\(([^)]*)\)", text, re.S)
    return " ".join(m.group(1).split()) if m else None


def _pointer_types(params_text: str) -> list[str]:
    """Element types of the pointer parameters in a written list, e.g. ["float", "float", "double"]."""
    out = []
    for part in params_text.split(","):
        if "*" in part:
            words = [w for w in re.findall(r"[A-Za-z_]\w*", part.split("*")[0])
                     if w not in ("const", "volatile", "__restrict__", "__restrict", "restrict")]
            out.append(words[-1] if words else "?")
    return out


_MODULE_VARIABLE = re.compile(r"^(?:\.(?:visible|weak|extern)\s+)*\.global\s+[^(]*?([A-Za-z_$][\w$]*)\s*(?:\[[^\]]*\])?\s*(?:=[^;]*)?;", re.M)


def module_variables(ptx: str) -> list[str]:
    """Names of the variables a source keeps in global memory outside every kernel (`__device__ int n;` and
    the like) that the code may write: state that outlives a launch. A variable the code only loads from, or
    never names (a namespace-scope constexpr NVRTC still emits), cannot carry anything from one launch to the
    next. Constants (`__constant__`, .const) and shared memory are not global variables; the compiler's own
    read-only data (printf's format strings, named $str...) is left out."""
    body = ptx.splitlines()
    found = []
    for name in _MODULE_VARIABLE.findall(ptx):
        if name.startswith("$"):
            continue
        token = re.compile(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])")
        uses = [line.strip() for line in body if token.search(line) and not _MODULE_VARIABLE.match(line.strip())]
        if any(not use.startswith("ld.") for use in uses):   # stored to, atomically updated, or its address taken
            found.append(name)
    return found


def signature_problem(entry: str, ptx: str, source: str, expected: tuple = EXPECTED,
                      wanted_text: str | None = None) -> str | None:
    """Why the entry's parameters are not the exercise's (default: A, B, C, M, N, K, lda, ldb, ldc, alpha, beta).
    wanted_text: the declaration as the learner should write it (default: the SGEMM one)."""
    kinds = entry_params(ptx, entry)
    if kinds is None:
        return None                        # no entry at all: the compile check says so
    written = _source_params(source, entry)
    expected_kinds = [k for _, k in expected]
    problems = []
    if kinds != expected_kinds:
        if len(kinds) != len(expected_kinds):
            problems.append(f"매개변수가 {len(kinds)}개입니다 ({len(expected_kinds)}개여야 합니다)")
        for i, (want, got) in enumerate(zip(expected, kinds), 1):
            if got != want[1]:
                problems.append(f"{i}번째 매개변수({want[0]} 자리)가 {KIND_TEXT.get(got, got)}입니다 "
                                f"({KIND_TEXT[want[1]]}여야 합니다)")
                break
    elif written is not None:
        odd = [t for t in _pointer_types(written) if t not in ("float", "?")]
        if odd:
            problems.append(f"포인터가 float가 아닌 {odd[0]}를 가리킵니다")
    if not problems:
        return None
    shown = f" 지금의 목록: ({written})." if written else ""
    return ("커널의 매개변수 목록(parameter list)이 실습과 다릅니다 (wrong signature): " + "; ".join(problems) + "."
            + shown + f" 검사기는 {wanted_text or _sgemm_text(entry)}로 실행하므로, 목록이 다르면 "
            "인자가 엉뚱한 자리에 들어갑니다. 이름과 순서, 타입을 그대로 맞추세요.")


def _sgemm_text(entry: str) -> str:
    return (f'extern "C" __global__ void {entry}(const float* A, const float* B, float* C, '
            "int M, int N, int K, int lda, int ldb, int ldc, float alpha, float beta)")


# ----------------------------------------------------------------------------- data flow

def _statements(body: str) -> list[str]:
    body = re.sub(r"//[^\n]*", "", body)
    out = []
    for raw in body.split(";"):
        text = re.sub(r"^[\s{}]+", "", raw).strip()            # scope braces of inline asm blocks
        text = re.sub(r"^(?:[\w$]+:\s*)+", "", text)            # labels
        text = re.sub(r"^@!?%\w+\s+", "", text)                 # predicate guard
        if text and not text.startswith("."):
            out.append(text)
    return out


def _split_operands(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def _rule_of(opcode: str, operands: list[str]) -> str | None:
    """The SASS rule an instruction becomes (LDG.E.128, STG.E.128, LDGSTS), or None."""
    parts = opcode.split(".")
    wide = any(p == "v4" for p in parts) and any(p in ("f32", "b32", "u32", "s32") for p in parts) \
        or any(p == "v2" for p in parts) and any(p in ("f64", "b64", "u64", "s64") for p in parts) \
        or "b128" in parts
    if opcode.startswith("ld.global") and wide:
        return "LDG.E.128"
    if opcode.startswith("st.global") and wide:
        return "STG.E.128"
    if opcode.startswith("cp.async.") and "shared" in opcode and "global" in opcode and "bulk" not in opcode:
        return "LDGSTS"
    return None


class _Flow:
    """Which kernel arguments every register may derive from (per function, over calls)."""

    def __init__(self, functions: dict, entry: str):
        self.functions, self.entry = functions, entry
        self.taint: dict[str, set] = {}          # "function:%reg" or "function:param" -> {argument index}
        self.parsed = {name: [self._parse(s) for s in _statements(body)] for name, (_, body) in functions.items()}

    @staticmethod
    def _parse(statement: str) -> tuple[str, list[str]]:
        parts = re.split(r"\s+", statement, maxsplit=1)
        return parts[0], _split_operands(parts[1] if len(parts) > 1 else "")

    def _get(self, fn: str, names) -> set:
        out = set()
        for name in names:
            out |= self.taint.get(f"{fn}:{name}", set())
        return out

    def _add(self, fn: str, names, values: set) -> bool:
        changed = False
        for name in names:
            key = f"{fn}:{name}"
            before = self.taint.setdefault(key, set())
            if not values <= before:
                before |= values
                changed = True
        return changed

    def run(self) -> None:
        params = [_param_name(p) for p in self.functions[self.entry][0]]
        for i, name in enumerate(params):
            self.taint[f"{self.entry}:{name}"] = {i}
        for _ in range(100):
            if not any(self._step(fn, ins) for fn, instructions in self.parsed.items() for ins in instructions):
                return

    def _step(self, fn: str, instruction) -> bool:
        opcode, ops = instruction
        if not ops:
            return False
        if opcode.startswith("call"):
            return self._call(fn, ops)
        address = re.match(r"^\[\s*([\w$%]+)", ops[-1]) if len(ops) > 1 else None
        if opcode.startswith("ld.param") and address:
            return self._add(fn, _REG.findall(ops[0]), self._get(fn, [address.group(1)]))
        if opcode.startswith("st.param"):
            target = re.match(r"^\[\s*([\w$]+)", ops[0])
            return bool(target) and self._add(fn, [target.group(1)], self._get(fn, _REG.findall(" ".join(ops[1:]))))
        if opcode.startswith("st.local"):
            return self._add(fn, ["<local>"], self._get(fn, _REG.findall(" ".join(ops[1:]))))
        if opcode.startswith("ld.local"):
            return self._add(fn, _REG.findall(ops[0]), self._get(fn, ["<local>"]))
        if opcode.startswith(("ld.", "ldu.", "st.", "cp.", "atom.", "red.", "bar", "bra", "ret", "setp", "membar",
                              "fence", "prefetch")):
            return False
        return self._add(fn, _REG.findall(ops[0]), self._get(fn, _REG.findall(" ".join(ops[1:]))))

    def _call(self, fn: str, ops: list[str]) -> bool:
        """call (ret), callee, (arg0, arg1): the callee's parameters take the arguments' taint."""
        names = [o for o in ops if not o.startswith("(")]
        callee = names[0] if names else None
        args = next((o for o in reversed(ops) if o.startswith("(")), "()")
        if callee not in self.functions:
            return False
        formal = [_param_name(p) for p in self.functions[callee][0]]
        actual = [a.strip() for a in args.strip("()").split(",") if a.strip()]
        changed = False
        for name, arg in zip(formal, actual):
            changed |= self._add(callee, [name], self._get(fn, [arg]))
        returned = ops[0].strip("() ") if ops[0].startswith("(") and len(ops) > 2 else None
        if returned:      # a pointer handed back: st.param [func_retval0] in the callee, ld.param [retval0] here
            changed |= self._add(fn, [returned], self._get(callee, ["func_retval0"]))
        return changed

    def uses(self) -> dict[str, set]:
        found: dict[str, set] = {}
        for fn, instructions in self.parsed.items():
            for opcode, ops in instructions:
                rule = _rule_of(opcode, ops)
                if rule is None:
                    continue
                where = ops[0] if rule == "STG.E.128" else (ops[1] if len(ops) > 1 else "")
                indexes = self._get(fn, _REG.findall(where.split("+")[0]))
                found.setdefault(rule, set()).update(OPERAND_NAMES[i] for i in indexes if i < len(OPERAND_NAMES))
        return found


def operand_uses(ptx: str, entry: str) -> dict[str, set] | None:
    """{rule: operands it serves} for the rules PTX can attribute; None when the entry is missing."""
    functions = _functions(ptx)
    if entry not in functions:
        return None
    flow = _Flow(functions, entry)
    flow.run()
    uses = flow.uses()
    return {rule: uses.get(rule, set()) for rule in ("LDG.E.128", "STG.E.128", "LDGSTS")}


def compile_for_checks(source: str, name: str) -> str | None:
    """PTX for the signature and operand checks, or None when NVRTC is not there (the checks are then skipped)."""
    try:
        return compile_ptx(source, name)
    except CompileError:
        return None
