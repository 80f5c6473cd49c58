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


def test_a_table_shows_each_cell_and_a_detail_below_its_value():
    shown = d2l.table(
        ["method", "bits"], [["RoPE", ("1.76", "1.75 to 1.77")]], label="t"
    )._repr_mimebundle_()
    assert (
        "1.76<br>" in shown["text/html"]
        and "1.75 to 1.77" in shown["text/html"]
    )
    assert "1.76 [1.75 to 1.77]" in shown["text/plain"]


def test_a_folded_table_opens_under_its_line():
    rows = [["RoPE", "1.76"]]
    folded = d2l.table(["method", "bits"], rows, fold="The numbers")
    plain = d2l.table(["method", "bits"], rows)
    html = folded._repr_mimebundle_()["text/html"]
    assert html.startswith('<details class="d2l-fold"><summary>The numbers')
    assert plain._repr_mimebundle_()["text/html"].startswith("<table")


def test_a_table_refuses_a_row_of_the_wrong_length():
    with pytest.raises(ValueError, match="header's 2 cells"):
        d2l.table(["method", "bits"], [["RoPE"]])
