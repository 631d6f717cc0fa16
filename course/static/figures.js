/* Draws every static plotly figure on the page with the site's own plotly.js (no CDN).
 * course.page.figure_html() writes, inside <div class="course-figure-block" role="figure" aria-label="그림: …">:
 *   <div class="course-figure" id=X aria-hidden="true"> (plotly draws here),
 *   <script type="application/json" id="X-spec">{data, layout, frames}</script>,
 *   <p id="X-desc" class="course-sr-only">(a description generated from the figure's data)</p>
 *   and, for a chart without controls, <details> "표로 보기" with its data as tables.
 *
 * Accessibility (WCAG 2.1 AA), without changing what a mouse user sees:
 * - plotly's sliders and menus are SVG that the keyboard cannot reach, so each figure with controls
 *   gets native ones bound to the same steps: <input type="range"> per slider (arrow keys move it;
 *   aria-valuetext says the step in words), a radio group per button menu, a <select> per dropdown.
 *   They are read by screen readers and shown over the figure only while one has the focus
 *   (site.css, .course-figure-keys). A change made with either control moves the other, and the
 *   figure's new title, generated from the model, is announced in a polite live region.
 * - the mode bar's buttons leave the tab order (mouse users keep them);
 * - with prefers-reduced-motion, sliders and animations change state without transitions. */
(function () {
  "use strict";
  var CONFIG = { responsive: true, displaylogo: false, scrollZoom: false };
  var MOTION = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;

  function reducedMotion() { return !!(MOTION && MOTION.matches); }

  function plain(text) {
    var div = document.createElement("div");
    div.innerHTML = String(text == null ? "" : text).replace(/\s*<br\s*\/?>\s*/gi, " — ");
    return (div.textContent || "").replace(/\s+/g, " ").replace(/^[\s—]+|[\s—]+$/g, "");
  }

  function titleText(layout) {
    var title = layout && layout.title;
    return plain(title && typeof title === "object" ? title.text : title);
  }

  /* ------------------------------------------------------------------ reduced motion */

  function calmCommand(item) {
    if (!item || item.method !== "animate") return;
    item.args = item.args || [null, {}];
    var opts = Object.assign({}, item.args[1] || {});
    opts.transition = { duration: 0 };
    opts.frame = Object.assign({}, opts.frame || {}, { duration: 0, redraw: true });
    opts.mode = opts.mode || "immediate";
    item.args[1] = opts;
  }

  function calmSliders(sliders) {
    (sliders || []).forEach(function (slider) {
      slider.transition = { duration: 0 };
      (slider.steps || []).forEach(calmCommand);
    });
  }

  /* No transitions anywhere in the spec, including sliders that a menu button swaps in. */
  function stillSpec(spec) {
    var layout = spec.layout = spec.layout || {};
    layout.transition = { duration: 0 };
    calmSliders(layout.sliders);
    (layout.updatemenus || []).forEach(function (menu) {
      (menu.buttons || []).forEach(function (button) {
        calmCommand(button);
        var update = button.args && button.args[1];
        if (update && update.sliders) calmSliders(update.sliders);
      });
    });
  }

  /* ------------------------------------------------------------------ mode bar */

  function modeBarOutOfTabOrder(el) {
    var bars = el.querySelectorAll(".modebar-container");
    for (var i = 0; i < bars.length; i++) bars[i].setAttribute("aria-hidden", "true");
    var buttons = el.querySelectorAll(".modebar-btn, .modebar a, .modebar button");
    for (var j = 0; j < buttons.length; j++) buttons[j].setAttribute("tabindex", "-1");
  }

  /* ------------------------------------------------------------------ keyboard controls */

  function sliderName(slider) {
    if (slider.name) return plain(slider.name);
    var prefix = plain((slider.currentvalue || {}).prefix || "").replace(/[\s=:]+$/, "");
    return prefix || "단계";
  }

  function stepValueText(slider, index) {
    var steps = slider.steps || [];
    var label = steps[index] ? plain(steps[index].label) : "";
    return sliderName(slider) + " " + label + ", " + steps.length + "단계 중 " + (index + 1) + "단계";
  }

  /* Run a plotly command (a slider step or a menu button) plus a layout change that moves plotly's
   * own control to the same place, as plotly does when the control is clicked. */
  function runCommand(gd, item, activeLayout) {
    var P = window.Plotly, args = item.args || [];
    switch (item.method) {
      case "update":
        return P.update(gd, args[0] || {}, Object.assign({}, args[1] || {}, activeLayout), args[2]);
      case "restyle":
        return P.restyle(gd, args[0], args[1]).then(function () { return P.relayout(gd, activeLayout); });
      case "relayout":
        return P.relayout(gd, Object.assign({}, args[0] || {}, activeLayout));
      case "animate":
        return P.animate(gd, args[0], args[1]).then(function () { return P.relayout(gd, activeLayout); });
      default:
        return P.relayout(gd, activeLayout);
    }
  }

  function Keys(gd, label) {
    this.gd = gd;
    this.busy = null;
    this.queued = null;
    this.box = document.createElement("div");
    this.box.className = "course-figure-keys";
    this.box.setAttribute("role", "group");
    this.box.setAttribute("aria-label", label + " — 키보드 조작");
    this.status = document.createElement("p");
    this.status.className = "course-sr-only";
    this.status.setAttribute("aria-live", "polite");
    this.status.id = gd.id + "-status";
    this.desc = document.getElementById(gd.id + "-desc");
    this.originalDesc = this.desc ? this.desc.textContent : "";
    this.build();
  }

  Keys.prototype.build = function () {
    var layout = this.gd.layout, self = this;
    this.box.textContent = "";
    this.menus = [];
    this.ranges = [];
    (layout.updatemenus || []).forEach(function (menu, m) {
      if ((menu.buttons || []).length) self.menus.push(self.menuControl(menu, m));
    });
    (layout.sliders || []).forEach(function (slider, s) {
      if ((slider.steps || []).length) self.ranges.push(self.sliderControl(slider, s));
    });
    this.box.appendChild(this.status);
    this.shape = this.signature();
  };

  Keys.prototype.signature = function () {
    var layout = this.gd.layout;
    return JSON.stringify([(layout.updatemenus || []).map(function (m) { return (m.buttons || []).length; }),
                           (layout.sliders || []).map(function (s) { return (s.steps || []).map(function (t) { return t.label; }); })]);
  };

  Keys.prototype.menuControl = function (menu, m) {
    var self = this, id = this.gd.id + "-menu-" + m, name = plain(menu.name) || "보기 선택";
    var active = typeof menu.active === "number" ? menu.active : 0;
    if (menu.type === "dropdown") {
      var label = document.createElement("label");
      label.htmlFor = id;
      label.textContent = name;
      var select = document.createElement("select");
      select.id = id;
      menu.buttons.forEach(function (button, b) {
        var option = document.createElement("option");
        option.value = String(b);
        option.textContent = plain(button.label);
        select.appendChild(option);
      });
      select.value = String(active);
      select.addEventListener("change", function () { self.choose("menu", m, Number(select.value)); });
      this.box.appendChild(label);
      this.box.appendChild(select);
      return { kind: "select", index: m, el: select };
    }
    var fieldset = document.createElement("fieldset");
    var legend = document.createElement("legend");
    legend.textContent = name;
    fieldset.appendChild(legend);
    var radios = menu.buttons.map(function (button, b) {
      var wrap = document.createElement("label");
      var radio = document.createElement("input");
      radio.type = "radio";
      radio.name = id;
      radio.value = String(b);
      radio.checked = b === active;
      radio.addEventListener("change", function () { if (radio.checked) self.choose("menu", m, b); });
      wrap.appendChild(radio);
      wrap.appendChild(document.createTextNode(" " + plain(button.label)));
      fieldset.appendChild(wrap);
      return radio;
    });
    this.box.appendChild(fieldset);
    return { kind: "radio", index: m, el: radios };
  };

  Keys.prototype.sliderControl = function (slider, s) {
    var self = this, id = this.gd.id + "-slider-" + s;
    var label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = sliderName(slider);
    var range = document.createElement("input");
    range.type = "range";
    range.id = id;
    range.min = "0";
    range.step = "1";
    range.max = String(slider.steps.length - 1);
    range.value = String(slider.active || 0);
    range.setAttribute("aria-valuetext", stepValueText(slider, slider.active || 0));
    range.addEventListener("input", function () { self.choose("slider", s, Number(range.value)); });
    this.box.appendChild(label);
    this.box.appendChild(range);
    return { index: s, el: range };
  };

  /* Apply a choice from the keyboard; while plotly is busy, only the latest choice waits. */
  Keys.prototype.choose = function (kind, index, value) {
    if (this.busy) { this.queued = [kind, index, value]; return; }
    var layout = this.gd.layout, item, active = {};
    if (kind === "menu") {
      item = layout.updatemenus[index].buttons[value];
      active["updatemenus[" + index + "].active"] = value;
    } else {
      item = layout.sliders[index].steps[value];
      active["sliders[" + index + "].active"] = value;
    }
    var self = this;
    this.busy = Promise.resolve(runCommand(this.gd, item, active)).then(function () {
      self.busy = null;
      self.sync();
      self.announce(kind, index, value);
      if (self.queued) { var next = self.queued; self.queued = null; self.choose.apply(self, next); }
    }, function () { self.busy = null; });
  };

  Keys.prototype.announce = function (kind, index, value) {
    var layout = this.gd.layout, what;
    if (kind === "slider") what = stepValueText(layout.sliders[index], value);
    else what = (plain(layout.updatemenus[index].name) || "보기") + " " + plain(layout.updatemenus[index].buttons[value].label);
    var text = what + ". " + titleText(layout);
    this.status.textContent = text;
    if (this.desc) this.desc.textContent = "지금: " + text + " — 처음 상태의 설명: " + this.originalDesc;
  };

  /* Follow plotly's own controls (mouse) and menus that swap sliders. */
  Keys.prototype.sync = function () {
    var layout = this.gd.layout;
    if (this.signature() !== this.shape) {
      var focused = document.activeElement && this.box.contains(document.activeElement) ? document.activeElement.id : null;
      this.build();
      if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
    }
    this.menus.forEach(function (control) {
      var active = layout.updatemenus[control.index].active || 0;
      if (control.kind === "select") control.el.value = String(active);
      else control.el.forEach(function (radio, b) { radio.checked = b === active; });
    });
    this.ranges.forEach(function (control) {
      var slider = layout.sliders[control.index], active = slider.active || 0;
      control.el.value = String(active);
      control.el.setAttribute("aria-valuetext", stepValueText(slider, active));
    });
  };

  function addKeyboardControls(el, spec) {
    var layout = spec.layout || {};
    if (!(layout.sliders || []).length && !(layout.updatemenus || []).length) return;
    var block = el.closest(".course-figure-block");
    var keys = new Keys(el, (block && block.getAttribute("aria-label")) || "그림");
    el.parentNode.insertBefore(keys.box, el.nextSibling);
    var pending = null;
    var follow = function () {
      if (keys.busy || pending) return;
      pending = setTimeout(function () { pending = null; keys.sync(); }, 0);
    };
    ["plotly_sliderchange", "plotly_buttonclicked", "plotly_relayout", "plotly_update", "plotly_restyle"]
      .forEach(function (event) { el.on(event, follow); });
    el.courseKeys = keys;
  }

  /* ------------------------------------------------------------------ drawing */

  function drawOne(el) {
    if (el.getAttribute("data-rendered")) return;
    var specEl = document.getElementById(el.id + "-spec");
    if (!specEl || !window.Plotly) {
      el.textContent = "그림을 그릴 수 없습니다: plotly.js를 불러오지 못했습니다 (plotly.js missing).";
      return;
    }
    var spec = JSON.parse(specEl.textContent);
    if (reducedMotion()) stillSpec(spec);
    el.setAttribute("data-rendered", "pending");
    window.Plotly.newPlot(el, spec.data, spec.layout, CONFIG).then(function () {
      if (spec.frames && spec.frames.length) return window.Plotly.addFrames(el, spec.frames);
    }).then(function () {
      modeBarOutOfTabOrder(el);
      el.on("plotly_afterplot", function () { modeBarOutOfTabOrder(el); });
      addKeyboardControls(el, spec);
      el.setAttribute("data-rendered", "1");
    });
  }

  function drawAll() {
    var figures = document.querySelectorAll("div.course-figure");
    for (var i = 0; i < figures.length; i++) drawOne(figures[i]);
  }

  window.CourseFigures = { draw: function (id) { var el = document.getElementById(id); if (el && document.readyState !== "loading") drawOne(el); }, drawAll: drawAll };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", drawAll);
  else drawAll();
})();
