/*
 * SGEMM course: the quiz rules, the same in the browser as in Python, with no DOM and no storage.
 *
 * Grading rules are the same as course/quiz/grading.py (see its docstring); tests/test_quiz_js.py
 * runs both over tests/fixtures/grading_cases.json. Everything is exported on window.CourseQuizRules
 * and, under Node, on module.exports; quiz.js (the page: widget, progress, gates) is loaded after
 * this file and applies these rules (course/site/extension.py: SCRIPTS gives the order).
 *
 *   parseNumber, unitsMatch, gradeQuestion, gradeQuiz, numberProblem     course/quiz/grading.py
 *   canonicalJSON, buildSubmission, submissionFilename                    course/quiz/submission.py
 *   fnv1a32, mulberry32, shuffledIds                                      course/quiz/shuffle.py
 *   presentedBank, choiceTag                                              course/quiz/variants.py, course/quiz/widget.py
 *   withParticle                                                          korean_text (particles after a value)
 *   emptyState, validAttempt, bestCorrectCount                            the progress document quiz.js stores
 *   settings, checkpointFor, pageLink, modulesGatedBy, policy             window.COURSE_SETTINGS (course/settings.py)
 *
 * Choice order: shuffled from the first attempt, seeded by the learner's anonymous id (made once,
 * stored with the progress) and the attempt number, so any order can be reproduced
 * (course/quiz/shuffle.py does the same in Python; tests/test_quiz_js.py compares). Every choice shows
 * its id, "(b)", because explanations, feedback and the instructor's key name choices by id.
 *
 * Checkpoints: numeric questions with drawn values show those drawn for (learner id as nonce, attempt)
 * from the first attempt on (variants.py draws the same; the submission records them under
 * presentation.variants, the nonce under .nonce); the letters before the choices follow the order shown.
 * checkpoint_lock.js does the drawing and the numeric grid: its functions are looked up when called
 * (window.CourseLock, or require() under Node), never while this file loads.
 */
(function (root, factory) {
  "use strict";
  var api = factory(root);
  if (typeof module !== "undefined" && module.exports) { module.exports = api; }
  if (typeof window !== "undefined") { window.CourseQuizRules = api; }
})(typeof window !== "undefined" ? window : globalThis, function (root) {
  "use strict";

  // ------------------------------------------------------------------ grading (mirrors grading.py)
  var NUMBER_MESSAGES = {
    empty: "답을 입력하세요.",
    type: "수(number)나 문자열로 답해야 합니다.",
    format: "수로 읽을 수 없습니다. 예: 8192, 8,192, 9.56, 1.5e3",
    comma: "쉼표(,)는 세 자리마다 넣는 천 단위 구분에만 씁니다. 소수점은 마침표(.)로 쓰세요.",
    unit: "단위가 맞지 않습니다. 이 문항의 단위는 '{unit}'입니다.",
    unitless: "이 문항은 단위 없이 수만 입력하세요."
  };
  var INVALID_RESPONSE_MESSAGE = "응답 형식이 이 문항 유형과 맞지 않습니다.";
  var UNIT_ALIASES = [
    ["b", "byte", "bytes", "바이트"],
    ["%", "퍼센트", "percent"],
    ["배", "x", "×", "times"],
    ["gflop/s", "gflops"],
    ["tflop/s", "tflops"],
    ["flop/byte", "flop/b", "flops/byte"],
    ["gb/s", "gbps"],
    ["ms", "밀리초"],
    ["μs", "us", "마이크로초"],
    ["ns", "나노초"],
    ["사이클", "cycle", "cycles", "clk"],
    ["섹터", "sector", "sectors"],
    ["번", "회"]
  ];
  var SPACE_CLASS = "[ \\t\\n\\r\\f\\v\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]";
  var WHITESPACE = new RegExp(SPACE_CLASS + "+", "g");
  var EDGE_SPACE = new RegExp("^" + SPACE_CLASS + "+|" + SPACE_CLASS + "+$", "g");
  var NUMBER_PATTERN = /^([+-]?)((?:[0-9][0-9,]*)?(?:\.[0-9]*)?)((?:[eE][+-]?[0-9]+)?)([\s\S]*)$/;
  var THOUSANDS_PATTERN = /^[0-9]{1,3}(,[0-9]{3})+$/;
  var UNIT_START = /^[^0-9.,+\-]/;

  function AnswerFormatError(code, unit) {
    this.name = "AnswerFormatError";
    this.code = code;
    this.message = NUMBER_MESSAGES[code].replace("{unit}", unit || "");
  }

  function trim(text) { return text.replace(EDGE_SPACE, ""); }

  // The particle after a number or a Korean word, as korean_text (Python) chooses it: the consonant form
  // (과 을 은 이 으로) after a final 0 1 3 6 7 8 or a syllable with a final consonant, the vowel form
  // (와 를 는 가 로) after 2 4 5 9, '%' or an open syllable; 로 also after ㄹ (1 7 8, 일). Anything else
  // gets both forms ("을(를)").
  var PARTICLE_PAIRS = { "과": ["과", "와"], "와": ["과", "와"], "을": ["을", "를"], "를": ["을", "를"],
    "은": ["은", "는"], "는": ["은", "는"], "이": ["이", "가"], "가": ["이", "가"], "으로": ["으로", "로"], "로": ["으로", "로"] };
  var DIGIT_SOUNDS = { "0": "c", "1": "r", "2": "v", "3": "c", "4": "v", "5": "v", "6": "c", "7": "r", "8": "r", "9": "v" };
  function withParticle(text, form) {
    text = String(text);
    var pair = PARTICLE_PAIRS[form];
    var last = text.charAt(text.length - 1);
    var code = text.charCodeAt(text.length - 1);
    var sound = DIGIT_SOUNDS[last] || (last === "%" ? "v" : null);
    if (!sound && code >= 0xAC00 && code <= 0xD7A3) {
      var jong = (code - 0xAC00) % 28;
      sound = jong === 0 ? "v" : (jong === 8 ? "r" : "c");
    }
    if (!sound) { return text + (pair[1] === "로" ? "(으)로" : pair[0] + "(" + pair[1] + ")"); }
    return text + ((sound === "v" || (sound === "r" && pair[1] === "로")) ? pair[1] : pair[0]);
  }

  function normalizeUnit(text) {
    return text.normalize("NFKC").replace(WHITESPACE, "").toLowerCase();
  }

  function unitsMatch(given, expected) {
    given = normalizeUnit(given);
    expected = normalizeUnit(expected);
    if (given === expected) { return true; }
    return UNIT_ALIASES.some(function (group) {
      return group.indexOf(given) !== -1 && group.indexOf(expected) !== -1;
    });
  }

  /** Read a learner's number; throws AnswerFormatError (Korean message) and nothing else. */
  function parseNumber(raw, unit) {
    unit = unit || "";
    if (typeof raw === "boolean") { throw new AnswerFormatError("type"); }
    if (typeof raw === "number") {
      if (!isFinite(raw)) { throw new AnswerFormatError("format"); }
      return raw;
    }
    if (typeof raw !== "string") { throw new AnswerFormatError("type"); }
    var text = trim(raw.normalize("NFKC").replace(/\u2212/g, "-"));
    if (!text) { throw new AnswerFormatError("empty"); }
    var m = NUMBER_PATTERN.exec(text);
    var sign = m[1], mantissa = m[2], exponent = m[3], rest = m[4];
    if (!/[0-9]/.test(mantissa)) { throw new AnswerFormatError("format"); }
    var integerPart = mantissa.split(".")[0];
    if (integerPart.indexOf(",") !== -1 && !THOUSANDS_PATTERN.test(integerPart)) {
      throw new AnswerFormatError("comma");
    }
    rest = trim(rest);
    if (rest) {
      if (!UNIT_START.test(rest)) { throw new AnswerFormatError(rest.charAt(0) === "," ? "comma" : "format"); }
      if (!unit) { throw new AnswerFormatError("unitless"); }
      if (!unitsMatch(rest, unit)) { throw new AnswerFormatError("unit", unit); }
    }
    var value = Number(sign + mantissa.replace(/,/g, "") + exponent);
    if (!isFinite(value)) { throw new AnswerFormatError("format"); }
    return value;
  }

  function normalizeCode(text) { return text.replace(WHITESPACE, ""); }

  function isPlainObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }

  function isBlankResponse(r) {
    return r === null || r === undefined || (typeof r === "string" && trim(r) === "") ||
      (Array.isArray(r) && r.length === 0) || (isPlainObject(r) && Object.keys(r).length === 0);
  }

  function makeResult(q, status, score, message, detail) {
    return { qid: q.id, type: q.type, status: status, score: score, message: message || "",
             detail: detail || {}, correct: score >= 1 && status !== "pending" };
  }

  function scored(q, score, detail) {
    return makeResult(q, score >= 1 ? "correct" : (score > 0 ? "partial" : "wrong"), score, "", detail);
  }

  function invalid(q, message) { return makeResult(q, "invalid", 0, message || INVALID_RESPONSE_MESSAGE); }

  function choiceIds(q) { return q.choices.map(function (c) { return String(c.id); }); }

  function correctIds(q) {
    return q.choices.filter(function (c) { return c.correct; }).map(function (c) { return String(c.id); });
  }

  function gradeSingle(q, r) {
    if (typeof r !== "string" || choiceIds(q).indexOf(r) === -1) { return invalid(q); }
    return scored(q, correctIds(q).indexOf(r) !== -1 ? 1 : 0);
  }

  function gradeMultiple(q, r) {
    if (!Array.isArray(r) || !r.every(function (x) { return typeof x === "string"; })) { return invalid(q); }
    var all = choiceIds(q), correct = correctIds(q);
    var picks = r.filter(function (x, i) { return r.indexOf(x) === i; });
    if (!picks.every(function (x) { return all.indexOf(x) !== -1; })) { return invalid(q); }
    var right = picks.filter(function (x) { return correct.indexOf(x) !== -1; }).length;
    var wrong = picks.length - right;
    var exact = right === correct.length && wrong === 0;
    var score = exact ? 1 : Math.max(0, (right - wrong) / correct.length);
    return scored(q, score, { right: right, wrong: wrong });
  }

  function gradeNumeric(q, r) {
    var value;
    try {
      value = parseNumber(r, q.answer.unit);
    } catch (e) {
      if (!(e instanceof AnswerFormatError)) { throw e; }
      return makeResult(q, "invalid", 0, e.message, { error: e.code });
    }
    var right = lock().numericRight(value, Number(q.answer.value), Number(q.answer.tolerance), Number(q.answer.rel || 0));
    return scored(q, right ? 1 : 0, { value: value });
  }

  function gradeCode(q, r) {
    if (!isPlainObject(r)) { return invalid(q); }
    var ids = q.blanks.map(function (b) { return b.id; });
    var keys = Object.keys(r);
    if (!keys.every(function (k) { return typeof r[k] === "string" && ids.indexOf(k) !== -1; })) {
      return invalid(q);
    }
    if (ids.every(function (id) { return normalizeCode(r[id] || "") === ""; })) {
      return makeResult(q, "unanswered", 0, "답하지 않았습니다.");
    }
    var blanks = {}, right = 0;
    q.blanks.forEach(function (b) {
      var canonical = function (text) { return lock().blankCanonical(b, text, normalizeCode); }, given = canonical(r[b.id] || "");
      var ok = given !== null && (b.accept || []).map(canonical).indexOf(given) !== -1;   // a checkpoint's: none
      blanks[b.id] = ok;
      if (ok) { right += 1; }
    });
    return scored(q, right / q.blanks.length, { blanks: blanks });
  }

  function gradeFree(q, r, selfAssessment, mode, manualMark) {
    if (typeof r !== "string") { return invalid(q); }
    if (mode === "instructor") {
      if (manualMark === null || manualMark === undefined) {
        return makeResult(q, "pending", 0, "강사 채점 대기 중입니다.");
      }
      return makeResult(q, "manual", Number(manualMark), "강사가 채점했습니다.");
    }
    if (selfAssessment === null || selfAssessment === undefined) {
      return makeResult(q, "pending", 0, "모범 답안과 비교해 자기 평가를 하세요.");
    }
    if (typeof selfAssessment !== "boolean") { return invalid(q); }
    return makeResult(q, "self", selfAssessment ? 1 : 0, selfAssessment ? "자기 평가: 맞음" : "자기 평가: 틀림");
  }

  /** Grade one response; never throws on a malformed response ("invalid", score 0). */
  function gradeQuestion(q, response, selfAssessment, mode, manualMark) {
    mode = mode || "learner";
    if (isBlankResponse(response)) { return makeResult(q, "unanswered", 0, "답하지 않았습니다."); }
    switch (q.type) {
      case "single": return gradeSingle(q, response);
      case "multiple": return gradeMultiple(q, response);
      case "numeric": return gradeNumeric(q, response);
      case "code": return gradeCode(q, response);
      default: return gradeFree(q, response, selfAssessment, mode, manualMark);
    }
  }

  function passStatus(correctCount, pendingCount, passCount) {
    if (passCount === null || passCount === undefined) { return ""; }
    if (correctCount >= passCount) { return "passed"; }
    if (correctCount + pendingCount >= passCount) { return "pending"; }
    return "failed";
  }

  /** checked: {question id: result} already known (a checkpoint's, from checkpoint_lock.js). */
  function gradeQuiz(questions, answers, selfAssessment, passCount, mode, manualMarks, checked) {
    answers = isPlainObject(answers) ? answers : {};
    selfAssessment = isPlainObject(selfAssessment) ? selfAssessment : {};
    manualMarks = manualMarks || {};
    var results = questions.map(function (q) {
      return (checked && checked[q.id]) || gradeQuestion(q, answers[q.id], selfAssessment[q.id], mode, manualMarks[q.id]);
    });
    var score = 0, correctCount = 0, pendingCount = 0;
    results.forEach(function (r) {
      score += r.score;
      if (r.correct) { correctCount += 1; }
      if (r.status === "pending") { pendingCount += 1; }
    });
    var status = passStatus(correctCount, pendingCount, passCount);
    return { results: results, score: score, maxScore: results.length, correctCount: correctCount,
             pendingCount: pendingCount, passCount: passCount === undefined ? null : passCount,
             passStatus: status, passed: status === "" ? null : status === "passed" };
  }

  // ------------------------------------------------------------------ submission file (mirrors submission.py)
  var SUBMISSION_FORMAT = "sgemm-course-submission";
  var SUBMISSION_VERSION = 1;

  function canonicalJSON(value) {
    if (value === null || typeof value !== "object") { return JSON.stringify(value); }
    if (Array.isArray(value)) { return "[" + value.map(canonicalJSON).join(",") + "]"; }
    return "{" + Object.keys(value).filter(function (k) { return value[k] !== undefined; }).sort()
      .map(function (k) { return JSON.stringify(k) + ":" + canonicalJSON(value[k]); }).join(",") + "}";
  }

  function toHex(buffer) {
    return Array.prototype.map.call(new Uint8Array(buffer), function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }

  /** Promise of the SHA-256 hex of text, or null when crypto.subtle is unavailable. */
  function sha256Hex(text) {
    var subtle = root.crypto && root.crypto.subtle;
    if (!subtle || typeof TextEncoder === "undefined") { return Promise.resolve(null); }
    return subtle.digest("SHA-256", new TextEncoder().encode(text)).then(toHex, function () { return null; });
  }

  /** Promise of the complete submission document (integrity null when it cannot be computed).
   *  presentation ({learner, attempt, choice_order}) records the choice order shown; optional. */
  function buildSubmission(bank, student, answers, selfAssessment, startedAt, submittedAt, presentation) {
    var doc = {
      format: SUBMISSION_FORMAT,
      version: SUBMISSION_VERSION,
      client: "site",
      student: { id: String(student.id || "").trim(), name: String(student.name || "").trim() },
      module: bank.module,
      bank_hash: bank.bank_hash,
      started_at: startedAt,
      submitted_at: submittedAt,
      answers: answers,
      self_assessment: selfAssessment
    };
    if (presentation) { doc.presentation = presentation; }
    return sha256Hex(canonicalJSON(doc)).then(function (digest) {
      doc.integrity = digest ? { algorithm: "sha256", digest: digest } : null;
      return doc;
    });
  }

  function submissionFilename(module, studentId, submittedAt) {
    var safe = String(studentId || "anonymous").replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "") || "anonymous";
    var stamp = String(submittedAt || "").split(".")[0].replace(/[^0-9T]/g, "") + "Z";
    return "m" + (module < 10 ? "0" : "") + module + "_" + safe + "_" + stamp + ".json";
  }

  // ------------------------------------------------------------------ seeded choice order (mirrors shuffle.py)
  var LEARNER_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

  /** checkpoint_lock.js's functions, looked up when called (its script may load after this one). */
  function lock() { return root.CourseLock || (typeof require === "function" ? require("./checkpoint_lock.js") : null); }
  function fnv1a32(text) { return lock().fnv1a32(text); }
  function mulberry32(seed) { return lock().mulberry32(seed); }

  function seedText(learner, attempt, qid) { return learner + ":" + attempt + ":" + qid; }

  /** The choice ids of question qid in the order this learner sees them in this attempt. */
  function shuffledIds(ids, learner, attempt, qid) {
    var order = ids.map(String), next = mulberry32(fnv1a32(seedText(learner, attempt, qid)));
    for (var i = order.length - 1; i > 0; i--) {
      var j = next() % (i + 1);
      var t = order[i]; order[i] = order[j]; order[j] = t;
    }
    return order;
  }

  function newLearnerId() {
    var bytes = new Uint8Array(8);
    if (root.crypto && root.crypto.getRandomValues) {
      root.crypto.getRandomValues(bytes);
    } else {
      for (var i = 0; i < bytes.length; i++) { bytes[i] = Math.floor(Math.random() * 256); }
    }
    return toHex(bytes.buffer);
  }

  // ------------------------------------------------------------------ checkpoint variants (checkpoint_lock.js draws them)
  function presentedBank(bank, learner, attempt, checkpoint) {
    return lock().presentedBank(bank, learner, attempt, !!checkpoint, withParticle);
  }

  function withVariants(presentation, variants) {
    if (variants && Object.keys(variants).length) { presentation.variants = variants; }
    return presentation;
  }

  var POSITION_LETTERS = "abcdefghij";

  /** The tag before a choice: its id, or on a checkpoint the letter of its place in this attempt's order. */
  function choiceTag(checkpoint, id, position) {
    return "(" + (checkpoint && position < POSITION_LETTERS.length ? POSITION_LETTERS.charAt(position) : id) + ")";
  }

  // ------------------------------------------------------------------ the progress document (quiz.js stores it)
  var SCHEMA = "sgemm-course-progress";
  var SCHEMA_VERSION = 1;

  function emptyState() {
    return { schema: SCHEMA, schema_version: SCHEMA_VERSION, attempts: [], student: {} };
  }

  function isInt(v) { return typeof v === "number" && Math.floor(v) === v; }

  function validAttempt(a) {
    return isPlainObject(a) && typeof a.id === "string" && a.id !== "" && isInt(a.module) &&
      typeof a.time === "string" && isPlainObject(a.answers) && isPlainObject(a.results) &&
      typeof a.score === "number" && isInt(a.max_score) && isInt(a.correct_count) &&
      (a.passed === null || a.passed === undefined || typeof a.passed === "boolean");
  }

  function bestCorrectCount(state, module) {
    var best = null;
    state.attempts.forEach(function (a) {
      if (a.module === module && (best === null || a.correct_count > best)) { best = a.correct_count; }
    });
    return best;
  }

  // ------------------------------------------------------------------ settings
  function settings() {
    var s = root.COURSE_SETTINGS;
    return isPlainObject(s) ? s : {};
  }

  function checkpointFor(module, fallback) {
    var cps = settings().checkpoints || {};
    var cp = cps[String(module)];
    if (isPlainObject(cp) && isInt(cp.pass_count)) { return cp; }
    return fallback || null;
  }

  function pageLink(module) {
    var pages = settings().pages || {};
    var doc = pages[String(module)] || ("m" + (module < 10 ? "0" : "") + module);
    return doc + ".html";
  }

  function modulesGatedBy(module) {
    var gates = settings().gates || {};
    return Object.keys(gates).filter(function (k) { return String(gates[k]) === String(module); })
      .map(Number).sort(function (a, b) { return a - b; });
  }

  function policy() {
    var p = settings().gating_policy;
    return p === "strict" || p === "advisory" || p === "off" ? p : "strict";
  }

  // ------------------------------------------------------------------ reading a form's answers before grading
  /** The Korean message for an unreadable number, or "" when the answer is empty or reads. */
  function numberProblem(q, answer) {
    if (q.type !== "numeric" || trim(answer || "") === "") { return ""; }
    try {
      parseNumber(answer, q.answer.unit);
      return "";
    } catch (e) {
      return e.message;
    }
  }

  function unansweredCount(questions, answers) {
    return questions.filter(function (q) {
      return gradeQuestion(q, answers[q.id], true).status === "unanswered";
    }).length;
  }

  return {
    NUMBER_MESSAGES: NUMBER_MESSAGES,
    UNIT_ALIASES: UNIT_ALIASES,
    INVALID_RESPONSE_MESSAGE: INVALID_RESPONSE_MESSAGE,
    SUBMISSION_FORMAT: SUBMISSION_FORMAT,
    SUBMISSION_VERSION: SUBMISSION_VERSION,
    LEARNER_ID_PATTERN: LEARNER_ID_PATTERN,
    SCHEMA: SCHEMA,
    SCHEMA_VERSION: SCHEMA_VERSION,
    AnswerFormatError: AnswerFormatError,
    parseNumber: parseNumber,
    unitsMatch: unitsMatch,
    withParticle: withParticle,
    normalizeCode: normalizeCode,
    isPlainObject: isPlainObject,
    isInt: isInt,
    isBlankResponse: isBlankResponse,
    gradeQuestion: gradeQuestion,
    gradeQuiz: gradeQuiz,
    numberProblem: numberProblem,
    unansweredCount: unansweredCount,
    canonicalJSON: canonicalJSON,
    sha256Hex: sha256Hex,
    buildSubmission: buildSubmission,
    submissionFilename: submissionFilename,
    lock: lock,
    fnv1a32: fnv1a32,
    mulberry32: mulberry32,
    shuffledIds: shuffledIds,
    newLearnerId: newLearnerId,
    presentedBank: presentedBank,
    withVariants: withVariants,
    choiceTag: choiceTag,
    emptyState: emptyState,
    validAttempt: validAttempt,
    bestCorrectCount: bestCorrectCount,
    settings: settings,
    checkpointFor: checkpointFor,
    pageLink: pageLink,
    modulesGatedBy: modulesGatedBy,
    policy: policy
  };
});
