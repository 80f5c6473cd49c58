"""Local stand-in for the parts of ``d2l.torch`` this book uses, and a few
more.

Import it as ``import d2l_local as d2l``;
the names and calls match ``d2l.torch`` where d2l has them.
"""

from .attention import (
    DotProductAttention,
    MultiHeadAttention,
    causal_valid_lens,
    masked_softmax,
)
from .checks import check_shape
from .device import cpu, deterministic, gpu, num_gpus, try_gpu
from .live_panel import live_panel
from .notebook import glue, show_source, table
from .plotting import (
    label_lines,
    plot,
    set_axes,
    set_figsize,
    show_heatmaps,
    use_svg_display,
)
from .positional_encoding import (
    LearnedPositionalEmbedding,
    PositionalEncoding,
    sines_then_cosines,
    sinusoidal_encoding,
)
from .quiz import NumberQuestion, Option, Proof, Question, self_check
from .relative import (
    RotaryMultiHeadAttention,
    frequencies,
    halves_order,
    rope,
    rotation_matrix,
    shift_error,
)
from .widgets import Choice, choice_control, choice_controls

__all__ = [
    "Choice",
    "DotProductAttention",
    "LearnedPositionalEmbedding",
    "MultiHeadAttention",
    "NumberQuestion",
    "Option",
    "PositionalEncoding",
    "Proof",
    "Question",
    "RotaryMultiHeadAttention",
    "causal_valid_lens",
    "check_shape",
    "choice_control",
    "choice_controls",
    "cpu",
    "deterministic",
    "frequencies",
    "glue",
    "gpu",
    "halves_order",
    "label_lines",
    "live_panel",
    "masked_softmax",
    "num_gpus",
    "plot",
    "rope",
    "rotation_matrix",
    "self_check",
    "set_axes",
    "set_figsize",
    "shift_error",
    "show_heatmaps",
    "show_source",
    "sines_then_cosines",
    "sinusoidal_encoding",
    "table",
    "try_gpu",
    "use_svg_display",
]
