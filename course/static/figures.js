/* Draws every static plotly figure on the page with the site's own plotly.js (no CDN).
 * course.display.figure_html() writes <div class="course-figure" id=X> plus
 * <script type="application/json" id="X-spec">{data, layout, frames}</script>. */
(function () {
  "use strict";
  var CONFIG = { responsive: true, displaylogo: false, scrollZoom: false };

  function drawOne(el) {
    if (el.getAttribute("data-rendered")) return;
    var specEl = document.getElementById(el.id + "-spec");
    if (!specEl || !window.Plotly) {
      el.textContent = "그림을 그릴 수 없습니다: plotly.js를 불러오지 못했습니다 (plotly.js missing).";
      return;
    }
    var spec = JSON.parse(specEl.textContent);
    el.setAttribute("data-rendered", "pending");
    window.Plotly.newPlot(el, spec.data, spec.layout, CONFIG).then(function () {
      if (spec.frames && spec.frames.length) return window.Plotly.addFrames(el, spec.frames);
    }).then(function () {
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
