"""Shared pieces for all simulators: the input error type and its two displays.

Models raise :class:`SimInputError` with a Korean message that names the English term,
e.g. ``"블록 크기(block size)는 1024 스레드 이하여야 합니다 (받은 값: 2048)"``.
Views never let it escape as a traceback: the widget view shows it with
:func:`error_html` / :func:`show_error`, the static figure view with :func:`error_figure`.

plotly and ipywidgets are imported inside the view helpers so that the models stay
importable (and testable) with NumPy alone.
"""
from __future__ import annotations

import html
import numbers

__all__ = [
    "SimInputError",
    "require",
    "require_int_in_range",
    "error_html",
    "show_error",
    "error_figure",
    "apply_stepped_controls",
    "escape",
    "live_widget",
    "describe_controls",
]


class SimInputError(ValueError):
    """A simulator parameter is out of range; the message is Korean, for the learner."""


def require(condition: bool, message: str) -> None:
    """Raise SimInputError(message) unless condition holds."""
    if not condition:
        raise SimInputError(message)


def require_int_in_range(value, label: str, low: int, high: int | None = None) -> int:
    """Return value as int if low <= value <= high (high None: no upper bound).

    label is the Korean name with the English term, e.g. "워프 번호(warp index)".
    """
    if isinstance(value, bool) or not _is_integral(value):
        raise SimInputError(f"{label} 값은 정수여야 합니다 (받은 값: {value!r})")
    value = int(value)
    if value < low:
        raise SimInputError(f"{label} 값은 {low} 이상이어야 합니다 (받은 값: {value})")
    if high is not None and value > high:
        raise SimInputError(f"{label} 값은 {high} 이하여야 합니다 (받은 값: {value})")
    return value


def _is_integral(value) -> bool:
    # Accept NumPy integers and floats such as 4.0 that slider widgets may hand over,
    # but not strings or NaN.
    if isinstance(value, numbers.Integral):
        return True
    return isinstance(value, numbers.Real) and float(value).is_integer()


def error_html(error: Exception) -> str:
    """HTML snippet (escaped) that states the problem in a visible box."""
    text = html.escape(str(error))
    return (
        '<div class="sim-error" style="border:1px solid #c0392b;background:#fdecea;'
        'color:#922b21;padding:6px 10px;border-radius:4px">'
        f"<b>입력 오류:</b> {text}</div>"
    )


def show_error(target, error: Exception) -> None:
    """Put the message of error into an ipywidgets.HTML (or anything with .value)."""
    target.value = error_html(error)


def error_figure(error: Exception, title: str = "시뮬레이터 입력 오류"):
    """A plotly figure whose title and centred annotation state the problem."""
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.update_layout(
        title={"text": f"{title}: {html.escape(str(error), quote=False)}", "font": {"size": 14}},
        xaxis={"visible": False},
        yaxis={"visible": False},
        height=260,
        annotations=[{
            "text": html.escape(str(error), quote=False),
            "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5,
            "showarrow": False, "font": {"size": 15, "color": "#922b21"},
        }],
    )
    return fig


# --------------------------------------------------------------------------------------
# Static (kernel-free) interactivity: a menu of groups, each with its own slider.
#
# plotly.js cannot combine two independent controls without JavaScript: every button or
# slider step sets one complete state. So a menu button selects a *group* and, in the same
# "update" call, swaps in that group's slider (layout.sliders is replaced by relayout);
# the slider then walks the precomputed states of that group. Every state is a pair
# (data_update, layout_update) computed from the model.
# --------------------------------------------------------------------------------------

def _slider(group_steps, prefix, name=""):
    return {
        "name": name,
        "active": 0,
        "currentvalue": {"prefix": prefix, "font": {"size": 13}},
        "pad": {"t": 40, "b": 10},
        "len": 0.95,
        "x": 0.025,
        "steps": [
            {"label": label, "method": "update", "args": [data, layout]}
            for label, data, layout in group_steps
        ],
    }


def apply_stepped_controls(fig, groups, *, active_group=0, active_step=0,
                           slider_prefix="", menu_type="buttons", menu_y=1.22,
                           slider_name="", menu_name=""):
    """Add a group menu and a per-group slider to fig (a plotly Figure), in place.

    groups: list of (group_label, steps); steps: list of (step_label, data_update,
    layout_update) where data_update maps trace attributes to one value per trace
    (plotly "update" semantics) and layout_update is a dict such as {"title.text": ...}.
    The figure is first put into the state (active_group, active_step).
    slider_name and menu_name are the controls' Korean names: plotly does not draw them, the
    site's keyboard controls (course/site/static/figures.js) and the figure's description read them.
    """
    sliders = [_slider(steps, slider_prefix, slider_name) for _, steps in groups]
    _, first_data, first_layout = groups[active_group][1][active_step]
    for attr, per_trace in first_data.items():
        for trace, value in zip(fig.data, per_trace):
            trace[attr] = value
    fig.update_layout(first_layout)
    current = dict(sliders[active_group], active=active_step)
    buttons = []
    for index, (label, steps) in enumerate(groups):
        _, data, layout = steps[0]
        buttons.append({
            "label": label, "method": "update",
            "args": [data, {**layout, "sliders": [sliders[index]]}],
        })
    fig.update_layout(
        sliders=[current],
        updatemenus=[{
            "name": menu_name,
            "type": menu_type, "direction": "right" if menu_type == "buttons" else "down",
            "active": active_group, "buttons": buttons, "showactive": True,
            "x": 0.0, "xanchor": "left", "y": menu_y, "yanchor": "bottom",
            "pad": {"r": 4, "t": 4},
        }],
    )
    return fig


# --------------------------------------------------------------------------------------
# Static interactivity with independent controls (used by sims 7–10).
#
# A second pattern, for figures whose menu and slider are orthogonal: every menu option
# owns its own set of traces (the menu only switches trace visibility), and each slider
# step restyles the data of *all* options' traces at once. Neither control needs to know
# the other's state, and layout.sliders is never replaced.
# --------------------------------------------------------------------------------------

def group_visibility(trace_groups, active_group) -> list:
    """Visibility list for a menu button: trace_groups[i] is the option index of trace i,
    or None for a trace that stays visible whatever the option."""
    return [group is None or group == active_group for group in trace_groups]


def restyle_slider(steps, *, prefix: str = "", active: int = 0, y: float = 0.0, name: str = "") -> dict:
    """A layout.sliders entry; steps: list of (label, restyle_update, trace_indices).
    name: the slider's Korean name for the keyboard controls and the description (not drawn)."""
    return {
        "name": name,
        "active": active,
        "currentvalue": {"prefix": prefix, "font": {"size": 13}},
        "pad": {"t": 45, "b": 10},
        "len": 0.95,
        "x": 0.025,
        "y": y,
        "steps": [
            {"label": label, "method": "restyle", "args": [update, list(indices)]}
            for label, update, indices in steps
        ],
    }


def figure_json_bytes(fig) -> int:
    """Size of the figure's JSON in bytes (what the static page has to embed)."""
    return len(fig.to_json().encode("utf-8"))


def escape(text: str) -> str:
    """Escape text for plotly labels and HTML widgets (<, > and &; quotes stay readable)."""
    return html.escape(text, quote=False)


def describe_controls(controls: dict, tooltips: dict) -> None:
    """Give every control its Korean description as an ipywidgets tooltip (the browser's title, which
    screen readers read as the control's description): a short label such as "bdx" then still says
    what it is. tooltips maps each key of controls to its text; a missing key is a bug."""
    missing = sorted(set(controls) - set(tooltips))
    if missing:
        raise KeyError(f"controls without a Korean description: {missing}")
    for key, control in controls.items():
        control.tooltip = tooltips[key]


def live_widget(controls: dict, render, title: str, tooltips: dict | None = None):
    """A simulator's JupyterLab view: controls plus an HTML output that shows render(params)
    after every value change, or the SimInputError message when the parameters are bad.
    tooltips: Korean descriptions of the controls (see describe_controls)."""
    import ipywidgets as w

    if tooltips is not None:
        describe_controls(controls, tooltips)
    output = w.HTML()

    def refresh(_change=None):
        params = {name: c.value for name, c in controls.items()}
        try:
            output.value = render(params)
        except SimInputError as err:
            output.value = error_html(err)

    for control in controls.values():
        control.observe(refresh, names="value")
    refresh()
    box = w.VBox([w.HTML(f"<b>{escape(title)}</b>"),
                  w.HBox(list(controls.values()), layout=w.Layout(flex_flow="row wrap")),
                  output])
    box.controls, box.output = controls, output
    return box
