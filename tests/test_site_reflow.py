"""Reflow (WCAG 1.4.10) of the built site in Chromium: at 320 px and at 200% zoom (a 1280×900 window
at zoom 2 lays out in 640×450 CSS pixels), every page, gated chapters both locked and with the
gating policy "off" so that their content is measured too. Each page is resized from 1280 px, as a
reader's zoom does, in the light theme's survey (site_probes.survey_site, shared with
tests/test_a11y_site.py, so no page is opened again here):

- no page scrolls sideways (inline code wraps; m10 was 887 px wide at 320 px);
- what scrolls inside itself (a wide table, a code block) can be scrolled from the keyboard (it is
  focusable) and is named for a screen reader;
- every figure's title (which carries a simulator's result) is whole above the plot, its controls
  wrap inside the figure (the profile exercise's 19 buttons made a 3,393 px row) and never cover
  the plot, plotly's own title and controls are not drawn, and the plot area stays usable.
"""
from __future__ import annotations

import json

import pytest

from site_probes import REFLOW_VIEWPORTS, figure_layout_problems, survey_site

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module", params=sorted(REFLOW_VIEWPORTS))
def reflow(request, browser, site_url, site_dir):
    found = survey_site(browser, site_url, site_dir, "light")
    return request.param, REFLOW_VIEWPORTS[request.param]["width"], \
        {page: f["reflow"][request.param] for page, f in found.items()}


def test_no_page_scrolls_sideways(reflow):
    name, width, found = reflow
    wide = {page: f"{f['page']['scrollWidth']} px: {f['page']['wide']}" for page, f in found.items()
            if f["page"]["scrollWidth"] > f["page"]["clientWidth"]}
    assert len(found) >= 20 and wide == {}, f"{name}: " + json.dumps(wide, ensure_ascii=False, indent=1)


def test_what_scrolls_inside_itself_is_focusable_and_named(reflow):
    name, width, found = reflow
    boxes = [(page, box) for page, f in found.items() for box in f["page"]["boxes"]]
    bad = [f"{page}: {box}" for page, box in boxes if not (box["focusable"] and box["name"] and box["role"] == "region")]
    assert boxes and bad == [], f"{name}: " + "\n".join(bad[:20])


def test_figure_titles_and_controls_fit_and_the_plot_stays_usable(reflow):
    name, width, found = reflow
    figures = [fig for f in found.values() for fig in f["figures"]]
    problems = figure_layout_problems(figures, width)
    assert len(figures) >= 40 and problems == [], f"{name}:\n" + "\n".join(problems)
