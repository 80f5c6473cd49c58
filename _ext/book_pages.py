"""Sphinx extension of this book: lighter, cleaner pages.

* Icons. pydata-sphinx-theme loads FontAwesome's 1.5 MB script on every page
  to turn ``<i class="fa-solid fa-rocket">`` into SVG in the reader's
  browser. The same SVG icons are put into the pages when the book is built,
  from the ``fontawesomefree`` package, and the script is left out.
* Download. The header's ".ipynb" download offered the notebook without its
  outputs; it now gives the chapter's executed reference notebook (the one
  Colab opens), outputs included.
* Speed. Scripts that nothing reads while the page is parsed are deferred;
  the search scripts and index load on the search page only; each page gets
  a meta description (its first paragraph). The controls' figures move
  out of the page into script files, loaded when a control nears the
  screen.
* Mode. The light/dark/auto switch starts at auto, without the console
  error an empty default gave.
* Launch. Each chapter opens with labelled links that run it on Colab or
  Binder (the theme offers them only behind an unlabelled rocket icon) and
  one to report a problem in the repository's issues.
* DOM size. Highlighted code wraps every token in a span; the spans of the
  tokens drawn in the code's own colour (names, punctuation, spaces) are
  dropped, which leaves the page looking the same with about a third fewer
  elements. Sphinx-design's stylesheet and script go from pages that use
  none of its components, and the launch menu's logos load only when the
  menu opens.
* Loading. The theme's two scripts are no longer preloaded (they run after
  the page is parsed and took bandwidth from the stylesheets the first paint
  waits for); output figures load lazily, when they near the screen, with
  their size written into the page so that nothing moves when they arrive.
* Stylesheets. The small stylesheets that every page links after the
  theme's own (Pygments, the book theme, toggles, copy buttons, MyST-NB,
  exercises, KaTeX, book.css) are served as one file, in the same order:
  one request before the page can render instead of eight.
* Listings. The library code a page shows (``d2l.show_source``) starts
  collapsed behind a line saying what it is and how long it is.
* Scripts. The themes add the thebe and togglebutton inline scripts twice (the
  second thebe copy throws in the browser); each script is kept once, and
  thebe's, unused with launch_buttons.thebe off, not at all.
* Theme files. The theme's stylesheet carries FontAwesome's rules for its
  webfont glyphs, which no page uses (the icons are SVG), and are dropped:
  a fifth less of the stylesheet the first paint waits for. The theme's
  script measures every code block and output when the page has loaded, to
  make those that scroll keyboard-focusable; that one pass lays out the
  whole page at once, sections not yet on screen included. The pass is
  left out, and ``scroll-cue.js`` does the same a few boxes at a time while
  the browser is idle.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import re
import shutil
from importlib import resources
from pathlib import Path
from urllib.parse import urlencode

from sphinx.application import Sphinx

ICON = re.compile(r'<(i|span) class="([^"]*\bfa-[^"]*)"([^>]*)></\1>')
FONTAWESOME_SCRIPT = re.compile(
    r'\s*<script defer src="[^"]*scripts/fontawesome\.js[^"]*"></script>'
)
# The theme's theme.css holds only '@import "../basic.css"': a second round
# trip before the page can render. The page links basic.css itself instead.
THEME_IMPORT = re.compile(
    r'href="([^"]*_static/)styles/theme\.css\?digest=[0-9a-f]+"'
)
# Sphinx's few settings, read by inline scripts while the page is parsed: in
# the page rather than a blocking request.
OPTIONS_SCRIPT = re.compile(
    r'<script src="[^"]*_static/documentation_options\.js[^"]*"></script>'
)
# A control's packed figures (d2l_local.widgets), up to 200 KB of base64 that
# would hold up the page's first paint; see move_control_data.
CONTROL_DATA = re.compile(
    r'(<div class="d2l-control" id="(d2l-control-[0-9a-f]+)".*?)'
    r'<script type="application/json" class="d2l-control-data">'
    r"(.*?)</script>",
    re.S,
)
CONTROL_FOLDER = "_static/controls"
# The live panel's weights (d2l_local.live_panel) go the same way, into a
# folder of their own; the panel loads them only when the reader opens it.
PANEL_DATA = re.compile(
    r'(<div class="d2l-live-panel" id="(d2l-live-panel-[0-9a-f]+)".*?)'
    r'<script type="application/json" class="d2l-control-data">'
    r"(.*?)</script>",
    re.S,
)
PANEL_FOLDER = "_static/panels"
CONTROL_FILE_START = (
    "(window.d2lControlData = window.d2lControlData || {})[{name}] =\n"
)
# docutils writes the reference list as role="list" holding entries of the
# deprecated role doc-biblioentry, which screen readers do not count as list
# items (axe: aria-required-children). They become list items.
BIBLIOGRAPHY_ENTRY = re.compile(
    r'(<div class="citation" id="[^"]*") role="doc-biblioentry"'
)
# pydata-sphinx-theme loads Sphinx's search scripts and the whole search index
# on every page, before the page can render, for its search-as-you-type
# option; with that option off only the search page uses them.
SEARCH_SCRIPTS = re.compile(
    r'\s*<script src="[^"]*(?:_static/searchtools\.js|'
    r'_static/language_data\.js|searchindex\.js)"></script>'
)
# A library listing (d2l_local.notebook.show_source) not yet collapsed.
LISTING = re.compile(
    r'(?<!</summary>)<div class="highlight-python notranslate d2l-source" '
    r'data-source="([^"]*)"><div class="highlight"><pre>(.*?)</pre></div>'
    r"</div>",
    re.S,
)
# The spans of highlighted code (Pygments) within one <pre>.
PRE = re.compile(r"(<pre>)(.*?)(</pre>)", re.S)
TOKEN = re.compile(r'<span class="([a-z0-9]+)">([^<]*)</span>')
# A rule of the Pygments stylesheet, per theme: ".highlight" alone (the
# code's own colour) or ".highlight .CLASS".
PYGMENTS_RULE = re.compile(
    r'html\[data-theme="(light|dark)"\] \.highlight(?: \.([a-z0-9]+))? '
    r"\{([^}]*)\}"
)
# The launch menu's logos (a 7.6 KB PNG among them), fetched with every page
# though the menu is closed.
MENU_LOGO = re.compile(r'<img (alt="(?:Binder|Colab|JupyterHub) logo")')
# A run of stylesheet links, one after another, that can be served as one
# file; and one such link, to a file in _static.
STYLESHEET_RUN = re.compile(
    r'(?:[ \t]*<link rel="stylesheet" type="text/css" '
    r'href="[^"]*_static/[^"]*\.css[^"]*" />\n){2,}'
)
STYLESHEET = re.compile(r'href="((?:\.\./)*)_static/([^"?]*\.css)[^"]*"')
# A relative url() in a stylesheet (not data:, not absolute).
CSS_URL = re.compile(r"url\((['\"]?)(?!data:|/|[a-z]+://)([^)'\"]+)\1\)")
BUNDLES = "_static/bundles"
SCRIPT_PRELOAD = re.compile(
    r'[ \t]*<link rel="preload" as="script" href="[^"]*" />\n'
)
# An output figure (Sphinx copies it to _images), not yet given its size.
OUTPUT_FIGURE = re.compile(
    r'<img (alt="[^"]*" )?src="((?:\.\./)*)_images/([^"]+\.svg)"(?! width)'
)
SVG_SIZE = re.compile(
    r'<svg[^>]*?width="([0-9.]+)pt"[^>]*?height="([0-9.]+)pt"'
)
# FontAwesome's glyph rules in the theme's stylesheet: .fa-rocket:before,
# .fa-solid, .fab and the like.
GLYPH_SELECTOR = re.compile(
    r"\.(?:fa|fab|fas|far|fa-[\w-]+)(?:::?(?:before|after))?"
)
# The end of the theme's minified script: addTabStopsToScrollableElements,
# run once the page has loaded.
TAB_STOPS_AT_LOAD = re.compile(
    r'"complete"===document\.readyState\?(\w+)\(\):'
    r'window\.addEventListener\("load",\1\)'
)
TAB_STOPS_LEFT_OUT = "void 0/* tab stops: _static/scroll-cue.js */"
STYLE_CLASSES = {
    "fa-solid": "solid",
    "fas": "solid",
    "fa-brands": "brands",
    "fab": "brands",
    "fa-regular": "regular",
    "far": "regular",
}
NOT_NAMES = {"fa-lg", "fa-fw", *STYLE_CLASSES}


@functools.cache
def icon_svg(style: str, name: str) -> str:
    """FontAwesome's SVG file for one icon (sized by the book-icon CSS)."""
    folder = (
        resources.files("fontawesomefree")
        / "static"
        / "fontawesomefree"
        / "svgs"
    )
    svg = (folder / style / f"{name}.svg").read_text()
    return svg.replace(
        "<svg ", '<svg aria-hidden="true" focusable="false" ', 1
    )


def inline_icon(match: re.Match) -> str:
    """The icon element with its SVG inside. Its FontAwesome classes go: the
    theme's CSS would otherwise draw the glyph again from a 270 KB webfont."""
    tag, classes, rest = match.groups()
    names = classes.split()
    style = next(
        (STYLE_CLASSES[c] for c in names if c in STYLE_CLASSES), "solid"
    )
    icon = next(c for c in names if c.startswith("fa-") and c not in NOT_NAMES)
    kept = [c for c in names if c not in NOT_NAMES and c != icon]
    kept += (
        ["book-icon", "book-icon-lg"] if "fa-lg" in names else ["book-icon"]
    )
    svg = icon_svg(style, icon[3:])
    return f'<{tag} class="{" ".join(kept)}"{rest}>{svg}</{tag}>'


def plain_token_classes(pygments_css: str) -> frozenset[str]:
    """The token classes that the Pygments stylesheet draws exactly as the
    code around them (the same colour and nothing else, in light and in dark
    mode): their spans change nothing on the page."""
    rules: dict[tuple[str, str | None], str] = {}
    for theme, token, body in PYGMENTS_RULE.findall(pygments_css):
        rules[theme, token or None] = " ".join(body.split())
    plain = set()
    for theme, token in rules:
        if token is None:
            continue
        if all(
            (base := rules.get((mode, None)))
            and rules.get((mode, token)) == f"color: {_color(base)}"
            for mode in ("light", "dark")
        ):
            plain.add(token)
    return frozenset(plain)


def _color(rule: str) -> str | None:
    match = re.search(r"(?:^|;)\s*color: ([^;]+?)\s*(?:;|$)", rule)
    return match.group(1) if match else None


def unwrap_plain_tokens(html: str, plain: frozenset[str]) -> str:
    """Highlighted code without the spans of ``plain`` token classes."""

    def unwrap(token: re.Match) -> str:
        return token.group(2) if token.group(1) in plain else token.group(0)

    return PRE.sub(
        lambda m: m.group(1) + TOKEN.sub(unwrap, m.group(2)) + m.group(3),
        html,
    )


def collapse_listing(match: re.Match) -> str:
    """A library listing inside a closed ``details`` element whose summary
    names the objects shown and counts the lines of code."""
    names, code = match.group(1).split(), match.group(2)
    text = html.unescape(re.sub(r"<[^>]*>", "", code)).strip("\n")
    lines = text.count("\n") + 1
    shown = ", ".join(name.rsplit(".", 1)[-1] for name in names)
    return (
        '<details class="d2l-listing"><summary>Library code: '
        f"{html.escape(shown)}, {lines} lines</summary>"
        f"{match.group(0)}</details>"
    )


def lighten(
    html: str,
    options: str,
    searches: bool = False,
    plain: frozenset[str] = frozenset(),
) -> str:
    """One built page with its icons inlined, FontAwesome's script left out,
    Sphinx's ``options`` script inline, basic.css linked directly, the spans
    of ``plain`` code tokens dropped and the menu's logos loaded lazily; the
    search scripts left out too unless the page ``searches``."""
    lighter = FONTAWESOME_SCRIPT.sub("", ICON.sub(inline_icon, html))
    lighter = THEME_IMPORT.sub(r'href="\1basic.css"', lighter)
    lighter = OPTIONS_SCRIPT.sub(
        lambda _: f"<script>{options.strip()}</script>", lighter
    )
    lighter = BIBLIOGRAPHY_ENTRY.sub(r'\1 role="listitem"', lighter)
    lighter = LISTING.sub(collapse_listing, lighter)
    lighter = unwrap_plain_tokens(lighter, plain)
    lighter = MENU_LOGO.sub(r'<img loading="lazy" \1', lighter)
    return lighter if searches else SEARCH_SCRIPTS.sub("", lighter)


# Scripts that other scripts read while the page is parsed stay in order
# and blocking; the rest wait until the page is parsed (defer keeps their
# order).
# The search page's searchtools.js, loaded in its body, calls doctools.js.
BLOCKING = ("documentation_options.js",)
BLOCKING_ON_SEARCH = ("documentation_options.js", "doctools.js")
# Stylesheets of features the book leaves off (launch_buttons.thebe is false).
UNUSED_CSS = ("sphinx-thebe.css",)
# Sphinx-design's files, needed only by a page that uses its components.
DESIGN_FILES = ("sphinx-design.min.css", "design-tabs.js")


def bundle_stylesheets(html: str, out: Path) -> str:
    """Each run of two or more stylesheet links replaced by one link to a
    file holding them all, in order, their relative url()s rewritten to
    hold from the bundle's folder; the file is named by its content."""

    def bundle(run: re.Match) -> str:
        links = STYLESHEET.findall(run.group(0))
        prefix = links[0][0]
        parts = []
        for _, name in links:
            source = out / "_static" / name
            css = source.read_text(encoding="utf-8")
            folder = Path(name).parent
            css = CSS_URL.sub(
                lambda m: (
                    "url("
                    + m.group(1)
                    + str(Path("..") / folder / m.group(2)).replace("\\", "/")
                    + m.group(1)
                    + ")"
                ),
                css,
            )
            parts.append(f"/* {name} */\n{css}\n")
        text = "".join(parts)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        target = out / BUNDLES / f"{digest}.css"
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        return (
            f'    <link rel="stylesheet" type="text/css" '
            f'href="{prefix}{BUNDLES}/{digest}.css" />\n'
        )

    return STYLESHEET_RUN.sub(bundle, html)


def size_figures(html: str, out: Path) -> str:
    """Each output figure (an SVG) with its size as attributes, so that the
    page keeps its place for it, and loaded lazily."""

    def sized(match: re.Match) -> str:
        alt, prefix, name = match.groups()
        svg = (out / "_images" / name).read_text(encoding="utf-8")[:2000]
        size = SVG_SIZE.search(svg)
        if size is None:
            return match.group(0)
        # points to CSS pixels
        width, height = (round(float(v) * 4 / 3) for v in size.groups())
        return (
            f'<img {alt or ""}src="{prefix}_images/{name}" width="{width}" '
            f'height="{height}" loading="lazy" decoding="async"'
        )

    return OUTPUT_FIGURE.sub(sized, html)


def move_control_data(
    html: str,
    page: Path,
    out: Path,
    pattern: re.Pattern = CONTROL_DATA,
    where: str = CONTROL_FOLDER,
) -> str:
    """Each control's data into a script file of its own, which the control
    loads when it comes near the screen (and says so if it cannot). A script,
    not a fetched file: pages opened from disk work too. With ``pattern``
    ``PANEL_DATA`` and ``where`` ``PANEL_FOLDER``: the live panel's
    weights, which it loads when the reader opens it."""
    folder = out / where
    prefix = "../" * (len(page.relative_to(out).parts) - 1)

    def move(match: re.Match) -> str:
        before, name, data = match.groups()
        folder.mkdir(parents=True, exist_ok=True)
        start = CONTROL_FILE_START.replace("{name}", json.dumps(name))
        (folder / f"{name}.js").write_text(
            f"{start}{data};\n", encoding="utf-8"
        )
        # Not run by the browser (its type is no script language): the
        # control fetches the file when it comes near the screen.
        return (
            f'{before}<script class="d2l-control-data" '
            'type="text/x-d2l-frames" '
            f'data-src="{prefix}{where}/{name}.js"></script>'
        )

    return pattern.sub(move, html)


def keep_scripts_once(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree
) -> None:
    blocking = BLOCKING_ON_SEARCH if pagename == "search" else BLOCKING
    unused, dropped = UNUSED_CSS, ("sphinx-thebe.js",)
    if 'class="sd-' not in context.get("body", ""):
        unused, dropped = unused + DESIGN_FILES, dropped + DESIGN_FILES
    seen, kept = set(), []
    for script in context.get("script_files", []):
        body = (
            script.attributes.get("body", "")
            if hasattr(script, "attributes")
            else ""
        )
        filename = str(getattr(script, "filename", script) or "")
        key = (filename, body)
        if "THEBE_JS_URL" in body or filename.endswith(dropped) or key in seen:
            continue
        seen.add(key)
        if (
            filename
            and not body
            and not filename.endswith(blocking)
            and hasattr(script, "attributes")
            and "async" not in script.attributes
        ):
            # A new object: the builder shares each script between pages.
            script = type(script)(
                script.filename,
                priority=script.priority,
                **{**script.attributes, "defer": "defer"},
            )
        kept.append(script)
    context["script_files"] = kept
    context["css_files"] = [
        css
        for css in context.get("css_files", [])
        if not str(getattr(css, "filename", css)).endswith(unused)
    ]


def launch_links(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree
) -> None:
    """Under a chapter's title: open it in Colab or Binder, report a problem.
    The addresses are the theme's launch buttons' (from ``repository.url``
    in _config.yml), which it shows only behind an unlabelled icon."""
    launch = {
        button.get("text"): button.get("url")
        for group in context.get("header_buttons", [])
        if group.get("label") == "launch-buttons"
        for button in group.get("buttons", [])
    }
    repository = app.config.html_theme_options.get("repository_url", "")
    body = context.get("body", "")
    if not launch or "</h1>" not in body:
        return
    title = html.unescape(re.sub(r"<[^>]*>", "", context.get("title", "")))
    report = f"{repository.rstrip('/')}/issues/new?" + urlencode(
        {"title": f"Page '{title}': "}
    )
    links = [
        ("Open in Colab", launch.get("Colab")),
        ("Open in Binder", launch.get("Binder")),
        ("Report a problem", report if repository else None),
    ]
    bar = "".join(
        f'<a class="book-launch-link" href="{html.escape(url)}" '
        f'target="_blank" rel="noopener">{text}</a>'
        for text, url in links
        if url
    )
    context["body"] = body.replace(
        "</h1>",
        f'</h1>\n<nav class="book-launch" aria-label="Run this page">'
        f"{bar}</nav>",
        1,
    )


def describe_page(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree
) -> None:
    """A meta description for search engines: the page's first paragraph of
    prose."""
    if 'name="description"' in context.get("metatags", ""):
        return
    summary = (
        first_paragraph(doctree)
        if doctree is not None
        # the search page
        else f"Search the pages of {app.config.html_title or ''}."
    )
    if summary:
        context["metatags"] = context.get("metatags", "") + (
            f'\n<meta name="description" content="{html.escape(summary)}" />'
        )


def first_paragraph(doctree) -> str | None:
    """The first paragraph of more than 60 characters, cut to about 155."""
    from docutils import nodes

    for paragraph in doctree.findall(nodes.paragraph):
        text = " ".join(paragraph.astext().split())
        if len(text) > 60:
            return (
                text
                if len(text) <= 155
                else text[:152].rsplit(" ", 1)[0] + "..."
            )
    return None


def css_rules(css: str) -> list[str]:
    """The top-level rules and at-rules of a stylesheet, in order, with the
    text between them kept in the rule that follows."""
    rules, depth, start = [], 0, 0
    for at, character in enumerate(css):
        if character == "{":
            depth += 1
        elif character == "}":
            depth -= 1
            if depth == 0:
                rules.append(css[start : at + 1])
                start = at + 1
    return [*rules, css[start:]]


def drop_glyph_rules(css: str) -> str:
    """The stylesheet without the rules whose every selector is a
    FontAwesome glyph class (``.fa-rocket:before`` and the like)."""
    return "".join(
        rule
        for rule in css_rules(css)
        if "{" not in rule
        or not all(
            GLYPH_SELECTOR.fullmatch(selector.strip())
            for selector in rule.split("{", 1)[0].split(",")
        )
    )


def trim_theme_files(out: Path) -> None:
    """Drop the glyph rules from the theme's stylesheet and the load-time
    tab-stop pass from its script (see the module's docstring)."""
    stylesheet = out / "_static" / "styles" / "pydata-sphinx-theme.css"
    css = stylesheet.read_text(encoding="utf-8")
    trimmed = drop_glyph_rules(css)
    if trimmed != css:
        stylesheet.write_text(trimmed, encoding="utf-8")
    script = out / "_static" / "scripts" / "pydata-sphinx-theme.js"
    code = script.read_text(encoding="utf-8")
    if TAB_STOPS_LEFT_OUT in code:
        return  # an earlier build of the same output folder did it
    patched, count = TAB_STOPS_AT_LOAD.subn(TAB_STOPS_LEFT_OUT, code)
    if count != 1:
        raise RuntimeError(
            "pydata-sphinx-theme.js no longer ends with the load-time "
            "tab-stop pass this extension replaces; see _ext/book_pages.py"
        )
    script.write_text(patched, encoding="utf-8")


def lighten_pages(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    trim_theme_files(out)
    as_you_type = str(
        app.config.html_theme_options.get("search_as_you_type", "")
    ).lower()
    options = (out / "_static" / "documentation_options.js").read_text(
        encoding="utf-8"
    )
    pygments = out / "_static" / "pygments.css"
    plain = (
        plain_token_classes(pygments.read_text(encoding="utf-8"))
        if pygments.is_file()
        else frozenset()
    )
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        lighter = lighten(
            text,
            options,
            searches=page.name == "search.html" or as_you_type == "true",
            plain=plain,
        )
        lighter = move_control_data(lighter, page, out)
        lighter = move_control_data(
            lighter, page, out, PANEL_DATA, PANEL_FOLDER
        )
        lighter = bundle_stylesheets(lighter, out)
        lighter = size_figures(SCRIPT_PRELOAD.sub("", lighter), out)
        if lighter != text:
            page.write_text(lighter, encoding="utf-8")
    for leftover in (out / "_static" / "scripts").glob("fontawesome.js*"):
        leftover.unlink()
    for offered in (out / "_sources").rglob("*.ipynb"):
        executed = Path(app.srcdir) / offered.relative_to(out / "_sources")
        if executed.is_file():
            shutil.copyfile(executed, offered)


def set_theme_defaults(app: Sphinx, config) -> None:
    """Theme settings Jupyter Book's configuration cannot express. It leaves
    the default mode empty, which the theme's script reports as an error on
    every page before falling back to auto."""
    config.html_context.setdefault("default_mode", "auto")
    # The sidebar has the search box; the header's would be a second one.
    config.html_theme_options.setdefault("navbar_persistent", [])
    # The title beside the logo, not replaced by it.
    config.html_theme_options.setdefault("logo", {}).setdefault(
        "text", config.html_title
    )


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", set_theme_defaults)
    app.connect("html-page-context", keep_scripts_once, priority=900)
    app.connect("html-page-context", describe_page)
    # After the theme has made its launch buttons (priority 501).
    app.connect("html-page-context", launch_links, priority=600)
    # After the theme has rewritten pygments.css for light and dark mode.
    app.connect("build-finished", lighten_pages, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
