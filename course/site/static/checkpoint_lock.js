/*
 * SGEMM course: what a quiz compares answers as, and checkpoints that carry no readable key.
 *
 * Loaded before quiz_rules.js and quiz.js (course/site/extension.py: SCRIPTS), but quiz_rules.js looks
 * this file's functions up when it calls them (window.CourseLock, or require() under Node), never while
 * it loads. Everything here mirrors Python, and tests/test_quiz_js.py runs both over shared tables:
 *
 *   canonicalNumber, answerForms, acceptedForms, numericRight   course/quiz/grading.py (the numeric grid)
 *   choiceCanonical, blankCanonical                             course/quiz/grading.py
 *   parseCode, codeValues, blankAssignments                     course/quiz/variants.py (code blanks by meaning)
 *   fnv1a32, mulberry32, drawIndex, presentedBank               course/quiz/shuffle.py, course/quiz/variants.py
 *   checkAnswers (HMAC-SHA256 digests, AES-GCM)                 course/quiz/checkpoint_lock.py builds what it reads
 *   gradedByInstructor, gradingNotes, collectOnly               course/quiz/checkpoint_lock.py instructor_payload
 *
 * A checkpoint page's quiz data (course.quiz.checkpoint_lock.locked_payload) has no correct flag, value,
 * formula, accepted answer, model answer, rubric or explanation. Each question has a salt and parts;
 * a part lists entries {d, w} for its accepted canonical answers c: d = HMAC(salt, "check|qid|part|c")
 * (first 16 bytes, hex), w = share XOR HMAC(salt, "wrap|qid|part|c") (base64). An answer whose digest
 * is listed gives its part's share back; all shares XORed are the AES-GCM key of the question's
 * explanation. WebCrypto (crypto.subtle) does the work, so a checkpoint is graded only in a secure
 * context (https, or a local address); elsewhere the page says so and the submission file still works.
 *
 * Checkpoint feedback (showCheckpointFeedback, showCheckpointResult): the score and the sections to
 * review (each once, sorted, not in question order); per-question right/wrong and the explanations of
 * the questions answered right only once verdicts are shown (quiz.js: after a pass, or from attempt
 * course_settings.verdicts_after_attempts on). No marks on choices, ever.
 *
 * Instructor-graded checkpoints (course_settings.checkpoint_grading: instructor; the quiz data has
 * graded_by "instructor" and no lock, key or explanation): the header says that the instructor grades
 * the checkpoint; submitting checks only that numbers read, then keeps the answers for the submission
 * file (collectOnly) and shows no score, verdict or explanation. No attempt is recorded in the progress
 * (quiz.js has already used up its number), so nothing stored on the page can open a gate.
 *
 * A pass banner under gating_unlock: instructor (window.COURSE_SETTINGS) says that the instructor's
 * unlock code opens the next chapters (nextChapterLead), never that they are open now.
 */
(function (root, factory) {
  "use strict";
  var api = factory(root);
  if (typeof module !== "undefined" && module.exports) { module.exports = api; }
  if (typeof window !== "undefined") { window.CourseLock = api; }
})(typeof window !== "undefined" ? window : globalThis, function (root) {
  "use strict";

  // ------------------------------------------------------------------ seeded generator (mirrors shuffle.py)
  function utf8Bytes(text) {
    if (typeof TextEncoder !== "undefined") { return new TextEncoder().encode(text); }
    var binary = unescape(encodeURIComponent(text)), bytes = [];
    for (var i = 0; i < binary.length; i++) { bytes.push(binary.charCodeAt(i)); }
    return bytes;
  }

  /** 32-bit FNV-1a of text's UTF-8 bytes (unsigned). */
  function fnv1a32(text) {
    var bytes = utf8Bytes(String(text)), hash = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) { hash = Math.imul(hash ^ bytes[i], 0x01000193); }
    return hash >>> 0;
  }

  /** mulberry32: a function returning the next unsigned 32-bit value. */
  function mulberry32(seed) {
    var state = seed >>> 0;
    return function () {
      state = (state + 0x6d2b79f5) >>> 0;
      var t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
      return (t ^ (t >>> 14)) >>> 0;
    };
  }

  // ------------------------------------------------------------------ canonical answers (mirrors grading.py)
  var GRID_SLACK = 1e-6, MAX_CELLS = 40;

  /** One text per double: an integer below 1e21 in digits, anything else as toExponential() writes it. */
  function canonicalNumber(x) {
    x = Number(x);
    if (x === Math.floor(x) && Math.abs(x) < 1e21) { return x.toFixed(0); }
    return x.toExponential();
  }

  function linearCell(x, width) {
    var cell = x / width;
    return isFinite(cell) ? Math.floor(cell) : null;
  }

  /** [e, j] of a > 0: a = m * 2^e with m in [1, 2) (exact halvings and doublings), j = floor((m - 1) * k). */
  function logCell(a, k) {
    var e = 0;
    while (a >= 2) { a /= 2; e += 1; }
    while (a < 1) { a *= 2; e -= 1; }
    return [e, Math.floor((a - 1) * k)];
  }

  function logCellsPerOctave(rel) { return Math.ceil(4 / rel); }

  /** The canonical forms of a learner's number x, one per grid the question may use. */
  function answerForms(x, tolerance, rel) {
    var out = ["X" + canonicalNumber(x)];
    if (tolerance > 0) {
      var cell = linearCell(x, tolerance / 4);
      if (cell !== null) { out.push("L" + canonicalNumber(cell)); }
    }
    if (rel > 0 && x !== 0) {
      var ej = logCell(Math.abs(x), logCellsPerOctave(rel));
      out.push("G" + (x > 0 ? "+" : "-") + ej[0] + ":" + ej[1]);
    }
    return out;
  }

  /** The canonical forms that are right for key (a practice page grades with them). */
  function acceptedForms(key, tolerance, rel) {
    var out = [];
    if (tolerance > 0) {
      var width = tolerance / 4;
      var low = linearCell((key - tolerance) / width - GRID_SLACK, 1), high = linearCell((key + tolerance) / width + GRID_SLACK, 1);
      if (low !== null && high !== null) {
        for (var cell = low; cell <= high && out.length < MAX_CELLS; cell += 1) { out.push("L" + canonicalNumber(cell)); }
      }
    }
    if (rel > 0 && key !== 0) {
      var k = logCellsPerOctave(rel), a = Math.abs(key), sign = key > 0 ? "+" : "-";
      var at = logCell(a - a * rel, k), last = logCell(a + a * rel, k);
      for (var count = 0; (at[0] < last[0] || (at[0] === last[0] && at[1] <= last[1])) && count < MAX_CELLS; count++) {
        out.push("G" + sign + at[0] + ":" + at[1]);
        at = at[1] + 1 === k ? [at[0] + 1, 0] : [at[0], at[1] + 1];
      }
    }
    return out.length ? out : ["X" + canonicalNumber(key)];
  }

  function numericRight(x, key, tolerance, rel) {
    var accepted = acceptedForms(key, tolerance, rel || 0);
    return answerForms(x, tolerance, rel || 0).some(function (f) { return accepted.indexOf(f) !== -1; });
  }

  function choiceCanonical(ids) {
    return ids.map(String).filter(function (x, i, all) { return all.indexOf(x) === i; }).sort().join(",");
  }

  // ------------------------------------------------------------------ code blanks by meaning (mirrors variants.py)
  var CODE_LEVELS = [["|"], ["^"], ["&"], ["+", "-"], ["*", "/", "%"]];
  var CODE_LIMIT = 2147483647, MAX_NESTING = 32;

  function codeTokens(text) {
    var out = [], pattern = /\s*(?:([0-9]+)|([A-Za-z_][A-Za-z0-9_]*)|([\s\S]))/g, m;
    text = String(text).replace(/\s+$/, "");
    while (pattern.lastIndex < text.length && (m = pattern.exec(text)) !== null) {
      if (m[1] !== undefined) { out.push(["num", m[1]]); }
      else if (m[2] !== undefined) { out.push(["name", m[2]]); }
      else if ("+-*/%&|^!~()".indexOf(m[3]) !== -1) { out.push(["op", m[3]]); }
      else { throw new Error("code: unexpected " + m[3]); }
    }
    return out;
  }

  /** A C integer expression as nested arrays, the same tree as variants.parse_code. */
  function parseCode(text) {
    var tokens = codeTokens(text), i = 0, nesting = 0;
    if (!tokens.length) { throw new Error("code: empty"); }
    function peek() { return tokens[i] || ["end", ""]; }
    function level(depth) {
      if (depth === CODE_LEVELS.length) { return unary(); }
      var node = level(depth + 1);
      while (peek()[0] === "op" && CODE_LEVELS[depth].indexOf(peek()[1]) !== -1) { node = [tokens[i++][1], node, level(depth + 1)]; }
      return node;
    }
    function unary() {
      var t = peek();
      if (++nesting > MAX_NESTING) { throw new Error("code: too deep"); }
      try {
        if (t[0] === "op" && "-+!~".indexOf(t[1]) !== -1) { i += 1; return ["u" + t[1], unary()]; }
        i += 1;
        if (t[0] === "num") { return ["num", Number(t[1])]; }
        if (t[0] === "name") { return ["var", t[1]]; }
        if (t[0] === "op" && t[1] === "(") {
          var inner = level(0);
          if (peek()[0] !== "op" || peek()[1] !== ")") { throw new Error("code: expected )"); }
          i += 1;
          return inner;
        }
        throw new Error("code: unexpected end");
      } finally { nesting -= 1; }
    }
    var tree = level(0);
    if (peek()[0] !== "end") { throw new Error("code: trailing input"); }
    return tree;
  }

  function codeEval(tree, env) {
    var value, a, b;
    if (tree[0] === "num") { value = tree[1]; }
    else if (tree[0] === "var") {
      if (!Object.prototype.hasOwnProperty.call(env, tree[1])) { throw new Error("code: unknown name"); }
      value = env[tree[1]];
    } else if (tree.length === 2) {
      a = codeEval(tree[1], env);
      value = { "u-": -a, "u+": a, "u!": a === 0 ? 1 : 0, "u~": -a - 1 }[tree[0]];
    } else {
      a = codeEval(tree[1], env); b = codeEval(tree[2], env);
      if ((tree[0] === "/" || tree[0] === "%") && b === 0) { throw new Error("code: division by zero"); }
      switch (tree[0]) {
        case "+": value = a + b; break;
        case "-": value = a - b; break;
        case "*": value = a * b; break;
        case "/": value = (a - a % b) / b; break;      // C: truncates toward zero
        case "%": value = a % b; break;                // C: the dividend's sign
        case "&": value = a & b; break;
        case "|": value = a | b; break;
        default: value = a ^ b;
      }
    }
    if (Math.abs(value) > CODE_LIMIT) { throw new Error("code: beyond int"); }
    return value === 0 ? 0 : value;                    // no -0
  }

  /** Every assignment of a blank's variables (listed ones in product order, then the derived ones). */
  function blankAssignments(spec) {
    var names = Object.keys(spec.vars), envs = [{}];
    names.forEach(function (name) {
      var values = spec.vars[name];
      if (!Array.isArray(values)) { return; }
      var next = [];
      envs.forEach(function (env) {
        values.forEach(function (v) { var e = {}; Object.keys(env).forEach(function (k) { e[k] = env[k]; }); e[name] = v; next.push(e); });
      });
      envs = next;
    });
    names.forEach(function (name) {
      if (typeof spec.vars[name] !== "string") { return; }
      var tree = parseCode(spec.vars[name]);
      envs.forEach(function (env) { env[name] = codeEval(tree, env); });
    });
    return envs;
  }

  /** The values of an expression over the blank's assignments, or null when it has none. */
  function codeValues(text, spec) {
    if (typeof text !== "string" || text.length > 500) { return null; }
    try {
      var tree = parseCode(text);
      return blankAssignments(spec).map(function (env) { return codeEval(tree, env); });
    } catch (e) {
      return null;
    }
  }

  /** A blank's answer as compared: normalised text, or "=" and its values for a blank graded by meaning. */
  function blankCanonical(blank, text, normalize) {
    var given = normalize(String(text || ""));
    if (!given) { return null; }
    if (!blank.evaluate) { return given; }
    var values = codeValues(given, blank.evaluate);
    return values === null ? null : "=" + values.join(",");
  }

  // ------------------------------------------------------------------ variant draws (mirrors variants.py)
  function cycleOrder(nonce, cycle, qid, n) {
    var order = [], next = mulberry32(fnv1a32(nonce + ":" + cycle + ":" + qid + ":cycle"));
    for (var k = 0; k < n; k++) { order.push(k); }
    for (var i = n - 1; i > 0; i--) {
      var j = next() % (i + 1);
      var t = order[i]; order[i] = order[j]; order[j] = t;
    }
    return order;
  }

  /** Which of n drawn values attempt (1, 2, ...) shows: never the same one twice in a row. */
  function drawIndex(nonce, attempt, qid, n) {
    if (n <= 1) { return 0; }
    var cycle = Math.floor((attempt - 1) / n), position = (attempt - 1) % n;
    if (n === 2) { return (position + cycle + fnv1a32(nonce + ":" + qid + ":cycle")) % 2; }
    var order = cycleOrder(nonce, cycle, qid, n);
    if (cycle > 0 && order[0] === cycleOrder(nonce, cycle - 1, qid, n)[n - 1]) {
      var t = order[0]; order[0] = order[1]; order[1] = t;
    }
    return order[position];
  }

  function renderTemplate(template, params, withParticle) {
    return String(template).replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\|\s*([^{}\s]+)\s*)?\}\}/g, function (_, name, form) {
      var text = String(Number(params[name]));
      return form ? withParticle(text, form) : text;
    });
  }

  /** The bank as this attempt shows it: on a checkpoint, every question with drawn values shows the ones
   *  drawn for (nonce, attempt) (q.drawn: their index); variants records {qid: params}. */
  function presentedBank(bank, nonce, attempt, checkpoint, withParticle) {
    var out = {}, variants = {};
    Object.keys(bank).forEach(function (k) { out[k] = bank[k]; });
    out.questions = bank.questions.map(function (q) {
      if (!checkpoint || !q.variant || !Array.isArray(q.variant.values)) { return q; }
      var shown = {}, index = drawIndex(nonce, attempt, q.id, q.variant.values.length);
      Object.keys(q).forEach(function (k) { shown[k] = q[k]; });
      variants[q.id] = q.variant.values[index];
      shown.drawn = index;
      shown.prompt = renderTemplate(q.variant.template, variants[q.id], withParticle).replace(/\s+$/, "");
      return shown;
    });
    out.variants = variants;
    return out;
  }

  // ------------------------------------------------------------------ checking a locked checkpoint
  function subtle() { return root.crypto && root.crypto.subtle; }

  function fromBase64(text) {
    var binary = root.atob(text), out = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { out[i] = binary.charCodeAt(i); }
    return out;
  }

  function hex(bytes) {
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function xorInto(target, other) {
    for (var i = 0; i < target.length; i++) { target[i] ^= other[i]; }
    return target;
  }

  function macKey(salt) {
    return subtle().importKey("raw", fromBase64(salt), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  }

  function mac(key, text) {
    return subtle().sign("HMAC", key, utf8Bytes(text)).then(function (buffer) { return new Uint8Array(buffer); });
  }

  /** Promise of the part's share when one of the canonical forms is accepted, else null. */
  function openPart(key, qid, part, forms) {
    return Promise.all(forms.map(function (c) { return mac(key, "check|" + qid + "|" + part.name + "|" + c); }))
      .then(function (digests) {
        for (var i = 0; i < forms.length; i++) {
          var d = hex(digests[i].slice(0, 16));
          var entry = part.entries.filter(function (e) { return e.d === d; })[0];
          if (entry) {
            return mac(key, "wrap|" + qid + "|" + part.name + "|" + forms[i]).then(function (mask) {
              return xorInto(fromBase64(entry.w), mask.slice(0, 32));
            });
          }
        }
        return null;
      });
  }

  function openBox(q, shares) {
    var secret = shares[0].slice();
    shares.slice(1).forEach(function (s) { xorInto(secret, s); });
    return subtle().importKey("raw", secret, "AES-GCM", false, ["decrypt"]).then(function (aes) {
      return subtle().decrypt({ name: "AES-GCM", iv: fromBase64(q.lock.box.iv), additionalData: utf8Bytes(q.id) }, aes,
                              fromBase64(q.lock.box.ct));
    }).then(function (plain) { return JSON.parse(new TextDecoder().decode(plain)).explanation; });
  }

  function lockedResult(q, status, score, message, detail) {
    return { qid: q.id, type: q.type, status: status, score: score, message: message || "", detail: detail || {},
             correct: score >= 1 && status !== "pending" };
  }

  /** [part, canonical forms] pairs of an answer (an unreadable answer: a result instead). */
  function partsOf(q, answer, tools) {
    var parts = q.lock.parts;
    if (q.type === "single") { return typeof answer === "string" ? [[parts[0], [answer]]] : lockedResult(q, "invalid", 0, tools.invalidMessage); }
    if (q.type === "multiple") {
      return Array.isArray(answer) ? [[parts[0], [choiceCanonical(answer)]]] : lockedResult(q, "invalid", 0, tools.invalidMessage);
    }
    if (q.type === "numeric") {
      var x;
      try { x = tools.parse(answer, q.answer.unit); } catch (e) {
        return lockedResult(q, "invalid", 0, e.message, { error: e.code });
      }
      var part = q.variant ? parts[q.drawn] : parts[0];
      return [[part, answerForms(x, Number(q.answer.tolerance), Number(q.answer.rel || 0))]];
    }
    return q.blanks.map(function (b, i) {
      var c = blankCanonical(b, (answer || {})[b.id], tools.normalize);
      return [parts[i], c === null ? [] : [c]];
    });
  }

  /** Promise of one locked question's result, with its explanation when every part was right. */
  function checkQuestion(q, answer, tools) {
    if (tools.blank(answer) || (q.type === "code" && q.blanks.every(function (b) {
      return !tools.normalize(String((answer || {})[b.id] || ""));
    }))) {
      return Promise.resolve(lockedResult(q, "unanswered", 0, "답하지 않았습니다."));
    }
    var parts = partsOf(q, answer, tools);
    if (!Array.isArray(parts)) { return Promise.resolve(parts); }
    return macKey(q.lock.salt).then(function (key) {
      return Promise.all(parts.map(function (p) { return openPart(key, q.id, p[0], p[1]); }));
    }).then(function (shares) {
      var right = shares.filter(function (s) { return s !== null; }).length, score = right / shares.length;
      var status = score >= 1 ? "correct" : (score > 0 ? "partial" : "wrong");
      var result = lockedResult(q, status, score);
      if (score < 1) { return result; }
      return openBox(q, shares).then(function (text) { result.explanation = text; return result; },
                                     function () { return result; });
    });
  }

  /** Promise of {question id: result} for a locked bank's auto-graded questions (null for a practice bank). */
  function checkAnswers(bank, answers, tools) {
    if (!bank.locked) { return Promise.resolve(null); }
    if (!subtle()) { return Promise.reject(new Error("no-webcrypto")); }
    var locked = bank.questions.filter(function (q) { return q.lock; });
    return Promise.all(locked.map(function (q) { return checkQuestion(q, answers[q.id], tools); })).then(function (list) {
      var out = {};
      list.forEach(function (r) { out[r.qid] = r; });
      return out;
    });
  }

  var NO_WEBCRYPTO = "이 브라우저(또는 https가 아닌 주소)에서는 체크포인트를 채점할 수 없습니다(WebCrypto 없음). " +
    "https 주소에서 다시 열거나, 제출 파일을 내려받아 강사에게 제출하세요.";

  // ------------------------------------------------------------------ checkpoint feedback
  /** The sections of the questions not answered right: each once, sorted (never in question order). */
  function reviewSections(questions, results) {
    var seen = {};
    results.forEach(function (r, i) { if (!r.correct) { seen[questions[i].section || "본문"] = true; } });
    return Object.keys(seen).sort();
  }

  function reviewLink(ui, module, section) {
    var page = ui.pageLink(module);
    return [ui.el("a", { href: page, text: page.replace(/\.html$/, "") }), "의 〈" + section + "〉"];
  }

  /** Under one question: nothing until verdicts are shown (a free answer: its self-assessment against
   *  the chapter, the instructor grading it); then right or wrong, a right answer's explanation, a
   *  wrong one's section. */
  function showCheckpointFeedback(quiz, q, r, verdicts, ui) {
    var el = ui.el, block = quiz.blocks[q.id];
    var box = ui.clear(block.querySelector("[data-quiz-feedback]"));
    var parts = [];
    if (verdicts) {
      parts.push(el("p", { "class": "course-quiz-status course-quiz-status-" + r.status,
        text: (ui.status[r.status] || r.status) + (r.status === "partial" ? " (" + ui.formatScore(r.score) + "점)" : "") }));
    }
    if (q.type === "free" && (r.status === "pending" || r.status === "self")) {
      parts.push(el("p", {}, ["체크포인트의 서술형은 강사가 제출 파일로 채점하며, 이 페이지에는 모범 답안이 없습니다. "]
        .concat(reviewLink(ui, quiz.module, q.section), [" 부분을 다시 읽고, 내 답이 그 내용을 담았는지 스스로 판단하세요."])),
        quiz.selfAssessmentOf(q));
    } else if (verdicts && r.correct && r.explanation) {
      parts.push(el("p", { "class": "course-quiz-label", text: "해설(explanation)" }));
      parts.push(ui.richText(el("div", { "class": "course-quiz-explanation" }), r.explanation));
    } else if (verdicts && !r.correct && q.type !== "free") {
      parts.push(el("p", {}, ["복습할 곳: "].concat(reviewLink(ui, quiz.module, q.section))));
    }
    var shown = verdicts || q.type === "free";
    box.hidden = !parts.length;
    [box, block].forEach(function (node) {
      if (shown) { node.setAttribute("data-quiz-status", r.status); } else { node.removeAttribute("data-quiz-status"); }
    });
    ui.appendAll(box, parts);
  }

  /** The result of a checkpoint attempt: the count, the sections to review, when verdicts come, the banner. */
  function showCheckpointResult(quiz, pendingSelf, verdicts, ui) {
    var el = ui.el, r = quiz.result, box = ui.clear(quiz.resultBox);
    box.appendChild(el("p", { "class": "course-quiz-summary", text: r.maxScore + "문항 중 " + r.correctCount + "문항 정답" }));
    if (pendingSelf > 0) {
      box.appendChild(el("p", { "class": "course-quiz-pending", text:
        "서술형 " + pendingSelf + "문항의 자기 평가(맞음/틀림)를 마치면 결과가 확정되고 기록됩니다." }));
      return;
    }
    var sections = reviewSections(quiz.bank.questions, r.results);
    if (sections.length) {
      var list = el("ul", {});
      sections.forEach(function (s) { list.appendChild(el("li", {}, reviewLink(ui, quiz.module, s))); });
      box.appendChild(el("div", { "data-quiz-review": true }, [
        el("p", { text: "복습할 곳 (문항 순서와 관계없이 정렬했습니다):" }), list]));
    }
    var after = ui.verdictsAfter;
    if (!verdicts) {
      box.appendChild(el("p", { "data-quiz-verdicts-later": true, text: "문항별 정답·오답과 해설은 통과한 뒤" +
        (after > 0 ? " 또는 " + after + "번째 시도부터" : "") + " 보여 줍니다." }));
    } else {
      box.appendChild(el("p", {}, [el("a", { href: "#" + quiz.blocks[quiz.bank.questions[0].id].id,
        "class": "course-quiz-feedback-link", text: "문항별 채점 결과와 해설 보기" })]));
    }
    var hasVariant = quiz.bank.questions.some(function (q) { return !!q.variant; });
    box.appendChild(ui.banner(r, "복습할 곳을 다시 읽고 '다시 풀기'로 도전하세요." +
      (hasVariant ? " 다음 시도에서는 수치 문항의 값이 바뀝니다." : "")));
  }

  // ------------------------------------------------------------------ instructor-graded checkpoints
  var INSTRUCTOR_GRADES = "이 체크포인트는 강사가 채점합니다. 여기서는 답을 모아 제출 파일로 내보낼 뿐, 점수와 정답은 보여 주지 않습니다.";
  var UNLOCK_BY_CODE = "다음 장은 강사가 주는 잠금 해제 코드(unlock code)로 열립니다: ";

  function gradedByInstructor(bank) { return !!bank && bank.graded_by === "instructor"; }

  /** Under the quiz's title: an instructor-graded checkpoint says so (nothing for other quizzes). */
  function gradingNotes(bank, el) {
    return gradedByInstructor(bank) ? [el("p", { "class": "course-quiz-rule", "data-quiz-graded-by": "instructor", text: INSTRUCTOR_GRADES })] : [];
  }

  /** The text before a link to a chapter this checkpoint gates, once it is passed on the page. */
  function nextChapterLead(settings) {
    return settings && settings.gating_unlock === "instructor" ? UNLOCK_BY_CODE : "이제 다음 장이 열렸습니다: ";
  }

  /** On submit: true when the quiz is an instructor-graded checkpoint, whose answers are then only kept
   *  for the submission file (no grading, no score, nothing recorded but the attempt's number). */
  function collectOnly(quiz, ui) {
    if (!gradedByInstructor(quiz.baseBank || quiz.bank)) { return false; }
    var el = ui.el, questions = quiz.bank.questions, answers = quiz.answers || {};
    var blank = questions.filter(function (q) {
      var a = answers[q.id];
      return q.type === "code" ? !Object.keys(a || {}).some(function (k) { return ui.normalize(String(a[k] || "")); }) : ui.isBlank(a);
    }).length;
    quiz.container.setAttribute("data-quiz-state", "final");
    ui.appendAll(ui.clear(quiz.resultBox), [
      el("p", { "class": "course-quiz-summary", "data-quiz-collected": String(questions.length - blank), text: "답을 확정했습니다 (" +
        questions.length + "문항" + (blank ? ", 답하지 않은 문항 " + blank + "개" : "") + "). 이 체크포인트는 강사가 제출 파일로 " +
        "채점하므로 점수와 정답은 나오지 않습니다." }),
      el("p", { text: "아래에 학번과 이름을 넣고 '제출 파일 내려받기'로 받은 파일을 강사에게 내세요. 이 페이지를 닫으면 답이 " +
        "남지 않습니다. 답을 고치려면 '다시 풀기'를 누르세요. 다음 시도로 세며, 수치 문항의 값과 선택지 순서가 바뀝니다." })]);
    return true;
  }

  return {
    utf8Bytes: utf8Bytes,
    fnv1a32: fnv1a32,
    mulberry32: mulberry32,
    canonicalNumber: canonicalNumber,
    answerForms: answerForms,
    acceptedForms: acceptedForms,
    numericRight: numericRight,
    choiceCanonical: choiceCanonical,
    parseCode: parseCode,
    codeValues: codeValues,
    blankAssignments: blankAssignments,
    blankCanonical: blankCanonical,
    drawIndex: drawIndex,
    renderTemplate: renderTemplate,
    presentedBank: presentedBank,
    checkAnswers: checkAnswers,
    NO_WEBCRYPTO: NO_WEBCRYPTO,
    reviewSections: reviewSections,
    showCheckpointFeedback: showCheckpointFeedback,
    showCheckpointResult: showCheckpointResult,
    gradedByInstructor: gradedByInstructor,
    gradingNotes: gradingNotes,
    nextChapterLead: nextChapterLead,
    collectOnly: collectOnly
  };
});
