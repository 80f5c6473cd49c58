"""The trained models that pages 9 and 10 load (d2l_local/trained): there,
small, regenerated whenever the code that trains or scores them changes,
and scoring what their logs say they score."""

from __future__ import annotations

import hashlib
import math

import pytest
import torch

from d2l_local import language_model, pretraining, text

MANIFEST = pretraining.manifest()
MODELS = [
    (name, method, seed)
    for name, config in pretraining.CONFIGS.items()
    for method in config.methods
    for seed in config.seeds
]
# A brief run of this many steps retraces the start of a logged curve.
BRIEF = 200
# Float rounding differs between CPUs with other instruction sets (AVX-512,
# AVX2, the generic paths), and training carries it from step to step.
# Measured after 200 steps, against the logged run on AVX-512: 3.0e-7 bits
# per character at most under AVX2 and under the generic paths
# (ATEN_CPU_CAPABILITY=default). The tolerance is thirty times that, and
# four orders of magnitude below the 0.19 bits the loss falls from one
# logged point to the next at step 200.
CURVE_TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def corpus():
    return text.load_corpus()


def test_the_checkpoints_were_made_by_the_code_that_is_here():
    assert MANIFEST["code_hash"] == pretraining.code_hash(), (
        "the code that trains or scores the models changed since `make "
        "models` ran: run `make models` and commit d2l_local/trained"
    )
    assert set(MANIFEST["configs"]) == set(pretraining.CONFIGS)


@pytest.mark.parametrize(
    "model", MODELS, ids=lambda m: f"{m[0]}-{m[1]}-seed{m[2]}"
)
def test_every_model_has_its_weights_and_a_log_of_its_training(model):
    name, method, seed = (model[0], model[1], model[2])
    log = pretraining.load_log(name, method, seed)
    assert log["code_hash"] == MANIFEST["code_hash"]
    assert log["config"]["name"] == name and log["method"] == method
    curves = log["curves"]
    config = pretraining.CONFIGS[name]
    assert curves["step"][-1] == config.num_steps
    assert (
        len(curves["train"]) == len(curves["held_out"]) == len(curves["step"])
    )
    assert {"python", "torch"} <= set(log["versions"])
    assert log["device"] and log["seconds"] > 0
    path = pretraining._path(name, method, seed, ".safetensors")
    if config.shipped:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert digest == log["weights_sha256"]
    else:
        assert not path.exists()


def test_the_shipped_weights_take_at_most_10_mb():
    size = sum(
        p.stat().st_size for p in pretraining.TRAINED.rglob("*.safetensors")
    )
    assert 0 < size <= 10_000_000, f"{size:,} bytes"


def test_the_logs_were_scored_on_the_held_out_text_that_is_here(corpus):
    assert MANIFEST["corpus"]["held_out"] == corpus.digests["held_out"]


@pytest.mark.parametrize("method", pretraining.MAIN.methods)
def test_the_shipped_weights_score_what_the_log_says(method, corpus):
    """Scored again here, on this machine: float32 sums over 37,000
    characters differ between CPUs in the 6th digit at most."""
    log = pretraining.load_log("main", method, 0)
    model = pretraining.load("main", method, 0)
    L, scored = pretraining.MAIN.train_len, log["scores"]["scored"]
    context = 8 * L
    for stride, logged in [
        (None, log["scores"]["non-overlapping"][L]),
        (4, log["scores"]["baseline"]),
    ]:
        bits = language_model.bits_per_character(
            model, corpus.held_out, L, stride, context, scored
        )
        assert math.isclose(bits, logged, abs_tol=1e-4), (stride, bits)


def test_a_brief_run_retraces_the_start_of_the_logged_curve(corpus):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as make models trains
    try:
        _, brief = pretraining.train_model(
            pretraining.MAIN, "RoPE", 0, corpus, num_steps=BRIEF
        )
    finally:
        torch.set_num_threads(threads)
    logged = pretraining.load_log("main", "RoPE", 0)["curves"]
    points = len(brief["curves"]["step"])
    assert brief["curves"]["step"] == logged["step"][:points]
    for key in ("train", "held_out"):
        for mine, theirs in zip(brief["curves"][key], logged[key]):
            assert abs(mine - theirs) <= CURVE_TOLERANCE, (key, mine, theirs)


def test_the_recorded_gpu_run_has_every_model_scored_on_the_same_text():
    run = pretraining.load_run("h200")
    held_out = run["manifest"]["corpus"]["held_out"]
    assert held_out == MANIFEST["corpus"]["held_out"]
    for name, config in pretraining.CONFIGS.items():
        for method in config.methods:
            per_seed = run["scores"][name][method]
            assert len(per_seed) == len(config.seeds), (name, method)
            for seed, scores in zip(config.seeds, per_seed):
                shipped = pretraining.load_log(name, method, seed)["scores"]
                assert config.train_len in scores["non-overlapping"]
                assert scores["scored"] == shipped["scored"]
