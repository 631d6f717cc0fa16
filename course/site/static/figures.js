/* Draws every plotly figure on the page with the site's own plotly.js (no CDN), and makes it
 * readable without the picture and usable at any width.
 * course.page.figure_html() writes, inside <div class="course-figure-block" role="figure" aria-label="그림: …">:
 *   <div class="course-figure" id=X aria-hidden="true"> (plotly draws here),
 *   <script type="application/json" id="X-spec">{data, layout, frames}</script>,
 *   <p id="X-desc" class="course-sr-only">(a description generated from the figure's data)</p>
 *   and <details id="X-data"> "표로 보기" with its data as tables (course/site/figure_text.py).
 *
 * What this script adds (WCAG 2.1 AA):
 * - Reflow (1.4.10): the title, which for a simulator carries the computed result, is written above
 *   the plot as text that wraps (plotly's own title does not wrap and was cut off), and the margin
 *   it and plotly's controls took is given back to the plot. Below 560 px the side margins shrink
 *   and a legend goes under the plot, so the plot area stays usable at 320 px.
 * - Controls (2.1.1, 4.1.2): plotly's sliders and menus are SVG that the keyboard cannot reach and
 *   that do not wrap (the profile exercise's 19 buttons made a 3,393 px row), so they are replaced
 *   by native ones bound to the same steps, shown above the plot for everyone: a radio group per
 *   button menu (wrapping into rows), a <select> per dropdown, an <input type="range"> per slider
 *   (arrow keys move it; aria-valuetext says the step in words, and an <output> shows it). A move
 *   announces the new title in a polite live region.
 * - The current state in words (1.1.1): after every move, a simulator's description and its
 *   "표로 보기" tables are made again from the live figure (Text, below, mirrors figure_text.py).
 * - The mode bar's buttons leave the tab order (mouse users keep them); with
 *   prefers-reduced-motion, sliders and animations change state without transitions. */
(function () {
  "use strict";
  var CONFIG = { responsive: true, displaylogo: false, scrollZoom: false };
  var MOTION = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
  var NARROW = 560;          // px of figure width below which the side margins and the legend change

  function reducedMotion() { return !!(MOTION && MOTION.matches); }

  /* ------------------------------------------------------------------ text (mirrors course/site/figure_text.py)
   * A simulator's description and tables are those of its current state: they are made again here
   * from the live figure whenever a control moves. The functions follow figure_text.py's marked
   * "(mirrored)" one for one (same wording, same number format), and tests/test_site_figures.py
   * checks that both give the same text for every figure on the site. */
  var Text = (function () {
    var MAX_DESCRIBED_TRACES = 8, MAX_TABLE_ROWS = 60, MAX_CELL_ROWS = 256, MAX_VALUE_KINDS = 12;
    var KINDS = { bar: "막대", heatmap: "히트맵", lines: "선", markers: "점", text: "글자 표시" };
    var decoder = document.createElement("textarea");

    function plain(text) {
      if (text === null || text === undefined) return "";
      var s = String(text).replace(/\s*<br\s*\/?>\s*/gi, " — ").replace(/<[^>]+>/g, "");
      decoder.innerHTML = s;
      return decoder.value.replace(/\s+/g, " ").replace(/^[ —]+|[ —]+$/g, "");
    }

    function isNumber(v) { return typeof v === "number" && !isNaN(v); }

    /* toFixed: ties away from zero on the exact binary value, as figure_text._fixed. */
    function grouped(digits) {
      var sign = digits.charAt(0) === "-" ? "-" : "";
      var parts = digits.replace(/^-/, "").split(".");
      var whole = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",");
      return sign + whole + (parts[1] ? "." + parts[1] : "");
    }

    function number(value) {
      if (typeof value !== "number") return plain(value);
      if (isNaN(value)) return "없음";
      if (!isFinite(value)) return value > 0 ? "무한대" : "-무한대";
      var magnitude = Math.abs(value);
      var text;
      if (Math.floor(value) === value || magnitude >= 100) {
        text = value.toFixed(0);
      } else {
        var decimals = magnitude >= 1 ? 2 : Math.min(10, 2 - Math.floor(Math.log10(magnitude)));
        text = value.toFixed(decimals).replace(/0+$/, "").replace(/\.$/, "");
      }
      return text === "-0" ? "0" : grouped(text);
    }

    function title(obj) { return obj && typeof obj === "object" ? plain(obj.text) : plain(obj); }
    function unique(list) { return list.filter(function (x, i) { return list.indexOf(x) === i; }); }
    function values(trace, key) {
      var v = trace[key];
      if (v === null || v === undefined) return [];
      if (Array.isArray(v)) return v;
      if (ArrayBuffer.isView(v)) return Array.prototype.slice.call(v);
      return typeof v === "object" ? [] : [v];
    }
    function first(list, better) { return list.reduce(function (a, b) { return better(b, a) ? b : a; }); }
    function highest(list) { return first(list, function (b, a) { return b.value > a.value; }); }
    function lowest(list) { return first(list, function (b, a) { return b.value < a.value; }); }

    function traceKind(trace) {
      var kind = trace.type || "scatter";
      if (kind !== "scatter") return KINDS[kind] || kind;
      var mode = trace.mode || "lines+markers";
      return mode.indexOf("lines") !== -1 ? "선" : (mode.indexOf("markers") !== -1 ? "점" : "글자 표시");
    }
    function visible(trace) { return trace.visible === undefined || trace.visible === true; }
    function textOnly(trace) { return (trace.type || "scatter") === "scatter" && (trace.mode || "") === "text"; }
    function drawingAid(trace) {
      var unnamed = !plain(trace.name) || trace.showlegend === false;
      return (trace.hoverinfo === "skip" || trace.hoverinfo === "none") && unnamed && !textOnly(trace);
    }
    function dataTraces(data) {
      return data.filter(function (t) {
        return visible(t) && !drawingAid(t) && !textOnly(t) && ["bar", "scatter", "heatmap"].indexOf(t.type || "scatter") !== -1;
      });
    }
    function seriesName(trace, index, layout) {
      var own = plain(trace.name), axis = own ? "" : valueAxis(layout, trace);
      if (own) return own;
      if (axis) return index === 0 ? axis : axis + " " + (index + 1);
      return traceKind(trace) + " " + (index + 1);
    }

    function points(trace) {
      var horizontal = trace.orientation === "h";
      var cats = values(trace, horizontal ? "y" : "x"), vals = values(trace, horizontal ? "x" : "y");
      var text = values(trace, "text"), hover = values(trace, "hovertext"), out = [];
      vals.forEach(function (value, i) {
        if (!isNumber(value)) return;
        out.push({ category: i < cats.length ? cats[i] : i, value: value,
                   shown: i < text.length ? plain(text[i]) : "", hover: i < hover.length ? plain(hover[i]) : "" });
      });
      return out;
    }
    function shown(p) { return p.shown || number(p.value); }

    function axisTitle(layout, ref) {
      var axis = layout[ref.charAt(0) + "axis" + ref.slice(1)];
      return axis && typeof axis === "object" ? title(axis.title) : "";
    }
    function axes(trace) { return [trace.xaxis || "x", trace.yaxis || "y"]; }
    function valueAxis(layout, trace) { var a = axes(trace); return axisTitle(layout, trace.orientation === "h" ? a[0] : a[1]); }
    function categoryAxis(layout, trace) { var a = axes(trace); return axisTitle(layout, trace.orientation === "h" ? a[1] : a[0]); }

    function heatmapCells(trace) {
      var z = values(trace, "z"), xs = values(trace, "x"), ys = values(trace, "y");
      var text = values(trace, "text"), hover = values(trace, "hovertext"), cells = [];
      z.forEach(function (row, i) {
        if (!Array.isArray(row)) return;
        row.forEach(function (value, j) {
          if (!isNumber(value)) return;
          var label = i < text.length && Array.isArray(text[i]) && j < text[i].length ? text[i][j] : "";
          var tip = i < hover.length && Array.isArray(hover[i]) && j < hover[i].length ? hover[i][j] : "";
          var x = j < xs.length ? number(xs[j]) : String(j), y = i < ys.length ? number(ys[i]) : String(i);
          cells.push({ where: "(" + x + ", " + y + ")", row: y, column: x, value: value,
                       shown: plain(label) || number(value), hover: plain(tip) });
        });
      });
      return cells;
    }

    function axesSentence(layout) {
      var parts = Object.keys(layout).filter(function (k) { return /^[xy]axis\d*$/.test(k); }).sort().map(function (key) {
        var t = layout[key] && typeof layout[key] === "object" ? title(layout[key].title) : "";
        return t ? (key.charAt(0) === "x" ? "가로축 " : "세로축 ") + t : "";
      }).filter(Boolean);
      return parts.length ? unique(parts).join(", ") + "." : "";
    }

    function summary(trace) {
      var low, high;
      if (trace.type === "heatmap") {
        var cells = heatmapCells(trace), rows = values(trace, "z");
        var shape = rows.length + "×" + (rows.length && Array.isArray(rows[0]) ? rows[0].length : 0) + "칸";
        if (!cells.length) return shape + ", 값 없음";
        low = lowest(cells); high = highest(cells);
        if (low.value === high.value) return shape + ", 모든 칸의 값 " + number(low.value);
        return shape + ", 가장 작은 값 " + low.shown + "(" + low.where + "), 가장 큰 값 " + high.shown + "(" + high.where + ")";
      }
      var pts = points(trace);
      if (!pts.length) return "값 없음";
      low = lowest(pts); high = highest(pts);
      if (low.value === high.value) return "값 " + pts.length + "개, 모두 " + number(low.value);
      return "값 " + pts.length + "개, 가장 낮은 값 " + shown(low) + "(" + number(low.category) + "에서), " +
        "가장 높은 값 " + shown(high) + "(" + number(high.category) + "에서)";
    }

    function sliderName(slider) {
      var name = plain(slider.name);
      if (!name) name = plain((slider.currentvalue || {}).prefix || "").replace(/[ =:]+$/, "");
      return name || "단계";
    }

    function controlsSentence(layout) {
      var parts = [];
      (layout.updatemenus || []).forEach(function (menu) {
        var labels = (menu.buttons || []).map(function (b) { return plain(b.label); });
        if (!labels.length) return;
        var active = typeof menu.active === "number" ? menu.active : 0;
        var current = active >= 0 && active < labels.length ? labels[active] : "없음";
        parts.push((plain(menu.name) || "보기 선택") + " " + labels.length + "가지 중 지금 '" + current + "'");
      });
      (layout.sliders || []).forEach(function (slider) {
        var steps = (slider.steps || []).map(function (s) { return plain(s.label); });
        if (!steps.length) return;
        var active = slider.active || 0;
        parts.push(sliderName(slider) + " 슬라이더 " + steps.length + "단계 중 " + (active + 1) + "단계 '" + steps[active] + "'");
      });
      return parts.length ? "조작: " + parts.join("; ") + "." : "";
    }

    function kindsSentence(traces) {
      var kinds = unique(traces.map(traceKind));
      return kinds.length ? kinds.join("·") + " 그래프입니다." : "";
    }

    function seriesLabel(trace, index, traces, layout) {
      var panels = unique(traces.map(function (t) { return axes(t).join(","); })).length;
      var name = seriesName(trace, index, layout), own = valueAxis(layout, trace);
      var axis = panels > 1 && name.indexOf(own) !== 0 ? own : "";
      return name + " (" + (axis ? axis + ", " : "") + traceKind(trace) + ")";
    }

    function notes(data, layout) {
      var raw = (layout.annotations || []).filter(function (a) { return a && typeof a === "object" && a.visible !== false; })
        .map(function (a) { return a.text; });
      data.forEach(function (trace) { if (visible(trace) && textOnly(trace)) raw = raw.concat(values(trace, "text")); });
      var out = [];
      raw.forEach(function (text) {
        var note = String(text === null || text === undefined ? "" : text).split(/\s*<br\s*\/?>\s*/i)
          .map(plain).filter(Boolean).join("\n");
        if (note && out.indexOf(note) === -1) out.push(note);
      });
      return out;
    }

    function notesSentence(data, layout) {
      var list = notes(data, layout);
      if (!list.length) return "";
      var text = list.map(function (n) { return n.replace(/\n/g, " — "); }).join("; ");
      return text.length <= 200 ? "그림 속 글: " + text + "." : "그림 속 글 " + list.length + "개는 '표로 보기'에 있습니다.";
    }

    /** The description of a simulator's current state (figure_text.describe_state). */
    function describeState(data, layout) {
      var traces = dataTraces(data), t = title(layout.title);
      var sentences = [t ? "지금 보이는 상태: " + t + "." : "", kindsSentence(traces), traces.length ? axesSentence(layout) : ""];
      traces.slice(0, MAX_DESCRIBED_TRACES).forEach(function (trace, i) {
        sentences.push(seriesLabel(trace, i, traces, layout) + ": " + summary(trace) + ".");
      });
      if (traces.length > MAX_DESCRIBED_TRACES) sentences.push("나머지 " + (traces.length - MAX_DESCRIBED_TRACES) + "개 계열은 표에 있습니다.");
      sentences.push(notesSentence(data, layout), controlsSentence(layout), traces.length ? "값은 '표로 보기'의 표에 있습니다." : "");
      return unique(sentences.filter(Boolean)).join(" ");
    }

    function span(labels) {
      labels = unique(labels);
      var nums = labels.map(function (l) { return Number(String(l).replace(/,/g, "")); });
      if (nums.some(function (n, i) { return isNaN(n) || String(labels[i]).trim() === ""; })) {
        return labels.slice(0, 6).join(", ") + (labels.length > 6 ? " …" : "");
      }
      var low = Math.min.apply(null, nums), high = Math.max.apply(null, nums);
      return low === high ? number(low) : number(low) + "–" + number(high);
    }

    function heatmapTable(trace, layout, caption) {
      var cells = heatmapCells(trace);
      if (!cells.length) return null;
      var a = axes(trace);
      var where = "위치 (" + (axisTitle(layout, a[0]) || "가로") + ", " + (axisTitle(layout, a[1]) || "세로") + ")";
      if (cells.length <= MAX_CELL_ROWS) {
        var hover = cells.some(function (c) { return c.hover; });
        return { caption: caption, columns: [where, "값"].concat(hover ? ["자세히"] : []),
                 rows: cells.map(function (c) { return [c.where, c.shown].concat(hover ? [c.hover] : []); }) };
      }
      var kinds = {}, order = [];
      cells.forEach(function (c) {
        if (!kinds.hasOwnProperty(c.value)) { kinds[c.value] = []; order.push(c.value); }
        kinds[c.value].push(c);
      });
      if (order.length > MAX_VALUE_KINDS) return null;
      return { caption: caption + " (값별 칸 수)", columns: ["값", "칸 수", "세로 범위", "가로 범위"],
               rows: order.sort(function (x, y) { return x - y; }).map(function (v) {
                 var group = kinds[v];
                 return [number(v), grouped(String(group.length)), span(group.map(function (c) { return c.row; })),
                         span(group.map(function (c) { return c.column; }))];
               }) };
    }

    function thinned(pts) {
      if (pts.length <= MAX_TABLE_ROWS) return { points: pts, cut: false };
      var changes = pts.filter(function (p, i) {
        return i === 0 || i === pts.length - 1 || p.value !== pts[i - 1].value || p.value !== pts[i + 1].value;
      });
      if (changes.length <= MAX_TABLE_ROWS) return { points: changes, cut: true };
      var step = (changes.length - 1) / (MAX_TABLE_ROWS - 1), out = [];
      for (var k = 0; k < MAX_TABLE_ROWS; k++) out.push(changes[Math.floor(k * step + 0.5)]);
      return { points: out, cut: true };
    }

    function seriesTable(traces, layout, caption) {
      var many = traces.length > 1, rows = [], cut = false;
      traces.forEach(function (trace, index) {
        var t = thinned(points(trace));
        cut = cut || t.cut;
        t.points.forEach(function (p) {
          rows.push({ series: seriesName(trace, index, layout), category: number(p.category), value: number(p.value), shown: p.shown, hover: p.hover });
        });
      });
      if (!rows.length) return null;
      var columns = (many ? ["계열"] : []).concat([categoryAxis(layout, traces[0]) || "항목", valueAxis(layout, traces[0]) || "값"]);
      var keys = (many ? ["series"] : []).concat(["category", "value"]);
      if (rows.some(function (r) { return r.shown && r.shown !== r.value; })) { columns.push("표시된 값"); keys.push("shown"); }
      if (rows.some(function (r) { return r.hover; })) { columns.push("자세히"); keys.push("hover"); }
      return { caption: caption + (cut ? " (값이 바뀌는 점 위주로 일부)" : ""), columns: columns,
               rows: rows.map(function (r) { return keys.map(function (k) { return r[k]; }); }) };
    }

    function tableCaption(layout, panelTitle, panels) {
      var t = title(layout.title).split(" — ")[0];
      if (panels > 1 && panelTitle) return t ? t + " — " + panelTitle : panelTitle;
      return t || panelTitle || "그래프의 값";
    }

    function tables(data, layout) {
      var groups = [], index = {};
      dataTraces(data).forEach(function (trace) {
        var kind = trace.type === "heatmap" ? "heatmap" : "series", a = axes(trace);
        var key = [kind, a[0], a[1], kind === "heatmap" ? groups.length : 0].join("|");
        if (!index.hasOwnProperty(key)) { index[key] = { kind: kind, axes: a, traces: [] }; groups.push(index[key]); }
        index[key].traces.push(trace);
      });
      return groups.map(function (g) {
        var panel = g.kind === "series" ? axisTitle(layout, g.axes[1]) : plain(g.traces[0].name);
        var caption = tableCaption(layout, panel, groups.length);
        return g.kind === "heatmap" ? heatmapTable(g.traces[0], layout, caption) : seriesTable(g.traces, layout, caption);
      }).filter(Boolean);
    }

    function esc(text) {
      return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
        .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
    }

    /** figure_text.data_body_html: the tables and the figure's words, as HTML. */
    function dataBodyHtml(tableList, noteList) {
      var parts = tableList.map(function (table) {
        return '<div class="pst-scrollable-table-container course-table-scroll"><table class="course-table"><caption>' +
          esc(table.caption) + "</caption><thead><tr>" +
          table.columns.map(function (c) { return '<th scope="col">' + esc(c) + "</th>"; }).join("") + "</tr></thead><tbody>" +
          table.rows.map(function (row) { return "<tr>" + row.map(function (c) { return "<td>" + esc(c) + "</td>"; }).join("") + "</tr>"; }).join("") +
          "</tbody></table></div>";
      });
      if (noteList.length) {
        parts.push('<p class="course-figure-notes-title">그림 속 글</p><ul class="course-figure-notes">' +
          noteList.map(function (n) { return "<li>" + n.split("\n").map(esc).join("<br>") + "</li>"; }).join("") + "</ul>");
      }
      return parts.join("");
    }

    return { plain: plain, number: number, title: title, sliderName: sliderName, describeState: describeState,
             tables: tables, notes: notes, dataBodyHtml: dataBodyHtml };
  })();

  /* ------------------------------------------------------------------ the spec before drawing */

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

  /* plotly's own sliders and menus stay in the layout (their state is the figure's state) but are
   * not drawn, including the sliders a menu button swaps in: the HTML controls stand in for them. */
  function hidePlotlyControls(layout) {
    var hide = function (list) { (list || []).forEach(function (item) { item.visible = false; }); };
    hide(layout.sliders);
    hide(layout.updatemenus);
    (layout.updatemenus || []).forEach(function (menu) {
      (menu.buttons || []).forEach(function (button) {
        var update = button.args && button.args[1];
        if (update && update.sliders) hide(update.sliders);
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

  /* ------------------------------------------------------------------ title above the plot */

  function titleLines(layout) {
    var t = layout && layout.title;
    var text = t && typeof t === "object" ? t.text : t;
    return String(text === null || text === undefined ? "" : text).split(/\s*<br\s*\/?>\s*/i)
      .map(Text.plain).filter(Boolean);
  }

  /* The figure's title as wrapping text; hidden from assistive technology, which gets it (and
   * keeps getting it) through the figure's name, description and live region. */
  function showTitle(caption, layout) {
    var lines = titleLines(layout);
    caption.textContent = "";
    caption.hidden = !lines.length;
    lines.forEach(function (line, i) {
      var span = document.createElement("span");
      span.className = i === 0 ? "course-figure-title-main" : "course-figure-title-sub";
      span.textContent = line;
      caption.appendChild(span);
    });
  }

  /* ------------------------------------------------------------------ margins */

  var KEPT_IN_MARGINS = ".infolayer .legend, .infolayer .annotation, .infolayer .g-xtitle, .infolayer .g-ytitle, " +
    ".infolayer .colorbar, .xaxislayer-above, .yaxislayer-above, .overaxes-above";

  /* The top and bottom margins shrink to what is still drawn in them (axis titles, ticks, legends,
   * notes) once the title and plotly's controls have left, and the figure by as much: the plot area
   * keeps its size, so whatever is placed relative to it stays where it was. */
  function trimMargins(el) {
    var full = el._fullLayout, size = full && full._size, box = el.getBoundingClientRect();
    if (!size || !box.width) return null;          // not shown (a locked chapter): nothing to measure
    var plotTop = box.top + size.t, plotBottom = box.top + size.t + size.h;
    var top = plotTop, bottom = plotBottom;
    el.querySelectorAll(KEPT_IN_MARGINS).forEach(function (node) {
      var r = node.getBoundingClientRect();
      if (!r.width || !r.height) return;
      top = Math.min(top, r.top);
      bottom = Math.max(bottom, r.bottom);
    });
    var margin = full.margin;
    var t = Math.min(margin.t, Math.max(10, Math.ceil(plotTop - top) + 10));
    var b = Math.min(margin.b, Math.max(10, Math.ceil(bottom - plotBottom) + 10));
    if (t === margin.t && b === margin.b) return null;
    var height = full.height - (margin.t - t) - (margin.b - b);
    el.style.height = height + "px";
    return { "margin.t": t, "margin.b": b, height: height, autosize: true };   // autosize: the width still follows the page
  }

  /* Below NARROW px, side margins of at most 30% (left) and 8% (right) of the width, a legend that
   * starts at the left edge, and a side legend moved under the plot (long tick labels may then be cut: the table has them whole). Wider, the
   * figure's own. Returns the relayout to apply, or null when nothing changes. */
  function fitWidth(el, original) {
    var width = el.getBoundingClientRect().width;
    var narrow = width > 0 && width < NARROW;
    if (narrow === !!el.courseNarrow) return null;
    el.courseNarrow = narrow;
    var margin = original.margin || {}, legend = original.legend || {};
    var left = margin.l === undefined ? 80 : margin.l, right = margin.r === undefined ? 80 : margin.r;
    var update = { "margin.l": narrow ? Math.min(left, Math.round(width * 0.3)) : left,
                   "margin.r": narrow ? Math.min(right, Math.round(width * 0.08)) : right };
    // plotly's template grows the margin to fit the tick labels, which left m11's tuner chart a 2 px
    // plot at 320 px: narrow, the labels may be cut instead (figure_text's table has them whole).
    Object.keys(el.layout).filter(function (key) { return /^yaxis\d*$/.test(key); }).forEach(function (key) {
      update[key + ".automargin"] = narrow ? false : (original.automargin[key] === undefined ? null : original.automargin[key]);
    });
    // A legend starts at the left edge (one that started mid-width pushed the right margin out), and
    // a side legend goes under the plot.
    var keep = function (value) { return value === undefined ? null : value; };
    var side = legend.orientation !== "h";
    update["legend.x"] = narrow ? 0 : keep(legend.x);
    update["legend.xanchor"] = narrow ? "left" : keep(legend.xanchor);
    if (side) {
      update["legend.orientation"] = narrow ? "h" : keep(legend.orientation);
      update["legend.y"] = narrow ? -0.2 : keep(legend.y);
      update["legend.yanchor"] = narrow ? "top" : keep(legend.yanchor);
    }
    return update;
  }

  /* ------------------------------------------------------------------ controls */

  function stepValueText(slider, index) {
    var steps = slider.steps || [];
    var label = steps[index] ? Text.plain(steps[index].label) : "";
    return Text.sliderName(slider) + " " + label + ", " + steps.length + "단계 중 " + (index + 1) + "단계";
  }

  function currentValue(slider, index) {
    var steps = slider.steps || [];
    var prefix = Text.plain((slider.currentvalue || {}).prefix || "");
    return (prefix ? prefix + " " : "") + (steps[index] ? Text.plain(steps[index].label) : "");
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

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* The figure's controls, above the plot. After each move: the title, the description, the
   * tables and the live region follow the figure's new state. */
  function Controls(gd, label, parts) {
    this.gd = gd;
    this.parts = parts;
    this.busy = null;
    this.queued = null;
    this.box = element("div", "course-figure-keys");
    this.box.setAttribute("role", "group");
    this.box.setAttribute("aria-label", label + " — 조작");
    this.status = element("p", "course-sr-only");
    this.status.setAttribute("aria-live", "polite");
    this.status.id = gd.id + "-status";
    this.build();
  }

  Controls.prototype.build = function () {
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

  Controls.prototype.signature = function () {
    var layout = this.gd.layout;
    return JSON.stringify([(layout.updatemenus || []).map(function (m) { return (m.buttons || []).length; }),
                           (layout.sliders || []).map(function (s) { return (s.steps || []).map(function (t) { return t.label; }); })]);
  };

  Controls.prototype.menuControl = function (menu, m) {
    var self = this, id = this.gd.id + "-menu-" + m, name = Text.plain(menu.name) || "보기 선택";
    var active = typeof menu.active === "number" ? menu.active : 0;
    if (menu.type === "dropdown") {
      var wrap = element("div", "course-figure-select");
      var label = element("label", "", name);
      label.htmlFor = id;
      var select = document.createElement("select");
      select.id = id;
      menu.buttons.forEach(function (button, b) {
        var option = element("option", "", Text.plain(button.label));
        option.value = String(b);
        select.appendChild(option);
      });
      select.value = String(active);
      select.addEventListener("change", function () { self.choose("menu", m, Number(select.value)); });
      wrap.appendChild(label);
      wrap.appendChild(select);
      this.box.appendChild(wrap);
      return { kind: "select", index: m, el: select };
    }
    var fieldset = element("fieldset", "course-figure-menu");
    fieldset.appendChild(element("legend", "", name));
    var radios = menu.buttons.map(function (button, b) {
      var option = element("label", "course-figure-option");
      var radio = document.createElement("input");
      radio.type = "radio";
      radio.name = id;
      radio.value = String(b);
      radio.checked = b === active;
      radio.addEventListener("change", function () { if (radio.checked) self.choose("menu", m, b); });
      option.appendChild(radio);
      option.appendChild(element("span", "", Text.plain(button.label)));
      fieldset.appendChild(option);
      return radio;
    });
    this.box.appendChild(fieldset);
    return { kind: "radio", index: m, el: radios };
  };

  Controls.prototype.sliderControl = function (slider, s) {
    var self = this, id = this.gd.id + "-slider-" + s, active = slider.active || 0;
    var wrap = element("div", "course-figure-range");
    var label = element("label", "", Text.sliderName(slider));
    label.htmlFor = id;
    var range = document.createElement("input");
    range.type = "range";
    range.id = id;
    range.min = "0";
    range.step = "1";
    range.max = String(slider.steps.length - 1);
    range.value = String(active);
    range.setAttribute("aria-valuetext", stepValueText(slider, active));
    var output = element("output", "", currentValue(slider, active));
    output.htmlFor = id;
    output.setAttribute("aria-hidden", "true");          // the range's aria-valuetext says it
    range.addEventListener("input", function () { self.choose("slider", s, Number(range.value)); });
    wrap.appendChild(label);
    wrap.appendChild(range);
    wrap.appendChild(output);
    this.box.appendChild(wrap);
    return { index: s, el: range, output: output };
  };

  /* Apply a choice; while plotly is busy, only the latest choice waits. */
  Controls.prototype.choose = function (kind, index, value) {
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

  Controls.prototype.announce = function (kind, index, value) {
    var layout = this.gd.layout, what;
    if (kind === "slider") what = stepValueText(layout.sliders[index], value);
    else what = (Text.plain(layout.updatemenus[index].name) || "보기") + " " + Text.plain(layout.updatemenus[index].buttons[value].label);
    this.status.textContent = what + ". " + Text.title(layout.title);
  };

  /* Bring everything that shows the state up to date: the controls (a menu may have swapped the
   * sliders), the title, the description and the tables. */
  Controls.prototype.sync = function () {
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
      control.output.textContent = currentValue(slider, active);
    });
    describeNow(this.gd, this.parts);
  };

  /* The description and the "표로 보기" body for the figure's current state. */
  function describeNow(gd, parts) {
    showTitle(parts.caption, gd.layout);
    if (parts.desc) parts.desc.textContent = Text.describeState(gd.data, gd.layout);
    if (parts.body) {
      parts.body.innerHTML = Text.dataBodyHtml(Text.tables(gd.data, gd.layout), Text.notes(gd.data, gd.layout));
    }
  }

  function hasControls(spec) {
    var layout = spec.layout || {};
    return !!((layout.sliders || []).length || (layout.updatemenus || []).length || (spec.frames || []).length);
  }

  function addControls(el, parts) {
    var block = el.closest(".course-figure-block");
    var controls = new Controls(el, (block && block.getAttribute("aria-label")) || "그림", parts);
    el.parentNode.insertBefore(controls.box, el);
    var pending = null;
    var follow = function () {
      if (controls.busy || pending) return;
      pending = setTimeout(function () { pending = null; controls.sync(); }, 0);
    };
    ["plotly_sliderchange", "plotly_buttonclicked", "plotly_update", "plotly_restyle"]
      .forEach(function (event) { el.on(event, follow); });
    el.courseKeys = controls;
  }

  /* ------------------------------------------------------------------ drawing */

  /* The caption above the plot, and the parts of the block that describe the figure. */
  function blockParts(el) {
    var caption = element("p", "course-figure-title");
    caption.id = el.id + "-title";
    caption.setAttribute("aria-hidden", "true");
    el.parentNode.insertBefore(caption, el);
    var data = document.getElementById(el.id + "-data");
    return { caption: caption, desc: document.getElementById(el.id + "-desc"),
             body: data ? data.querySelector(".course-figure-data-body") : null };
  }

  /* Width first (side margins, legend), then the top and bottom margins that are left over. */
  function fitLayout(el, original) {
    var P = window.Plotly, update = fitWidth(el, original);
    var first = update ? P.relayout(el, update) : Promise.resolve();
    return first.then(function () {
      var trimmed = trimMargins(el);
      return trimmed ? P.relayout(el, trimmed) : null;
    });
  }

  function drawOne(el) {
    if (el.getAttribute("data-rendered")) return;
    var specEl = document.getElementById(el.id + "-spec");
    if (!specEl || !window.Plotly) {
      el.textContent = "그림을 그릴 수 없습니다: plotly.js를 불러오지 못했습니다 (plotly.js missing).";
      return;
    }
    var spec = JSON.parse(specEl.textContent);
    spec.layout = spec.layout || {};
    if (reducedMotion()) stillSpec(spec);
    hidePlotlyControls(spec.layout);
    var original = JSON.parse(JSON.stringify({ margin: spec.layout.margin, legend: spec.layout.legend, automargin: {} }));
    Object.keys(spec.layout).forEach(function (key) {
      if (/^yaxis\d*$/.test(key) && spec.layout[key]) original.automargin[key] = spec.layout[key].automargin;
    });
    var parts = blockParts(el);
    showTitle(parts.caption, spec.layout);
    el.setAttribute("data-rendered", "pending");
    window.Plotly.newPlot(el, spec.data, spec.layout, CONFIG).then(function () {
      if (spec.frames && spec.frames.length) return window.Plotly.addFrames(el, spec.frames);
    }).then(function () {
      return fitLayout(el, original);
    }).then(function () {
      modeBarOutOfTabOrder(el);
      el.on("plotly_afterplot", function () { modeBarOutOfTabOrder(el); });
      if (hasControls(spec)) addControls(el, parts);
      window.addEventListener("resize", debounce(function () {
        var update = fitWidth(el, original);
        if (update) window.Plotly.relayout(el, update);
      }, 200));
      el.setAttribute("data-rendered", "1");
    });
  }

  function debounce(fn, ms) {
    var timer = null;
    return function () { clearTimeout(timer); timer = setTimeout(fn, ms); };
  }

  function drawAll() {
    var figures = document.querySelectorAll("div.course-figure");
    for (var i = 0; i < figures.length; i++) drawOne(figures[i]);
  }

  window.CourseFigures = {
    draw: function (id) { var el = document.getElementById(id); if (el && document.readyState !== "loading") drawOne(el); },
    drawAll: drawAll,
    text: Text
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", drawAll);
  else drawAll();
})();
