"""Train, score and store every model of pages 9 and 10 (`make models`).

Every config of ``d2l_local.pretraining.CONFIGS``, every method and seed:
train, store the weights as the book ships them (int8 rows with a scale,
``pretraining.quantize``), score those weights on the held-out text, and
write the checkpoint and its log into ``d2l_local/trained``, with a
manifest of the whole run. The n-gram yardsticks are scored once.

Each model trains in a process of its own with one CPU thread, so that its
weights depend only on the device and the seed, not on the number of
workers: one process per core on the CPU; on a GPU, ``--workers`` processes
share it (default 1, one model after another, as the page's ``RETRAIN``
switch trains them), each with deterministic kernels. Run it again
whenever the code that trains or scores the models changes: a test compares
the code's hash with the one recorded here.

    python tools/train_models.py [--configs main short ...] [--workers N]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import shutil
import sys
import time

import torch

from d2l_local import pretraining, text


def describe_device(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return "CPU: " + line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU: " + (platform.processor() or platform.machine())


def versions() -> dict:
    import numpy
    import safetensors

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": numpy.__version__,
        "safetensors": safetensors.__version__,
    }


def train_one(job: tuple[str, str, int, str]) -> tuple[str, str, int, float]:
    """Train, score and save one model; return its wall time."""
    config_name, method, seed, device_name = job
    device = torch.device(device_name)
    torch.set_num_threads(1)
    if device.type == "cuda":
        from d2l_local import device as devices

        devices.deterministic()
    start = time.perf_counter()
    model, log = pretraining.train_and_score(config_name, method, seed, device)
    log.update(versions=versions(), device=describe_device(device))
    pretraining.save(model.cpu(), log, config_name, method, seed)
    return config_name, method, seed, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--configs", nargs="+", default=list(pretraining.CONFIGS)
    )
    parser.add_argument(
        "--workers",
        type=int,
        help="processes training at once (default: one per core on the "
        "CPU, 1 on a GPU)",
    )
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if args.workers is None:
        args.workers = 1 if device == "cuda" else os.cpu_count()
    jobs = [
        (name, method, seed, device)
        for name in args.configs
        for method in pretraining.CONFIGS[name].methods
        for seed in pretraining.CONFIGS[name].seeds
    ]
    if set(args.configs) == set(pretraining.CONFIGS):
        shutil.rmtree(pretraining.TRAINED, ignore_errors=True)
    pretraining.TRAINED.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    print(f"{len(jobs)} models on {describe_device(torch.device(device))}")
    workers = max(1, min(args.workers, len(jobs)))
    pool = multiprocessing.get_context("spawn").Pool(workers)
    results = pool.imap_unordered(train_one, jobs)
    for done, (name, method, seed, seconds) in enumerate(results, 1):
        print(
            f"[{done}/{len(jobs)}] {name}, {method}, seed {seed}: "
            f"{seconds:.0f} s ({time.perf_counter() - start:.0f} s in all)",
            flush=True,
        )
    corpus = text.load_corpus()
    yardsticks = pretraining.yardsticks(corpus, pretraining.MAIN.train_len)
    manifest = {
        "code_hash": pretraining.code_hash(),
        "corpus": {
            "python": corpus.python,
            **corpus.digests,
            "train_topics": corpus.train_topics,
            "dropped_topics": corpus.dropped_topics,
            "held_out_topics": corpus.held_out_topics,
            "train_characters": len(corpus.train),
            "held_out_characters": len(corpus.held_out),
        },
        "yardsticks": yardsticks,
        "versions": versions(),
        "device": describe_device(torch.device(device)),
        "workers": workers,
        "threads_per_worker": 1,
        "configs": list(args.configs),
        "seconds": time.perf_counter() - start,
    }
    import json

    (pretraining.TRAINED / "manifest.json").write_text(
        json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    )
    print(f"done in {manifest['seconds'] / 60:.1f} min")


if __name__ == "__main__":
    sys.exit(main())
