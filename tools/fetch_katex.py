"""Put KaTeX, the library that typesets the book's formulas, into the virtual
environment: its release tarball from the npm registry, checked against the
integrity hash the registry publishes for that version.

    python tools/fetch_katex.py            # into <venv>/share/katex

The book's extension (_ext/book_math.py) reads it from there when the book is
built; nothing is fetched while a reader loads a page.
"""

from __future__ import annotations

import base64
import hashlib
import io
import shutil
import sys
import tarfile
import urllib.request
from pathlib import Path

VERSION = "0.16.22"
TARBALL = f"https://registry.npmjs.org/katex/-/katex-{VERSION}.tgz"
# The registry's "dist.integrity" for katex 0.16.22.
SHA512 = (
    "XCHRdUw4lf3SKBaJe4EvgqIuWwkPSo9XoeO8GjQW94Bp7TWv9hNhzZjZ+OH9yf1U"
    "mLygb7DIT5GSFQiyt16zYg=="
)
# The files the book uses: the typesetter, its stylesheet and its fonts.
WANTED = (
    "package/dist/katex.min.js",
    "package/dist/katex.min.css",
    "package/dist/fonts/",
)


def install_dir(prefix: Path = Path(sys.prefix)) -> Path:
    """Where the book's extension looks for KaTeX (_ext/book_math.py)."""
    return prefix / "share" / "katex"


def verified(data: bytes) -> bytes:
    digest = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != SHA512:
        raise SystemExit(
            f"KaTeX {VERSION} from {TARBALL} does not match its "
            f"published sha512 ({digest[:16]}... received)"
        )
    return data


def fetch(target: Path) -> None:
    """Unpack into a scratch folder first, so that an interrupted fetch never
    leaves a half-filled ``target``."""
    with urllib.request.urlopen(TARBALL, timeout=120) as response:
        data = verified(response.read())
    scratch = target.with_name(target.name + ".partial")
    shutil.rmtree(scratch, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        members = [
            m
            for m in archive.getmembers()
            if m.isfile() and m.name.startswith(WANTED)
        ]
        for member in members:
            destination = scratch / member.name.removeprefix("package/dist/")
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(archive.extractfile(member).read())
    shutil.rmtree(target, ignore_errors=True)
    (scratch / "VERSION").write_text(VERSION + "\n")
    scratch.rename(target)


def main() -> None:
    target = install_dir()
    stamp = target / "VERSION"
    if stamp.is_file() and stamp.read_text().strip() == VERSION:
        return
    fetch(target)
    print(f"KaTeX {VERSION} installed in {target}")


if __name__ == "__main__":
    main()
