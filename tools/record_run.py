"""Summarise a run of `make models` made elsewhere (on a GPU, say) into one
small record that the book ships and real_text reads.

    python tools/record_run.py TRAINED_DIR d2l_local/trained/runs/NAME.json

TRAINED_DIR is the ``d2l_local/trained`` folder that run wrote. The record
keeps its manifest (device, versions, workers, wall time, corpus, n-gram
yardsticks) and every model's scores, not its weights.
"""

from __future__ import annotations

import json
import pathlib
import sys

from d2l_local import pretraining


def record(trained: pathlib.Path) -> dict:
    manifest = json.loads((trained / "manifest.json").read_text())
    scores = {}
    for name, config in pretraining.CONFIGS.items():
        for method in config.methods:
            for seed in config.seeds:
                relative = pretraining._path(
                    name, method, seed, ".json"
                ).relative_to(pretraining.TRAINED)
                log = json.loads((trained / relative).read_text())
                kept = {
                    k: v for k, v in log["scores"].items() if k != "positions"
                }
                scores.setdefault(name, {}).setdefault(method, []).append(kept)
    return {"manifest": manifest, "scores": scores}


def main() -> None:
    source, target = map(pathlib.Path, sys.argv[1:3])
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        json.dumps(record(source), indent=1, sort_keys=True) + "\n"
    )


if __name__ == "__main__":
    main()
