import sys

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


def test_glue_shows_the_value_without_myst_nb(monkeypatch):
    # as on Colab: import fails
    monkeypatch.setitem(sys.modules, "myst_nb", None)
    shown = []
    monkeypatch.setattr(
        "IPython.display.display", lambda value: shown.append(value)
    )
    d2l.glue("answer", 42)
    assert shown == [42]
