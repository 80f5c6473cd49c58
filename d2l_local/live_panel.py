"""The reader's own text through the trained language models of page
"Train Short, Test Long: Position on Real Text", live in the page.

``live_panel()`` returns a panel that a notebook displays as its cell's
output: a text box, each method's loss in bits at every position with the
training length L marked, and on a tap each head's attention row. No kernel
runs it: the checkpoints (one seed per method) travel with the panel as
they are stored, int8 rows with one scale each, and a small forward pass of
the book's decoder written in JavaScript (``live_panel.js``) runs them in
the browser. In a notebook the weights sit in the output; the built book
moves them into a script file of their own (``_ext/book_pages.py``) that
the panel loads only when the reader opens it.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from pathlib import Path

import torch

from . import (
    checks,
    decoder,
    pretraining,
    relative,
    relative_family,
    text,
)
from .widgets import gzip_packed

__all__ = ["LivePanel", "live_panel", "model_spec", "pack_models"]

_SCRIPT = Path(__file__).with_name("live_panel.js").read_text()
_STYLE = (
    ".d2l-live-panel textarea{width:100%;box-sizing:border-box;"
    "font-family:var(--pst-font-family-monospace,monospace);font-size:.85em;"
    "min-height:8em;color:inherit;background:transparent}"
    ".d2l-live-panel .d2l-live-row{display:flex;flex-wrap:wrap;gap:.3em;"
    "margin:.4em 0;align-items:center}"
    ".d2l-live-panel button{min-height:2.75em;min-width:2.75em;"
    "padding:.2em .6em;border:1px solid currentColor;border-radius:.3em;"
    "background:transparent;color:inherit;font-size:.85em}"
    ".d2l-live-panel button[aria-pressed=true]{font-weight:700;"
    "outline:2px solid currentColor}"
    ".d2l-live-panel select{min-height:2.75em;color:inherit;"
    "background:transparent;font-size:.85em}"
    ".d2l-live-panel svg{display:block;width:100%;height:auto}"
    ".d2l-live-panel table{font-size:.85em;margin:.4em 0}"
    ".d2l-live-panel td,.d2l-live-panel th{padding:.1em .5em;"
    "text-align:right}"
    ".d2l-live-panel th[scope=row]{text-align:left}"
    ".d2l-live-panel [hidden]{display:none!important}"
    ".d2l-live-panel .d2l-live-note{font-size:.85em}"
    ".d2l-live-panel figcaption,.d2l-live-panel caption{color:inherit;"
    "text-align:left}"
)


def _aliases(model: torch.nn.Module, stored: dict) -> dict[str, str]:
    """Each name of the model's state dict -> the name it is stored under
    (a tensor shared by several names is stored once, under the first)."""
    first, names = {}, {}
    for name, value in model.state_dict().items():
        owner = first.setdefault(value.data_ptr(), name)
        names[name] = owner
    missing = {
        owner
        for owner in names.values()
        if owner not in stored and owner + ".q" not in stored
    }
    if missing:
        raise ValueError(f"checkpoint lacks {sorted(missing)}")
    return names


def model_spec(model: decoder.Decoder, train_len: int) -> dict:
    """What the browser's forward pass needs to know besides the weights:
    the absolute table, and per block where position enters (RoPE's angle
    per pair, T5's bucket per distance)."""
    positions = None
    if model.positions is not None:
        positions = (
            "learned"
            if isinstance(model.positions.P, torch.nn.Parameter)
            else "sinusoidal"
        )
    layers = []
    for block in model.blocks:
        attention = block.attention
        if isinstance(attention, relative_family.RotaryEmbedding):
            layers.append({"kind": "rope", "omega": attention.omega.tolist()})
        elif isinstance(attention, relative_family.ALiBi):
            layers.append({"kind": "alibi"})
        elif isinstance(attention, relative_family.T5Bias):
            distances = torch.arange(attention.max_distance + 1)
            buckets = relative_family.t5_bucket(
                -distances,
                attention.num_buckets,
                attention.max_distance,
                bidirectional=False,
            )
            layers.append({"kind": "t5", "buckets": buckets.tolist()})
        elif type(attention) is relative_family.NoPositions:
            layers.append({"kind": "none"})
        else:
            raise ValueError(f"no browser pass for {type(attention).__name__}")
    return {
        "positions": positions,
        "max_len": train_len if positions == "learned" else None,
        "frequencies": (
            None
            if positions != "sinusoidal"
            else relative.frequencies(attention.num_hiddens).tolist()
        ),
        "width": attention.num_hiddens,
        "heads": attention.num_heads,
        "layers": layers,
    }


def pack_models(
    config: str = "main", seed: int = 0, methods=pretraining.METHODS
) -> tuple[dict, bytes]:
    """Every method's checkpoint as the browser reads it: a description
    (``model_spec``, and where each tensor lies in one binary blob) and the
    blob: the stored int8 rows and float32 scales and vectors, as stored,
    each at a multiple of 4 bytes."""
    from safetensors.torch import load_file

    settings = checks.choice("config", config, pretraining.CONFIGS)
    blob, index, models = bytearray(), {}, []
    for method in methods:
        checks.choice("method", method, dict.fromkeys(settings.methods))
        model = pretraining.load(config, method, seed)
        path = pretraining._path(config, method, seed, ".safetensors")
        stored = load_file(path)
        tensors = {}
        for name, value in sorted(stored.items()):
            data = value.contiguous().numpy().tobytes()
            blob.extend(b"\0" * (-len(blob) % 4))
            key = f"{method}/{name}"
            index[key] = [
                "int8" if value.dtype == torch.int8 else "float32",
                len(blob),
                value.numel(),
            ]
            tensors[name] = key
            blob.extend(data)
        spec = model_spec(model, settings.train_len)
        spec["method"] = method
        spec["tensors"] = tensors
        spec["aliases"] = _aliases(model, stored)
        models.append(spec)
    return {"models": models, "index": index}, bytes(blob)


def _sample(length: int) -> str:
    """A held-out passage of ``length`` characters that starts a
    paragraph."""
    held = text.decode(text.load_corpus().held_out)
    start = held.find("\n\n", len(held) // 3) + 2
    return held[start : start + length]


class LivePanel:
    """The panel: its HTML (the text box, buttons and figures, the packed
    weights and the script) for Jupyter, Colab and the built book."""

    def __init__(
        self,
        sample: str,
        config: str = "main",
        seed: int = 0,
        methods=pretraining.METHODS,
        max_chars: int | None = None,
        name: str = "live-panel",
    ) -> None:
        if not isinstance(sample, str) or not sample:
            raise ValueError("sample must be a non-empty str")
        settings = checks.choice("config", config, pretraining.CONFIGS)
        self.train_len = settings.train_len
        self.max_chars = checks.positive_int(
            "max_chars", max_chars or 16 * self.train_len
        )
        if self.max_chars < 8 * self.train_len:
            raise ValueError(
                f"max_chars must be at least 8L = {8 * self.train_len}, "
                f"got {self.max_chars}"
            )
        self.sample, self.name = sample[: self.max_chars], name
        self.methods = tuple(methods)
        self.description, self.blob = pack_models(config, seed, methods)

    @property
    def packed_size(self) -> int:
        """Bytes of the gzip-compressed weights."""
        return len(gzip_packed(self.blob))

    def to_html(self) -> str:
        packed = gzip_packed(self.blob)
        digest = hashlib.sha256(self.blob).hexdigest()
        payload = dict(
            self.description, packed=base64.b64encode(packed).decode()
        )
        data = json.dumps(payload, separators=(",", ":"))
        data = data.replace("</", "<\\/")
        settings = {
            "L": self.train_len,
            "maxChars": self.max_chars,
            "vocabulary": list(text.VOCABULARY),
            "methods": list(self.methods),
        }
        root = f"d2l-live-panel-{digest[:12]}"
        kb = round(len(packed) * 4 / 3 / 1000)
        buttons = "".join(
            f'<button type="button" aria-pressed="false" '
            f'data-method="{html.escape(m)}">{html.escape(m)}</button>'
            for m in self.methods
        )
        options = "".join(
            f'<option value="{k}"{" selected" if m == "RoPE" else ""}>'
            f"{html.escape(m)}</option>"
            for k, m in enumerate(self.methods)
        )
        return (
            f'<div class="d2l-live-panel" id="{root}" '
            f'data-name="{self.name}" data-weights-sha256="{digest}" '
            f"data-settings='{html.escape(json.dumps(settings))}'>"
            f"<style>{_STYLE}</style>"
            f'<label for="{root}-text">Your text (up to {self.max_chars} '
            f"characters; the models were trained on {self.train_len})"
            "</label>"
            f'<textarea id="{root}-text" class="d2l-live-text" rows="6" '
            f'maxlength="{self.max_chars}" spellcheck="false">'
            f"{html.escape(self.sample)}</textarea>"
            '<div class="d2l-live-row">'
            '<button type="button" class="d2l-live-open">'
            f"Run the models on this text (loads about {kb} kB)</button>"
            "</div>"
            '<p class="d2l-live-status" role="status">'
            "<noscript>The panel runs where this output's script may run: "
            "run the cell, or open the book's web page.</noscript></p>"
            '<div class="d2l-live-body" hidden>'
            '<div class="d2l-live-row" role="group" '
            'aria-label="Methods shown">'
            '<button type="button" aria-pressed="true" data-method="">'
            f"all</button>{buttons}</div>"
            '<figure class="d2l-live-loss"></figure>'
            '<table class="d2l-live-summary"><caption>Mean bits per '
            "character before and after L</caption><thead><tr>"
            '<th scope="col">method</th><th scope="col">before L</th>'
            '<th scope="col">after L</th></tr></thead><tbody></tbody>'
            "</table>"
            '<div class="d2l-live-row">'
            f'<label for="{root}-method">Attention of</label>'
            f'<select id="{root}-method" class="d2l-live-method">'
            f"{options}</select>"
            f'<label for="{root}-layer">layer</label>'
            f'<select id="{root}-layer" class="d2l-live-layer">'
            + "".join(
                f'<option value="{k}">{k + 1}</option>'
                for k in range(len(self.description["models"][0]["layers"]))
            )
            + "</select></div>"
            '<p class="d2l-live-note d2l-live-query" aria-live="polite">'
            "Tap a character, or move the cursor in the text, to see where "
            "each head looks from it.</p>"
            '<figure class="d2l-live-attention"></figure>'
            "</div>"
            '<script type="application/json" class="d2l-control-data">'
            f"{data}</script>"
            f"<script>{_SCRIPT}</script></div>"
        )

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return {
            "text/plain": (
                f"Live panel: {len(self.methods)} trained models run on "
                "your text in the page"
            ),
            "text/html": self.to_html(),
        }


def live_panel(
    sample: str | None = None,
    config: str = "main",
    seed: int = 0,
    max_chars: int | None = None,
) -> LivePanel:
    """The live panel over every shipped method of ``config`` (one
    ``seed`` each), its text box filled with ``sample`` (by default 8L
    characters of the held-out text)."""
    train_len = checks.choice("config", config, pretraining.CONFIGS).train_len
    if sample is None:
        sample = _sample(8 * train_len)
    return LivePanel(sample, config, seed, max_chars=max_chars)
