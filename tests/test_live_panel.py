"""The Python side of the live panel (d2l_local.live_panel): what it packs is
the stored checkpoints, byte for byte, with what the browser's pass needs to
know about each method; its HTML; its weight against the budget; and the
book's move of the weights into a script file of their own."""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib
import json
import re
import sys

import numpy as np
import pytest
import torch
from bs4 import BeautifulSoup

from conftest import ROOT
from d2l_local import pretraining, relative_family, text

live = importlib.import_module("d2l_local.live_panel")
L = pretraining.CONFIGS["main"].train_len


@pytest.fixture(scope="module")
def panel():
    return live.live_panel()


def stored_tensor(description, blob, key) -> torch.Tensor:
    dtype, offset, size = description["index"][key]
    width = 1 if dtype == "int8" else 4
    array = np.frombuffer(
        blob,
        dtype=np.int8 if dtype == "int8" else np.float32,
        count=size,
        offset=offset,
    )
    assert offset % 4 == 0 and offset + size * width <= len(blob)
    return torch.from_numpy(array.copy())


def test_every_shipped_method_once(panel):
    methods = [m["method"] for m in panel.description["models"]]
    assert methods == list(pretraining.METHODS)


def test_the_blob_holds_the_checkpoints_as_stored(panel):
    from safetensors.torch import load_file

    for spec in panel.description["models"]:
        path = pretraining._path("main", spec["method"], 0, ".safetensors")
        stored = load_file(path)
        assert set(spec["tensors"]) == set(stored)
        for name, value in stored.items():
            got = stored_tensor(
                panel.description, panel.blob, spec["tensors"][name]
            )
            assert torch.equal(got, value.flatten()), (spec["method"], name)
        # Every name of the model's state dict finds its tensor.
        model = pretraining.load("main", spec["method"], 0)
        assert set(spec["aliases"]) == set(model.state_dict())


def test_what_the_browser_is_told_of_each_method(panel):
    specs = {m["method"]: m for m in panel.description["models"]}
    for method, spec in specs.items():
        model = pretraining.load("main", method, 0)
        assert spec["width"] == 64 and spec["heads"] == 4
        assert len(spec["layers"]) == len(model.blocks) == 3
        for layer, block in zip(spec["layers"], model.blocks):
            attention = block.attention
            if layer["kind"] == "rope":
                assert layer["omega"] == attention.omega.tolist()
    assert specs["learned"]["positions"] == "learned"
    assert specs["learned"]["max_len"] == L
    assert specs["sinusoidal"]["positions"] == "sinusoidal"
    assert [x["kind"] for x in specs["iRoPE"]["layers"]] == [
        "rope",
        "rope",
        "none",
    ]
    assert specs["p-RoPE"]["layers"][0]["omega"][2:] == [0.0] * 6
    assert [x["kind"] for x in specs["ALiBi"]["layers"]] == ["alibi"] * 3
    t5 = specs["T5 bias"]["layers"][0]
    expected = relative_family.t5_bucket(
        -torch.arange(33), 16, 32, bidirectional=False
    )
    assert t5["buckets"] == expected.tolist()
    # T5's one table, stored once, serves every block.
    aliases = specs["T5 bias"]["aliases"]
    assert {
        aliases[f"blocks.{k}.attention.bias.weight"] for k in range(3)
    } == {"blocks.0.attention.bias.weight"}


def test_the_html(panel):
    html = panel.to_html()
    soup = BeautifulSoup(html, "html.parser")
    root = soup.select_one("div.d2l-live-panel")
    box = root.select_one("textarea")
    assert box.get_text() == panel.sample and len(panel.sample) == 8 * L
    assert int(box["maxlength"]) >= 8 * L
    assert soup.select_one(f"label[for='{box['id']}']") is not None
    data = json.loads(root.select_one("script.d2l-control-data").string)
    raw = gzip.decompress(base64.b64decode(data["packed"]))
    assert hashlib.sha256(raw).hexdigest() == root["data-weights-sha256"]
    assert raw == panel.blob
    settings = json.loads(root["data-settings"])
    assert settings["L"] == L
    assert settings["vocabulary"] == list(text.VOCABULARY)
    buttons = [b.get_text() for b in root.select("button[data-method]")]
    assert buttons == ["all", *pretraining.METHODS]
    assert "</script" not in root.select_one("script.d2l-control-data").string
    bundle = panel._repr_mimebundle_()
    assert bundle["text/html"] == html


def test_the_weights_fit_the_budget(panel):
    """What the panel loads on opening, gzip-compressed as a server sends
    it: at most 1.5 MB for every method."""
    html = panel.to_html()
    data = re.search(
        r'class="d2l-control-data">(.*?)</script>', html, re.S
    ).group(1)
    assert len(gzip.compress(data.encode(), 6)) <= 1_500_000


def test_bad_arguments():
    with pytest.raises(ValueError, match="sample"):
        live.LivePanel("")
    with pytest.raises(ValueError, match="max_chars"):
        live.LivePanel("abc", max_chars=8 * L - 1)
    with pytest.raises(ValueError, match="config"):
        live.live_panel("abc", config="nope")


def test_the_book_moves_the_weights_out_of_the_page(panel, tmp_path):
    sys.path.insert(0, str(ROOT / "_ext"))
    import book_pages

    page = tmp_path / "chapters" / "real_text.html"
    page.parent.mkdir()
    html = "<main>" + panel.to_html() + "</main>"
    moved = book_pages.move_control_data(
        html, page, tmp_path, book_pages.PANEL_DATA, book_pages.PANEL_FOLDER
    )
    assert len(moved) < 100_000
    soup = BeautifulSoup(moved, "html.parser")
    script = soup.select_one("div.d2l-live-panel script.d2l-control-data")
    assert script["type"] == "text/x-d2l-frames"
    root_id = soup.select_one("div.d2l-live-panel")["id"]
    assert script["data-src"] == f"../_static/panels/{root_id}.js"
    written = (tmp_path / "_static" / "panels" / f"{root_id}.js").read_text()
    start, _, data = written.partition("=\n")
    assert json.dumps(root_id) in start
    assert json.loads(data.rstrip().removesuffix(";"))["packed"]
    # The controls' pattern leaves the panel alone.
    assert book_pages.move_control_data(html, page, tmp_path) == html
