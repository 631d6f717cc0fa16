"""Checkpoint variants: numeric questions whose parameters are drawn per attempt, with the key
computed from a small formula. The site's quiz_rules.js does exactly the same (tests/test_quiz_js.py
runs both over one table), so the site, JupyterLab and the instructor's grader agree on what a
learner saw and what the right answer was.

In a bank (course/quiz/banks/SCHEMA.md), a numeric question may carry::

    prompt: |
      BLOCK_SIZE = BK = {{T|로}} 바꾸고 `As[{{T}}][{{T}}]`를 ...
    answer: {value: 8192, tolerance: 0, unit: "B"}
    variant:
      params:
        - {name: T, values: [8, 16, 24, 32], base: 32}
      key: "2 * T * T * 4"

``{{T}}`` in the prompt is the parameter's value, ``{{T|로}}`` the value with its particle
(korean_text). The key is a formula over the parameters: numbers, names, + - * /, parentheses,
unary minus and the functions min, max, floor, ceil. It is parsed by the small parser below and
never evaluated as code. With every parameter at its base value the prompt must read as the bank
wrote it and the formula must give answer.value (validate_variant checks both, and that the key
is finite for every combination).

Which attempt gets what (checkpoints only; practice quizzes show the question as written): every
attempt, from the first, shows one of the question's *drawn values*: for each distinct key other
than the base key, the first combination in itertools.product order that gives it, kept in that
order (``Variant.representatives``; the base numbers are printed by the chapter, so they are never
drawn). Attempt a of a learner with nonce N takes index ``draw_index(N, a, qid, n)``: the attempts
run through cycles of n, each cycle a permutation of 0..n-1 shuffled from ``"<N>:<cycle>:<qid>:cycle"``
(course.quiz.shuffle's generator); when a cycle would start with the value the previous one ended with,
its first two entries swap, so consecutive attempts never show the same key. The nonce is the
learner's random id (made once per browser or progress file with a cryptographic generator);
submissions record it as ``presentation.nonce`` and ``python -m course grade`` re-draws from it.
Submissions without a nonce come from the earlier rule (attempts 1 .. 2 the base question, later
ones ``draw_params``): they are still re-drawn that way.

Code blanks graded by meaning (``evaluate:`` in a bank) use the second, integer grammar below
(``parse_code``): integers, names, + - * / % & | ^, unary - + ! ~ and parentheses, with C's integer
rules (division truncates, % takes the dividend's sign), evaluated over every assignment of the
blank's variables; it is never evaluated as code either.
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from korean_text import with_particle
from course.quiz.shuffle import Mulberry32, fnv1a32

__all__ = ["FormulaError", "MIN_CHECKPOINT_DRAWS", "Variant", "blank_assignments", "code_values", "draw_index",
           "draw_params", "draw_variant", "evaluate", "format_value", "parse_code", "parse_formula",
           "presented_questions", "questions_for_submission", "render_template", "validate_evaluate",
           "validate_variant", "variant_mismatches"]

NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\|\s*([^{}\s]+)\s*)?\}\}")
FUNCTIONS = {"min": (1, None), "max": (1, None), "floor": (1, 1), "ceil": (1, 1)}
MAX_COMBINATIONS = 2000
MIN_CHECKPOINT_DRAWS = 8          # distinct keys (besides the base one) a checkpoint's variant must offer
MAX_VALUE = 1e9
_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(.))")


class FormulaError(ValueError):
    """A key formula that the small grammar does not accept (Korean message)."""


@dataclass(frozen=True)
class Variant:
    template: str            # the prompt with {{name}} placeholders
    params: tuple            # ((name, (values...), base), ...) in declared order
    key: str                 # the formula text
    tree: tuple              # the parsed formula

    @property
    def names(self) -> tuple:
        return tuple(p[0] for p in self.params)

    @property
    def base(self) -> dict:
        return {name: base for name, _, base in self.params}

    def combinations(self) -> list[dict]:
        """Every combination of values except the base one, in itertools.product order."""
        base = tuple(self.base[n] for n in self.names)
        return [dict(zip(self.names, combo)) for combo in itertools.product(*(p[1] for p in self.params))
                if combo != base]

    def representatives(self) -> list[dict]:
        """The values an attempt may draw: for every distinct key other than the base key, the first
        combination (itertools.product order) that gives it, in that order."""
        base_key = evaluate(self.tree, self.base)
        seen, out = {base_key}, []
        for combo in itertools.product(*(p[1] for p in self.params)):
            params = dict(zip(self.names, combo))
            key = evaluate(self.tree, params)
            if key not in seen:
                seen.add(key)
                out.append(params)
        return out

    def to_dict(self) -> dict:
        return {"template": self.template, "key": self.key,
                "params": [{"name": n, "values": list(v), "base": b} for n, v, b in self.params]}


# ----------------------------------------------------------------------------- formulas

def _tokens(text: str) -> list[tuple[str, str]]:
    out, position = [], 0
    text = text.rstrip()
    while position < len(text):
        m = _TOKEN.match(text, position)
        number, name, other = m.groups()
        if number is not None:
            out.append(("num", number))
        elif name is not None:
            out.append(("name", name))
        elif other in "+-*/(),":
            out.append(("op", other))
        else:
            raise FormulaError(f"식에 쓸 수 없는 글자 {other!r}가 있습니다 (숫자, 이름, + - * / ( ) , min max floor ceil만)")
        position = m.end()
    return out


class _Parser:
    def __init__(self, text: str):
        self.tokens, self.i = _tokens(text), 0

    def peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else ("end", "")

    def take(self, value=None):
        token = self.peek()
        if value is not None and token != ("op", value):
            raise FormulaError(f"식의 {self.i + 1}번째 자리에 {value!r}가 와야 합니다")
        self.i += 1
        return token

    def expression(self):
        node = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            node = (self.take()[1], node, self.term())
        return node

    def term(self):
        node = self.unary()
        while self.peek() in (("op", "*"), ("op", "/")):
            node = (self.take()[1], node, self.unary())
        return node

    def unary(self):
        if self.peek() == ("op", "-"):
            self.take()
            return ("neg", self.unary())
        return self.primary()

    def primary(self):
        kind, value = self.take()
        if kind == "num":
            return ("num", float(value))
        if kind == "name" and self.peek() == ("op", "("):
            if value not in FUNCTIONS:
                raise FormulaError(f"알 수 없는 함수 {value!r}입니다 (min, max, floor, ceil만)")
            self.take("(")
            args = [self.expression()]
            while self.peek() == ("op", ","):
                self.take()
                args.append(self.expression())
            self.take(")")
            low, high = FUNCTIONS[value]
            if len(args) < low or (high is not None and len(args) > high):
                raise FormulaError(f"{value}의 인자 수가 맞지 않습니다")
            return ("call", value, tuple(args))
        if kind == "name":
            return ("var", value)
        if (kind, value) == ("op", "("):
            node = self.expression()
            self.take(")")
            return node
        raise FormulaError("식이 끝나지 않았거나 연산자 자리가 맞지 않습니다")


def _parse_whole(parser, start) -> tuple:
    """start() over the whole text of parser: FormulaError (Korean) when something is left after it."""
    tree = start()
    if parser.peek()[0] != "end":
        raise FormulaError(f"식의 {parser.i + 1}번째 자리 뒤에 남는 것이 있습니다")
    return tree


def _nonempty(text) -> str:
    if not isinstance(text, str) or not text.strip():
        raise FormulaError("식이 비어 있습니다")
    return text


def parse_formula(text: str) -> tuple:
    """The formula as a tree of tuples; FormulaError (Korean) when the grammar refuses it."""
    parser = _Parser(_nonempty(text))
    return _parse_whole(parser, parser.expression)


def formula_names(tree: tuple) -> set:
    if tree[0] == "var":
        return {tree[1]}
    if tree[0] == "num":
        return set()
    if tree[0] == "call":
        return set().union(*(formula_names(a) for a in tree[2]))
    return set().union(*(formula_names(t) for t in tree[1:] if isinstance(t, tuple)))


def evaluate(tree: tuple, params: dict) -> float:
    """The formula's value in double precision (the same operations, in the same order, as quiz.js)."""
    kind = tree[0]
    if kind == "num":
        return tree[1]
    if kind == "var":
        return float(params[tree[1]])
    if kind == "neg":
        return -evaluate(tree[1], params)
    if kind == "call":
        args = [evaluate(a, params) for a in tree[2]]
        return {"min": min, "max": max, "floor": lambda x: float(math.floor(x)),
                "ceil": lambda x: float(math.ceil(x))}[tree[1]](*args)
    left, right = evaluate(tree[1], params), evaluate(tree[2], params)
    if kind == "+":
        return left + right
    if kind == "-":
        return left - right
    if kind == "*":
        return left * right
    return left / right if right != 0 else math.copysign(math.inf, left) if left else math.nan


# ----------------------------------------------------------------------------- code blanks graded by meaning

# C's integer expressions, small: integers, names, + - * / % & | ^, unary - + ! ~, parentheses.
_CODE_TOKEN = re.compile(r"\s*(?:([0-9]+)|([A-Za-z_][A-Za-z0-9_]*)|(.))")
_CODE_LEVELS = (("|",), ("^",), ("&",), ("+", "-"), ("*", "/", "%"))   # loosest first, as in C
CODE_LIMIT = 2 ** 31 - 1            # an int: anything beyond is no value (C's overflow)
MAX_ASSIGNMENTS = 256


def _code_tokens(text: str) -> list[tuple[str, str]]:
    out, position = [], 0
    text = text.rstrip()
    while position < len(text):
        m = _CODE_TOKEN.match(text, position)
        number, name, other = m.groups()
        if number is not None:
            out.append(("num", number))
        elif name is not None:
            out.append(("name", name))
        elif other in "+-*/%&|^!~()":
            out.append(("op", other))
        else:
            raise FormulaError(f"식에 쓸 수 없는 글자 {other!r}가 있습니다 (정수, 이름, + - * / % & | ^ ! ~ ( )만)")
        position = m.end()
    return out


MAX_NESTING = 32                    # parentheses and unary operators, nested: deeper is no expression


class _CodeParser(_Parser):
    def __init__(self, text: str):
        self.tokens, self.i, self.nesting = _code_tokens(text), 0, 0

    def level(self, depth: int = 0):
        if depth == len(_CODE_LEVELS):
            return self.code_unary()
        node = self.level(depth + 1)
        while self.peek()[0] == "op" and self.peek()[1] in _CODE_LEVELS[depth]:
            node = (self.take()[1], node, self.level(depth + 1))
        return node

    def code_unary(self):
        self.nesting += 1
        try:
            if self.nesting > MAX_NESTING:
                raise FormulaError(f"괄호나 단항 연산자가 {MAX_NESTING}단계보다 깊습니다")
            return self._code_unary()
        finally:
            self.nesting -= 1

    def _code_unary(self):
        kind, value = self.peek()
        if kind == "op" and value in "-+!~":
            self.take()
            return ("u" + value, self.code_unary())
        kind, value = self.take()
        if kind == "num":
            return ("num", int(value))
        if kind == "name":
            return ("var", value)
        if (kind, value) == ("op", "("):
            node = self.level()
            self.take(")")
            return node
        raise FormulaError("식이 끝나지 않았거나 연산자 자리가 맞지 않습니다")


def parse_code(text: str) -> tuple:
    """A code blank's C integer expression as a tree; FormulaError (Korean) when the grammar refuses it."""
    parser = _CodeParser(_nonempty(text))
    return _parse_whole(parser, parser.level)


def _code_eval(tree: tuple, env: dict) -> int:
    kind = tree[0]
    if kind == "num":
        value = tree[1]
    elif kind == "var":
        if tree[1] not in env:
            raise FormulaError(f"모르는 이름 {tree[1]!r}")
        value = env[tree[1]]
    elif kind[0] == "u" and len(kind) == 2:
        x = _code_eval(tree[1], env)
        value = {"u-": -x, "u+": x, "u!": int(x == 0), "u~": ~x}[kind]
    else:
        a, b = _code_eval(tree[1], env), _code_eval(tree[2], env)
        if kind in "/%" and b == 0:
            raise FormulaError("0으로 나눕니다")
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1) if kind in "/%" else 0   # C truncates
        value = {"+": a + b, "-": a - b, "*": a * b, "/": quotient, "%": a - quotient * b if kind == "%" else 0,
                 "&": a & b, "|": a | b, "^": a ^ b}[kind]
    if abs(value) > CODE_LIMIT:
        raise FormulaError("int 범위를 넘습니다")
    return value


def blank_assignments(spec: dict) -> list[dict]:
    """Every assignment of a blank's variables: the listed ones in itertools.product order (declared
    order), then each derived one (a string) computed from those before it."""
    listed = [(name, values) for name, values in spec["vars"].items() if isinstance(values, list)]
    derived = [(name, parse_code(text)) for name, text in spec["vars"].items() if isinstance(text, str)]
    out = []
    for combo in itertools.product(*(values for _, values in listed)):
        env = dict(zip((name for name, _ in listed), combo))
        for name, tree in derived:
            env[name] = _code_eval(tree, env)
        out.append(env)
    return out


def code_values(text: str, spec: dict) -> tuple | None:
    """The values of a learner's expression over the blank's assignments, or None when it does not
    parse or has no value somewhere (unknown name, division by zero, beyond int)."""
    if not isinstance(text, str) or len(text) > 500:
        return None
    try:
        tree = parse_code(text)
        return tuple(_code_eval(tree, env) for env in blank_assignments(spec))
    except (FormulaError, RecursionError):
        return None


def validate_evaluate(blank: dict, bad, where: str) -> None:
    """Schema of a blank's ``evaluate: {vars: {name: [ints] | "expression"}}``; every accepted answer
    must have the values of the first one."""
    spec = blank.get("evaluate")
    if not isinstance(spec, dict) or set(spec) != {"vars"} or not isinstance(spec["vars"], dict) or not spec["vars"]:
        bad(f"{where}.evaluate", "vars: {이름: [정수 목록] 또는 \"식\"} 하나를 가진 매핑이어야 합니다")
        return
    known, count = set(), 1
    for name, values in spec["vars"].items():
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            bad(f"{where}.evaluate.vars", f"이름 {name!r}은 영문자로 시작해야 합니다")
            return
        if isinstance(values, list):
            if not 1 <= len(values) <= 32 or not all(isinstance(v, int) and not isinstance(v, bool)
                                                     and abs(v) <= 2 ** 20 for v in values):
                bad(f"{where}.evaluate.vars.{name}", "정수 1~32개의 목록이어야 합니다")
                return
            count *= len(values)
        elif isinstance(values, str):
            try:
                tree = parse_code(values)
            except FormulaError as exc:
                bad(f"{where}.evaluate.vars.{name}", str(exc))
                return
            if formula_names(tree) - known:
                bad(f"{where}.evaluate.vars.{name}", "앞에 정의한 이름만 쓸 수 있습니다")
                return
        else:
            bad(f"{where}.evaluate.vars.{name}", "정수 목록이나 식(문자열)이어야 합니다")
            return
        known.add(name)
    if count > MAX_ASSIGNMENTS:
        bad(f"{where}.evaluate.vars", f"값의 조합이 {count}가지로 너무 많습니다 (최대 {MAX_ASSIGNMENTS})")
        return
    accept = [a for a in blank.get("accept") or [] if isinstance(a, str)]
    try:
        blank_assignments(spec)
    except FormulaError as exc:
        bad(f"{where}.evaluate.vars", f"변수 값을 계산할 수 없습니다 ({exc})")
        return
    reference = code_values(accept[0], spec) if accept else None
    if accept and reference is None:
        bad(f"{where}.accept", f"첫 정답 {accept[0]!r}을 정수 식으로 계산할 수 없습니다")
        return
    for other in accept[1:]:
        if code_values(other, spec) != reference:
            bad(f"{where}.accept", f"정답 {other!r}의 값이 첫 정답 {accept[0]!r}과 다릅니다")


# ----------------------------------------------------------------------------- prompts and draws

def format_value(value) -> str:
    """A parameter value as the prompt shows it (as JavaScript's String() writes such numbers)."""
    number = float(value)
    return str(int(number)) if number.is_integer() else repr(number)


def render_template(template: str, params: dict) -> str:
    def fill(m: re.Match) -> str:
        text = format_value(params[m.group(1)])
        return with_particle(text, m.group(2)) if m.group(2) else text

    return PLACEHOLDER.sub(fill, template)


def draw_params(variant: Variant, learner: str, attempt: int, qid: str) -> dict:
    """The earlier rule (submissions without a nonce): a combination other than the base one, drawn
    from ``"<learner>:<attempt>:<qid>:variant"``. Kept so that those files are graded as they were shown."""
    combos = variant.combinations()
    rng = Mulberry32(fnv1a32(f"{learner}:{int(attempt)}:{qid}:variant"))
    return combos[rng.next_u32() % len(combos)]


def _cycle_order(nonce: str, cycle: int, qid: str, n: int) -> list[int]:
    order = list(range(n))
    rng = Mulberry32(fnv1a32(f"{nonce}:{cycle}:{qid}:cycle"))
    for i in range(n - 1, 0, -1):
        j = rng.next_u32() % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def draw_index(nonce: str, attempt: int, qid: str, n: int) -> int:
    """Which of n drawn values attempt `attempt` (1, 2, ...) shows: cycles of n shuffled values; a cycle
    that would start with the previous cycle's last value swaps its first two (so never twice in a row)."""
    if n <= 1:
        return 0
    cycle, position = divmod(int(attempt) - 1, n)
    if n == 2:
        return (position + cycle + fnv1a32(f"{nonce}:{qid}:cycle")) % 2
    order = _cycle_order(nonce, cycle, qid, n)
    if cycle > 0 and order[0] == _cycle_order(nonce, cycle - 1, qid, n)[n - 1]:   # n > 2: the swap never moves it
        order[0], order[1] = order[1], order[0]
    return order[position]


def draw_variant(variant: Variant, nonce: str, attempt: int, qid: str) -> dict:
    """The parameters attempt `attempt` of the learner with this nonce sees (never the base key)."""
    values = variant.representatives()
    return values[draw_index(nonce, attempt, qid, len(values))]


def variant_question(q, params: dict):
    """q with its prompt and key for these parameter values."""
    from dataclasses import replace

    answer = replace(q.answer, value=evaluate(q.variant.tree, params))
    return replace(q, prompt=render_template(q.variant.template, params).rstrip(), answer=answer)


def presented_questions(questions, nonce: str, attempt: int) -> tuple[list, dict]:
    """(a checkpoint's questions as shown in this attempt, {question id: drawn parameters}): every
    question with a variant shows the values drawn for (nonce, attempt), from the first attempt on."""
    shown, drawn = [], {}
    for q in questions:
        if getattr(q, "variant", None) is not None:
            params = draw_variant(q.variant, nonce, attempt, q.id)
            drawn[q.id] = params
            shown.append(variant_question(q, params))
        else:
            shown.append(q)
    return shown, drawn


def _nonce(presentation) -> str | None:
    """The presentation's nonce (the current rule), or None for a file from the earlier rule."""
    if not isinstance(presentation, dict) or "nonce" not in presentation:
        return None
    nonce = presentation["nonce"]
    return nonce if isinstance(nonce, str) else repr(nonce)[:64]


def _drawn_for(q, presentation) -> dict | None:
    """The parameters the seed in presentation gives q (None: q was shown as written)."""
    if getattr(q, "variant", None) is None:
        return None
    nonce = _nonce(presentation)
    if nonce is not None:
        return draw_variant(q.variant, nonce, presentation["attempt"], q.id)
    if q.id in ((presentation or {}).get("variants") or {}):
        return draw_params(q.variant, presentation["learner"], presentation["attempt"], q.id)
    return None


def questions_for_submission(questions, presentation) -> list:
    """The questions a submission answered, re-drawn from its seed (the seed, not the file, decides the
    key): with a nonce, every question with a variant; from the earlier rule, those it recorded."""
    out = []
    for q in questions:
        params = _drawn_for(q, presentation)
        out.append(q if params is None else variant_question(q, params))
    return out


def variant_mismatches(questions, presentation) -> list[str]:
    """Ids whose recorded parameters are not the ones the seed draws (or that record none although
    the seed drew some, or record some for a question without a variant)."""
    recorded = (presentation or {}).get("variants") or {}
    wrong = []
    for q in questions:
        want = _drawn_for(q, presentation)
        if want is None:
            if q.id in recorded:
                wrong.append(q.id)
            continue
        given = recorded.get(q.id)
        if not isinstance(given, dict) or set(given) != set(want) or \
                any(not isinstance(given[k], (int, float)) or isinstance(given[k], bool) or given[k] != want[k]
                    for k in want):       # int == float compares exactly, without overflow
            wrong.append(q.id)
    return wrong


# ----------------------------------------------------------------------------- validation

def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
        and abs(value) < MAX_VALUE


def _check_params(raw, bad) -> list:
    params = []
    if not isinstance(raw, list) or not raw:
        bad("variant.params", "매개변수(name, values, base)의 목록이어야 합니다")
        return params
    for i, p in enumerate(raw, 1):
        where = f"variant.params[{i}]"
        if not isinstance(p, dict) or set(p) != {"name", "values", "base"}:
            bad(where, "name, values, base 세 항목을 가진 매핑이어야 합니다")
            continue
        name, values, base = p["name"], p["values"], p["base"]
        if not isinstance(name, str) or not NAME_PATTERN.match(name) or name in FUNCTIONS:
            bad(f"{where}.name", f"영문자로 시작하는 이름이어야 합니다 (받은 값: {name!r})")
            continue
        if not isinstance(values, list) or not 2 <= len(values) <= 50 or not all(_finite(v) for v in values) \
                or len(set(values)) != len(values):
            bad(f"{where}.values", "서로 다른 유한한 수 2~50개의 목록이어야 합니다")
            continue
        if any(format_value(v) != format_value(float(format_value(v))) for v in values):
            bad(f"{where}.values", "소수점 아래가 짧은 수만 씁니다 (화면에 보이는 값과 계산에 쓰는 값이 같도록)")
            continue
        if base not in values:
            bad(f"{where}.base", f"기본값 {base!r}가 values에 없습니다")
            continue
        params.append((name, tuple(values), base))
    names = [p[0] for p in params]
    if len(set(names)) != len(names):
        bad("variant.params", "매개변수 이름이 중복됩니다")
    return params


def validate_variant(q: dict, bad, checkpoint: bool = False) -> None:
    """Schema rules of a numeric question's variant (see the module docstring); on a checkpoint it must
    offer at least MIN_CHECKPOINT_DRAWS distinct keys besides the base one."""
    raw = q.get("variant")
    if not isinstance(raw, dict) or set(raw) - {"params", "key"} or not {"params", "key"} <= set(raw):
        bad("variant", "params와 key 두 항목을 가진 매핑이어야 합니다")
        return
    params = _check_params(raw["params"], bad)
    try:
        tree = parse_formula(raw["key"])
    except FormulaError as exc:
        bad("variant.key", str(exc))
        return
    if not params:
        return
    names = {p[0] for p in params}
    unknown = formula_names(tree) - names
    if unknown:
        bad("variant.key", f"정의하지 않은 이름이 있습니다: {', '.join(sorted(unknown))}")
        return
    prompt = q.get("prompt") if isinstance(q.get("prompt"), str) else ""
    used = {m.group(1) for m in PLACEHOLDER.finditer(prompt)}
    if used != names:
        bad("prompt", "문제 글의 {{이름}} 자리와 variant.params의 이름이 같아야 합니다 "
                      f"(글: {', '.join(sorted(used)) or '없음'}, params: {', '.join(sorted(names))})")
    for m in PLACEHOLDER.finditer(prompt):
        if m.group(2) and m.group(2) not in ("과", "와", "을", "를", "은", "는", "이", "가", "으로", "로"):
            bad("prompt", f"{{{{{m.group(1)}|{m.group(2)}}}}}: 조사는 과/와, 을/를, 은/는, 이/가, 으로/로 중 하나입니다")
    variant = Variant(prompt, tuple(params), raw["key"], tree)
    count = math.prod(len(p[1]) for p in params)
    if count > MAX_COMBINATIONS:
        bad("variant.params", f"값의 조합이 {count}가지로 너무 많습니다 (최대 {MAX_COMBINATIONS})")
        return
    _check_keys(q, variant, bad, checkpoint)


def _check_keys(q: dict, variant: Variant, bad, checkpoint: bool = False) -> None:
    answer = q.get("answer") if isinstance(q.get("answer"), dict) else {}
    value = answer.get("value")
    base_key = evaluate(variant.tree, variant.base)
    if _finite(value) and abs(base_key - value) > 1e-9 * max(1.0, abs(value)):
        bad("variant.key", f"기본값으로 계산한 정답 {base_key:g}이 answer.value {value:g}와 다릅니다")
    bad_combo = next((c for c in variant.combinations() if not math.isfinite(evaluate(variant.tree, c))), None)
    if bad_combo is not None:
        bad("variant.key", f"{bad_combo}에서 정답이 유한한 수가 아닙니다 (0으로 나누기 등)")
        return
    drawn = variant.representatives()
    if checkpoint and len(drawn) < MIN_CHECKPOINT_DRAWS:
        bad("variant.params", f"체크포인트의 변형은 기본값의 정답과 다른 정답을 {MIN_CHECKPOINT_DRAWS}가지 이상 내야 합니다 "
                              f"(지금 {len(drawn)}가지): values를 늘리세요")
    exact = not answer.get("tolerance") and not answer.get("rel")
    inexact = next((c for c in drawn if exact and not _short_decimal(evaluate(variant.tree, c))), None)
    if inexact is not None:
        bad("variant.key", f"{inexact}의 정답 {evaluate(variant.tree, inexact)!r}은 허용 오차 0으로 입력할 수 없는 수입니다 "
                           "(tolerance나 rel을 주거나 값을 바꾸세요)")


def _short_decimal(value: float) -> bool:
    """A number a learner can type exactly: at most 12 significant digits."""
    return float(f"{value:.12g}") == value


def variant_from_dict(q: dict) -> Variant | None:
    """The Variant of a valid question mapping (None when it has none)."""
    raw = q.get("variant")
    if not raw:
        return None
    params = tuple((p["name"], tuple(p["values"]), p["base"]) for p in raw["params"])
    template = raw.get("template") or q["prompt"]        # a site payload carries it; a bank's prompt is it
    return Variant(template.rstrip(), params, raw["key"], parse_formula(raw["key"]))
