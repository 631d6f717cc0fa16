/*
 * SGEMM course: quizzes, progress and gating for the static site (no kernel, no framework): the page's
 * part, which draws the quizzes, reads the answers, stores the progress and applies the gates.
 *
 * The rules it applies (grading, number reading, choice order, checkpoint variants, the submission and
 * progress formats, the settings) are in quiz_rules.js, which is loaded before this file
 * (course/site/extension.py: SCRIPTS) and read here as window.CourseQuizRules (require() under Node).
 * This file's entry points are exported on window.CourseQuiz and, under Node, on module.exports.
 *
 * Page input (emitted by Python):
 *   <div class="course-quiz" data-module="6"></div>
 *   <script type="application/json" class="course-quiz-data" data-module="6">{bank}</script>
 *   <div class="course-gate" data-module="7" data-requires="6"></div>
 *   window.COURSE_SETTINGS = course_settings from _config.yml (defined before this script)
 *
 * Accessibility: every choice group (fieldset) and answer input is named by its question's prompt
 * (aria-labelledby), an input's own short label following; the focus never falls to the page body
 * (after grading it is on the result, after a self-assessment verdict on the pressed button, after
 * '다시 풀기' on the quiz's title); the key is marked in words ("✓ 정답"), not by colour alone.
 *
 * Choice order: shuffled from the first attempt, seeded by the learner's anonymous id (made once,
 * stored with the progress) and the attempt number (quiz_rules.js: shuffledIds).
 *
 * Checkpoints measure instead of teaching, and their pages carry no readable key: checkpoint_lock.js checks
 * answers against salted digests and opens the explanations of right answers, or (checkpoint_grading:
 * instructor) only collects them (see there); the letters follow the order shown; numeric questions show
 * the values drawn for this attempt (quiz_rules.js: presentedBank).
 *
 * Stable data attributes this script creates (used by tests/test_site_quiz.py):
 *   .course-quiz[data-quiz-state]        "ready" | "checking" | "submitted" (free items await self-assessment) | "final"
 *   .course-quiz[data-quiz-learner][data-quiz-attempt]      the seed of the choice order shown
 *   [data-quiz-question="<qid>"][data-quiz-type="<type>"]   one question block
 *   input[data-quiz-choice="<choice id>"]                   radio (single) / checkbox (multiple)
 *   input[data-quiz-numeric]                                numeric answer
 *   input[data-quiz-blank="<blank id>"]                     code blank
 *   textarea[data-quiz-free]                                free answer
 *   [data-quiz-input-error]                                 message under an unreadable number (its input's
 *                                                           aria-describedby, with aria-invalid="true")
 *   [data-quiz-submit-warning]                              "n questions unanswered: press again to submit"
 *                                                           (role="alert", in the page and empty until then)
 *   [data-quiz-feedback][data-quiz-status="<status>"]       per-question feedback after submit
 *   button[data-quiz-self="true" | "false"]                 self-assessment 맞음 / 틀림 (free items)
 *   button[data-quiz-action="submit" | "retry" | "download"]
 *   input[data-quiz-student="id" | "name"]                  student form for the submission file
 *   [data-quiz-result]                                      result summary (a live region, in the page and
 *                                                           empty before grading; it takes the focus after)
 *   [data-quiz-banner][data-quiz-passed="true" | "false"]   checkpoint pass/fail banner
 *   [data-quiz-download-status]                             message after a download
 *   [data-quiz-review], [data-quiz-variant]                 checkpoint: sections to review (result); values drawn (question)
 *   [data-course-gate-notice][data-gate-state="locked" | "advisory" | "open"], a[data-course-gate-link]
 *   [data-course-gated-hidden]                              article content hidden by a strict gate
 *   [data-course-notice]                                    storage notices (recovered / read-only / unavailable)
 *
 * localStorage:
 *   "sgemm-course-progress"            {"schema": "sgemm-course-progress", "schema_version": 1,
 *                                       "attempts": [...], "student": {"id", "name"}, "learner": "<id>"}
 *                                      an attempt also records "attempt" (its number),
 *                                      "choice_order" ({question id: [choice ids as shown]}) and on a
 *                                      checkpoint "variants" ({question id: {parameter: value}});
 *                                      "attempt_numbers" {module: highest attempt submitted, recorded or not}
 *   "sgemm-course-progress.corrupt.<ISO time>"  an unreadable value, kept aside before starting fresh
 *   A value with a newer schema_version is read but never overwritten (read-only mode).
 */
(function (root, factory) {
  "use strict";
  var rules = root.CourseQuizRules || (typeof require === "function" ? require("./quiz_rules.js") : null);
  if (!rules) { throw new Error("quiz.js: quiz_rules.js must be loaded before this script"); }
  var api = factory(root, rules);
  if (typeof module !== "undefined" && module.exports) { module.exports = api; }
  if (typeof window !== "undefined") { window.CourseQuiz = api; }
  if (typeof document !== "undefined" && typeof window !== "undefined") {
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", api.start);
    } else {
      api.start();
    }
  }
})(typeof window !== "undefined" ? window : globalThis, function (root, R) {
  "use strict";

  // The rules this page applies (quiz_rules.js), under short local names.
  var isPlainObject = R.isPlainObject, isInt = R.isInt, lock = R.lock, settings = R.settings;
  var parseNumber = R.parseNumber, normalizeCode = R.normalizeCode, isBlankResponse = R.isBlankResponse;
  var INVALID_RESPONSE_MESSAGE = R.INVALID_RESPONSE_MESSAGE, gradeQuiz = R.gradeQuiz;
  var numberProblem = R.numberProblem, unansweredCount = R.unansweredCount, withParticle = R.withParticle;
  var buildSubmission = R.buildSubmission, submissionFilename = R.submissionFilename;
  var LEARNER_ID_PATTERN = R.LEARNER_ID_PATTERN, newLearnerId = R.newLearnerId, shuffledIds = R.shuffledIds;
  var presentedBank = R.presentedBank, withVariants = R.withVariants, choiceTag = R.choiceTag;
  var SCHEMA = R.SCHEMA, SCHEMA_VERSION = R.SCHEMA_VERSION, emptyState = R.emptyState, validAttempt = R.validAttempt;
  var bestCorrectCount = R.bestCorrectCount, checkpointFor = R.checkpointFor, pageLink = R.pageLink;
  var modulesGatedBy = R.modulesGatedBy, policy = R.policy;

  // ------------------------------------------------------------------ progress in localStorage
  var STORAGE_KEY = "sgemm-course-progress";
  var CORRUPT_PREFIX = "sgemm-course-progress.corrupt.";

  var storage = { readOnly: false, available: true, notices: [], memory: null, sessionLearner: null };

  function note(message) {
    if (storage.notices.indexOf(message) === -1) { storage.notices.push(message); }
  }

  function localStore() {
    try {
      var s = root.localStorage;
      if (!s) { throw new Error("no localStorage"); }
      return s;
    } catch (e) {
      if (storage.available) {
        storage.available = false;
        note("이 브라우저에서는 진행 기록을 저장할 수 없습니다(localStorage 사용 불가). 이 페이지를 닫으면 기록이 사라지니 제출 파일을 내려받아 두세요.");
      }
      return null;
    }
  }

  function keepAside(s, raw, reason) {
    var key = CORRUPT_PREFIX + new Date().toISOString();
    try {
      s.setItem(key, raw);
    } catch (e) {
      storage.readOnly = true;
      note("저장된 진행 기록을 읽을 수 없고(" + reason + ") 백업할 공간도 없어, 기존 값을 지우지 않도록 이번에는 기록을 저장하지 않습니다.");
      return false;
    }
    note("저장된 진행 기록을 읽을 수 없어(" + reason + ") '" + key + "' 키에 그대로 보관하고, 읽을 수 있는 시도만 가지고 새로 시작합니다.");
    return true;
  }

  function loadProgress() {
    var s = localStore();
    if (!s) { return storage.memory || (storage.memory = emptyState()); }
    var raw = s.getItem(STORAGE_KEY);
    if (raw === null) { return emptyState(); }
    var data = null, reason = "";
    try { data = JSON.parse(raw); } catch (e) { reason = "JSON 오류"; }
    if (data !== null && !(isPlainObject(data) && data.schema === SCHEMA && isInt(data.schema_version))) {
      data = null;
      reason = "형식 오류";
    }
    if (data && data.schema_version > SCHEMA_VERSION) {
      storage.readOnly = true;
      note("저장된 진행 기록은 더 새로운 강좌 버전(schema_version " + data.schema_version +
           ")이 쓴 것입니다. 덮어쓰지 않도록 이 페이지는 기록을 읽기만 합니다(읽기 전용).");
      return { schema: SCHEMA, schema_version: data.schema_version, student: isPlainObject(data.student) ? data.student : {},
               attempts: Array.isArray(data.attempts) ? data.attempts.filter(validAttempt) : [] };
    }
    if (data && Array.isArray(data.attempts) && data.attempts.every(validAttempt) &&
        (data.student === undefined || isPlainObject(data.student))) {
      data.student = data.student || {};
      return data;
    }
    var salvaged = data && Array.isArray(data.attempts) ? data.attempts.filter(validAttempt) : [];
    if (!keepAside(s, raw, reason || "잘못된 시도 기록")) {
      return { schema: SCHEMA, schema_version: SCHEMA_VERSION, attempts: salvaged, student: {} };
    }
    var fresh = emptyState();
    fresh.attempts = salvaged;
    if (data && isPlainObject(data.student)) { fresh.student = data.student; }
    saveProgress(fresh);
    return fresh;
  }

  function saveProgress(state) {
    if (storage.readOnly) { return false; }
    var s = localStore();
    if (!s) { storage.memory = state; return false; }
    try {
      s.setItem(STORAGE_KEY, JSON.stringify(state));
      return true;
    } catch (e) {
      note("진행 기록을 저장하지 못했습니다(저장 공간 부족일 수 있습니다). 제출 파일을 내려받아 두세요.");
      return false;
    }
  }

  function updateProgress(change) {
    var state = loadProgress();     // re-read: another tab may have written meanwhile
    change(state);
    saveProgress(state);
    return state;
  }

  function newId() {
    return Date.now().toString(16) + Math.random().toString(16).slice(2, 10);
  }

  /** The learner's anonymous id: stored once with the progress; for this page only when the
   *  progress cannot be written (read-only, no localStorage). */
  function learnerId() {
    var state = loadProgress();
    if (typeof state.learner === "string" && LEARNER_ID_PATTERN.test(state.learner)) { return state.learner; }
    if (!storage.sessionLearner) { storage.sessionLearner = newLearnerId(); }
    var made = storage.sessionLearner;
    if (storage.readOnly || !storage.available) { return made; }
    var saved = updateProgress(function (s) {
      if (!(typeof s.learner === "string" && LEARNER_ID_PATTERN.test(s.learner))) { s.learner = made; }
    });
    return saved.learner || made;
  }

  /** 1 + the highest attempt number stored for module (attempts without one count by position), counting
   *  attempts submitted but never recorded (attempt_numbers, see noteAttempt). */
  function nextAttempt(module) {
    var count = 0, state = loadProgress();
    var started = isPlainObject(state.attempt_numbers) ? state.attempt_numbers[String(module)] : 0;
    var highest = isInt(started) ? started : 0;
    state.attempts.forEach(function (a) {
      if (a.module !== module) { return; }
      count += 1;
      if (isInt(a.attempt) && a.attempt > highest) { highest = a.attempt; }
    });
    return Math.max(count, highest) + 1;
  }

  /** An attempt is used once submitted (its feedback was seen), recorded or not: a reload never gives it back. */
  function noteAttempt(module, attempt) {
    updateProgress(function (state) {
      var numbers = isPlainObject(state.attempt_numbers) ? state.attempt_numbers : (state.attempt_numbers = {});
      var known = isInt(numbers[String(module)]) ? numbers[String(module)] : 0;
      numbers[String(module)] = Math.max(known, attempt);
    });
  }

  // ------------------------------------------------------------------ DOM helpers (text nodes only)
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined || value === false) { return; }
      if (name === "text") { node.textContent = value; } else { node.setAttribute(name, value === true ? "" : value); }
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) { return; }
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  /** Append text with `inline code` and line breaks. */
  function appendInline(parent, text) {
    var parts = String(text).split(/(`[^`\n]+`)/);
    parts.forEach(function (part) {
      if (!part) { return; }
      if (part.length > 2 && part.charAt(0) === "`" && part.charAt(part.length - 1) === "`") {
        parent.appendChild(el("code", { text: part.slice(1, -1) }));
        return;
      }
      part.split("\n").forEach(function (line, i) {
        if (i > 0) { parent.appendChild(el("br")); }
        if (line) { parent.appendChild(document.createTextNode(line)); }
      });
    });
    return parent;
  }

  /** Join a paragraph's lines with spaces (as Markdown does), keeping a break before list items. */
  function softWrap(para) {
    return para.replace(/\n(?=[ \t]*(?:[-*•]|[0-9]+[.)]|\([0-9a-z]\))[ \t])/g, "\u0000").replace(/[ \t]*\n[ \t]*/g, " ")
      .replace(/\u0000/g, "\n");
  }

  /** Render paragraphs, `inline code` and ``` fenced code blocks into a container. */
  function renderRichText(container, text) {
    var fence = /```([^\n`]*)\n([\s\S]*?)```/g;
    var last = 0, m;
    var source = String(text || "");
    function prose(chunk) {
      chunk.split(/\n[ \t]*\n/).forEach(function (para) {
        para = softWrap(para.replace(/^\n+|\n+$/g, ""));
        if (para.trim()) { container.appendChild(appendInline(el("p"), para)); }
      });
    }
    while ((m = fence.exec(source)) !== null) {
      prose(source.slice(last, m.index));
      var code = el("code", { text: m[2].replace(/\n$/, "") });
      if (m[1].trim()) { code.className = "language-" + m[1].trim(); }
      container.appendChild(el("pre", { "class": "course-quiz-pre" }, [code]));
      last = fence.lastIndex;
    }
    prose(source.slice(last));
    return container;
  }

  function formatScore(x) { return String(Math.round(x * 100) / 100); }

  var STATUS_TEXT = {
    correct: "정답", partial: "부분 정답", wrong: "오답", unanswered: "답하지 않음",
    invalid: "읽을 수 없는 답", self: "자기 평가", pending: "자기 평가 대기", manual: "강사 채점"
  };
  var TYPE_TEXT = {
    single: "하나 고르기", multiple: "모두 고르기", numeric: "수치 답", code: "코드 빈칸", free: "서술형"
  };

  // ------------------------------------------------------------------ checkpoint feedback (measures, never teaches the key)
  /** What checkpoint_lock.js's feedback draws with: this file's DOM helpers, texts and banner. */
  function checkpointUI(quiz) {
    var n = settings().verdicts_after_attempts;
    if (!isInt(n)) { n = (quiz.baseBank.checkpoint || {}).verdicts_after_attempts; }
    return { el: el, clear: clear, appendAll: appendAll, richText: renderRichText, pageLink: pageLink, status: STATUS_TEXT,
             formatScore: formatScore, verdictsAfter: isInt(n) && n >= 0 ? n : 3, normalize: normalizeCode, isBlank: isBlankResponse,
             banner: function (r, advice) { return checkpointBanner(r, quiz.checkpoint, quiz.module, advice); } };
  }

  // ------------------------------------------------------------------ quiz widget
  // The Quiz object keeps the state of one quiz on the page; what it shows is built by the small
  // functions below (one per part: header, question, answer control, feedback, result, submission
  // form), which take plain arguments and return DOM nodes.
  var BLANK_SPLIT = /___\(([A-Za-z0-9_-]+)\)___/;

  /** A page-unique id for one part of question q ("prompt", "answer", "error", "blank-b1"). */
  function partId(q, part) {
    return "cq-" + String(q.id).replace(/[^A-Za-z0-9_-]/g, "_") + (part ? "-" + part : "");
  }

  /** Named by its question: the prompt's text, then the element holding the control's short label. */
  function labelledByQuestion(q, attrs, labelIds) {
    attrs["aria-labelledby"] = [partId(q, "prompt")].concat(labelIds).join(" ");
    return attrs;
  }

  function clear(node) {
    while (node.firstChild) { node.removeChild(node.firstChild); }
    return node;
  }

  function noticeParagraph(text) {
    return el("p", { "class": "course-notice", "data-course-notice": true, text: "주의: " + text });
  }

  function checkpointRuleText(cp) {
    return (cp.title || "체크포인트") + " — " + cp.question_count + "문항 중 " + cp.pass_count +
      "문항 이상 정답이면 통과 (" + cp.pass_count + "/" + cp.question_count + ")";
  }

  function quizHeader(bank, checkpoint) {
    var header = el("div", { "class": "course-quiz-header" }, [
      el("p", { "class": "course-quiz-title", tabindex: "-1", text: "퀴즈(quiz): " + bank.title })
    ]);
    if (checkpoint) {   // and, on an instructor-graded checkpoint, that the instructor grades it
      appendAll(header, [el("p", { "class": "course-quiz-rule", text: checkpointRuleText(checkpoint) })].concat(lock().gradingNotes(bank, el)));
    }
    return header;
  }

  function questionMeta(q) {
    return el("p", { "class": "course-quiz-meta",
      text: q.id + " · " + (TYPE_TEXT[q.type] || q.type) + " · 블룸 수준(Bloom): " + q.bloom + (q.section ? " · " + q.section : "") });
  }

  /** Radio buttons (single) or checkboxes (multiple) in the order given, in a group named by the
   *  question (a screen reader reads the question when it enters the group). */
  function choiceGroup(q, order, inputName, checkpoint) {
    var byId = {};
    q.choices.forEach(function (c) { byId[String(c.id)] = c; });
    var fieldset = el("fieldset", { "class": "course-quiz-choices", "aria-labelledby": partId(q, "prompt") });
    order.forEach(function (id, position) {
      var input = el("input", { type: q.type === "single" ? "radio" : "checkbox", name: inputName, value: id, "data-quiz-choice": id });
      fieldset.appendChild(appendInline(el("label", { "class": "course-quiz-choice", "data-quiz-choice-label": id }, [
        input, " ", el("span", { "class": "course-quiz-choice-id", text: choiceTag(checkpoint, id, position) }), " "]), byId[id].text));
    });
    return fieldset;
  }

  function numericInput(q) {
    var unit = q.answer.unit ? el("span", { id: partId(q, "unit"), text: q.answer.unit }) : null;
    return el("label", { "class": "course-quiz-numeric" }, [el("span", { id: partId(q, "answer-label"), text: "답" }), ": ",
      el("input", labelledByQuestion(q, { type: "text", inputmode: "decimal", autocomplete: "off", "data-quiz-numeric": true,
        id: partId(q, "answer") }, unit ? [partId(q, "answer-label"), partId(q, "unit")] : [partId(q, "answer-label")])),
      unit ? " " : "", unit]);
  }

  /** The question's code with a text input in place of every ___(id)___. */
  function codeWithBlanks(q) {
    var code = el("code");
    q.code.split(BLANK_SPLIT).forEach(function (part, i) {
      if (i % 2 === 0) { if (part) { code.appendChild(document.createTextNode(part)); } return; }
      code.appendChild(el("span", { id: partId(q, "blank-" + part + "-label"), hidden: true, text: "빈칸 " + part }));
      code.appendChild(el("input", labelledByQuestion(q, { type: "text", autocomplete: "off", spellcheck: "false", size: "14",
        "class": "course-quiz-blank", "data-quiz-blank": part, id: partId(q, "blank-" + part), placeholder: part },
        [partId(q, "blank-" + part + "-label")])));
    });
    return el("pre", { "class": "course-quiz-code" }, [code]);
  }

  function freeAnswer(q) {
    return el("div", {}, [el("span", { id: partId(q, "answer-label"), hidden: true, text: "서술형 답" }),
      el("textarea", labelledByQuestion(q, { rows: "4", "class": "course-quiz-free", "data-quiz-free": true,
        id: partId(q, "answer") }, [partId(q, "answer-label")]))]);
  }

  /** The answer control of a question; choice questions also record the order they are shown in. */
  function answerControl(quiz, q) {
    if (q.type === "single" || q.type === "multiple") {
      var order = shuffledIds(q.choices.map(function (c) { return String(c.id); }), quiz.learner, quiz.attemptNo, q.id);
      quiz.choiceOrder[q.id] = order;
      return choiceGroup(q, order, "cq" + quiz.module + "-" + q.id + "-" + quiz.attemptNo, quiz.checkpoint);
    }
    if (q.type === "numeric") { return numericInput(q); }
    if (q.type === "code") { return codeWithBlanks(q); }
    return freeAnswer(q);
  }

  function actionButton(action, text, hidden) {
    return el("button", { type: "button", "class": "course-quiz-button", "data-quiz-action": action, hidden: !!hidden, text: text });
  }

  // ---- reading the answers back
  function checkedChoices(block) {
    var picked = {};
    Array.prototype.forEach.call(block.querySelectorAll("input[data-quiz-choice]:checked"), function (i) { picked[i.value] = true; });
    return picked;
  }

  function blankValues(block) {
    var blanks = {};
    Array.prototype.forEach.call(block.querySelectorAll("input[data-quiz-blank]"), function (i) {
      blanks[i.getAttribute("data-quiz-blank")] = i.value;
    });
    return blanks;
  }

  /** The learner's answer to q as grading expects it (null / id / [ids] / text / {blank: text}). */
  function answerOf(q, block) {
    if (q.type === "single") {
      var checked = block.querySelector("input[data-quiz-choice]:checked");
      return checked ? checked.value : null;
    }
    if (q.type === "multiple") {
      var picked = checkedChoices(block);
      return q.choices.map(function (c) { return String(c.id); }).filter(function (id) { return picked[id]; });
    }
    if (q.type === "numeric") { return block.querySelector("input[data-quiz-numeric]").value; }
    if (q.type === "code") { return blankValues(block); }
    return block.querySelector("textarea[data-quiz-free]").value;
  }

  function lockAnswers(container) {
    Array.prototype.forEach.call(container.querySelectorAll(".course-quiz-question input, .course-quiz-question textarea"),
      function (i) { i.disabled = true; });
  }

  // ---- feedback under a question
  function feedbackHead(r) {
    var head = STATUS_TEXT[r.status] || r.status;
    if (r.status === "partial") { head += " (" + formatScore(r.score) + "점)"; }
    return el("p", { "class": "course-quiz-status course-quiz-status-" + r.status,
      text: head + (r.message && r.status !== "unanswered" ? " — " + r.message : "") });
  }

  /** Marks every choice right or not, and names the right ones. */
  function choiceKey(q, block) {
    q.choices.forEach(function (c) {
      var label = block.querySelector('[data-quiz-choice-label="' + String(c.id).replace(/["\\]/g, "") + '"]');
      if (!label) { return; }
      label.classList.add(c.correct ? "course-quiz-right" : "course-quiz-not");
      // In words too: the highlight alone is lost without colour (forced colours, screen readers).
      if (c.correct && !label.querySelector(".course-quiz-key-mark")) {
        label.appendChild(el("span", { "class": "course-quiz-key-mark", text: " ✓ 정답" }));
      }
    });
    var right = q.choices.filter(function (c) { return c.correct; });
    return appendInline(el("p"), "정답: " + right.map(function (c) { return "(" + c.id + ") " + c.text; }).join(" / "));
  }

  function numericKey(q) {
    return el("p", { text: "정답: " + q.answer.value + (q.answer.unit ? " " + q.answer.unit : "") +
      (q.answer.tolerance > 0 ? " (허용 오차 ±" + q.answer.tolerance + ")" : "") });
  }

  function codeKey(q, r) {
    var ul = el("ul");
    q.blanks.forEach(function (b) {
      var ok = r.detail.blanks ? r.detail.blanks[b.id] : false;
      ul.appendChild(el("li", {}, [(ok ? "✓ " : "✗ ") + b.id + ": ", el("code", { text: b.accept[0] }),
        b.accept.length > 1 ? " (또는 " + b.accept.slice(1).join(", ") + ")" : ""]));
    });
    return ul;
  }

  function labelParagraph(text) { return el("p", { "class": "course-quiz-label", text: text }); }

  function modelAnswer(q) {
    var rubric = el("ul");
    q.rubric.forEach(function (point) { rubric.appendChild(appendInline(el("li"), point)); });
    return [labelParagraph("모범 답안(model answer)"),
            renderRichText(el("div", { "class": "course-quiz-model" }), q.model_answer),
            labelParagraph("채점 기준(rubric): 아래 항목이 모두 들어 있으면 맞음입니다."),
            rubric];
  }

  /** 맞음 / 틀림 buttons; choose(verdict) is called with true or false. */
  function selfAssessmentButtons(decided, locked, choose) {
    var buttons = el("p", { "class": "course-quiz-self" }, ["자기 평가(self-assessment): "]);
    [[true, "맞음"], [false, "틀림"]].forEach(function (pair) {
      var button = el("button", { type: "button", "class": "course-quiz-button", "data-quiz-self": String(pair[0]),
        "aria-pressed": String(decided === pair[0]), disabled: locked, text: pair[1] });
      button.addEventListener("click", function () { choose(pair[0]); });
      buttons.appendChild(button);
      buttons.appendChild(document.createTextNode(" "));
    });
    return buttons;
  }

  function explanation(q) {
    return [labelParagraph("해설(explanation)"),
            renderRichText(el("div", { "class": "course-quiz-explanation" }), q.explanation)];
  }

  function appendAll(parent, nodes) {
    nodes.forEach(function (node) { parent.appendChild(node); });
    return parent;
  }

  // ---- result and checkpoint banner
  function resultSummary(r) {
    return el("p", { "class": "course-quiz-summary", text:
      r.maxScore + "문항 중 " + r.correctCount + "문항 정답 (점수 " + formatScore(r.score) + "/" + r.maxScore + ")" });
  }

  /** A checkpoint shows no explanation, so its link promises none. */
  function feedbackLink(q, checkpoint) {
    return el("p", {}, [el("a", { href: "#" + partId(q), "class": "course-quiz-feedback-link",
      text: checkpoint ? "문항별 채점 결과와 복습할 곳 보기" : "문항별 채점 결과와 해설 보기" })]);
  }

  function pendingSelfNote(pendingSelf) {
    return el("p", { "class": "course-quiz-pending", text:
      "서술형 " + pendingSelf + "문항의 자기 평가(맞음/틀림)를 마치면 결과가 확정되고 기록됩니다." });
  }

  function nextChapterLinks(module) {
    return modulesGatedBy(module).map(function (m) {
      return el("p", {}, [lock().nextChapterLead(settings()), el("a", { href: pageLink(m), "data-course-next-link": String(m), text: "모듈 " + withParticle(m, "로") + " 가기" })]);
    });
  }

  function checkpointBanner(r, cp, module, advice) {
    var rule = cp.pass_count + "/" + cp.question_count;
    var banner = el("div", { "class": "course-quiz-banner " + (r.passed ? "course-quiz-pass" : "course-quiz-fail"),
      "data-quiz-banner": true, "data-quiz-passed": String(!!r.passed), role: "status" });
    if (r.passed) {
      banner.appendChild(el("p", { text: "통과했습니다! " + (cp.title || "체크포인트") + ": " + r.correctCount + "/" + r.maxScore + " (기준 " + rule + " 이상)" }));
      appendAll(banner, nextChapterLinks(module));
    } else {
      banner.appendChild(el("p", { text: "아직 통과하지 못했습니다: " + r.correctCount + "/" + r.maxScore + ". " + rule +
        " 이상이면 통과합니다. " + advice }));
    }
    return banner;
  }

  // ---- submission file
  function studentInput(kind, value) {
    return el("input", { type: "text", autocomplete: "off", "data-quiz-student": kind, value: value || "", size: "14" });
  }

  /** Hand a JSON document to the browser as a download named name. */
  function saveJSON(doc, name) {
    var blob = new Blob([JSON.stringify(doc, null, 1)], { type: "application/json" });
    var url = URL.createObjectURL(blob);
    var link = el("a", { href: url, download: name, hidden: true });
    document.body.appendChild(link);
    link.click();
    setTimeout(function () { URL.revokeObjectURL(url); link.remove(); }, 1000);
  }

  function downloadedText(name, doc) {
    return name + " 파일을 내려받았습니다. 이 파일을 강사에게 제출하세요." +
      (doc.integrity ? "" : " (이 브라우저에서는 무결성 값을 계산하지 못해 integrity가 비어 있습니다.)");
  }

  // ---- the widget
  function Quiz(container, bank) {
    this.container = container;
    this.bank = bank;
    this.module = bank.module;
    this.checkpoint = checkpointFor(bank.module, bank.checkpoint || null);
    this.learner = learnerId();
    this.attemptNo = nextAttempt(this.module);
    this.render();
  }

  /** The next attempt: a new number (so a new order) even when the last one was not recorded. */
  Quiz.prototype.retry = function () {
    this.attemptNo = Math.max(this.attemptNo + 1, nextAttempt(this.module));
    this.render();
  };

  Quiz.prototype.presentation = function () {
    var shown = { learner: this.learner, attempt: this.attemptNo, choice_order: this.choiceOrder };
    if (this.checkpoint) { shown.nonce = this.learner; }      // the variants' seed (course/quiz/variants.py draw_variant)
    return withVariants(shown, this.bank.variants);
  };

  Quiz.prototype.resetAttempt = function () {
    this.startedAt = new Date().toISOString();
    this.choiceOrder = {};
    this.selfAssessment = {};
    this.result = null;
    this.checked = null;
    this.recorded = false;
    this.submittedAt = null;
    this.confirmedBlank = false;
  };

  Quiz.prototype.render = function () {
    var self = this, box = clear(this.container);
    this.baseBank = this.baseBank || this.bank;
    this.bank = presentedBank(this.baseBank, this.learner, this.attemptNo, this.checkpoint);
    this.resetAttempt();
    box.setAttribute("data-quiz-state", "ready");
    box.setAttribute("data-quiz-learner", this.learner);
    box.setAttribute("data-quiz-attempt", String(this.attemptNo));
    box.id = box.id || ("course-quiz-" + this.module);
    box.appendChild(quizHeader(this.bank, this.checkpoint));
    appendAll(box, storage.notices.map(noticeParagraph));
    this.noticesShown = storage.notices.length;
    var list = el("ol", { "class": "course-quiz-questions" });
    this.blocks = {};
    this.bank.questions.forEach(function (q) {
      self.blocks[q.id] = list.appendChild(self.renderQuestion(q));
    });
    box.appendChild(list);
    box.appendChild(this.renderActions());
    // In the page from the start (empty), so that what is written into it later is announced; it
    // takes the focus after grading, where the hidden submit button had it.
    this.resultBox = el("div", { "class": "course-quiz-result", "data-quiz-result": true, "aria-live": "polite",
      tabindex: "-1", id: "course-quiz-result-" + this.module });
    box.appendChild(this.resultBox);
    box.appendChild(this.renderSubmissionForm());
  };

  Quiz.prototype.renderActions = function () {
    var self = this;
    this.submitButton = actionButton("submit", lock().gradedByInstructor(this.bank) ? "답 확정하기" : "제출하고 채점하기");
    this.retryButton = actionButton("retry", "다시 풀기 (선택지 순서가 바뀝니다)", true);
    this.submitButton.addEventListener("click", function () { self.submit(); });
    this.retryButton.addEventListener("click", function () {
      self.retry();
      self.container.scrollIntoView();
      self.container.querySelector(".course-quiz-title").focus();   // the focused button is gone
    });
    // An alert region kept in the page (empty when there is nothing to say), described by the button.
    var warningId = "course-quiz-warning-" + this.module;
    this.submitWarning = el("p", { "class": "course-quiz-input-error course-quiz-warning", "data-quiz-submit-warning": true,
      role: "alert", id: warningId });
    this.submitButton.setAttribute("aria-describedby", warningId);
    return el("div", { "class": "course-quiz-actions" }, [this.submitButton, this.retryButton, this.submitWarning]);
  };

  Quiz.prototype.renderQuestion = function (q) {
    var drawn = this.bank.variants && this.bank.variants[q.id];
    return el("li", { "class": "course-quiz-question", "data-quiz-question": q.id, "data-quiz-type": q.type, id: partId(q),
      "data-quiz-variant": drawn ? JSON.stringify(drawn) : null }, [
      questionMeta(q),
      renderRichText(el("div", { "class": "course-quiz-prompt", id: partId(q, "prompt") }), q.prompt),
      el("div", { "class": "course-quiz-body" }, [answerControl(this, q)]),
      el("p", { "class": "course-quiz-input-error", "data-quiz-input-error": true, id: partId(q, "error"), hidden: true }),
      el("div", { "class": "course-quiz-feedback", "data-quiz-feedback": true, hidden: true })
    ]);
  };

  Quiz.prototype.collectAnswers = function () {
    var answers = {}, blocks = this.blocks;
    this.bank.questions.forEach(function (q) { answers[q.id] = answerOf(q, blocks[q.id]); });
    return answers;
  };

  /** Show (or clear) the message under an input, tied to it for assistive technology. */
  function markInvalid(input, box, problem) {
    box.textContent = problem;
    box.hidden = !problem;
    if (problem) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", box.id);
    } else {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    }
  }

  /** Unreadable numbers block submission so a typo is not graded as wrong; the focus goes to the
   *  first one, whose message is then read as its description. */
  Quiz.prototype.checkNumbers = function (answers) {
    var firstBad = null, blocks = this.blocks;
    this.bank.questions.forEach(function (q) {
      if (q.type !== "numeric") { return; }
      var input = blocks[q.id].querySelector("input[data-quiz-numeric]");
      var problem = numberProblem(q, answers[q.id]);
      markInvalid(input, blocks[q.id].querySelector("[data-quiz-input-error]"), problem);
      if (problem && !firstBad) { firstBad = input; }
    });
    if (firstBad) { firstBad.focus(); }
    return firstBad === null;
  };

  /** The first press with unanswered questions only warns; the second one submits. */
  Quiz.prototype.warnUnanswered = function (answers) {
    var unanswered = unansweredCount(this.bank.questions, answers);
    if (unanswered === 0 || this.confirmedBlank) { return false; }
    this.confirmedBlank = true;
    this.submitWarning.textContent = "답하지 않은 문항이 " + unanswered + "개 있습니다. 그대로 제출하려면 한 번 더 누르세요.";
    this.submitButton.textContent = "그래도 제출하기";
    return true;
  };

  Quiz.prototype.submit = function () {
    var answers = this.collectAnswers();
    if (!this.checkNumbers(answers) || this.warnUnanswered(answers)) { return; }
    this.submitWarning.textContent = "";
    this.answers = answers;
    this.submittedAt = new Date().toISOString();
    noteAttempt(this.module, this.attemptNo);
    lockAnswers(this.container);
    this.submitButton.hidden = true;
    this.retryButton.hidden = false;
    this.downloadButton.disabled = false;
    if (lock().collectOnly(this, checkpointUI(this))) { this.resultBox.focus(); return; }   // the instructor grades it
    if (!this.bank.locked) { this.regrade(); this.resultBox.focus(); return; }
    var self = this, attempt = this.attemptNo;
    this.container.setAttribute("data-quiz-state", "checking");
    var tools = { normalize: normalizeCode, parse: parseNumber, blank: isBlankResponse, invalidMessage: INVALID_RESPONSE_MESSAGE };
    lock().checkAnswers(this.bank, answers, tools).then(function (checked) {
      if (self.attemptNo !== attempt) { return; }               // '다시 풀기' came first
      self.checked = checked;
      self.regrade();
      self.resultBox.focus();
    }, function () { self.resultBox.textContent = lock().NO_WEBCRYPTO; self.resultBox.focus(); });
  };

  /** A checkpoint names each question right or wrong once passed (this attempt or before), or from
   *  attempt verdicts_after_attempts on (0: only once passed). */
  Quiz.prototype.verdicts = function () {
    var best = bestCorrectCount(loadProgress(), this.module), after = checkpointUI(this).verdictsAfter;
    return !!this.result.passed || (best !== null && best >= this.checkpoint.pass_count) || (after > 0 && this.attemptNo >= after);
  };

  Quiz.prototype.regrade = function () {
    var passCount = this.checkpoint ? this.checkpoint.pass_count : null;
    this.result = gradeQuiz(this.bank.questions, this.answers, this.selfAssessment, passCount, "learner", null, this.checked);
    var self = this;
    var pendingSelf = this.result.results.filter(function (r) { return r.status === "pending"; }).length;
    if (pendingSelf === 0 && !this.recorded) { this.record(); }
    this.result.results.forEach(function (r, i) { self.showFeedback(self.bank.questions[i], r); });
    this.container.setAttribute("data-quiz-state", this.recorded ? "final" : "submitted");
    this.showResult(pendingSelf);
  };

  /** The key (or model answer and rubric) of one question, under it. */
  Quiz.prototype.keyOf = function (q, r, block) {
    if (q.type === "single" || q.type === "multiple") { return [choiceKey(q, block)]; }
    if (q.type === "numeric") { return [numericKey(q)]; }
    if (q.type === "code") { return [codeKey(q, r)]; }
    var parts = modelAnswer(q);
    if (r.status !== "unanswered" && r.status !== "invalid") { parts.push(this.selfAssessmentOf(q)); }
    return parts;
  };

  /** 맞음 / 틀림 for free answer q: a press grades again and keeps the keyboard where it was. */
  Quiz.prototype.selfAssessmentOf = function (q) {
    var self = this;
    return selfAssessmentButtons(this.selfAssessment[q.id], this.recorded, function (verdict) {
      self.selfAssessment[q.id] = verdict;
      self.regrade();
      self.refocusSelfAssessment(q, verdict);
    });
  };

  /** The feedback was drawn again, so the pressed button is a new one: the focus goes to it, or to
   *  the result once the last verdict has made it final (the buttons are then disabled). */
  Quiz.prototype.refocusSelfAssessment = function (q, verdict) {
    var button = this.blocks[q.id].querySelector('button[data-quiz-self="' + String(verdict) + '"]');
    if (button && !button.disabled) { button.focus(); } else { this.resultBox.focus(); }
  };

  Quiz.prototype.showFeedback = function (q, r) {
    if (this.checkpoint) { return lock().showCheckpointFeedback(this, q, r, this.verdicts(), checkpointUI(this)); }
    var block = this.blocks[q.id];
    var box = clear(block.querySelector("[data-quiz-feedback]"));
    box.hidden = false;
    box.setAttribute("data-quiz-status", r.status);
    block.setAttribute("data-quiz-status", r.status);
    box.appendChild(feedbackHead(r));
    appendAll(box, this.keyOf(q, r, block));
    appendAll(box, explanation(q));
  };

  Quiz.prototype.record = function () {
    var r = this.result, module = this.module, self = this;
    var results = {};
    // A checkpoint attempt keeps its per-question verdicts only where the page may show them.
    if (!this.checkpoint || this.verdicts()) { r.results.forEach(function (x) { results[x.qid] = { status: x.status, score: x.score }; }); }
    updateProgress(function (state) {
      state.attempts.push({
        id: newId(), module: module, time: self.submittedAt, started_at: self.startedAt, client: "site",
        answers: self.answers, self_assessment: self.selfAssessment, results: results,
        score: r.score, max_score: r.maxScore, correct_count: r.correctCount, passed: r.passed,
        attempt: self.attemptNo, choice_order: self.choiceOrder, variants: self.bank.variants
      });
    });
    this.recorded = true;
    applyGates();
  };

  Quiz.prototype.showResult = function (pendingSelf) {
    var box = clear(this.resultBox), r = this.result, cp = this.checkpoint;
    if (cp) { lock().showCheckpointResult(this, pendingSelf, this.verdicts(), checkpointUI(this)); }
    else { box.appendChild(resultSummary(r)); box.appendChild(feedbackLink(this.bank.questions[0], cp)); }
    appendAll(box, storage.notices.slice(this.noticesShown).map(noticeParagraph));
    if (!cp && pendingSelf > 0) { box.appendChild(pendingSelfNote(pendingSelf)); }
  };

  Quiz.prototype.renderSubmissionForm = function () {
    var self = this;
    var student = loadProgress().student || {};
    var idInput = studentInput("id", student.id), nameInput = studentInput("name", student.name);
    this.downloadButton = el("button", { type: "button", "class": "course-quiz-button", "data-quiz-action": "download", disabled: true, text: "제출 파일 내려받기" });
    this.downloadStatus = el("p", { "class": "course-quiz-download-status", "data-quiz-download-status": true, "aria-live": "polite" });
    this.downloadButton.addEventListener("click", function () { self.download(idInput, nameInput); });
    return el("div", { "class": "course-quiz-submission" }, [
      labelParagraph("강사에게 낼 제출 파일(submission file) — 제출한 뒤에 내려받을 수 있습니다."),
      el("label", {}, ["학번(student ID) ", idInput]), " ",
      el("label", {}, ["이름(name) ", nameInput]), " ",
      this.downloadButton, this.downloadStatus
    ]);
  };

  Quiz.prototype.download = function (idInput, nameInput) {
    var self = this;
    var student = { id: idInput.value.trim(), name: nameInput.value.trim() };
    if (!student.id) {
      this.downloadStatus.textContent = "학번(student ID)을 입력하세요.";
      idInput.focus();
      return Promise.resolve(null);
    }
    updateProgress(function (state) { state.student = student; });
    return buildSubmission(this.bank, student, this.answers, this.selfAssessment, this.startedAt, this.submittedAt,
                           this.presentation())
      .then(function (doc) {
        var name = submissionFilename(self.module, student.id, doc.submitted_at);
        saveJSON(doc, name);
        self.downloadStatus.textContent = downloadedText(name, doc);
        return doc;
      });
  };

  // ------------------------------------------------------------------ gating
  function keepChain(node, keep) {
    return keep.some(function (k) { return k && (node === k || node.contains(k)); });
  }

  function hideForGate(node) {
    if (node.hasAttribute("data-course-gated-hidden")) { return; }
    node.setAttribute("data-course-gated-hidden", node.style.display || "");
    node.style.display = "none";
  }

  function hideAllBut(container, keep) {
    Array.prototype.forEach.call(container.children, function (child) {
      if (keep.indexOf(child) !== -1) { return; }
      if (keepChain(child, keep)) { hideAllBut(child, keep); return; }
      hideForGate(child);
    });
  }

  // The theme's parts outside the article that would still expose a locked chapter: its table of
  // contents (links into the hidden sections, in the Tab order), the button that opens it, the
  // download of the page's source, and the print-only copy of its table of contents.
  var LOCKED_PAGE_FRAME = [".bd-sidebar-secondary", ".secondary-toggle", ".dropdown-download-buttons",
                           "#jb-print-docs-body"];

  function hidePageFrame() {
    LOCKED_PAGE_FRAME.forEach(function (selector) {
      Array.prototype.forEach.call(document.querySelectorAll(selector), hideForGate);
    });
  }

  function unhideAll() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-course-gated-hidden]"), function (node) {
      node.style.display = node.getAttribute("data-course-gated-hidden");
      node.removeAttribute("data-course-gated-hidden");
    });
  }

  function articleOf(node) {
    return node.closest("article") || node.closest("main") || node.closest("[role=main]") || document.body;
  }

  function gateNotice(gate, state, cp, requires, best) {
    var old = gate.querySelector("[data-course-gate-notice]");
    if (old) { old.remove(); }
    if (!state) { return; }
    var title = cp.title || ("모듈 " + requires + " 체크포인트");
    var rule = cp.pass_count + "/" + cp.question_count;
    var link = el("a", { href: pageLink(requires) + "#course-quiz-" + requires, "data-course-gate-link": String(requires), text: title + " 풀러 가기" });
    var record = best === null ? "아직 응시 기록이 없습니다." : "지금까지 최고 기록: " + best + "/" + cp.question_count + ".";
    var lines;
    if (state === "open") {
      lines = [el("p", { text: withParticle(title, "를") + " 통과해서 이 장이 열렸습니다." })];
    } else if (state === "locked") {
      lines = [el("p", { text: "이 장은 잠겨 있습니다. 먼저 " + title + "에서 " + cp.question_count + "문항 중 " +
                 cp.pass_count + "문항 이상을 맞혀야 합니다 (" + rule + "). " + record }),
               el("p", {}, [link])];
    } else {
      lines = [el("p", { text: "ℹ️ 이 장을 시작하기 전에 " + title + "(" + rule + " 이상)을 먼저 통과하기를 권합니다. " + record }),
               el("p", {}, [link])];
    }
    gate.appendChild(el("div", { "class": "course-gate-notice course-gate-" + state, "data-course-gate-notice": true,
      "data-gate-state": state, role: "note" }, lines));
  }

  /** Apply (or re-apply) every gate on the page from the stored progress. */
  function applyGates() {
    if (typeof document === "undefined") { return; }
    var gates = document.querySelectorAll(".course-gate[data-requires]");
    if (!gates.length) { return; }
    var state = loadProgress(), p = policy();
    unhideAll();
    Array.prototype.forEach.call(gates, function (gate) {
      var requires = Number(gate.getAttribute("data-requires"));
      var cp = checkpointFor(requires, null);
      var best = bestCorrectCount(state, requires);
      if (p === "off" || !cp) { gateNotice(gate, null); return; }
      var byCode = gate.getAttribute("data-unlock") === "instructor";   // only the instructor's code opens it (unlock.js)
      if (!byCode && best !== null && best >= cp.pass_count) { gateNotice(gate, "open", cp, requires, best); return; }
      gateNotice(gate, p === "advisory" ? "advisory" : "locked", cp, requires, best);
      if (p !== "advisory") { var article = articleOf(gate); hideAllBut(article, [gate, article.querySelector("h1")]); hidePageFrame(); }
      if (byCode && root.CourseUnlock) {
        root.CourseUnlock.attach(gate, { module: requires, title: cp.title, rule: cp.pass_count + "/" + cp.question_count,
          href: pageLink(requires) + "#course-quiz-" + requires, locked: p !== "advisory", open: unhideAll, relock: applyGates });
      }
    });
  }

  // ------------------------------------------------------------------ start
  function readBank(container) {
    var module = container.getAttribute("data-module");
    var script = container.nextElementSibling;
    if (!(script && script.classList.contains("course-quiz-data"))) {
      script = document.querySelector('script.course-quiz-data[data-module="' + Number(module) + '"]');
    }
    if (!script) { return null; }
    return JSON.parse(script.textContent);
  }

  var started = false;

  function start() {
    if (started) { return; }
    started = true;
    loadProgress();
    Array.prototype.forEach.call(document.querySelectorAll(".course-quiz[data-module]"), function (container) {
      try {
        var bank = readBank(container);
        if (!bank) { throw new Error("quiz data not found"); }
        container.quiz = new Quiz(container, bank);
      } catch (e) {
        container.textContent = "퀴즈를 불러오지 못했습니다: " + e.message;
        if (root.console) { root.console.warn("course quiz:", e); }
      }
    });
    applyGates();
    if (location.hash && location.hash.indexOf("#course-quiz-") === 0) {
      var target = document.getElementById(location.hash.slice(1));
      if (target) { target.scrollIntoView(); }
    }
    root.addEventListener("storage", function (event) {
      if (event.key === STORAGE_KEY) { applyGates(); }
    });
  }

  return {
    STORAGE_KEY: STORAGE_KEY,
    CORRUPT_PREFIX: CORRUPT_PREFIX,
    loadProgress: loadProgress,
    applyGates: applyGates,
    storage: storage,
    start: start
  };
});
