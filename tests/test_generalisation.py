"""generalisation: rises, holds and the verdicts read from logged scores."""

from __future__ import annotations

import pytest
import torch

from d2l_local import generalisation as gen


def scores(at_l, baseline, non_overlapping, sliding):
    """One seed's scores with L = 32 and windows of 2L, 4L and 8L."""
    return {
        "baseline": baseline,
        "non-overlapping": {
            32: at_l,
            **dict(zip((64, 128, 256), non_overlapping)),
        },
        "sliding": dict(zip((64, 128, 256), sliding)),
    }


HOLDER = [
    scores(2.0, 1.9, (2.02, 2.05, 2.08), (1.92, 1.95, 1.97)),
    scores(2.1, 2.0, (2.11, 2.12, 2.19), (2.0, 2.05, 2.09)),
]
BREAKER = [
    scores(1.8, 1.7, (2.8, 3.8, 4.8), (3.7, 4.7, 5.7)),
    scores(1.9, 1.8, (2.5, 3.5, 4.5), (3.0, 4.0, 5.0)),
]


def test_a_rise_is_measured_against_the_own_loss_at_l_in_each_mode():
    assert gen.rises(BREAKER, "non-overlapping", 64) == pytest.approx(
        [1.0, 0.6]
    )
    assert gen.rises(BREAKER, "sliding", 64) == pytest.approx([2.0, 1.2])


def test_a_method_holds_only_when_every_seed_holds_in_both_modes():
    assert gen.holds(HOLDER, 256) and gen.held_up_to(HOLDER) == 256
    assert not gen.holds(BREAKER, 64) and gen.held_up_to(BREAKER) == 32
    # One seed of the holder rising past the limit in one mode only.
    slipped = [
        HOLDER[0],
        scores(2.1, 2.0, (2.11, 2.12, 2.2), (2.0, 2.25, 2.3)),
    ]
    assert gen.held_up_to(slipped) == 64
    assert gen.held_up_to(slipped, limit=0.3) == 256


def test_the_best_method_must_beat_every_seed_of_every_other():
    assert gen.best_at({"a": BREAKER, "b": HOLDER}) == "a"
    overlapping = [scores(1.8, 1.95, (2,) * 3, (2,) * 3)] + BREAKER[1:]
    assert gen.best_at({"a": overlapping, "b": HOLDER}) is None


def test_an_unknown_mode_is_refused_with_the_valid_ones():
    with pytest.raises(ValueError, match="mode must be one of"):
        gen.rises(HOLDER, "overlapping", 64)


def test_names_are_joined_as_a_sentence_lists_them():
    assert gen.join_names([]) == "none"
    assert gen.join_names(["RoPE"]) == "RoPE"
    assert gen.join_names(["RoPE", "ALiBi"]) == "RoPE and ALiBi"
    assert gen.join_names(["a", "b", "c"]) == "a, b and c"


def test_reach_parts_groups_methods_farthest_first():
    reach = {"a": 256, "b": 32, "c": 256, "d": 64}
    assert gen.reach_parts(reach, 32, longest=256) == [
        "a and c held up to 8L, the longest window judged",
        "d held up to 2L",
        "b did not hold even at 2L",
    ]
    assert gen.reach_parts({"a": 32}, 32) == ["a did not hold even at 2L"]


@pytest.mark.parametrize(
    "reach, train_len", [({"a": 48}, 32), ({"a": 16}, 32), ({"a": 32}, 0)]
)
def test_reach_parts_rejects_reaches_that_are_not_multiples(reach, train_len):
    with pytest.raises(ValueError, match="train_len|reach of 'a'"):
        gen.reach_parts(reach, train_len)


def test_every_method_past_l_has_its_own_colour():
    from d2l_local import pretraining

    past_l = list(pretraining.CONFIGS["main"].methods)[1:]
    assert set(gen.COLOURS) == set(past_l)
    assert len(set(gen.COLOURS.values())) == len(gen.COLOURS)


def test_stability_reads_the_scores_it_is_given():
    loaded = {"a": {"m": HOLDER}, "b": {"m": BREAKER}}
    assert gen.stability(["a", "b"], loaded=loaded) == {
        "m": {"a": 256, "b": 32}
    }


def test_plot_rises_draws_each_method_in_both_modes_from_its_reference():
    fig = gen.plot_rises(
        {"ALiBi": HOLDER, "RoPE": BREAKER}, gen.COLOURS, names={"RoPE": "r"}
    )
    top, bottom = fig.axes
    # Side by side every line starts at 0 at L; sliding starts at 2L.
    rope_top = top.get_lines()[1].get_ydata()
    assert list(top.get_lines()[0].get_xdata()) == [32, 64, 128, 256]
    assert list(bottom.get_lines()[0].get_xdata()) == [64, 128, 256]
    assert rope_top[0] == 0 and rope_top[1] == pytest.approx(0.8)
    assert {t.get_text() for t in bottom.texts} == {"ALiBi", "r"}
    assert [t.get_text() for t in bottom.get_xticklabels()] == [
        "L",
        "2L",
        "4L",
        "8L",
    ]


def test_plot_rises_names_a_method_without_a_colour():
    with pytest.raises(ValueError, match=r"colours has no colour for \['x'\]"):
        gen.plot_rises({"x": HOLDER}, gen.COLOURS)
    with pytest.raises(ValueError, match="at least one method"):
        gen.plot_rises({}, gen.COLOURS)


class _Unigram(torch.nn.Module):
    """Logits from the current token alone: every window length gives the
    same loss, so every rise is 0."""

    def __init__(self, vocabulary: int = 11) -> None:
        super().__init__()
        self.table = torch.nn.Embedding(vocabulary, vocabulary)

    def forward(self, tokens):
        return self.table(tokens)


class _Counting(torch.nn.Module):
    """A model that is worse the more characters its window holds."""

    def __init__(self) -> None:
        super().__init__()
        self.unused = torch.nn.Parameter(torch.zeros(1))  # gives a device

    def forward(self, tokens):
        width = torch.arange(1, tokens.shape[1] + 1, dtype=torch.float32)
        return torch.stack([width, -width], dim=-1)[None].expand(
            tokens.shape[0], -1, -1
        )


@pytest.mark.parametrize("mode", gen.MODES)
def test_rise_interval_holds_the_rise_and_is_zero_when_nothing_changes(mode):
    text = torch.randint(
        0, 11, (8 * 4 * 10 + 1,), generator=torch.Generator().manual_seed(0)
    )
    torch.manual_seed(0)
    rise, low, high = gen.rise_interval(_Unigram(), text, 4, mode, 8)
    assert abs(rise) < 1e-6 and abs(low) < 1e-6 and abs(high) < 1e-6
    binary = torch.randint(
        0, 2, (8 * 4 * 10 + 1,), generator=torch.Generator().manual_seed(1)
    )
    rise, low, high = gen.rise_interval(_Counting(), binary, 4, mode, 16)
    assert rise > 0 and low <= rise <= high and low < high


def test_rise_interval_lets_longer_model_read_the_longer_windows():
    # Text of tokens 0 and 1 only: a table that favours them beats a
    # uniform model, so the rise is positive only if the uniform one reads
    # the longer windows (stretching_rope's use), and 0 if it is ignored.
    text = torch.randint(
        0, 2, (8 * 4 * 10 + 1,), generator=torch.Generator().manual_seed(2)
    )
    favours = _Unigram()
    with torch.no_grad():
        favours.table.weight.zero_()
        favours.table.weight[:, :2] = 3.0
    uniform = _Unigram()
    with torch.no_grad():
        uniform.table.weight.zero_()
    for mode in gen.MODES:
        same = gen.rise_interval(favours, text, 4, mode, 8)
        assert max(abs(v) for v in same) < 1e-6
        rise, low, high = gen.rise_interval(
            favours, text, 4, mode, 8, longer_model=uniform
        )
        assert rise > 1 and low <= rise <= high


def test_rise_interval_refuses_a_bad_level():
    with pytest.raises(ValueError, match="level must lie in"):
        gen.rise_interval(
            _Unigram(),
            torch.zeros(400, dtype=torch.long),
            4,
            "sliding",
            8,
            level=1.5,
        )
