/* Korean for the one part of the page that has no Korean of its own: sphinx-copybutton's button on
 * every code block ("Copy to clipboard", "Copied!"). Its script keeps its messages and the locale it
 * picked from <html lang> in top-level bindings and builds the buttons on DOMContentLoaded; this
 * script is loaded earlier, so its own DOMContentLoaded listener runs first and adds Korean there.
 * Without sphinx-copybutton (or with another version that lacks these bindings) nothing happens. */
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

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", koreanCopyButtons);
})();
