"""What a page teaches is what runs: each taught object of d2l_local is shown
on its page (``d2l.show_source``), and the text shown is the library's own."""

from __future__ import annotations

import re

import jupytext
import pytest
import yaml
from bs4 import BeautifulSoup

import d2l_local as d2l
from conftest import ROOT
from d2l_local import (
    context_extension,
    copy_task,
    costs,
    decoder,
    generalisation,
    language_model,
    ngram,
    order_task,
    pretraining,
    training,
)
from d2l_local import relative_family as family
from d2l_local.notebook import Source
from d2l_local.positional_encoding import _AddedPositions

HTML = ROOT / "_build" / "html" / "chapters"
TAUGHT = {
    "self_attention": [
        d2l.DotProductAttention,
        d2l.MultiHeadAttention,
        d2l.masked_softmax,
    ],
    "comparing_architectures": [costs.multiply_adds],
    "sinusoidal_encoding": [
        d2l.frequencies,
        d2l.sinusoidal_encoding,
        _AddedPositions,
        d2l.PositionalEncoding,
        d2l.halves_order,
        d2l.sines_then_cosines,
    ],
    "relative_position": [
        d2l.rotation_matrix,
        d2l.rope,
        d2l.RotaryMultiHeadAttention,
    ],
    "offset_head": [
        copy_task.make_copy_task,
        copy_task.CopyModel,
        copy_task.make_model,
        training.train,
    ],
    "order_experiment": [
        d2l.LearnedPositionalEmbedding,
        order_task.OrderClassifier,
    ],
    "relative_family": [
        family.offsets,
        family.PositionalSelfAttention,
        family.AbsoluteSinusoidal,
        family.ShawRelative,
        family.TransformerXL,
        family.t5_bucket,
        family.T5Bias,
        family.ALiBi,
        family.RotaryEmbedding,
        family.depends_only_on_offset,
    ],
    "real_text": [
        decoder.Block,
        decoder.Decoder,
        pretraining.learning_rate,
        pretraining.train_model,
        ngram.NGram,
        generalisation.rises,
        generalisation.holds,
    ],
    # The page after real_text measures its models; it teaches no new code.
    "inside_models": [],
    "stretching_rope": [
        context_extension.ntk_frequencies,
        context_extension.yarn_frequencies,
        context_extension.llama3_frequencies,
        context_extension.extend_context,
        language_model.cached_logits,
    ],
}


def shown(chapter: str) -> dict[str, str]:
    """Each shown block of the built page: its object names -> its text."""
    soup = BeautifulSoup((HTML / f"{chapter}.html").read_text(), "html.parser")
    return {
        block["data-source"]: block.get_text()
        for block in soup.select("div.d2l-source")
    }


@pytest.mark.parametrize("chapter", TAUGHT)
def test_each_taught_object_is_shown_as_the_library_defines_it(chapter):
    blocks = shown(chapter)
    names = {name for key in blocks for name in key.split()}
    for obj in TAUGHT[chapter]:
        name = f"{obj.__module__}.{obj.__qualname__}"
        assert name in names, f"{chapter} does not show {name}"
    for key, text in blocks.items():
        objects = [
            next(
                o
                for o in sum(TAUGHT.values(), [])
                if f"{o.__module__}.{o.__qualname__}" == name
            )
            for name in key.split()
        ]
        assert text.rstrip("\n") == Source(*objects).code.rstrip("\n"), (
            f"{chapter} shows {key} differently from the library: "
            "rebuild the book"
        )


def test_show_source_refuses_what_has_no_source():
    with pytest.raises(TypeError, match="functions and classes"):
        d2l.show_source(42)
    with pytest.raises(TypeError, match="at least one"):
        d2l.show_source()


def test_shown_code_is_highlighted_by_the_pages_own_styles():
    html = d2l.show_source(d2l.rope)._repr_mimebundle_()["text/html"]
    assert 'class="highlight"' in html and "style=" not in html
    assert 'data-source="d2l_local.relative.rope"' in html


def test_library_docstrings_name_pages_not_section_numbers():
    """A docstring says which page uses the code, by the page's title."""
    for path in sorted((ROOT / "d2l_local").glob("*.py")):
        text = path.read_text()
        assert not re.search(r"\bSections? \d", text), path.name


# offset_head trains two heads whose code relative_family shows next to
# its other variants; the page says so, and builds them only from what
# earlier pages teach (the sinusoidal table, d2l.rope).
USED_BEFORE_SHOWN = {"offset_head": {"AbsoluteSinusoidal", "RotaryEmbedding"}}


def test_no_page_uses_what_a_later_page_teaches():
    """The reading order of _toc.yml: a page's code calls only objects that
    its own or an earlier page shows, apart from the two listed above."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    order = [
        entry["file"].removeprefix("chapters/")
        for entry in toc["chapters"]
        if entry["file"].removeprefix("chapters/") in TAUGHT
    ]
    assert sorted(order) == sorted(TAUGHT)
    for position, chapter in enumerate(order):
        code = "\n".join(
            cell.source
            for cell in jupytext.read(
                ROOT / "chapters" / f"{chapter}.md"
            ).cells
            if cell.cell_type == "code"
        )
        for later in order[position + 1 :]:
            for obj in TAUGHT[later]:
                if obj.__name__ in USED_BEFORE_SHOWN.get(chapter, ()):
                    continue
                module = obj.__module__.rsplit(".", 1)[-1]
                used = re.search(rf"\b(d2l|{module})\.{obj.__name__}\b", code)
                assert used is None, (
                    f"{chapter} uses {obj.__name__}, which {later} teaches"
                )
