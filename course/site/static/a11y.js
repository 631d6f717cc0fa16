/* Accessibility fixes to the parts of the page that the course does not write itself (the theme's
 * frame, sphinx-copybutton), applied in the browser:
 *
 * - sphinx-copybutton has no Korean ("Copy to clipboard", "Copied!"). Its script keeps its messages
 *   and the locale it picked from <html lang> in top-level bindings and builds the buttons on
 *   DOMContentLoaded; this script is loaded earlier, so its own DOMContentLoaded listener runs first
 *   and adds Korean there. Without sphinx-copybutton (or with another version that lacks these
 *   bindings) nothing happens.
 * - The theme's English words (WCAG 3.1.2): a control whose only words are English ("Skip to main
 *   content", "Color mode", "Back to top") is marked lang="en", so a screen reader reads it with an
 *   English voice; a landmark, input or link that also holds Korean gets a Korean label instead
 *   (lang on it would mark its Korean as English).
 * - Scroll boxes (WCAG 2.1.1, 4.1.2): the theme makes a code block or a wide table focusable while
 *   it overflows (so the keyboard can scroll it) but leaves it unnamed; while it is focusable it is
 *   a named region here ("코드 블록", "표: <its caption>"). */
(function () {
  "use strict";
  var KOREAN = { copy: "복사", copy_to_clipboard: "클립보드에 복사", copy_success: "복사했습니다", copy_failure: "복사하지 못했습니다" };

  function koreanCopyButtons() {
    /* global messages, locale, iconCopy, iconCheck */
    try {
      if (document.documentElement.lang !== "ko" || typeof messages !== "object" || !messages.en) return;
      messages.ko = KOREAN;
      iconCopy = iconCopy.replace("<title>" + messages[locale].copy_to_clipboard + "</title>", "<title>" + KOREAN.copy_to_clipboard + "</title>");
      iconCheck = iconCheck.replace("<title>" + messages[locale].copy_success + "</title>", "<title>" + KOREAN.copy_success + "</title>");
      locale = "ko";
    } catch (e) { /* a copybutton without these bindings: its English labels stay */ }
  }

  /* ------------------------------------------------------------------ the theme's English */

  var ENGLISH_ONLY = ["#pst-skip-link", "#pst-back-to-top", ".theme-switch-button", ".primary-toggle",
                      ".secondary-toggle", ".search-button__kbd-shortcut"];
  /* [selector, attribute, English it replaces, Korean] */
  var KOREAN_LABELS = [
    ["nav.bd-docs-nav", "aria-label", "Main", "사이트 목차"],
    ["nav", "aria-label", "Page", "이 페이지의 목차"],
    ["aside", "aria-label", "Version warning", "버전 안내"],
    ["input", "aria-label", "Search this book...", "이 책에서 검색"],
    ["input", "placeholder", "Search this book...", "이 책에서 검색…"],
    ["a.left-prev", "title", "previous page", "이전 페이지"],
    ["a.right-next", "title", "next page", "다음 페이지"]
  ];

  /* Sphinx's "¶" links after headings and captions ("Link to this heading", "Link to this table"). */
  var HEADER_LINKS = { heading: "이 제목으로 바로 가는 링크", table: "이 표로 바로 가는 링크", code: "이 코드로 바로 가는 링크",
                       image: "이 그림으로 바로 가는 링크", definition: "이 정의로 바로 가는 링크", equation: "이 수식으로 바로 가는 링크" };

  function markEnglish() {
    document.querySelectorAll("a.headerlink[title^='Link to this ']").forEach(function (link) {
      var korean = HEADER_LINKS[link.getAttribute("title").slice("Link to this ".length)];
      if (korean) link.setAttribute("title", korean);
    });
    ENGLISH_ONLY.forEach(function (selector) {
      document.querySelectorAll(selector).forEach(function (node) { node.setAttribute("lang", "en"); });
    });
    KOREAN_LABELS.forEach(function (rule) {
      document.querySelectorAll(rule[0] + "[" + rule[1] + "]").forEach(function (node) {
        if (node.getAttribute(rule[1]) === rule[2]) node.setAttribute(rule[1], rule[3]);
      });
    });
  }

  /* ------------------------------------------------------------------ named scroll boxes */

  /* The elements the theme makes focusable while they overflow (pydata-sphinx-theme's
   * addTabStopsToScrollableElements), and the name each gets. */
  var SCROLL_BOXES = "pre, .cell_output > .output, .pst-scrollable-table-container";

  function scrollBoxName(box) {
    if (box.matches("pre")) return "코드 블록";
    var caption = box.querySelector("caption, .caption-text");
    var text = caption ? caption.textContent.replace(/\s+/g, " ").trim() : "";
    if (box.querySelector("table")) return text ? "표: " + text : "표";
    return "실행 결과";
  }

  function nameScrollBox(box) {
    var scrollable = box.tabIndex === 0;
    if (scrollable && box.getAttribute("data-course-scroll-box") === null) {
      box.setAttribute("data-course-scroll-box", "");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", scrollBoxName(box) + " (가로 스크롤)");
    } else if (!scrollable && box.getAttribute("data-course-scroll-box") !== null) {
      box.removeAttribute("data-course-scroll-box");
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
    }
  }

  function nameScrollBoxes() {
    var main = document.getElementById("main-content");
    if (!main) return;
    var update = function () { main.querySelectorAll(SCROLL_BOXES).forEach(nameScrollBox); };
    new MutationObserver(update).observe(main, { subtree: true, attributes: true, attributeFilter: ["tabindex"] });
    update();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", koreanCopyButtons);
    document.addEventListener("DOMContentLoaded", markEnglish);
    document.addEventListener("DOMContentLoaded", nameScrollBoxes);
  } else {
    markEnglish();
    nameScrollBoxes();
  }
})();
