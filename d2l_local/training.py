"""Training with seeded mini-batches, for every page that trains a model
("Does the Model Need Position? An Experiment", "From an Offset to an
Attention Head" and "Relative Positions in Today's Models").

``train`` fits any model whose output holds one row of logits per target,
whether one per sequence (a classifier) or one per position; ``accuracy``
scores it. Targets equal to ``IGNORE`` count for nothing in either.
``train_seeds`` trains several such models, one per seed, as ``train`` would
train each, in one batched pass.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from . import checks

__all__ = ["IGNORE", "TrainingLog", "accuracy", "train", "train_seeds"]

# A target that no output has to match (a position with nothing to copy).
IGNORE = -100


@dataclass
class TrainingLog:
    """Loss of every training step, and the wall-clock seconds the training
    took."""

    losses: list[float] = field(default_factory=list)
    seconds: float = 0.0


def train(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    num_steps: int = 300,
    batch_size: int = 64,
    lr: float = 3e-3,
    seed: int = 0,
    progress=None,
) -> TrainingLog:
    """Adam on cross-entropy over seeded random mini-batches; targets equal
    to ``IGNORE`` count for nothing. Returns the loss curve.

    ``progress`` wraps the step range (pass ``tqdm`` for a progress bar).
    """
    num_steps = checks.positive_int("num_steps", num_steps)
    batch_size = checks.positive_int("batch_size", batch_size)
    device = next(model.parameters()).device
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss(ignore_index=IGNORE)
    log = TrainingLog()
    start = time.perf_counter()
    model.train()
    steps = (
        range(num_steps) if progress is None else progress(range(num_steps))
    )
    for _ in steps:
        batch = torch.randint(
            0, len(inputs), (batch_size,), generator=generator
        )
        logits = model(inputs[batch].to(device))
        loss = loss_fn(
            logits.flatten(0, -2), targets[batch].to(device).flatten()
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        log.losses.append(loss.item())
    log.seconds = time.perf_counter() - start
    return log


def train_seeds(
    models: Sequence[nn.Module],
    inputs: torch.Tensor,
    targets: torch.Tensor,
    seeds: Sequence[int],
    num_steps: int = 300,
    batch_size: int = 64,
    lr: float = 3e-3,
) -> None:
    """Train ``models[k]`` as ``train(models[k], ..., seed=seeds[k])``
    would, all of them at once.

    The models (the same architecture, their own weights) are stacked into
    one batched model that ``torch.func.vmap`` runs on every model's own
    mini-batch. Each model's gradient comes from its own loss, and Adam
    updates every weight from its own gradient, so each model ends as
    ``train`` leaves it, up to rounding; small models train faster so.
    """
    checks.models_and_seeds(models, seeds)
    num_steps = checks.positive_int("num_steps", num_steps)
    batch_size = checks.positive_int("batch_size", batch_size)
    device = next(models[0].parameters()).device
    weights, buffers = torch.func.stack_module_state(list(models))
    template = copy.deepcopy(models[0]).to("meta").train()

    def forward(weights, buffers, X):
        return torch.func.functional_call(template, (weights, buffers), X)

    generators = [torch.Generator().manual_seed(seed) for seed in seeds]
    optimizer = torch.optim.Adam(weights.values(), lr=lr)
    loss_fn = nn.CrossEntropyLoss(ignore_index=IGNORE)
    for _ in range(num_steps):
        batches = torch.stack(
            [
                torch.randint(0, len(inputs), (batch_size,), generator=g)
                for g in generators
            ]
        )
        logits = torch.func.vmap(forward)(
            weights, buffers, inputs[batches].to(device)
        )
        # A sum of the models' losses: each model's weights get the
        # gradient of its own loss alone.
        loss = sum(
            loss_fn(model_logits.flatten(0, -2), model_targets.flatten())
            for model_logits, model_targets in zip(
                logits, targets[batches].to(device)
            )
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        for k, model in enumerate(models):
            # named_parameters() lists a shared weight once, as
            # stack_module_state does.
            for name, value in model.named_parameters():
                value.copy_(weights[name][k])
            for name, value in model.named_buffers():
                value.copy_(buffers[name][k])


def accuracy(
    model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor
) -> float:
    """Share of the targets (``IGNORE`` left out) that the model's highest
    logit gets right."""
    model.eval()
    device = next(model.parameters()).device
    with torch.no_grad():
        predictions = model(inputs.to(device)).argmax(dim=-1).cpu()
    counted = targets != IGNORE
    return (predictions[counted] == targets[counted]).double().mean().item()
