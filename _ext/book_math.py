"""Sphinx extension of this book: formulas typeset when the book is built.

MathJax typesets every formula in the reader's browser, which costs each page
a 1.2 MB script (257 KB compressed) and a second of a phone's time. Here
KaTeX, run in V8 through ``mini-racer``, turns each formula into HTML (with
MathML beside it for screen readers) during the build; a page then needs only
KaTeX's stylesheet and the few fonts its formulas use.

KaTeX comes from its npm release (``tools/fetch_katex.py`` puts it into the
virtual environment). A formula KaTeX cannot parse is a build warning with its
page and line, so the strict build fails on it.
"""

from __future__ import annotations

import functools
import itertools
import re
import shutil
import sys
from pathlib import Path

from docutils import nodes
from py_mini_racer import JSEvalException, MiniRacer
from sphinx.application import Sphinx
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)
STATIC = "katex"
# Where tools/fetch_katex.py puts KaTeX: inside the virtual environment.
KATEX_HOME = Path(sys.prefix) / "share" / "katex"


def katex_dir() -> Path:
    if not (KATEX_HOME / "katex.min.js").is_file():
        raise RuntimeError(
            f"KaTeX is not installed in {KATEX_HOME}: run "
            "'python tools/fetch_katex.py' with the book's Python "
            "(make book does)"
        )
    return KATEX_HOME


@functools.cache
def typesetter() -> MiniRacer:
    engine = MiniRacer()
    engine.eval((katex_dir() / "katex.min.js").read_text(encoding="utf-8"))
    return engine


def typeset(latex: str, display: bool, node: nodes.Node) -> str:
    """KaTeX's HTML for one formula; the source itself, with a warning, when
    KaTeX cannot parse it."""
    options = {
        "displayMode": display,
        "throwOnError": True,
        "output": "htmlAndMathml",
    }
    try:
        return typesetter().call("katex.renderToString", latex, options)
    except JSEvalException as error:
        message = str(error).splitlines()[0].removeprefix("<anonymous>:1: ")
        logger.warning("formula not typeset: %s", message, location=node)
        return f'<code class="math-error">{latex}</code>'


def visit_inline(self, node: nodes.math) -> None:
    self.body.append(
        self.starttag(node, "span", "", CLASS="math notranslate nohighlight")
    )
    self.body.append(typeset(node.astext(), False, node) + "</span>")
    raise nodes.SkipNode


def display_source(node: nodes.math_block) -> tuple[str, bool]:
    """One display formula, and whether it may break into lines.

    Blank-line separated equations become aligned rows, as Sphinx's MathJax
    renderer does, and a formula with its own line breaks keeps them; these
    are set as one block. Any other formula may break where it is too wide
    for the screen: after a relation or an operator, as TeX breaks inline
    formulas, and after a comma or a quad space between its parts.
    """
    latex = node.astext()
    if node["nowrap"]:
        return latex, False
    parts = [part for part in latex.split("\n\n") if part.strip()]
    if len(parts) > 1:
        return (
            r"\begin{aligned}" + r"\\".join(parts) + r"\end{aligned}",
            False,
        )
    part = parts[0]
    if r"\\" in top_level(part):
        return rf"\begin{{split}}{part}\end{{split}}", False
    return allow_breaks(part), True


# A comma (not the thin space \, and not one that a quad space follows: the
# line breaks after the space instead).
COMMA = re.compile(r"(?<!\\),(?!\s*\\q?quad(?![a-zA-Z]))")
# A quad space, which separates the parts of a formula ("a = b, \qquad
# c = d"): such a formula breaks between its parts, not inside one.
QUAD = re.compile(r"\\q?quad(?![a-zA-Z])")


def top_level(latex: str) -> str:
    """``latex`` with everything inside braces and environments blanked
    out (replaced by spaces), so that what remains is the formula's top
    level, where a line may break."""
    kept, depth, index = [], 0, 0
    while index < len(latex):
        if latex.startswith(r"\begin{", index):
            depth += 1
        elif latex.startswith(r"\end{", index):
            depth -= 1
        char = latex[index]
        if char == "\\" and index + 1 < len(latex):
            pair = latex[index : index + 2]
            kept.append(pair if depth == 0 else "  ")
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        kept.append(char if depth == 0 and char != "}" else " ")
        index += 1
    return "".join(kept)


def allow_breaks(latex: str) -> str:
    """``latex`` with permitted line breaks: between the parts of a formula
    that quad spaces separate, each part kept whole; in a formula without
    them, after each top-level comma (KaTeX breaks after relations and
    operators by itself), but not inside a pair among a function's
    arguments, such as ``f(a, (b, c))``, where a break would split
    ``(b, c)``."""
    level = top_level(latex)
    quads = list(QUAD.finditer(level))
    if quads:
        starts = [0] + [m.end() for m in quads]
        ends = [m.start() for m in quads] + [len(latex)]
        parts = [
            "{" + latex[start:end] + "}" for start, end in zip(starts, ends)
        ]
        spaces = [latex[m.start() : m.end()] for m in quads]
        return "".join(
            part + (rf"{space}\allowbreak " if k < len(spaces) else "")
            for k, (part, space) in enumerate(zip(parts, spaces + [""]))
        )
    nesting = list(
        itertools.accumulate((char in "([") - (char in ")]") for char in level)
    )
    marks = [m.end() for m in COMMA.finditer(level) if nesting[m.start()] <= 1]
    pieces, start = [], 0
    for mark in marks:
        pieces += [latex[start:mark], r"\allowbreak "]
        start = mark
    return "".join(pieces) + latex[start:]


def visit_display(self, node: nodes.math_block) -> None:
    self.body.append(
        self.starttag(node, "div", CLASS="math notranslate nohighlight")
    )
    if node["number"]:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    latex, breaks = display_source(node)
    if breaks:
        # Set in display style but typeset as inline math, which KaTeX
        # lets break into lines; the box around it is the display's.
        formula = typeset(r"\displaystyle " + latex, False, node)
        self.body.append(
            f'<span class="katex-display breaks">{formula}</span>'
        )
    else:
        self.body.append(typeset(latex, True, node))
    self.body.append("</div>\n")
    raise nodes.SkipNode


PUNCTUATION = ",.;:)!?"


def keep_punctuation_with_formulas(
    app: Sphinx, doctree: nodes.document, docname: str
) -> None:
    """A comma or full stop right after an inline formula goes into one
    unbreakable span with it: browsers may break a line after the formula's
    box, which left the punctuation at the start of the next line."""
    for formula in list(doctree.findall(nodes.math)):
        parent = formula.parent
        index = parent.index(formula)
        after = parent[index + 1] if index + 1 < len(parent) else None
        if (
            not isinstance(after, nodes.Text)
            or after.astext()[:1] not in PUNCTUATION
        ):
            continue
        text = after.astext()
        mark = len(text) - len(text.lstrip(PUNCTUATION))
        together = nodes.inline(classes=["math-with-punctuation"])
        parent.replace(formula, together)
        together += [formula, nodes.Text(text[:mark])]
        # By position, not by value: Text nodes compare as strings, so
        # replace() and remove() would take an earlier ", " for this one.
        del parent[index + 1]
        if text[mark:]:
            parent.insert(index + 1, nodes.Text(text[mark:]))


# KaTeX's fonts that a page's opening uses (its title and Overview), by the
# classes of their formulas: requested with the stylesheets (preloaded)
# rather than once the page is laid out, when their arrival moved the text
# around the formulas on the first screen (a layout shift). Fonts used only
# further down load when the page first needs them: preloaded, they took
# bandwidth from the stylesheets and delayed the first paint of the text.
FONTS = {
    "KaTeX_Main-Regular": 'class="katex"',
    "KaTeX_Math-Italic": "mathnormal",
    "KaTeX_Main-Bold": "mathbf",
    "KaTeX_AMS-Regular": "mathbb",
    "KaTeX_Size1-Regular": "small-op",
    "KaTeX_Size2-Regular": "large-op",
}


def opening_of(body: str) -> str:
    """The page's HTML up to the section after its Overview (all of it when
    it has no Overview)."""
    overview = body.find('<section id="overview">')
    if overview < 0:
        return body
    after = body.find("<section id=", overview + 1)
    return body if after < 0 else body[:after]


def preload_fonts(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree
) -> None:
    body = context.get("body", "")
    if 'class="katex"' not in body or "pathto" not in context:
        return
    opening = opening_of(body)
    folder = f"_static/{STATIC}/fonts"
    links = [
        '<link rel="preload" as="font" type="font/woff2" crossorigin '
        f'href="{context["pathto"](f"{folder}/{font}.woff2", 1)}" />'
        for font, mark in FONTS.items()
        if mark in opening
    ]
    context["metatags"] = context.get("metatags", "") + "\n".join([""] + links)


def add_stylesheet(app: Sphinx) -> None:
    if app.builder.format == "html":
        app.add_css_file(f"{STATIC}/katex.min.css")


def copy_assets(app: Sphinx, exception: Exception | None) -> None:
    """KaTeX's stylesheet and fonts into the book's _static (the stylesheet
    names woff2, woff and ttf files; browsers fetch only the woff2 ones)."""
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / STATIC
    shutil.copytree(
        katex_dir(),
        target,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("katex.min.js", "VERSION"),
    )
    # Text with a formula is painted at once in a fallback font, then again
    # when KaTeX's font arrives, instead of staying blank until then.
    stylesheet = target / "katex.min.css"
    css = stylesheet.read_text(encoding="utf-8")
    stylesheet.write_text(
        css.replace("@font-face{", "@font-face{font-display:swap;"),
        encoding="utf-8",
    )


def setup(app: Sphinx) -> dict:
    app.add_html_math_renderer(
        "katex", (visit_inline, None), (visit_display, None)
    )
    app.connect("builder-inited", add_stylesheet)
    app.connect("doctree-resolved", keep_punctuation_with_formulas)
    app.connect("html-page-context", preload_fonts)
    app.connect("build-finished", copy_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
