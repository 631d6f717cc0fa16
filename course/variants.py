"""Checkpoint variants: numeric questions whose parameters are drawn per attempt, with the key
computed from a small formula. The site's quiz.js does exactly the same (tests/test_quiz_js.py
runs both over one table), so the site, JupyterLab and the instructor's grader agree on what a
learner saw and what the right answer was.

In a bank (course/banks/SCHEMA.md), a numeric question may carry::

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

Which attempt gets what: attempts 1 .. N (course_settings.attempts_before_variant) show the base
question; every later attempt draws one combination of values other than the base one, from the
seeded generator of course.shuffle with the text ``"<learner>:<attempt>:<question id>:variant"``
(the combinations in itertools.product order, the index ``next() % count``).
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from korean_text import with_particle
from course.shuffle import Mulberry32, fnv1a32

__all__ = ["FormulaError", "Variant", "draw_params", "evaluate", "format_value", "parse_formula",
           "presented_questions", "render_template", "validate_variant", "variant_mismatches"]

NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\|\s*([^{}\s]+)\s*)?\}\}")
FUNCTIONS = {"min": (1, None), "max": (1, None), "floor": (1, 1), "ceil": (1, 1)}
MAX_COMBINATIONS = 2000
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


def parse_formula(text: str) -> tuple:
    """The formula as a tree of tuples; FormulaError (Korean) when the grammar refuses it."""
    if not isinstance(text, str) or not text.strip():
        raise FormulaError("식이 비어 있습니다")
    parser = _Parser(text)
    tree = parser.expression()
    if parser.peek()[0] != "end":
        raise FormulaError(f"식의 {parser.i + 1}번째 자리 뒤에 남는 것이 있습니다")
    return tree


def formula_names(tree: tuple) -> set:
    if tree[0] == "var":
        return {tree[1]}
    if tree[0] == "num":
        return set()
    if tree[0] == "call":
        return set().union(*(formula_names(a) for a in tree[2]))
    return set().union(*(formula_names(t) for t in tree[1:]))


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
    """The combination (never the base one) this learner gets in this attempt."""
    combos = variant.combinations()
    rng = Mulberry32(fnv1a32(f"{learner}:{int(attempt)}:{qid}:variant"))
    return combos[rng.next_u32() % len(combos)]


def variant_question(q, params: dict):
    """q with its prompt and key for these parameter values."""
    from dataclasses import replace

    answer = replace(q.answer, value=evaluate(q.variant.tree, params))
    return replace(q, prompt=render_template(q.variant.template, params).rstrip(), answer=answer)


def presented_questions(questions, learner: str, attempt: int, attempts_before_variant: int) -> tuple[list, dict]:
    """(questions as shown in this attempt, {question id: drawn parameters}) — base questions up to
    attempt `attempts_before_variant`, drawn variants after it."""
    shown, drawn = [], {}
    for q in questions:
        if getattr(q, "variant", None) is not None and int(attempt) > int(attempts_before_variant):
            params = draw_params(q.variant, learner, attempt, q.id)
            drawn[q.id] = params
            shown.append(variant_question(q, params))
        else:
            shown.append(q)
    return shown, drawn


def questions_for_submission(questions, presentation) -> list:
    """The questions a submission answered: a recorded variant is re-drawn from its seed (the seed,
    not the file, decides the key); questions without one are the base questions."""
    recorded = (presentation or {}).get("variants") or {}
    out = []
    for q in questions:
        if getattr(q, "variant", None) is not None and q.id in recorded:
            out.append(variant_question(q, draw_params(q.variant, presentation["learner"], presentation["attempt"], q.id)))
        else:
            out.append(q)
    return out


def variant_mismatches(questions, presentation) -> list[str]:
    """Ids whose recorded parameters are not the ones the seed (learner, attempt) draws."""
    recorded = (presentation or {}).get("variants") or {}
    wrong = []
    for q in questions:
        if q.id not in recorded:
            continue
        if getattr(q, "variant", None) is None:
            wrong.append(q.id)
            continue
        want = draw_params(q.variant, presentation["learner"], presentation["attempt"], q.id)
        given = recorded[q.id]
        if not isinstance(given, dict) or set(given) != set(want) or \
                any(not isinstance(given[k], (int, float)) or float(given[k]) != float(want[k]) for k in want):
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


def validate_variant(q: dict, bad) -> None:
    """Schema rules of a numeric question's variant (see the module docstring)."""
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
    _check_keys(q, variant, bad)


def _check_keys(q: dict, variant: Variant, bad) -> None:
    answer = q.get("answer") if isinstance(q.get("answer"), dict) else {}
    value = answer.get("value")
    base_key = evaluate(variant.tree, variant.base)
    if _finite(value) and abs(base_key - value) > 1e-9 * max(1.0, abs(value)):
        bad("variant.key", f"기본값으로 계산한 정답 {base_key:g}이 answer.value {value:g}와 다릅니다")
    bad_combo = next((c for c in variant.combinations() if not math.isfinite(evaluate(variant.tree, c))), None)
    if bad_combo is not None:
        bad("variant.key", f"{bad_combo}에서 정답이 유한한 수가 아닙니다 (0으로 나누기 등)")


def variant_from_dict(q: dict) -> Variant | None:
    """The Variant of a valid question mapping (None when it has none)."""
    raw = q.get("variant")
    if not raw:
        return None
    params = tuple((p["name"], tuple(p["values"]), p["base"]) for p in raw["params"])
    template = raw.get("template") or q["prompt"]        # a site payload carries it; a bank's prompt is it
    return Variant(template.rstrip(), params, raw["key"], parse_formula(raw["key"]))
