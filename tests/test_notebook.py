import sys

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

import d2l_local as d2l


def test_glue_uses_myst_nb_when_present(monkeypatch):
    import myst_nb

    calls = []
    monkeypatch.setattr(
        myst_nb,
        "glue",
        lambda name, value, display: calls.append((name, value, display)),
    )
    d2l.glue("answer", 42)
    assert calls == [("answer", 42, False)]


@pytest.mark.parametrize("value", [42, "0.35", "1,088"])
def test_glue_shows_name_and_value_as_text_without_myst_nb(monkeypatch, value):
    # as on Colab: import fails
    monkeypatch.setitem(sys.modules, "myst_nb", None)
    InteractiveShell.instance()  # what a notebook's display goes through
    with capture_output() as captured:
        d2l.glue("answer", value)
    (shown,) = captured.outputs
    assert shown.data == {"text/plain": f"answer = {value}"}
