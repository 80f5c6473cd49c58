"""Execute the chapters into the book's jupyter-cache, several at a time.

``jupyter-book build`` executes notebooks one after another; this runs one
kernel per core (one thread each), reading each MyST file exactly as MyST-NB
does, so that the build then finds every chapter in the cache and only
renders. As no more kernels run than there are cores, a chapter that times
code has a core to itself while it reads the clock. Those chapters start
first; the others follow, the largest first, each as soon as a core is free.
Chapters already cached (same code, same kernel) are skipped.
Usage: python tools/prime_cache.py CACHE_DIR chapters/NAME.md [...]
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.executors.utils import single_nb_execution
from myst_nb.core.read import read_myst_markdown_notebook

# Chapters that call the library's timer measure wall-clock time; a kernel
# sharing their core would slow them.
TIMER_CALL = "time_layer("
# what MyST-NB records for .md
READ_DATA = {"type": "plugin", "name": "myst_nb_md"}


def read(path: Path):
    return read_myst_markdown_notebook(
        path.read_text(), add_source_map=True, path=str(path)
    )


def one_thread_each() -> None:
    """Kernels started by this worker use one thread: kernels with several
    OpenMP threads each, sharing few cores, spin against each other."""
    os.environ.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")


def execute(path: Path):
    """Run one chapter in its own folder, as MyST-NB does; return it and its
    seconds."""
    notebook = read(path)
    result = single_nb_execution(
        notebook,
        cwd=str(path.parent),
        timeout=600,
        allow_errors=False,
        meta_override=True,
    )
    if result.err is not None:
        raise RuntimeError(f"{path} failed:\n{result.exc_string}")
    return notebook, result.time


def store(cache, path: Path, notebook, seconds: float) -> None:
    # Saved widget state is for a widget manager, which the book does not load
    # (its controls are static HTML): leave it out of the pages.
    notebook.metadata.pop("widgets", None)
    record = cache.add_nb_to_project(str(path), read_data=READ_DATA)
    cache.cache_notebook_bundle(
        CacheBundleIn(
            notebook, record.uri, data={"execution_seconds": seconds}
        ),
        check_validity=False,
        overwrite=True,
    )
    print(f"executed {path.name} in {seconds:.1f} s", flush=True)


def is_cached(cache, path: Path) -> bool:
    try:
        cache.match_cache_notebook(read(path))
    except KeyError:
        return False
    return True


def run(cache, paths: list[Path], workers: int) -> None:
    if not paths:
        return
    with ProcessPoolExecutor(
        max_workers=min(workers, len(paths)), initializer=one_thread_each
    ) as pool:
        futures = {pool.submit(execute, p): p for p in paths}
        for future in as_completed(futures):
            store(cache, futures[future], *future.result())


def start_order(path: Path) -> tuple[bool, int]:
    """Timing chapters first; then the longest source first, so that a long
    chapter does not start when the others are nearly done."""
    text = path.read_text()
    return TIMER_CALL not in text, -len(text)


def main(cache_dir: str, sources: list[str]) -> None:
    cache = get_cache(cache_dir)
    todo = [
        p
        for p in (Path(s).resolve() for s in sources)
        if not is_cached(cache, p)
    ]
    start = time.perf_counter()
    # The pool hands out chapters in the order submitted.
    run(cache, sorted(todo, key=start_order), workers=cores())
    seconds = time.perf_counter() - start
    print(
        f"{len(todo)} of {len(sources)} chapters executed in "
        f"{seconds:.1f} s ({len(sources) - len(todo)} cached)"
    )


def cores() -> int:
    """The cores this process may use (a container may allow fewer than the
    machine has); macOS cannot tell, so all of the machine's."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
