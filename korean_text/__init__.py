"""Korean particles after numbers, units and glued values: 과/와, 을/를, 은/는, 이/가, 으로/로.

A Korean particle that has two forms takes the first after a syllable that ends in a consonant
(받침) and the second after a vowel; 으로/로 also takes 로 after ㄹ. What counts is how the text's
last character is *read* aloud, so a number is judged by its Korean (Sino-Korean) reading:

=========  ===================  ======================
last char  read as              form
=========  ===================  ======================
0          영 / 십 / 백 / 천 …  과 을 은 이 으로
1 7 8      일 / 칠 / 팔 (ㄹ)    과 을 은 이 로
3 6        삼 / 육              과 을 은 이 으로
2 4 5 9    이 / 사 / 오 / 구    와 를 는 가 로
%          퍼센트               와 를 는 가 로
² ³        제곱 / 세제곱        과 을 은 이 으로
× (x)      배                   와 를 는 가 로
=========  ===================  ======================

("Level 3과", "2.00과", "8.3과", "Level 4는", "75%를", "4096³을".) A final 0 is 영 after a decimal
point and 십/백/천/만 in an integer: a consonant either way, never ㄹ.

Hangul is judged by its final consonant (jongseong). Latin text is judged by a small table of the
units and symbols this course writes after numbers (``UNITS``: ms -> 밀리초, B -> 바이트, KiB ->
키비바이트, GB/s -> 기가바이트 퍼 초, x -> 배, …). Any other token in capitals is read letter by
letter, as Korean readers say acronyms (SM -> 에스엠, HBM -> 에이치비엠, GPU -> 지피유), so its last
letter decides; an acronym that is pronounced as a word with a different ending (JIT 짓, NOP 놉) is
listed in ``WORDS``. A lower-case word outside the tables has no reading here: ``final_sound``
raises ``ValueError`` rather than guess, so the author adds it to a table (with a test).

Unsure cases, decided here on purpose:
- a digit right after Latin letters (L1, FP32, sm_90, float4, H100) is still read in Korean
  (엘일, 에프피삼십이, …), like "Level 3"; English readings ("L-two", "float-four") agree for 2 4 5,
  and for 1 7 except before 으로/로 (원으로, 세븐으로), but not for 0 3 6 8 9. The course's rule is
  the Korean reading.
- a fraction of two integers is read numerator last ("1/4" = 사분의 일), so its numerator decides:
  "1/4이", "3/4을"; a slash after anything else (BK/4, GB/s) is not a fraction.
- a closing parenthesis is skipped with its group: the particle follows the word before the
  parenthetical, as in "꺾임점(ridge point)과"; closing quotes, backticks and ``*`` are skipped too.
"""
from __future__ import annotations

import numbers
import re

VOWEL, RIEUL, CONSONANT = "vowel", "rieul", "consonant"

# consonant form, vowel form (the vowel form also follows ㄹ for 으로/로 only)
PAIRS: tuple[tuple[str, str], ...] = (("과", "와"), ("을", "를"), ("은", "는"), ("이", "가"), ("으로", "로"))
_PAIR_OF = {form: pair for pair in PAIRS for form in pair}

DIGITS = {"0": CONSONANT, "1": RIEUL, "2": VOWEL, "3": CONSONANT, "4": VOWEL,
          "5": VOWEL, "6": CONSONANT, "7": RIEUL, "8": RIEUL, "9": VOWEL}
SYMBOLS = {"%": VOWEL,          # 퍼센트
           "²": CONSONANT,      # 제곱
           "³": CONSONANT,      # 세제곱
           "×": VOWEL}          # 배 ("3.2×")

# Units and symbols written after numbers, and how each is read.
UNITS: dict[str, tuple[str, str]] = {
    "ms": ("밀리초", VOWEL), "us": ("마이크로초", VOWEL), "µs": ("마이크로초", VOWEL), "μs": ("마이크로초", VOWEL),
    "ns": ("나노초", VOWEL), "s": ("초", VOWEL),
    "B": ("바이트", VOWEL), "KiB": ("키비바이트", VOWEL), "MiB": ("메비바이트", VOWEL), "GiB": ("기비바이트", VOWEL),
    "KB": ("킬로바이트", VOWEL), "MB": ("메가바이트", VOWEL), "GB": ("기가바이트", VOWEL), "TB": ("테라바이트", VOWEL),
    "GB/s": ("기가바이트 퍼 초", VOWEL), "TB/s": ("테라바이트 퍼 초", VOWEL), "GiB/s": ("기비바이트 퍼 초", VOWEL),
    "GFLOP/s": ("기가플롭스", VOWEL), "TFLOP/s": ("테라플롭스", VOWEL), "FLOP/s": ("플롭스", VOWEL),
    "FLOP": ("플롭", CONSONANT), "FLOPs": ("플롭스", VOWEL),
    "Hz": ("헤르츠", VOWEL), "MHz": ("메가헤르츠", VOWEL), "GHz": ("기가헤르츠", VOWEL),
    "x": ("배", VOWEL),
}
# Acronyms said as a word whose ending differs from their last letter's name.
WORDS: dict[str, tuple[str, str]] = {"JIT": ("짓", CONSONANT), "NOP": ("놉", CONSONANT), "GROUP": ("그룹", CONSONANT),
                                     "BAR": ("바", VOWEL), "DEPBAR": ("뎁바", VOWEL), "LDGDEPBAR": ("엘디지뎁바", VOWEL),
                                     "cuBLAS": ("쿠블라스", VOWEL)}
# English letter names as Korean readers say them (an acronym's last letter decides).
LETTERS = {"A": VOWEL, "B": VOWEL, "C": VOWEL, "D": VOWEL, "E": VOWEL, "F": VOWEL, "G": VOWEL,
           "H": VOWEL, "I": VOWEL, "J": VOWEL, "K": VOWEL, "L": RIEUL, "M": CONSONANT, "N": CONSONANT,
           "O": VOWEL, "P": VOWEL, "Q": VOWEL, "R": RIEUL, "S": VOWEL, "T": VOWEL, "U": VOWEL, "V": VOWEL,
           "W": VOWEL, "X": VOWEL, "Y": VOWEL, "Z": VOWEL}
# 에이 비 씨 디 이 에프 지 에이치 아이 제이 케이 엘 엠 엔 오 피 큐 알 에스 티 유 브이 더블유 엑스 와이 제트

_TRAILING_SKIP = "\"'`*”’」』 \t\n"
_FRACTION = re.compile(r"(?<![\w./])(\d+)/\d+$")
_LATIN_TAIL = re.compile(r"[A-Za-zµμ]+(?:/[A-Za-z]+)?$")


def _text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        return str(value)
    raise TypeError(f"a particle follows text or a number, not {type(value).__name__}: {value!r}")


def _strip_tail(text: str) -> str:
    """The text up to the character the particle attaches to (quotes and a parenthetical skipped)."""
    while True:
        text = text.rstrip(_TRAILING_SKIP)
        if not text.endswith(")"):
            return text
        depth = 0
        for i in range(len(text) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[i], 0)
            if depth == 0:
                break
        else:
            return text          # unbalanced: judge the parenthesis itself (raises below)
        if not text[:i].strip():
            return text[1:-1]    # the whole text is a parenthetical: judge its inside
        text = text[:i]


def final_sound(value) -> str:
    """How the last sound of ``value`` ends when read in Korean: VOWEL, RIEUL (ㄹ) or CONSONANT.

    Raises ValueError when the text ends in something this module cannot read (see the module's
    docstring); that is a prompt to extend the tables, not to guess.
    """
    text = _strip_tail(_text(value))
    if not text:
        raise ValueError("a particle needs a word before it (empty text)")
    last = text[-1]
    fraction = _FRACTION.search(text)
    if fraction:
        return DIGITS[fraction.group(1)[-1]]
    if last in DIGITS:
        return DIGITS[last]
    if last in SYMBOLS:
        return SYMBOLS[last]
    if "가" <= last <= "힣":
        jong = (ord(last) - 0xAC00) % 28
        return VOWEL if jong == 0 else RIEUL if jong == 8 else CONSONANT
    tail = _LATIN_TAIL.search(text)
    if tail:
        token = tail.group(0)
        if token in UNITS:
            return UNITS[token][1]
        if token in WORDS:
            return WORDS[token][1]
        if token.isupper():
            return LETTERS[token[-1]]
        if len(token) == 1 and token.upper() in LETTERS:       # a variable name: k, n, x
            return LETTERS[token.upper()]
        raise ValueError(f"no Korean reading for {token!r} in {value!r}: add it to korean_text.UNITS "
                         "or WORDS (with its reading) before choosing a particle after it")
    raise ValueError(f"no Korean reading for the last character {last!r} of {value!r}")


def particle(value, form: str) -> str:
    """The form of ``form``'s particle (과/와, 을/를, 은/는, 이/가, 으로/로) that follows ``value``.

    ``form`` may name either member of the pair: particle("Level 3", "와") == "과".
    """
    try:
        consonant_form, vowel_form = _PAIR_OF[form]
    except KeyError:
        raise ValueError(f"unknown particle {form!r}: one of "
                         f"{', '.join('/'.join(p) for p in PAIRS)}") from None
    sound = final_sound(value)
    if sound == VOWEL or (sound == RIEUL and vowel_form == "로"):
        return vowel_form
    return consonant_form


def with_particle(value, form: str, strict: bool = True) -> str:
    """``value`` as text followed by the right form of the particle: with_particle("2.00", "와") == "2.00과".

    With ``strict=False`` a text this module cannot read (a title an instructor typed, say) gets both
    forms, the way Korean software writes them: "…을(를)", "…(으)로".
    """
    try:
        return _text(value) + particle(value, form)
    except ValueError:
        if strict or form not in _PAIR_OF:
            raise
        consonant_form, vowel_form = _PAIR_OF[form]
        both = "(으)로" if vowel_form == "로" else f"{consonant_form}({vowel_form})"
        return _text(value) + both


def wrong_form(value, form: str) -> bool:
    """True when ``form`` (one member of a pair) does not follow ``value`` (for the source scans)."""
    return particle(value, form) != form


# ----------------------------------------------------------------------------- scanning text

# A particle with two forms, with the endings that may follow it (로는, 와의, …); the next character
# must not be Hangul, so 이 of a copula (3이고, 2이다) and 가 of 가지 are not taken for particles.
_FORMS = r"(?P<form>으로|로|과|와|을|를|은|는|이|가)(?P<more>(?<=로)(?:서|써|는|도|만|부터|의)|(?<=[과와])(?:는|도|의|만))?(?![가-힣])"
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
_EVAL = r"\{eval\}`(?P<expr>[^`\n]+)`"
# What the particle follows: a digit, or a glued value ({eval}`…`); then a symbol (%, ³, ×) or a
# unit after an optional space; then the particle.
_AFTER_NUMBER = re.compile(
    rf"(?:(?P<digit>(?:(?<![\w./])\d+/)?(?<![\d.,])\d(?:[\d.,]*\d)?)|{_EVAL})(?:(?P<symbol>[%²³×])|(?P<space>[ \u00a0]?)(?P<unit>{_UNIT_ALT})(?![A-Za-z/]))?{_FORMS}")


def particle_problems(text: str) -> list[tuple[int, str, str]]:
    """Particles in ``text`` that do not follow the reading of the number or value before them.

    Returns (offset, the text as written, what it should be) for: a digit, '%', '²', '³', '×' or a unit
    of ``UNITS`` followed by the wrong form ("Level 3와" -> "Level 3과", "2.68 ms을" -> "2.68 ms를"),
    and a glued value ``{eval}`f.x``` followed directly by a two-form particle, whose right form
    depends on a value that may change (-> ``{eval}`f.p("x", "과")```).
    """
    problems = []
    for m in _AFTER_NUMBER.finditer(text):
        form = m.group("form")
        if m.group("expr") is not None and not (m.group("symbol") or m.group("unit")):
            name = m.group("expr")
            name = name[2:] if name.startswith("f.") else name
            problems.append((m.start(), m.group(0), f'{{eval}}`f.p("{name}", "{form}")`{m.group("more") or ""}'))
            continue
        reading = m.group("symbol") or m.group("unit") or m.group("digit")
        right = particle(reading, form)
        if right != form:
            start = m.start("form")
            problems.append((m.start(), m.group(0), m.group(0)[:start - m.start()] + right + (m.group("more") or "")))
    return problems
