"""The two checks that need no GPU: compile (NVRTC) and the SASS rules.

The learner's file is compiled ahead of time for a named architecture (kernels.compiler), so both
run on any machine with the pip NVRTC and cuobjdump packages. NVRTC's messages are kept (the
English text is what a search engine knows) and led by a Korean line that points at the learner's
own line numbers.
"""
from __future__ import annotations

import re
import struct

from course.autograder import ptx
from course.autograder.spec import ExerciseSpec
from course.autograder.verdict import CheckResult
from kernels.errors import CompileError

SASS_ARCH = "sm_90"          # the recorded device (H100); rules are stated for its machine code
_DIAG_LINE = re.compile(r"^(?P<file>[^\s()]+)\((?P<line>\d+)\): (?P<kind>error|warning|catastrophic error)"
                        r"(?: #\w+(?:-D)?)?: (?P<text>.*)$")
_WIDTH_MODIFIERS = {"64", "128", "U8", "S8", "U16", "S16"}
# Opcode groups every SASS result reports (rule syntax of rule_matches -> label for learners).
HIGHLIGHTS = {"LDG.E.128": "LDG.E.128(16바이트 로드)", "LDG.E.32": "LDG.E(4바이트 로드)", "LDGSTS": "LDGSTS(cp.async)",
              "LDS": "LDS", "STS": "STS", "FFMA": "FFMA", "BAR.SYNC": "BAR.SYNC", "LDL": "LDL", "STL": "STL"}

# Korean first aid for the NVRTC messages a learner meets most (pattern -> explanation).
_FIRST_AID = [
    (re.compile(r'identifier "(\w+)" is undefined'),
     "선언되지 않은 이름(identifier) {0}입니다. 철자, 선언 위치(블록 밖에서 선언했는지), 대소문자를 확인하세요."),
    (re.compile(r'expected a ";"'), "문장 끝의 세미콜론(;)이 빠진 것 같습니다 (바로 앞 줄도 보세요)."),
    (re.compile(r'expected a "[)\]}]"'), "괄호의 짝이 맞지 않습니다."),
    (re.compile(r"expected an expression"), "식(expression)이 와야 할 자리에 다른 것이 있습니다 (빠진 피연산자나 괄호)."),
    (re.compile(r"too (few|many) arguments in function call"), "함수에 넘긴 인자의 개수가 선언과 다릅니다."),
    (re.compile(r"expression must be a modifiable lvalue"),
     "바꿀 수 없는 대상(const 포인터가 가리키는 값 등)에 값을 대입했습니다."),
    (re.compile(r"a value of type .* cannot be (used to initialize|assigned to)"),
     "타입(type)이 맞지 않습니다. 포인터와 값, float와 float4를 섞지 않았는지 보세요."),
    (re.compile(r"no instance of (overloaded )?function"), "인자 타입에 맞는 함수가 없습니다."),
    (re.compile(r"is not a member of|has no member"), "구조체에 그런 멤버가 없습니다 (float4는 x, y, z, w)."),
]


# ----------------------------------------------------------------------------- compile

def nvrtc_diagnostics(log: str, source: str) -> list[dict]:
    """Each NVRTC error/warning as {line, kind, text, code, help_ko} (line numbers of `source`)."""
    lines = source.splitlines()
    found = []
    for raw in log.splitlines():
        m = _DIAG_LINE.match(raw.strip())
        if not m:
            continue
        number = int(m.group("line"))
        text = m.group("text").strip()
        help_ko = ""
        for pattern, explanation in _FIRST_AID:
            hit = pattern.search(text)
            if hit:
                help_ko = explanation.format(*hit.groups())
                break
        found.append({"file": m.group("file"), "line": number, "kind": m.group("kind"), "text": text,
                      "code": lines[number - 1].strip() if 0 < number <= len(lines) else "", "help_ko": help_ko})
    return found


def compile_message(diagnostics: list[dict], log: str, line_offset: int = 0) -> str:
    """The Korean report of a failed compile: one paragraph per error, at the learner's line."""
    errors = [d for d in diagnostics if d["kind"] != "warning"]
    if not errors:
        return "NVRTC가 소스를 거부했습니다 (compile error). 컴파일러 메시지:\n" + log.strip()
    out = [f"NVRTC 컴파일 오류 {len(errors)}개 (compile error):"]
    for d in errors[:8]:
        out.append(f"{d['line'] + line_offset}행: {d['text']}")
        if d["code"]:
            out.append(f"    {d['line'] + line_offset} | {d['code']}")
        if d["help_ko"]:
            out.append(f"    → {d['help_ko']}")
    if len(errors) > 8:
        out.append(f"(그 밖에 {len(errors) - 8}개; 첫 오류부터 고치면 뒤따르는 오류가 함께 사라지는 일이 많습니다)")
    return "\n".join(out)


def cubin_functions(cubin: bytes) -> list[str]:
    """Kernel names in a cubin (ELF sections named .text.<kernel>), without cuobjdump."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:   # ELF64 only (every CUDA cubin is)
        return []
    shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
    strtab_offset = headers[shstrndx][4]

    def name(offset: int) -> str:
        start = strtab_offset + offset
        return cubin[start:cubin.index(b"\0", start)].decode("ascii", "replace")

    return sorted(n[len(".text."):] for n in (name(h[0]) for h in headers) if n.startswith(".text."))


def _entry_problem(spec: ExerciseSpec, functions: list[str]) -> str | None:
    if spec.entry in functions:
        return None
    mangled = [f for f in functions if spec.entry in f]
    if mangled:
        return (f"커널 이름이 C++ 방식으로 바뀌었습니다(name mangling: {spec.entry} → {mangled[0]}). "
                f'선언 앞에 extern "C"를 붙이세요: extern "C" __global__ void {spec.entry}(...)')
    listed = ", ".join(functions) if functions else "없음"
    return f"진입점(entry)이 없습니다. 이 실습은 {spec.signature_text()}를 찾습니다. 소스에 있는 커널: {listed}"


def compile_check(spec: ExerciseSpec, source: str, name: str, line_offset: int = 0,
                  arch: str = SASS_ARCH) -> tuple[CheckResult, bytes | None]:
    """NVRTC compile for `arch`, the entry point and its parameter list (from the PTX); the cubin comes
    back for the SASS step when all of that is right."""
    from kernels.compiler import compile_cubin

    try:
        cubin = compile_cubin(name, arch, source)
    except CompileError as exc:
        log = str(exc)
        if "NVRTC_ERROR_COMPILATION" not in log:   # no NVRTC library, or a broken installation
            return CheckResult.skipped("compile", f"NVRTC를 쓸 수 없어 컴파일하지 못했습니다: {log}"), None
        diagnostics = [d for d in nvrtc_diagnostics(log, source) if d["file"] == name]
        return CheckResult.failed("compile", "compile_error", compile_message(diagnostics, log, line_offset),
                                  errors=[{**d, "line": d["line"] + line_offset} for d in diagnostics],
                                  log=log.split("\n", 1)[-1].strip()), None
    problem = _entry_problem(spec, cubin_functions(cubin))
    if problem:
        return CheckResult.failed("compile", "compile_error", problem, functions=cubin_functions(cubin)), None
    ptx_text = ptx.compile_for_checks(source, name)
    signature = (ptx.signature_problem(spec.entry, ptx_text, source, spec.parameters, spec.signature_text())
                 if ptx_text else None)
    if signature:
        return CheckResult.failed("compile", "wrong_signature", signature,
                                  params=ptx.entry_params(ptx_text, spec.entry)), None
    kept = ptx.module_variables(ptx_text) if ptx_text else []
    if kept:
        return CheckResult.failed(
            "compile", "global_state",
            f"커널 밖에 선언한 __device__ 변수({', '.join(kept)})에 값을 씁니다 (global state). 이런 변수는 실행이 끝나도 "
            "값이 남아, 한 실행이 다음 실행의 일을 건너뛰게(앞에서 구한 C를 다시 내놓게) 할 수 있으므로 이 실습에서는 "
            "쓸 수 없습니다. 실행마다 새로 정해지는 값은 커널 안의 지역 변수나 공유 메모리(__shared__)에, 바뀌지 않는 "
            "상수는 constexpr나 __constant__로 두세요.", variables=kept), None
    checked = "매개변수 목록 확인" if ptx_text else "매개변수 목록은 PTX를 만들 수 없어 확인하지 못함"
    return CheckResult.passed("compile", f"NVRTC로 {arch}용 컴파일 성공, 진입점(entry) `{spec.entry}`와 {checked}.",
                              arch=arch), cubin


# ----------------------------------------------------------------------------- SASS rules

def rule_matches(rule: str, opcode: str) -> bool:
    """Does an opcode (with modifiers, e.g. LDG.E.128.CONSTANT) match a rule of exercise.yaml?

    The base must be equal (LDG is not LDGSTS); every further part of the rule must be among the
    opcode's modifiers; the part "32" means "no width modifier" (LDG.E.32 matches LDG.E and
    LDG.E.CONSTANT, not LDG.E.128). So LDL matches every LDL, LDG.E.128 every 128-bit global load.
    """
    rule_parts, op_parts = rule.split("."), opcode.split(".")
    if rule_parts[0] != op_parts[0]:
        return False
    for part in rule_parts[1:]:
        if part == "32":
            if _WIDTH_MODIFIERS & set(op_parts[1:]):
                return False
        elif part not in op_parts[1:]:
            return False
    return True


def _count(rule: str, counts) -> int:
    return sum(n for op, n in counts.items() if rule_matches(rule, op))


def sass_check(spec: ExerciseSpec, source: str, name: str, arch: str = SASS_ARCH) -> CheckResult:
    """forbid / require / max_registers of exercise.yaml against the kernel's machine code."""
    from kernels import sass

    try:
        listing = sass.disassemble(name, arch, source)[spec.entry]
        resources = sass.resource_usage(name, arch, source).get(spec.entry, {})
    except CompileError as exc:
        return CheckResult.skipped("sass", f"SASS를 볼 수 없습니다 (disassembler 없음): {exc}")
    counts = sass.opcodes(listing)
    registers = resources.get("registers")
    highlights = {op: _count(op, counts) for op in HIGHLIGHTS}
    details = {"arch": arch, "registers": registers, "local_bytes": resources.get("local_bytes"),
               "smem_static": resources.get("smem_static"), "counts": highlights,
               "forbid": list(spec.forbid), "require": list(spec.require), "max_registers": spec.max_registers}
    found_forbidden = {rule: _count(rule, counts) for rule in spec.forbid if _count(rule, counts)}
    local = {r: n for r, n in found_forbidden.items() if r.split(".")[0] in ("LDL", "STL")}
    other = {r: n for r, n in found_forbidden.items() if r not in local}
    missing = [rule for rule in spec.require if not _count(rule, counts)]
    unserved, uses = _operand_problems(spec, source, name, missing)
    if uses is not None:
        details["operand_uses"] = {rule: sorted(ops) for rule, ops in uses.items()}
    problems = []
    if local:
        problems.append(("local_memory",
                         "로컬 메모리(local memory) 명령이 있습니다: " + ", ".join(f"{r} {n}개" for r, n in local.items())
                         + f" (스택·로컬 메모리 {max(resources.get('local_bytes') or 0, resources.get('stack') or 0)} B). 레지스터가 넘쳤거나(spill) 인덱스를 "
                           "컴파일 시간에 알 수 없는 지역 배열이 있습니다. 배열 인덱스를 상수로(#pragma unroll) 만드세요."))
    if missing or other or unserved:
        parts = []
        if missing:
            parts.append("필요한 명령이 없습니다: " + ", ".join(missing))
        parts += unserved
        if other:
            parts.append("쓰면 안 되는 명령이 있습니다: " + ", ".join(f"{r} {n}개" for r, n in other.items()))
        rules = missing + list(other) + [r for r, _ in spec.operand_rules]
        problems.append(("missing_instruction", "; ".join(parts) + _instruction_hint(rules)))
    if spec.max_registers is not None and registers is not None and registers > spec.max_registers:
        problems.append(("too_many_registers",
                         f"레지스터를 스레드당 {registers}개 씁니다 (한도 {spec.max_registers}개). "
                         "점유율(occupancy)이 떨어집니다. 누산기나 조각(fragment) 배열의 크기를 확인하세요."))
    if problems:
        message = "\n".join(text for _, text in problems)
        return CheckResult.failed("sass", problems[0][0], message, **details,
                                  diagnoses=[code for code, _ in problems])
    summary = ", ".join(f"{HIGHLIGHTS[op]} {n}개" for op, n in highlights.items() if n and op not in ("LDL", "STL"))
    rules = []
    if spec.require:
        rules.append("필요한 명령 " + ", ".join(spec.require) + " 있음")
    for rule, operands in spec.operand_rules:
        rules.append(f"{rule}가 {_operand_text(operands)} 모두에 쓰임")
    if spec.forbid:
        rules.append("금지한 명령 " + ", ".join(spec.forbid) + " 없음")
    if spec.max_registers:
        rules.append(f"레지스터 한도 {spec.max_registers}개 이내")
    return CheckResult.passed("sass", f"SASS 규칙을 지킵니다 ({arch}; " + "; ".join(rules) + f"). 레지스터 {registers}개"
                              + (f"; {summary}." if summary else "."), **details)


OPERAND_TEXT = {"A": "A 읽기", "B": "B 읽기", "C": "C 읽기·쓰기"}


def _operand_text(operands) -> str:
    return ", ".join(OPERAND_TEXT[o] for o in operands)


def _operand_problems(spec: ExerciseSpec, source: str, name: str, missing: list) -> tuple[list[str], dict | None]:
    """Korean lines for every operand an operand rule names that the instruction does not serve."""
    if not spec.operand_rules:
        return [], None
    ptx_text = ptx.compile_for_checks(source, name)
    uses = ptx.operand_uses(ptx_text, spec.entry) if ptx_text else None
    if uses is None:
        return [], None
    lines = []
    for rule, operands in spec.operand_rules:
        if rule in missing:
            continue                         # already reported: no such instruction at all
        served = uses.get(rule, set())
        lacking = [o for o in operands if o not in served]
        if lacking:
            where = ", ".join(sorted(served)) or "없음"
            lines.append(f"{rule}가 {_operand_text(lacking)}에 쓰이지 않았습니다 (지금 {rule}가 쓰이는 곳: {where}). "
                         f"이 실습은 {_operand_text(operands)}에 모두 {rule}를 요구합니다")
    return lines, uses


def _instruction_hint(rules: list[str]) -> str:
    text = " ".join(rules)
    if "LDG.E.128" in text or "LDG.E.32" in text:
        return (" — 전역 메모리 로드를 float4 하나로 읽으세요: reinterpret_cast<const float4*>(주소). "
                "주소가 16바이트 정렬이어야 합니다.")
    if "LDGSTS" in text:
        return " — 비동기 복사(asynchronous copy) cp.async(PTX)로 글로벌에서 공유 메모리로 바로 복사하세요."
    if "BAR" in text:
        return " — 블록의 스레드가 공유 메모리를 함께 쓰는 곳에는 __syncthreads()가 필요합니다."
    return ""
