"""Training the small language models of page "Train Short, Test Long:
Position on Real Text" (which shows ``Config``, ``learning_rate`` and
``train_model``), scoring them, and storing them with their provenance.

``make models`` (``tools/train_models.py``) runs this once, outside the
book's build, and writes the checkpoints and their logs into the package
(``d2l_local/trained``); the pages load them with ``load``.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import math
import textwrap
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import torch
from torch import nn

from . import (
    checks,
    context_extension,
    decoder,
    language_model,
    ngram,
    positional_encoding,
    relative,
    relative_family,
    text,
)

__all__ = [
    "CONFIGS",
    "METHODS",
    "TRAINED",
    "Config",
    "code_hash",
    "dequantize",
    "evaluate",
    "evaluate_extensions",
    "learning_rate",
    "load",
    "load_log",
    "load_run",
    "make_model",
    "manifest",
    "quantize",
    "save",
    "slug",
    "train_and_score",
    "train_model",
    "yardsticks",
]

METHODS = (
    "learned",
    "sinusoidal",
    "RoPE",
    "p-RoPE",
    "partial RoPE",
    "iRoPE",
    "ALiBi",
    "T5 bias",
    "NoPE",
)

# Where the checkpoints and their logs live, inside the package.
TRAINED = Path(__file__).with_name("trained")


@dataclass(frozen=True)
class Config:
    """One way to train every method: the model's size, the schedule and
    the seeds."""

    name: str
    num_hiddens: int = 64
    num_heads: int = 4
    num_layers: int = 3
    dropout: float = 0.1
    train_len: int = 32
    num_steps: int = 2500
    batch_size: int = 64
    lr: float = 6e-3  # the peak, reached at the end of the warm-up
    warmup: int = 125
    final_lr_share: float = 0.1  # the cosine ends at this share of lr
    weight_decay: float = 0.1
    betas: tuple[float, float] = (0.9, 0.99)
    clip: float = 1.0
    log_every: int = 100
    # False: the weights are scored and logged but not stored in the
    # package (the budget for the shipped weights is 10 MB).
    shipped: bool = True
    seeds: tuple[int, ...] = (0, 1, 2)
    methods: tuple[str, ...] = METHODS
    # Options of each method's attention layers or table.
    options: dict = field(
        default_factory=lambda: {
            "p-RoPE": {"keep": 0.25},
            "partial RoPE": {"share": 0.25},
            "iRoPE": {"nope_every": 3},
            "T5 bias": {"num_buckets": 16, "max_distance": 32},
        }
    )

    @property
    def head_width(self) -> int:
        return self.num_hiddens // self.num_heads

    @property
    def lengths(self) -> list[int]:
        """The window lengths scored: L, 2L, 4L and 8L."""
        return [self.train_len * k for k in (1, 2, 4, 8)]


MAIN = Config("main")
CONFIGS = {
    "main": MAIN,
    # About a tenth of the steps, the same shape of schedule.
    "short": replace(
        MAIN,
        name="short",
        num_steps=250,
        warmup=13,
        log_every=25,
        shipped=False,
    ),
    # Heads twice as wide: two of 32 columns instead of four of 16.
    "wide heads": replace(MAIN, name="wide heads", num_heads=2),
}
# The learned table cannot read past L, so the budget checks leave it out.
for _name in ("short", "wide heads"):
    CONFIGS[_name] = replace(CONFIGS[_name], methods=METHODS[1:])


def slug(name: str) -> str:
    """A file name for a config or a method: lower case, dashes."""
    return name.lower().replace(" ", "-").replace(".", "")


def make_model(config: Config, method: str, seed: int) -> decoder.Decoder:
    """The untrained model of ``method``, drawn from ``seed``."""
    checks.choice("method", method, dict.fromkeys(config.methods))
    options = dict(config.options.get(method, {}))
    if method == "learned":
        options["max_len"] = config.train_len
    torch.manual_seed(seed)
    return decoder.Decoder(
        method,
        config.num_hiddens,
        config.num_heads,
        config.num_layers,
        dropout=config.dropout,
        **options,
    )


def learning_rate(config: Config, step: int) -> float:
    """Linear warm-up to ``lr``, then a cosine down to
    ``final_lr_share * lr`` at the last step."""
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    done = (step - config.warmup) / max(1, config.num_steps - config.warmup)
    share = config.final_lr_share + (1 - config.final_lr_share) * 0.5 * (
        1 + math.cos(math.pi * done)
    )
    return config.lr * share


def _optimizer(model: nn.Module, config: Config) -> torch.optim.AdamW:
    """AdamW with weight decay on the matrices and tables only, not on the
    biases and the norms' gains."""
    decayed = [p for p in model.parameters() if p.dim() >= 2]
    kept = [p for p in model.parameters() if p.dim() < 2]
    return torch.optim.AdamW(
        [
            {"params": decayed, "weight_decay": config.weight_decay},
            {"params": kept, "weight_decay": 0.0},
        ],
        lr=config.lr,
        betas=config.betas,
    )


def _held_out_probe(held_out: torch.Tensor, train_len: int):
    """Every 4th window of L of the held-out text: the held-out curve's
    inputs and targets."""
    windows = (len(held_out) - 1) // train_len
    X = held_out[: windows * train_len].view(windows, train_len)[::4]
    Y = held_out[1 : windows * train_len + 1].view(windows, train_len)[::4]
    return X, Y


def _mean_bits(model, X, Y, device, batch_size=256) -> float:
    model.eval()
    total = 0.0
    with torch.no_grad():
        for start in range(0, len(X), batch_size):
            logits = model(X[start : start + batch_size].to(device))
            total += nn.functional.cross_entropy(
                logits.flatten(0, 1),
                Y[start : start + batch_size].to(device).flatten(),
                reduction="sum",
            ).item()
    return total / Y.numel() / math.log(2)


def train_model(
    config: Config,
    method: str,
    seed: int,
    corpus: text.Corpus,
    device: torch.device | None = None,
    num_steps: int | None = None,
) -> tuple[decoder.Decoder, dict]:
    """Train ``method`` from ``seed`` on the corpus's training text: AdamW
    on random windows of L characters, the learning rate of
    ``learning_rate``, gradients clipped to norm ``clip``.

    Returns the model and its curves: the mean training loss since the last
    point and the loss on a fixed quarter of the held-out windows, both in
    bits per character, every ``log_every`` steps. ``num_steps`` stops
    early (the schedule stays that of the whole run).
    """
    device = torch.device("cpu") if device is None else device
    stop = config.num_steps if num_steps is None else num_steps
    model = make_model(config, method, seed).to(device)
    inputs, targets = language_model.training_windows(
        corpus.train, config.train_len
    )
    probe = _held_out_probe(corpus.held_out, config.train_len)
    optimizer = _optimizer(model, config)
    batches = torch.Generator().manual_seed(seed)
    curves = {"step": [], "train": [], "held_out": []}
    running, start = 0.0, time.perf_counter()
    for step in range(stop):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(config, step)
        model.train()
        batch = torch.randint(
            0, len(inputs), (config.batch_size,), generator=batches
        )
        logits = model(inputs[batch].to(device))
        loss = nn.functional.cross_entropy(
            logits.flatten(0, 1), targets[batch].to(device).flatten()
        )
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), config.clip)
        optimizer.step()
        running += loss.item()
        if (step + 1) % config.log_every == 0:
            curves["step"].append(step + 1)
            curves["train"].append(running / config.log_every / math.log(2))
            curves["held_out"].append(_mean_bits(model, *probe, device))
            running = 0.0
    model.eval()
    return model, {"curves": curves, "seconds": time.perf_counter() - start}


def quantize(model: nn.Module) -> dict[str, torch.Tensor]:
    """The weights to store: every matrix or table of 1024 or more entries
    as int8 with one float32 scale per row (its largest magnitude / 127),
    the rest as float32. ``dequantize`` gives the model that the book
    evaluates and the browser runs."""
    stored, seen = {}, set()
    for name, value in model.state_dict().items():
        if value.data_ptr() in seen:  # shared (T5's one bias table): once
            continue
        seen.add(value.data_ptr())
        value = value.detach().float().cpu()
        if value.dim() >= 2 and value.numel() >= 1024:
            rows = value.reshape(-1, value.shape[-1])
            scale = rows.abs().amax(dim=1).clamp(min=1e-12) / 127
            stored[name + ".q"] = (
                torch.round(rows / scale[:, None]).to(torch.int8).contiguous()
            )
            stored[name + ".scale"] = scale.contiguous()
        else:
            stored[name] = value.contiguous()
    return stored


def dequantize(
    stored: dict[str, torch.Tensor], shapes: dict[str, torch.Size]
) -> dict[str, torch.Tensor]:
    """A state dict of float32 tensors of the given shapes from
    ``quantize``'s output (a shared tensor under its first name only)."""
    state = {}
    for name, shape in shapes.items():
        if name not in stored and name + ".q" not in stored:
            continue
        if name + ".q" in stored:
            rows = (
                stored[name + ".q"].float() * stored[name + ".scale"][:, None]
            )
            state[name] = rows.reshape(shape)
        else:
            state[name] = stored[name].float().reshape(shape)
    return state


def evaluate(
    model: nn.Module,
    held_out: torch.Tensor,
    train_len: int,
    device: torch.device | None = None,
    baseline_stride: int = 4,
) -> dict:
    """Bits per character on the held-out text, every mode scoring the same
    characters: all but the first 8L (context only) and the few at the end
    that do not fill a window of 8L.

    - ``non-overlapping``: windows of n side by side, each scored at every
      position, for n = L, 2L, 4L, 8L; a scored character has 1 to n
      characters before it in its window;
    - ``sliding``: a window of n that steps by L and scores its last L, for
      n = 2L, 4L, 8L; a scored character has n - L + 1 to n before it;
    - ``baseline``: a window of L that steps by ``baseline_stride`` and
      scores its last ones; a scored character has L - stride + 1 to L
      before it, all at positions seen in training;
    - ``positions``: the loss at each position of the windows of 8L.
    """
    longest = 8 * train_len
    max_len = getattr(getattr(model, "positions", None), "P", None)
    if max_len is not None and max_len.shape[1] < longest:
        return _evaluate_learned(model, held_out, train_len, device)
    context = longest
    scored = (len(held_out) - 1 - context) // longest * longest
    model = model.to(device or "cpu").eval()

    def bits(window, stride):
        return language_model.position_bits(
            model, held_out, window, stride, context, scored, batch_size=64
        )

    positions = bits(longest, None)
    lengths = [train_len * k for k in (1, 2, 4)]
    return {
        "scored": scored,
        "non-overlapping": {
            **{n: bits(n, None).mean().item() for n in lengths},
            longest: positions.mean().item(),
        },
        "sliding": {
            n: bits(n, train_len).mean().item()
            for n in lengths[1:] + [longest]
        },
        "baseline": bits(train_len, baseline_stride).mean().item(),
        "positions": positions.tolist(),
    }


def _evaluate_learned(model, held_out, train_len, device, stride=4) -> dict:
    """``evaluate`` for a learned table of L rows: at L only."""
    context = 8 * train_len
    scored = (len(held_out) - 1 - context) // context * context
    model = model.to(device or "cpu").eval()
    kept = {"non-overlapping": None, "baseline": stride}
    bits = {
        mode: language_model.position_bits(
            model, held_out, train_len, s, context, scored, batch_size=64
        )
        .mean()
        .item()
        for mode, s in kept.items()
    }
    return {
        "scored": scored,
        "non-overlapping": {train_len: bits["non-overlapping"]},
        "sliding": {},
        "baseline": bits["baseline"],
        "positions": None,
    }


def evaluate_extensions(
    model: nn.Module,
    held_out: torch.Tensor,
    train_len: int,
    device: torch.device | None = None,
) -> dict:
    """``evaluate``'s non-overlapping and sliding bits at 2L, 4L and 8L for
    a RoPE model stretched by each method of
    ``context_extension.EXTENSIONS`` to each length."""
    results = {}
    for how in context_extension.EXTENSIONS:
        if how == "raw":
            continue
        results[how] = {"non-overlapping": {}, "sliding": {}}
        for factor in (2, 4, 8):
            stretched = context_extension.extend_context(
                model, how, factor, train_len
            )
            scores = evaluate(stretched, held_out, train_len, device)
            n = factor * train_len
            for mode in ("non-overlapping", "sliding"):
                results[how][mode][n] = scores[mode][n]
    return results


def yardsticks(corpus: text.Corpus, train_len: int) -> dict:
    """Bits per character of n-gram models fitted on the training text,
    scored on the characters ``evaluate`` scores."""
    context = 8 * train_len
    scored = (len(corpus.held_out) - 1 - context) // context * context
    train, held = corpus.train.tolist(), corpus.held_out.tolist()
    results = {}
    for smoothing in ngram.SMOOTHINGS:
        for order in (2, 3, 4, 5, 6):
            model = ngram.NGram(train, order, len(text.VOCABULARY), smoothing)
            results[f"{smoothing} {order}"] = model.bits(
                held, context + 1, context + 1 + scored
            )
    return results


def _path(config: str, method: str, seed: int, suffix: str) -> Path:
    return TRAINED / slug(config) / f"{slug(method)}-seed{seed}{suffix}"


def save(
    model: nn.Module, log: dict, config: str, method: str, seed: int
) -> None:
    """Write the log (JSON) and, for a shipped config, the quantized weights
    (safetensors); the log records the weights' SHA-256 either way."""
    from safetensors.torch import save

    weights = save(quantize(model))
    log = dict(log, weights_sha256=hashlib.sha256(weights).hexdigest())
    path = _path(config, method, seed, ".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    if CONFIGS[config].shipped:
        path.with_suffix(".safetensors").write_bytes(weights)
    path.write_text(json.dumps(log, indent=1, sort_keys=True) + "\n")


def _int_keys(pairs):
    """JSON writes the window lengths as strings: read them back as
    ints."""
    return {int(k) if k.isdigit() else k: v for k, v in pairs}


def load_log(config: str, method: str, seed: int) -> dict:
    """The training log of one model: its config, curves, provenance and
    scores."""
    path = _path(config, method, seed, ".json")
    return json.loads(path.read_text(), object_pairs_hook=_int_keys)


def load_run(name: str) -> dict:
    """A run of ``make models`` made elsewhere (on a GPU, say), as
    ``tools/record_run.py`` recorded it in ``trained/runs``: its manifest,
    and every config's scores, method by method, one dict per seed."""
    path = TRAINED / "runs" / f"{name}.json"
    return json.loads(path.read_text(), object_pairs_hook=_int_keys)


def load(
    config: str,
    method: str,
    seed: int,
    device: torch.device | None = None,
) -> decoder.Decoder:
    """The trained model of ``method`` and ``seed`` in ``config`` (a key of
    ``CONFIGS``), ready to evaluate."""
    from safetensors.torch import load_file

    settings = checks.choice("config", config, CONFIGS)
    model = make_model(settings, method, seed)
    path = _path(config, method, seed, ".safetensors")
    if not path.exists():
        raise FileNotFoundError(
            f"no checkpoint for {method!r}, seed {seed}, config {config!r} "
            f"at {path}: run `make models`"
        )
    _load_weights(model, load_file(path))
    return model.to(device or "cpu").eval()


def _load_weights(model: nn.Module, stored: dict) -> None:
    """Load ``quantize``'s output into ``model``; a tensor stored once for
    several names fills them all, since they share it."""
    state = model.state_dict()
    shapes = {k: v.shape for k, v in state.items()}
    result = model.load_state_dict(dequantize(stored, shapes), strict=False)
    loaded = {
        state[k].data_ptr() for k in shapes if k not in result.missing_keys
    }
    if result.unexpected_keys or any(
        state[k].data_ptr() not in loaded for k in result.missing_keys
    ):
        raise ValueError(
            f"checkpoint does not fit the model: missing "
            f"{result.missing_keys}, unexpected {result.unexpected_keys}"
        )


def manifest() -> dict:
    """What ``make models`` recorded about the whole run."""
    return json.loads((TRAINED / "manifest.json").read_text())


def train_and_score(
    config_name: str, method: str, seed: int, device: torch.device
) -> tuple[decoder.Decoder, dict]:
    """What ``make models`` does for one model: train it, round its weights
    as they are stored (``quantize``), and score the stored weights on the
    held-out text (and, for the main RoPE models, stretched by each method
    of ``context_extension``). Returns the model and its log."""
    config = CONFIGS[config_name]
    corpus = text.load_corpus()
    start, cpu_start = time.perf_counter(), time.process_time()
    model, log = train_model(config, method, seed, corpus, device)
    probe = _held_out_probe(corpus.held_out, config.train_len)
    before = _mean_bits(model, *probe, device)
    _load_weights(model, quantize(model))
    after = _mean_bits(model, *probe, device)
    trained = time.perf_counter() - start
    scores = evaluate(model, corpus.held_out, config.train_len, device)
    extensions = None
    if config_name == "main" and method == "RoPE":
        extensions = evaluate_extensions(
            model, corpus.held_out, config.train_len, device
        )
    log.update(
        config={**asdict(config), "methods": list(config.methods)},
        method=method,
        seed=seed,
        quantization={"float32": before, "int8": after},
        scores=scores,
        extensions=extensions,
        seconds=trained,
        scoring_seconds=time.perf_counter() - start - trained,
        cpu_seconds=time.process_time() - cpu_start,
        code_hash=code_hash(),
        corpus={"python": corpus.python, **corpus.digests},
    )
    return model, log


# Everything that decides what ``make models`` writes: its source is hashed
# into every log, and a test fails when it no longer matches.
_TRAINING_CODE = (
    text.encode,
    text._runs,
    text.distinct_topics,
    text.load_corpus,
    decoder.layer_kinds,
    decoder.Block,
    decoder.share_t5_bias,
    decoder.Decoder,
    relative_family.offsets,
    relative_family.PositionalSelfAttention,
    relative_family.RotaryEmbedding,
    relative_family.PartialRotary,
    relative_family.NeoXPartialRotary,
    relative_family.ALiBi,
    relative_family.t5_bucket,
    relative_family.T5Bias,
    relative.frequencies,
    relative.rope,
    positional_encoding.sinusoidal_encoding,
    positional_encoding.PositionalEncoding,
    positional_encoding.LearnedPositionalEmbedding,
    language_model.training_windows,
    language_model._scored_windows,
    language_model.position_bits,
    context_extension,
    ngram,
    Config,
    make_model,
    learning_rate,
    _optimizer,
    _held_out_probe,
    _mean_bits,
    train_model,
    quantize,
    dequantize,
    _load_weights,
    evaluate,
    _evaluate_learned,
    evaluate_extensions,
    yardsticks,
    train_and_score,
    positional_encoding._AddedPositions,
)


def _without_docstrings(source: str) -> str:
    """The source less the lines of its docstrings, which train nothing:
    correcting one must not call for a retrain."""
    source = textwrap.dedent(source)
    documented = (
        ast.Module,
        ast.ClassDef,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
    )
    lines = set()
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, documented)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
            and isinstance(node.body[0].value.value, str)
        ):
            first = node.body[0]
            lines.update(range(first.lineno, first.end_lineno + 1))
    return "".join(
        line
        for number, line in enumerate(source.splitlines(keepends=True), 1)
        if number not in lines
    )


def code_hash() -> str:
    """SHA-256 of the source of everything that trains and scores the
    models, and of the configs, methods, vocabulary and held-out topics."""
    digest = hashlib.sha256()
    for item in _TRAINING_CODE:
        source = _without_docstrings(inspect.getsource(item))
        digest.update(source.encode())
    constants = {
        "configs": {k: repr(v) for k, v in CONFIGS.items()},
        "methods": {
            k: [getattr(t, "__name__", None), layer.__name__]
            for k, (t, layer) in decoder.METHODS.items()
        },
        "vocabulary": text.VOCABULARY,
        "held_out": text.HELD_OUT_TOPICS,
        "run": text.RUN,
    }
    digest.update(json.dumps(constants, sort_keys=True).encode())
    return digest.hexdigest()
