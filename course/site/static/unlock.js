/*
 * SGEMM course: chapters that open with the instructor's unlock code (course_settings
 * gating_unlock: instructor; Python side: course/quiz/unlock.py, course/gating.py).
 *
 * A gated chapter's marker then carries the instructor's public key and the course text:
 *   <div class="course-gate" data-module="7" data-requires="6" data-unlock="instructor"
 *        data-unlock-key="<base64 SPKI, ECDSA P-256>" data-unlock-course="<course text>"></div>
 * quiz.js's applyGates hides the chapter (policy strict) and calls CourseUnlock.attach(gate, options):
 * this script writes the lock notice with a small form (student id + code), and opens the chapter
 * (options.open) only when WebCrypto verifies the code: ECDSA P-256 / SHA-256 over
 *   "sgemm-course-unlock/v1" LF <course> LF <module> LF <student id>
 * (course text and id: NFC, whitespace at both ends removed, as course/quiz/unlock.py does), the
 * signature in its raw r||s form, base64url, after the prefix "U<module>-".
 *
 * A verified code is kept in localStorage ("sgemm-course-unlock") and verified AGAIN on every page
 * load: what opens the chapter is a signature only the instructor's private key can make, never a
 * stored flag. Passing the checkpoint on the page opens nothing in this mode (the instructor grades
 * the exported submission file and hands out the codes).
 *
 * Stable data attributes (tests/test_unlock_browser.py):
 *   form[data-course-unlock-form], input[data-course-unlock-student], input[data-course-unlock-code],
 *   [data-course-unlock-status] (role="status"; an error is also role="alert"),
 *   [data-course-gate-notice][data-gate-state="locked" | "advisory" | "open"][data-gate-unlock="code"]
 */
(function (root, factory) {
  "use strict";
  var api = factory(root);
  if (typeof module !== "undefined" && module.exports) { module.exports = api; }
  if (typeof window !== "undefined") { window.CourseUnlock = api; }
})(typeof window !== "undefined" ? window : globalThis, function (root) {
  "use strict";

  var STORAGE_KEY = "sgemm-course-unlock";
  var MESSAGE_HEAD = "sgemm-course-unlock/v1";
  // The same list as course/quiz/unlock.py STRIP_CHARS.
  var STRIP_CLASS = "[ \\t\\n\\r\\f\\v\\u00a0\\u1680\\u2000-\\u200a\\u200b\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]";
  var EDGES = new RegExp("^" + STRIP_CLASS + "+|" + STRIP_CLASS + "+$", "g");
  var ANYWHERE = new RegExp(STRIP_CLASS, "g");
  var CODE = /^[Uu](\d{1,3})-([A-Za-z0-9_-]{86})$/;
  var counter = 0;

  function normaliseText(text) { return String(text).normalize("NFC").replace(EDGES, ""); }

  function cleanCode(code) {
    var text = String(code).replace(ANYWHERE, "");
    if (text.charAt(0) === "'") { text = text.slice(1); }
    return text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  /** The module a code names in its prefix, or null when the text is not a code. */
  function codeModule(code) {
    var m = CODE.exec(cleanCode(code));
    return m ? Number(m[1]) : null;
  }

  function message(course, module, student) {
    return [MESSAGE_HEAD, normaliseText(course), String(Number(module)), normaliseText(student)].join("\n");
  }

  function bytesFromBase64(text, url) {
    var b64 = String(text).replace(/\s+/g, "");
    if (url) { b64 = b64.replace(/-/g, "+").replace(/_/g, "/"); while (b64.length % 4) { b64 += "="; } }
    var binary = atob(b64), out = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { out[i] = binary.charCodeAt(i); }
    return out;
  }

  function base64UrlOf(bytes) {
    var binary = "";
    for (var i = 0; i < bytes.length; i++) { binary += String.fromCharCode(bytes[i]); }
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function subtle() {
    var c = root.crypto;
    return c && c.subtle ? c.subtle : null;
  }

  /** Promise of true when code is the instructor's signature for this course, module and student id. */
  function verify(publicKey, course, module, student, code) {
    var s = subtle();
    if (!s) { return Promise.reject(new Error("no WebCrypto")); }
    var m = CODE.exec(cleanCode(code));
    var sid = normaliseText(student);
    if (!m || Number(m[1]) !== Number(module) || !sid) { return Promise.resolve(false); }
    var signature, key;
    try {
      signature = bytesFromBase64(m[2], true);
      key = bytesFromBase64(publicKey, false);
    } catch (e) { return Promise.resolve(false); }
    // One spelling per code: the last character carries 2 bits, so a changed low bit must not pass either.
    if (signature.length !== 64 || base64UrlOf(signature) !== m[2]) { return Promise.resolve(false); }
    return s.importKey("spki", key, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"])
      .then(function (k) {
        return s.verify({ name: "ECDSA", hash: "SHA-256" }, k, signature,
                        new TextEncoder().encode(message(course, module, sid)));
      })
      .then(function (ok) { return ok === true; }, function () { return false; });
  }

  // ------------------------------------------------------------------ storage (only codes; verified on use)
  function storageKey(course, module) { return normaliseText(course) + "\n" + Number(module); }

  function readAll() {
    try {
      var data = JSON.parse(root.localStorage.getItem(STORAGE_KEY) || "{}");
      return data && typeof data === "object" && data.codes && typeof data.codes === "object" ? data : { codes: {} };
    } catch (e) { return { codes: {} }; }
  }

  function stored(course, module) {
    var entry = readAll().codes[storageKey(course, module)];
    return entry && typeof entry.student === "string" && typeof entry.code === "string" ? entry : null;
  }

  function store(course, module, student, code) {
    try {
      var data = readAll();
      data.codes[storageKey(course, module)] = { student: student, code: code };
      root.localStorage.setItem(STORAGE_KEY, JSON.stringify(data));
      return true;
    } catch (e) { return false; }
  }

  function forget(course, module) {
    try {
      var data = readAll();
      delete data.codes[storageKey(course, module)];
      root.localStorage.setItem(STORAGE_KEY, JSON.stringify(data));
    } catch (e) { /* nothing stored, nothing to forget */ }
  }

  // ------------------------------------------------------------------ the notice and its form
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === "text") { node.textContent = attrs[name]; } else { node.setAttribute(name, attrs[name]); }
    });
    (children || []).forEach(function (c) { node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }

  function field(id, label, describedBy, attrs) {
    var input = el("input", Object.assign({ id: id, type: "text", autocomplete: "off", spellcheck: "false",
      "aria-describedby": describedBy }, attrs));
    var row = el("p", { "class": "course-unlock-field" }, [el("label", { "for": id, text: label }), " ", input]);
    return { row: row, input: input };
  }

  function notice(gate, state, children) {
    var old = gate.querySelector("[data-course-gate-notice]");
    if (old) { old.remove(); }
    var box = el("div", { "class": "course-gate-notice course-gate-" + state, "data-course-gate-notice": "true",
      "data-gate-state": state, "data-gate-unlock": "code", role: "note" }, children);
    gate.appendChild(box);
    return box;
  }

  function openNotice(gate, options, student) {
    var again = el("button", { type: "button", "data-course-unlock-forget": "true", text: "이 브라우저에서 코드 지우기" });
    var box = notice(gate, "open", [
      el("p", { tabindex: "-1", text: "강사의 잠금 해제 코드(unlock code)로 이 장이 열렸습니다 (학번 " + student + ")." }),
      el("p", {}, [again])]);
    again.addEventListener("click", function () {
      forget(options.course, options.module);
      if (options.relock) { options.relock(); }
    });
    return box;
  }

  function say(status, text, error) {
    status.textContent = text;
    if (error) { status.setAttribute("role", "alert"); } else { status.setAttribute("role", "status"); }
    status.setAttribute("data-course-unlock-error", error ? "true" : "false");
  }

  function lockedNotice(gate, options) {
    var n = ++counter, id = "course-unlock-" + options.module + "-" + n;
    var title = options.title || ("모듈 " + options.module + " 체크포인트");
    var intro = options.locked
      ? "이 장은 잠겨 있습니다. 강사가 " + title + "(" + options.rule + " 이상)의 제출 파일을 채점한 뒤 학생마다 주는 " +
        "잠금 해제 코드(unlock code)로 열립니다. 체크포인트를 통과한 것만으로는 열리지 않습니다."
      : "ℹ️ 이 장을 시작하기 전에 통과하기를 권하는 체크포인트: " + title + " (" + options.rule + " 이상). 강사에게 " +
        "받은 잠금 해제 코드(unlock code)가 있으면 아래에 넣으세요.";
    var student = field(id + "-student", "학번", id + "-status", { "data-course-unlock-student": "true", autocomplete: "username" });
    var code = field(id + "-code", "잠금 해제 코드", id + "-status " + id + "-hint", { "data-course-unlock-code": "true", size: "40" });
    var status = el("p", { id: id + "-status", role: "status", "aria-live": "polite", "data-course-unlock-status": "true" });
    var button = el("button", { type: "submit", text: "코드 확인" });
    var form = el("form", { "data-course-unlock-form": "true", "aria-label": "잠금 해제 코드 넣기", novalidate: "true" }, [
      student.row, code.row,
      el("p", { id: id + "-hint", "class": "course-unlock-hint", text: "코드는 U" + options.module + "-로 시작합니다. 받은 그대로 붙여 넣으세요." }),
      el("p", {}, [button]), status]);
    var link = el("a", { href: options.href, "data-course-gate-link": String(options.module), text: title + " 풀러 가기" });
    notice(gate, options.locked ? "locked" : "advisory", [el("p", { text: intro }), el("p", {}, [link]), form]);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      submit(gate, options, student.input, code.input, status, button);
    });
    return { student: student.input, code: code.input, status: status };
  }

  function invalid(input, on) {
    if (on) { input.setAttribute("aria-invalid", "true"); } else { input.removeAttribute("aria-invalid"); }
  }

  function submit(gate, options, studentInput, codeInput, status, button) {
    var sid = normaliseText(studentInput.value), code = cleanCode(codeInput.value);
    invalid(studentInput, !sid);
    invalid(codeInput, false);
    if (!sid) { say(status, "학번을 넣으세요.", true); studentInput.focus(); return; }
    var named = codeModule(code);
    if (named === null) {
      invalid(codeInput, true);
      say(status, "잠금 해제 코드의 형식이 아닙니다: U" + options.module + "-로 시작하는 코드 전체를 붙여 넣으세요.", true);
      codeInput.focus();
      return;
    }
    if (named !== Number(options.module)) {
      invalid(codeInput, true);
      say(status, "이 코드는 모듈 " + named + " 체크포인트의 코드입니다. 이 장에는 모듈 " + options.module + "의 코드가 필요합니다.", true);
      codeInput.focus();
      return;
    }
    button.disabled = true;
    say(status, "확인하는 중입니다…", false);
    verify(options.key, options.course, options.module, sid, code).then(function (ok) {
      button.disabled = false;
      if (!ok) {
        invalid(codeInput, true);
        say(status, "코드가 맞지 않습니다: 이 학번의 코드가 아닙니다. 학번을 강사의 명단과 똑같이(대소문자 포함) " +
            "넣었는지, 코드를 빠짐없이 붙여 넣었는지 확인하세요.", true);
        codeInput.focus();
        return;
      }
      var kept = store(options.course, options.module, sid, code);
      opened(gate, options, sid);
      if (!kept) {
        gate.querySelector("[data-course-gate-notice]").appendChild(el("p", { text:
          "이 브라우저에 코드를 저장하지 못해(저장소를 쓸 수 없음) 다음에 열 때 다시 넣어야 합니다." }));
      }
    }, function () {
      button.disabled = false;
      say(status, "이 브라우저에서는 코드를 확인할 수 없습니다 (WebCrypto 없음): https 주소로 열거나 최신 브라우저를 쓰세요.", true);
    });
  }

  /** After a code typed in the form verifies: show the chapter and move the focus to the news. */
  function opened(gate, options, student) {
    if (options.open) { options.open(); }
    openNotice(gate, options, student).querySelector("[tabindex]").focus();
  }

  /**
   * Take over a gate's notice: options = {module (the checkpoint), title, rule ("6/8"), href (the
   * checkpoint's page), locked (policy strict), open() (show the chapter), relock() (apply the gates
   * again)}. The key and course come from the marker. A stored code is verified before anything opens.
   */
  function attach(gate, options) {
    var o = Object.assign({}, options, { key: gate.getAttribute("data-unlock-key") || "",
      course: gate.getAttribute("data-unlock-course") || "" });
    var form = lockedNotice(gate, o);
    if (!subtle()) {
      say(form.status, "이 브라우저에서는 잠금 해제 코드를 확인할 수 없습니다 (WebCrypto 없음): https 주소로 열거나 " +
          "최신 브라우저를 쓰세요.", true);
      return Promise.resolve(false);
    }
    var saved = stored(o.course, o.module);
    if (!saved) { return Promise.resolve(false); }
    form.student.value = saved.student;
    return verify(o.key, o.course, o.module, saved.student, saved.code).then(function (ok) {
      if (ok) {
        if (o.open) { o.open(); }
        openNotice(gate, o, normaliseText(saved.student));
      } else {
        say(form.status, "이 브라우저에 저장된 코드가 맞지 않아 지웠습니다. 강사에게 받은 코드를 다시 넣으세요.", true);
        forget(o.course, o.module);
      }
      return ok;
    }, function () { return false; });
  }

  return {
    STORAGE_KEY: STORAGE_KEY,
    normaliseText: normaliseText,
    cleanCode: cleanCode,
    codeModule: codeModule,
    message: message,
    verify: verify,
    attach: attach
  };
});
