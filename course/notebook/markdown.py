"""A chapter's MyST Markdown, as plain Markdown and HTML that Jupyter and Colab render without any MyST extension.

The site (myst-nb) and JupyterLab with jupyterlab-myst read a chapter's text cells as MyST: inline roles
({eval}, {doc}, {ref} ...), directives in colon or backtick fences ({table}, {dropdown}, admonitions ...),
labels ``(name)=`` and ``%`` comments. Colab and a Hub without jupyterlab-myst show all of that as raw
markup. ``convert(text, context)`` rewrites one text cell so that it reads as the site page does:

- ``{eval}`expr``` becomes its value (``context.evaluate``), escaped so that Markdown shows it literally;
- ``{doc}`` and ``{ref}`` become links (``context.link``) titled like the site's (the page's or section's heading);
- admonitions become a titled blockquote, ``{dropdown}`` a closed ``<details>`` with its ``<summary>``,
  ``{table}`` its table under a caption line, ``{figure}`` an image with its alt text and caption;
- labels become ``<a id>`` anchors, comments disappear; math (``$...$``, ``$$...$$``) and code stay as written.

The module is pure text in and text out: the chapter stays the one source. Anything it does not know is
kept as plain text and reported in ``context.warnings`` (tools/export_notebooks.py prints them and the
tests require none).
"""
from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass, field
from typing import Callable

# Titles the site gives each admonition (Sphinx's Korean translation).
ADMONITION_TITLES = {
    "note": "참고", "important": "중요", "warning": "경고", "tip": "팁", "hint": "힌트", "caution": "조심",
    "attention": "주의", "danger": "위험", "error": "오류", "seealso": "더 보기", "todo": "할 일",
}
TITLED_BOXES = {"admonition", "margin", "sidebar", "topic", "card"}
DROPDOWN_DEFAULT_TITLE = "펼쳐 보기"
TABLE_WORD = "표"
FIGURE_WORD = "그림"

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*)$")
_DIRECTIVE_INFO = re.compile(r"^\{(?P<name>[A-Za-z][\w:.-]*)\}\s*(?P<arg>.*)$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")
_LABEL = re.compile(r"^\s*\((?P<label>[^()\s]+)\)=\s*$")
_COMMENT = re.compile(r"^%")
_MATH_CLOSE_LABEL = re.compile(r"^(?P<close>\s*\$\$)\s*\((?P<label>[^()\s]+)\)\s*$")

# One inline token at a time, leftmost first: an escape, a role, a code span, math, or a link target to a page.
_INLINE = re.compile(
    r"(?P<escape>\\[!-/:-@\[-`{-~])"
    r"|(?P<role>\{(?P<rname>[A-Za-z][\w:+.-]*)\}(?P<rticks>`+)(?P<rbody>.+?)(?<!`)(?P=rticks)(?!`))"
    r"|(?P<code>(?P<cticks>`+)(?P<cbody>.+?)(?<!`)(?P=cticks)(?!`))"
    r"|(?P<dmath>\$\$.+?\$\$)"
    r"|(?P<math>(?<![\\$\w])\$(?=\S)[^$\n]*?(?<=\S)\$(?!\d))"
    r"|(?P<link>\]\((?P<ltarget>[^)\s]+?\.md)(?P<lanchor>#[\w-]+)?\))",
    re.DOTALL,
)
_TEXT_WITH_TARGET = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>\s*$", re.DOTALL)
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|$~#])")


@dataclass
class Context:
    """What converting one page's text needs from outside: the page, values, links and a place for warnings.

    page:      the page's docname (path from the repository root without .md, e.g. "book/m10_profiling")
    evaluate:  expression -> the text the site shows for {eval}`expression`
    link:      (docname, anchor or "") -> URL of that page (site page, sibling notebook, ...)
    doc_title: docname -> the page's title (its first heading), None if there is no such page
    label:     label -> (docname, title) of a (name)= target or a table's :name:, None if unknown
    asset:     path relative to the page's folder -> URL of that file (images)
    """

    page: str
    evaluate: Callable[[str], str]
    link: Callable[[str, str], str]
    doc_title: Callable[[str], "str | None"]
    label: Callable[[str], "tuple[str, str] | None"]
    asset: Callable[[str], str] = lambda path: path
    warnings: list = field(default_factory=list)

    def warn(self, message: str) -> None:
        self.warnings.append(f"{self.page}: {message}")


def md_escape(text: str) -> str:
    """Text that Markdown shows exactly as it is (a value of {eval}: no emphasis, no table cell break)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


# ----------------------------------------------------------------------------------------------- inline

def _split_target(body: str) -> tuple[str, str]:
    """'text <target>' -> (text, target); 'target' -> ('', target)."""
    m = _TEXT_WITH_TARGET.match(body)
    if m and m.group("text"):
        return m.group("text").strip(), m.group("target").strip()
    return "", body.strip()


def resolve_doc(page: str, target: str) -> str:
    """A {doc} target as a docname: relative to the page's folder, or to the root when it starts with '/'."""
    target = target.strip()
    if target.endswith(".md"):
        target = target[:-3]
    if target.startswith("/"):
        return posixpath.normpath(target.lstrip("/"))
    return posixpath.normpath(posixpath.join(posixpath.dirname(page), target))


def _role(name: str, body: str, ctx: Context, as_html: bool) -> str:
    esc = html.escape if as_html else md_escape

    def link(text: str, url: str) -> str:
        if as_html:
            return f'<a href="{html.escape(url, quote=True)}">{text}</a>'
        return f"[{text}]({url})"

    if name == "eval":
        return esc(ctx.evaluate(body))
    if name == "doc":
        text, target = _split_target(body)
        docname = resolve_doc(ctx.page, target)
        title = ctx.doc_title(docname)
        if title is None:
            ctx.warn(f"{{doc}}`{body}`: no such page ({docname})")
            return esc(text or target)
        return link(inline(text, ctx, as_html) if text else inline(title, ctx, as_html), ctx.link(docname, ""))
    if name in ("ref", "numref"):
        text, target = _split_target(body)
        found = ctx.label(target)
        if found is None:
            ctx.warn(f"{{{name}}}`{body}`: no such label")
            return esc(text or target)
        docname, title = found
        return link(inline(text or title, ctx, as_html), ctx.link(docname, target))
    if name == "term":
        text, _ = _split_target(body)
        return esc(text or body)
    if name == "math":
        return f"${body}$"
    if name in ("sub", "sup", "kbd"):
        return f"<{name}>{html.escape(body)}</{name}>"
    if name == "abbr":
        m = re.match(r"^(?P<short>.*?)\s*\((?P<long>[^()]*)\)\s*$", body)
        if m:
            return f'<abbr title="{html.escape(m.group("long"), quote=True)}">{html.escape(m.group("short"))}</abbr>'
        return f"<abbr>{html.escape(body)}</abbr>"
    if name in ("code", "literal", "samp", "file", "command", "envvar", "program"):
        return f"<code>{html.escape(body)}</code>" if as_html else _code_span(body)
    if name in ("strong", "emphasis"):
        tag = "strong" if name == "strong" else "em"
        return f"<{tag}>{html.escape(body)}</{tag}>"
    if name in ("guilabel", "menuselection"):
        return f"<b>{html.escape(body.replace('-->', '→'))}</b>"
    if name == "download":
        text, target = _split_target(body)
        return link(esc(text or posixpath.basename(target)), ctx.asset(target))
    ctx.warn(f"unknown role {{{name}}} (kept as its text)")
    text, _ = _split_target(body)
    return esc(text or body)


def _code_span(body: str) -> str:
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EMPH = re.compile(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])")


def _html_text(text: str) -> str:
    """Plain Markdown text (no code, no roles) as HTML: escaped, with **strong** and *emphasis*."""
    out = html.escape(text, quote=False)
    out = _STRONG.sub(r"<strong>\1</strong>", out)
    return _EMPH.sub(r"<em>\1</em>", out)


def inline(text: str, ctx: Context, as_html: bool = False) -> str:
    """Roles in a run of text replaced; code spans, math and escapes kept (as HTML when as_html)."""
    out, pos = [], 0
    for m in _INLINE.finditer(text):
        before = text[pos:m.start()]
        out.append(_html_text(before) if as_html else before)
        if m.group("role"):
            out.append(_role(m.group("rname"), m.group("rbody"), ctx, as_html))
        elif m.group("code"):
            out.append(f"<code>{html.escape(m.group('cbody').strip())}</code>" if as_html else m.group(0))
        elif m.group("link"):
            docname = resolve_doc(ctx.page, m.group("ltarget"))
            if ctx.doc_title(docname) is None:
                ctx.warn(f"link to {m.group('ltarget')}: no such page")
                out.append(m.group(0))
            else:
                out.append(f"]({ctx.link(docname, (m.group('lanchor') or '').lstrip('#'))})")
        elif m.group("escape") and as_html:
            out.append(html.escape(m.group(0)[1]))
        else:
            out.append(m.group(0))
        pos = m.end()
    rest = text[pos:]
    out.append(_html_text(rest) if as_html else rest)
    return "".join(out)


# ----------------------------------------------------------------------------------------------- blocks

@dataclass
class _Directive:
    name: str
    arg: str
    options: dict
    body: list
    indent: str


def _closing(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def _read_directive(lines: list[str], start: int, indent: str, fence: str, name: str, arg: str):
    """The directive opened at lines[start] and the index after its closing fence."""
    body, i = [], start + 1
    while i < len(lines) and not _closing(lines[i], fence):
        line = lines[i]
        body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
        i += 1
    options: dict = {}
    if body and body[0].strip() == "---":   # options as a YAML block
        end = next((k for k in range(1, len(body)) if body[k].strip() == "---"), None)
        if end is not None:
            for opt in body[1:end]:
                key, _, value = opt.partition(":")
                options[key.strip()] = value.strip()
            body = body[end + 1:]
    else:
        while body and _OPTION.match(body[0]):
            m = _OPTION.match(body[0])
            options[m.group("key")] = m.group("value").strip()
            body = body[1:]
    return _Directive(name, arg.strip(), options, body, indent), i + 1


def _blockquote(title: str, body: str) -> str:
    lines = [f"> **{title}**" if title else None, ">" if title and body.strip() else None]
    lines = [line for line in lines if line is not None]
    lines += [f"> {line}" if line.strip() else ">" for line in body.strip("\n").splitlines()]
    return "\n".join(lines)


def _anchor(label: str) -> str:
    return f'<a id="{html.escape(label, quote=True)}"></a>\n'


def _render_directive(d: _Directive, ctx: Context) -> str:
    name = d.name
    body = "\n".join(d.body)
    anchor = _anchor(d.options["name"]) + "\n" if d.options.get("name") else ""
    if name in ADMONITION_TITLES:
        content = (d.arg + "\n" + body) if d.arg else body   # no title argument: a first line is content
        return anchor + _blockquote(ADMONITION_TITLES[name], convert(content, ctx))
    if name in TITLED_BOXES:
        return anchor + _blockquote(inline(d.arg, ctx), convert(body, ctx))
    if name == "dropdown":
        title = inline(d.arg, ctx, as_html=True) if d.arg else DROPDOWN_DEFAULT_TITLE
        opened = " open" if "open" in d.options else ""
        return (f"{anchor}<details{opened}>\n<summary>{title}</summary>\n\n{convert(body, ctx).strip()}\n\n"
                "</details>")
    if name == "table":
        caption = inline(d.arg, ctx)
        head = f"**{TABLE_WORD}:** {caption}\n\n" if caption else ""
        return anchor + head + convert(body, ctx).strip()
    if name in ("figure", "image"):
        alt = d.options.get("alt", "")
        src = ctx.asset(d.arg)
        if not alt:
            ctx.warn(f"{{{name}}} {d.arg}: no :alt: text")
        image = f"![{md_escape(alt)}]({src})"
        caption = convert(body, ctx).strip() if name == "figure" else ""
        return anchor + image + (f"\n\n**{FIGURE_WORD}:** {caption}" if caption else "")
    if name == "math":
        label = d.options.get("label")
        return (_anchor(label) + "\n" if label else "") + "$$\n" + body.strip("\n") + "\n$$"
    if name in ("code-block", "code", "sourcecode"):
        ticks = "`" * max(3, max((len(m) for m in re.findall(r"`{3,}", body)), default=0) + 1)
        return f"{anchor}{ticks}{d.arg}\n{body.rstrip()}\n{ticks}"
    if name == "raw" and d.arg.strip().lower() == "html":
        return body
    ctx.warn(f"unknown directive {{{name}}} (its content is kept as plain text)")
    title = inline(d.arg, ctx)
    return anchor + (f"**{title}**\n\n" if title else "") + convert(body, ctx)


def _indent(text: str, indent: str) -> str:
    if not indent:
        return text
    return "\n".join(indent + line if line.strip() else line for line in text.split("\n"))


def convert(text: str, ctx: Context) -> str:
    """One MyST text cell as plain Markdown/HTML (see the module's docstring)."""
    lines = text.split("\n")
    out: list[str] = []
    run: list[str] = []

    def flush():
        if run:
            out.append(inline("\n".join(run), ctx))
            run.clear()

    def add_block(rendered: str):
        """A block that must not run into the paragraph before or after it: blank lines around it."""
        if out and out[-1].strip() and not out[-1].endswith("\n"):
            out.append("")
        out.append(rendered)
        if i < len(lines) and lines[i].strip():
            out.append("")

    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            info = fence.group("info").strip()
            directive = _DIRECTIVE_INFO.match(info)
            if directive:
                flush()
                d, i = _read_directive(lines, i, fence.group("indent"), fence.group("fence"),
                                       directive.group("name"), directive.group("arg"))
                add_block(_indent(_render_directive(d, ctx), d.indent))
                continue
            if fence.group("fence")[0] in "`~":   # a plain code block: copied as it is
                flush()
                block, j = [line], i + 1
                while j < len(lines) and not _closing(lines[j], fence.group("fence")):
                    block.append(lines[j])
                    j += 1
                if j < len(lines):
                    block.append(lines[j])
                out.append("\n".join(block))
                i = j + 1
                continue
        if line.strip().startswith("$$") and line.strip() != "$$" and line.strip().endswith("$$"):
            flush()
            out.append(line)
            i += 1
            continue
        if line.strip() == "$$" or (line.strip().startswith("$$") and "$$" not in line.strip()[2:]):
            flush()                       # a display math block, to its closing $$ (a label after it is dropped)
            block, j = [line], i + 1
            label = None
            while j < len(lines):
                closing = _MATH_CLOSE_LABEL.match(lines[j])
                if closing:
                    label = closing.group("label")
                    block.append(closing.group("close"))
                    break
                block.append(lines[j])
                if lines[j].strip().endswith("$$"):
                    break
                j += 1
            out.append((_anchor(label) + "\n" if label else "") + "\n".join(block))
            i = j + 1
            continue
        label = _LABEL.match(line)
        if label:
            flush()
            out.append(_anchor(label.group("label")))
            i += 1
            continue
        if _COMMENT.match(line):
            i += 1
            continue
        run.append(line)
        i += 1
    flush()
    return "\n".join(out)
