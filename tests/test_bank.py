"""Question bank loading and strict schema validation (course.quiz.bank)."""
import copy
from pathlib import Path

import pytest
import yaml

from course.quiz import bank as bank_mod
from course.quiz.bank import (MAX_KEY_LONGEST_SHARE, MAX_KEY_POSITION_SHARE, BankError, answer_key, choice_balance,
                         choice_length, expected_question_count, load_all_banks, load_bank, load_bank_file,
                         site_payload, student_view, validate_bank_data)
from course.settings import load_settings

FIXTURES = Path(__file__).parent / "fixtures" / "banks"
REPO = Path(__file__).resolve().parent.parent
REAL_BANKS = REPO / "course" / "quiz" / "banks"


@pytest.fixture
def valid_data():
    return yaml.safe_load((FIXTURES / "m06.yaml").read_text(encoding="utf-8"))


def question(data, qid):
    return next(q for q in data["questions"] if q["id"] == qid)


def write_bank(tmp_path, data, name="m06.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def renumbered(data, module, count):
    """A copy of the fixture bank moved to another module with count questions."""
    out = copy.deepcopy(data)
    base = out["questions"]
    out["module"] = module
    out["questions"] = []
    for i in range(count):
        q = copy.deepcopy(base[i % len(base)])
        q["id"] = f"m{module:02d}-q{i + 1:02d}"
        out["questions"].append(q)
    return out


def test_fixture_bank_loads_into_dataclasses():
    bank = load_bank(6, FIXTURES)
    assert bank.module == 6 and len(bank.questions) == 8
    assert {q.type for q in bank.questions} == {"single", "multiple", "numeric", "code", "free"}
    q = bank.question("m06-q03")
    assert q.answer.value == 8192 and q.answer.unit == "B"
    assert bank.question("m06-q02").correct_choice_ids == ("a", "b")
    assert [b.id for b in bank.question("m06-q04").blanks] == ["b1", "b2"]
    assert len(bank.digest) == 64


def test_digest_changes_with_content(tmp_path, valid_data):
    first = load_bank_file(write_bank(tmp_path, valid_data)).digest
    question(valid_data, "m06-q03")["explanation"] += "\n덧붙인 줄."
    assert load_bank_file(write_bank(tmp_path, valid_data)).digest != first


def test_student_view_hides_every_answer():
    bank = load_bank(6, FIXTURES)
    view = student_view(bank)
    text = repr(view)
    for secret in ("correct", "accept", "model_answer", "rubric", "explanation", "tolerance", "8192"):
        assert secret not in text, secret
    numeric = next(q for q in view["questions"] if q["id"] == "m06-q03")
    assert numeric["unit"] == "B"
    code = next(q for q in view["questions"] if q["id"] == "m06-q04")
    assert code["blanks"] == ["b1", "b2"] and "___(b1)___" in code["code"]


def test_answer_key_and_site_payload_keep_answers():
    bank = load_bank(6, FIXTURES)
    key = {q["id"]: q for q in answer_key(bank)["questions"]}
    assert key["m06-q01"]["correct"] == ["b"]
    assert key["m06-q03"]["answer"] == {"value": 8192.0, "tolerance": 0.0, "unit": "B"}
    assert key["m06-q04"]["blanks"]["b2"] == ["blockIdx.x * TILE + tx", "col"]
    assert len(key["m06-q08"]["rubric"]) == 3
    payload = site_payload(bank)
    assert payload["bank_hash"] == bank.digest
    assert payload["questions"][0]["choices"][1]["correct"] is True


def test_valid_data_has_no_problems(valid_data):
    assert validate_bank_data(valid_data, "m06.yaml") == []


def _delete(qid, field):
    def mutate(data):
        del question(data, qid)[field]
    return mutate


def _choices_correct(qid, flags):
    def mutate(data):
        for choice, flag in zip(question(data, qid)["choices"], flags):
            choice["correct"] = flag
    return mutate


def _drop_question(data):
    data["questions"].pop()


def _duplicate_id(data):
    data["questions"][1]["id"] = data["questions"][0]["id"]


BROKEN = [
    # (description, mutation, fragments the message must contain)
    ("single with two correct", _choices_correct("m06-q01", [True, True, False, False]), ["m06-q01", "choices", "정확히 1개"]),
    ("single with none correct", _choices_correct("m06-q01", [False] * 4), ["m06-q01", "choices", "현재 0개"]),
    ("multiple with one correct", _choices_correct("m06-q02", [True, False, False, False]), ["m06-q02", "choices", "2개 이상"]),
    ("multiple with all correct", _choices_correct("m06-q02", [True] * 4), ["m06-q02", "오답 0개"]),
    ("two choices only", lambda d: question(d, "m06-q06")["choices"].pop(), ["m06-q06", "choices", "3~6"]),
    ("choice correct not bool", lambda d: question(d, "m06-q01")["choices"][0].update(correct="yes"), ["choices[1].correct"]),
    ("numeric tolerance missing", lambda d: question(d, "m06-q03")["answer"].pop("tolerance"), ["m06-q03", "answer.tolerance", "허용 오차"]),
    ("numeric tolerance negative", lambda d: question(d, "m06-q03")["answer"].update(tolerance=-1), ["answer.tolerance", "0 이상"]),
    ("numeric unit missing", lambda d: question(d, "m06-q03")["answer"].pop("unit"), ["m06-q03", "answer.unit"]),
    ("numeric value not a number", lambda d: question(d, "m06-q03")["answer"].update(value="8192"), ["answer.value"]),
    ("code blank without accept", lambda d: question(d, "m06-q04")["blanks"].pop(), ["m06-q04", "blanks", "b2"]),
    ("code accept for missing blank", lambda d: question(d, "m06-q04")["blanks"].append({"id": "b3", "accept": ["x"]}), ["m06-q04", "b3", "코드에 없습니다"]),
    ("code empty accept list", lambda d: question(d, "m06-q04")["blanks"][0].update(accept=[]), ["blanks[1].accept"]),
    ("code without blanks", lambda d: question(d, "m06-q04").update(code="x = 1;"), ["m06-q04", "code", "하나도 없습니다"]),
    ("free without model answer", _delete("m06-q08", "model_answer"), ["m06-q08", "model_answer"]),
    ("free with one rubric point", lambda d: question(d, "m06-q08").update(rubric=["a"]), ["m06-q08", "rubric", "2~4"]),
    ("free with five rubric points", lambda d: question(d, "m06-q08").update(rubric=list("abcde")), ["rubric", "2~4"]),
    ("unknown bloom", lambda d: question(d, "m06-q01").update(bloom="암기"), ["m06-q01", "bloom", "암기"]),
    ("unknown type", lambda d: question(d, "m06-q01").update(type="truefalse"), ["m06-q01", "type"]),
    ("missing explanation", _delete("m06-q05", "explanation"), ["m06-q05", "explanation"]),
    ("missing prompt", _delete("m06-q05", "prompt"), ["m06-q05", "prompt"]),
    ("field of another type", lambda d: question(d, "m06-q03").update(choices=[]), ["m06-q03", "choices", "쓸 수 없는"]),
    ("typo in a field name", lambda d: question(d, "m06-q03").update(tolerence=0), ["m06-q03", "tolerence"]),
    ("bad id format", lambda d: question(d, "m06-q01").update(id="q1"), ["id", "m06-q01"]),
    ("id of another module", lambda d: question(d, "m06-q01").update(id="m07-q01"), ["m07-q01", "m06-"]),
    ("duplicate id", _duplicate_id, ["m06-q01", "같은 id"]),
    ("seven questions", _drop_question, ["questions", "8개", "현재 7개"]),
    ("module out of range", lambda d: d.update(module=99), ["module", "강좌의 모듈 번호"]),
    ("title missing", lambda d: d.pop("title"), ["title"]),
    ("unknown top-level key", lambda d: d.update(extra=1), ["extra"]),
    ("all of the above", lambda d: question(d, "m06-q01")["choices"][3].update(text="위의 보기 모두"),
     ["m06-q01", "choices[4].text", "all/none of the above"]),
    ("none of the above", lambda d: question(d, "m06-q02")["choices"][2].update(text="정답 없음"),
     ["m06-q02", "choices[3].text"]),
    ("all of the above, English", lambda d: question(d, "m06-q06")["choices"][1].update(text="All of the above"),
     ["m06-q06", "choices[2].text"]),
]


@pytest.mark.parametrize("description,mutate,fragments", BROKEN, ids=[b[0] for b in BROKEN])
def test_each_rule_is_enforced_with_a_korean_message(tmp_path, valid_data, description, mutate, fragments):
    mutate(valid_data)
    with pytest.raises(BankError) as info:
        load_bank_file(write_bank(tmp_path, valid_data))
    message = str(info.value)
    assert message.startswith("m06.yaml: ")
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_all_problems_are_reported_together(tmp_path, valid_data):
    question(valid_data, "m06-q01")["bloom"] = "x"
    question(valid_data, "m06-q03")["answer"].pop("unit")
    with pytest.raises(BankError) as info:
        load_bank_file(write_bank(tmp_path, valid_data))
    assert len(info.value.problems) == 2


def test_module_nine_needs_ten_questions(tmp_path, valid_data):
    assert expected_question_count(9) == 10 and expected_question_count(6) == 8
    nine = renumbered(valid_data, 9, 8)
    with pytest.raises(BankError, match="10개"):
        load_bank_file(write_bank(tmp_path, nine, "m09.yaml"))
    assert len(load_bank_file(write_bank(tmp_path, renumbered(valid_data, 9, 10), "m09.yaml")).questions) == 10


def test_yaml_syntax_error_and_non_mapping(tmp_path):
    broken = tmp_path / "m06.yaml"
    broken.write_text("module: 6\nquestions: [\n", encoding="utf-8")
    with pytest.raises(BankError, match="YAML"):
        load_bank_file(broken)
    broken.write_text("- just a list\n", encoding="utf-8")
    with pytest.raises(BankError, match="매핑"):
        load_bank_file(broken)


def test_missing_bank_file(tmp_path):
    with pytest.raises(BankError, match="파일이 없습니다"):
        load_bank(6, tmp_path)


def test_file_name_must_match_module(tmp_path, valid_data):
    with pytest.raises(BankError, match="파일 이름"):
        load_bank_file(write_bank(tmp_path, valid_data, "m07.yaml"))


def test_load_all_banks_checks_ids_across_files(tmp_path, valid_data):
    write_bank(tmp_path, valid_data, "m06.yaml")
    write_bank(tmp_path, renumbered(valid_data, 4, 8), "m04.yaml")
    assert sorted(load_all_banks(tmp_path)) == [4, 6]
    write_bank(tmp_path, valid_data, "m06_copy.yaml")
    with pytest.raises(BankError) as info:
        load_all_banks(tmp_path)
    assert "m06_copy.yaml: m06-q01: id: 다른 파일" in str(info.value)


def test_banks_dir_env_variable(monkeypatch):
    monkeypatch.setenv(bank_mod.BANKS_ENV, str(FIXTURES))
    assert load_bank(6).module == 6


# ---------------------------------------------------------------- the real banks (written in parallel)

@pytest.mark.parametrize("module", bank_mod.course_modules())
def test_real_bank_is_valid(module):
    path = REAL_BANKS / f"m{module:02d}.yaml"
    if not path.exists():
        pytest.skip(f"{path.name} does not exist yet")
    bank = load_bank(module, REAL_BANKS)
    assert len(bank.questions) == expected_question_count(module)
    checkpoint = load_settings().checkpoint(module)
    if checkpoint is not None:
        assert checkpoint.question_count == len(bank.questions)
        assert bank.checkpoint is True


def test_real_banks_have_unique_ids_across_files():
    if not list(REAL_BANKS.glob("m*.yaml")):
        pytest.skip("no real bank exists yet")
    load_all_banks(REAL_BANKS)


# ---------------------------------------------------------------- `section`: where a learner goes back to read

def missing_heading(lines: list[str], section: str) -> str | None:
    """Why `section` names no heading of the chapter whose lines are given (None when it does): "A" must be a
    "## A" heading, "A > B" a "### B..." heading inside "## A" (B may be the start of a longer heading)."""
    top, *sub = [part.strip() for part in section.split(">")]
    if f"## {top}" not in lines:
        return f"no heading '## {top}'"
    begin = lines.index(f"## {top}")
    end = next((i for i in range(begin + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    if sub and not any(line.startswith(f"### {sub[0]}") for line in lines[begin:end]):
        return f"no heading '### {sub[0]}' inside '## {top}'"
    return None


def test_a_section_must_name_a_heading_under_its_own_top_heading():
    lines = ["# Title", "## 개념 설명", "### 추상: 두 모델", "## 측정", "### 실행해 보기"]
    assert missing_heading(lines, "개념 설명") is None
    assert missing_heading(lines, "개념 설명 > 추상") is None                 # the start of a longer heading
    assert missing_heading(lines, "측정 > 실행해 보기") is None
    assert missing_heading(lines, "개념") == "no heading '## 개념'"            # "A" is the whole "## A" heading
    assert missing_heading(lines, "측정 > 추상") == "no heading '### 추상' inside '## 측정'"   # under another "##"
    assert missing_heading(lines, "Title") is not None                          # "#" is not a section


@pytest.mark.parametrize("module", bank_mod.course_modules())
def test_every_question_points_at_a_heading(module):
    """The checkpoint's result lists the `section` of each question answered wrong as the place to reread
    ("복습할 곳"), so every label names a heading of the module's own chapter."""
    from course import syllabus

    chapter = REPO / syllabus.load().module(module).chapter_path
    lines = chapter.read_text(encoding="utf-8").splitlines()
    wrong = [f"{q.id}: {q.section!r}: {why}" for q in load_bank(module, REAL_BANKS).questions
             if (why := missing_heading(lines, q.section))]
    assert not wrong, f"{chapter.name}:\n" + "\n".join(wrong)


# ---------------------------------------------------------------- answer-key balance (python -m course validate)

def single(qid, lengths, key):
    """A single-choice question whose choice i has lengths[i] characters; key is the correct index."""
    return {"id": qid, "type": "single", "choices": [
        {"id": "abcdef"[i], "text": "가" * n, "correct": i == key} for i, n in enumerate(lengths)]}


def balance_of(questions):
    from course.quiz.bank import question_from_dict, ChoiceBalance
    balance = ChoiceBalance("test")
    for q in questions:
        balance.add(question_from_dict(q))
    return balance


def test_balance_counts_positions_unique_longest_and_ranks():
    balance = balance_of([single("m06-q01", [5, 9, 5, 5], 1),      # key is the unique longest
                          single("m06-q02", [9, 9, 5, 5], 0),      # longest, but tied: not unique
                          single("m06-q03", [5, 6, 7, 8], 0),      # shortest
                          {"id": "m06-q04", "type": "multiple", "choices": [
                              {"id": "a", "text": "x", "correct": False}, {"id": "b", "text": "y", "correct": True},
                              {"id": "c", "text": "z", "correct": True}]}])
    assert balance.single == 3 and dict(balance.single_positions) == {1: 1, 0: 2}
    assert balance.single_longest == 1 and dict(balance.key_ranks) == {1: 2, 4: 1}
    assert balance.multiple == 1 and dict(balance.multiple_positions) == {1: 1, 2: 1}
    assert balance.top_position_share == pytest.approx(2 / 3)
    lines = "\n".join(balance.lines())
    assert "정답 위치 a 2, b 1, c 0, d 0" in lines and "1/3" in lines


def test_balance_thresholds_fail_with_korean_messages():
    keyed_first = [single(f"m06-q{i:02d}", [5, 5, 5, 5], 0) for i in range(1, 6)]
    assert any("a 자리" in p and f"{MAX_KEY_POSITION_SHARE:.0%}" in p for p in balance_of(keyed_first).problems())
    spread = [single(f"m06-q{i + 1:02d}", [5, 5, 5, 5], i % 4) for i in range(8)]   # 2 keys per position
    for q in spread[:2]:
        next(c for c in q["choices"] if c["correct"])["text"] += "더 긴 정답"
    assert balance_of(spread).problems() == []                          # key the longest in 2/8 = 25%
    next(c for c in spread[2]["choices"] if c["correct"])["text"] += "더 긴 정답"
    problems = balance_of(spread).problems()                            # 3/8 = 37.5% > 35%
    assert len(problems) == 1 and "가장 긴" in problems[0] and f"{MAX_KEY_LONGEST_SHARE:.0%}" in problems[0]


def test_choice_length_ignores_code_backticks():
    assert choice_length("`LDG.E` + `STS`") == len("LDG.E + STS")


def test_real_banks_are_balanced_overall():
    banks = load_all_banks(REAL_BANKS)
    overall = None
    for bank in banks.values():
        balance = choice_balance(bank)
        overall = balance if overall is None else overall.merged(balance, "전체")
    assert overall.problems() == []
    assert overall.top_position_share <= MAX_KEY_POSITION_SHARE
    assert overall.longest_share <= MAX_KEY_LONGEST_SHARE
    # the opposite tell: the key is not always short, nor always second longest
    assert max(overall.key_ranks.values()) / overall.single <= 0.40
    assert 0.8 <= overall.length_ratio <= 1.25


def test_validate_reports_balance_and_fails_when_unbalanced(tmp_path, valid_data, capsys):
    from course.__main__ import main
    write_bank(tmp_path, valid_data)
    assert main(["--banks", str(tmp_path), "validate"]) == 1          # the fixture: both keys the longest
    captured = capsys.readouterr()
    assert "정답 위치" in captured.out and "가장 긴 선택지" in captured.out
    assert "치우침 (unbalanced)" in captured.err
    assert main(["validate"]) == 0                                      # the real banks
    assert "balance ok" in capsys.readouterr().out


# --------------------------------------------------------------------------- checkpoint variants

def _variant(data):
    return question(data, "m06-q03")["variant"]


VARIANT_BROKEN = [
    ("key not a formula", lambda d: _variant(d).update(key="__import__('os').system('x')"), ["variant.key", "쓸 수 없는"]),
    ("key with an unknown name", lambda d: _variant(d).update(key="2 * T * S * 4"), ["정의하지 않은 이름", "S"]),
    ("key with power", lambda d: _variant(d).update(key="2 * T ** 2 * 4"), ["variant.key"]),
    ("key wrong at the base", lambda d: _variant(d).update(key="T * T * 4"), ["기본값으로 계산한 정답", "8192"]),
    ("division by zero", lambda d: _variant(d).update(key="8192 * 32 / (T - 8) / 32 * (32 - 8) / 32"), ["유한한 수"]),
    ("base not among values", lambda d: _variant(d)["params"][0].update(base=36), ["base", "36"]),
    ("one value only", lambda d: _variant(d)["params"][0].update(values=[32], base=32), ["values", "2~50"]),
    ("value not a number", lambda d: _variant(d)["params"][0].update(values=[8, "16", 32]), ["values"]),
    ("placeholder without a parameter", lambda d: question(d, "m06-q03").update(
        prompt="한 변이 {{T}}이고 {{U}}인 타일"), ["{{이름}}", "U"]),
    ("parameter without a placeholder", lambda d: question(d, "m06-q03").update(prompt="한 변이 32인 타일"),
     ["{{이름}}", "T"]),
    ("unknown particle", lambda d: question(d, "m06-q03").update(prompt="한 변이 {{T|의}} 타일"), ["조사"]),
    ("unknown field", lambda d: _variant(d).update(note="x"), ["variant", "params와 key"]),
    ("too many combinations", lambda d: _variant(d)["params"].extend(
        {"name": n, "values": list(range(1, 40)), "base": 1} for n in ("U", "V")), ["조합"]),
]


@pytest.mark.parametrize("description,mutate,fragments", VARIANT_BROKEN, ids=[b[0] for b in VARIANT_BROKEN])
def test_each_variant_rule_is_enforced_with_a_korean_message(valid_data, description, mutate, fragments):
    mutate(valid_data)
    problems = validate_bank_data(valid_data, "m06.yaml")
    text = "\n".join(problems)
    assert problems and all(f in text for f in fragments), (description, problems)
    assert "m06-q03" in text


def test_a_variant_renders_the_base_question_as_written():
    for module, qid, words in ((6, "m06-q03", ["BK = 32로", "`As[32][32]`"]), (9, "m09-q03", ["96개", "256 스레드"])):
        q = load_bank(module, REAL_BANKS).question(qid)
        assert q.variant is not None and "{{" not in q.prompt and all(w in q.prompt for w in words)
        view = next(x for x in student_view(load_bank(module, REAL_BANKS))["questions"] if x["id"] == qid)
        assert view["prompt"] == q.prompt and "variant" not in view           # forms show the base question
        key = next(x for x in answer_key(load_bank(module, REAL_BANKS))["questions"] if x["id"] == qid)
        assert key["variant"]["key"] == q.variant.key                        # the key tells instructors the rule


def test_every_variant_of_the_real_checkpoints_is_sound():
    from course.quiz.variants import evaluate, render_template
    for module in (6, 9):
        for q in load_bank(module, REAL_BANKS).questions:
            if q.variant is None:
                continue
            combos = q.variant.combinations()
            assert len(combos) >= 3, q.id                                    # there is something to draw
            for params in combos:
                value = evaluate(q.variant.tree, params)
                assert value > 0 and value == value, (q.id, params)
                assert "{{" not in render_template(q.variant.template, params)


def test_formula_parser_and_evaluator():
    from course.quiz.variants import FormulaError, evaluate, parse_formula
    assert evaluate(parse_formula("2 * T * T * 4"), {"T": 16}) == 2048
    assert evaluate(parse_formula("-(a - b) / 4 + max(a, b, 7) - floor(2.5) + ceil(0.1)"), {"a": 3, "b": 5}) == 6.5
    assert evaluate(parse_formula("1 - 2 - 3"), {}) == -4 and evaluate(parse_formula("8 / 4 / 2"), {}) == 1
    for bad in ("", "1 +", "2 ** 3", "open('x')", "a[0]", "1; 2", "min()", "floor(1, 2)", "lambda: 1"):
        with pytest.raises(FormulaError):
            parse_formula(bad)


# --------------------------------------------------------------------------- multiple-answer key balance

def multiple(qid, keys, n=5):
    return {"id": qid, "type": "multiple", "choices": [
        {"id": "abcdef"[i], "text": "가나다", "correct": i in keys} for i in range(n)]}


def test_no_position_may_be_a_key_in_more_than_half_of_the_multiple_answer_questions():
    from course.quiz.bank import MAX_MULTIPLE_POSITION_SHARE
    assert MAX_MULTIPLE_POSITION_SHARE == 0.5
    half = [multiple(f"m06-q{i + 1:02d}", {4, i % 4}) for i in range(10)]
    for q in half[5:]:
        q["choices"][4]["correct"], q["choices"][(int(q["id"][-2:]) + 1) % 4]["correct"] = False, True
    assert balance_of(half).top_multiple_share == 0.5 and balance_of(half).problems() == []
    half[5]["choices"][4]["correct"] = True                              # e keyed in 6 of 10
    problems = balance_of(half).problems()
    assert len(problems) == 1 and "e 자리" in problems[0] and "6문항" in problems[0] and "50%" in problems[0]


def test_real_multiple_answer_keys_are_spread():
    overall = None
    for bank in load_all_banks(REAL_BANKS).values():
        balance = choice_balance(bank)
        overall = balance if overall is None else overall.merged(balance, "전체")
    assert overall.multiple >= 10 and overall.top_multiple_share <= 0.5
