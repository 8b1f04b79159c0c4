"""The real-Markdown corpora keep each package's documentation and nothing else (no network:
archives made here, laid out as an sdist and as an npm package)."""

from __future__ import annotations

import io
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from bench.kb_eval.real_corpus import _unpack  # noqa: E402


def _archive(path: Path, root: str, files: list[str]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name in files:
            data = f"# {name}\n".encode()
            info = tarfile.TarInfo(f"{root}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _kept(corpus: Path) -> set[str]:
    return {p.relative_to(corpus).as_posix() for p in corpus.rglob("*") if p.is_file()}


def test_an_sdist_of_the_quality_corpus_keeps_its_docs_folder_and_root_files(tmp_path: Path) -> None:
    sdist = _archive(tmp_path / "attrs-24.2.0.tar.gz", "attrs-24.2.0", [
        "README.md", "CHANGELOG.md", "setup.md", "docs/index.md", "docs/api.md", "docs/_static/logo.svg",
        "docs/tests/x.md", "tests/test_x.md", ".github/PULL_REQUEST_TEMPLATE.md", "src/attrs/notes.md",
    ])
    _unpack(sdist, "attrs", tmp_path / "corpus")
    assert _kept(tmp_path / "corpus") == {
        "attrs/README.md", "attrs/CHANGELOG.md", "attrs/docs/index.md", "attrs/docs/api.md",
        "attrs/docs/_static/logo.svg"}


def test_the_large_corpus_takes_doc_folders_where_a_package_keeps_them(tmp_path: Path) -> None:
    npm = _archive(tmp_path / "serverless-3.39.0.tgz", "package", [
        "README.md", "docs/guides/intro.md", "docs/guides/intro.js", "node_modules/x/README.md", "lib/a.md"])
    _unpack(npm, "serverless", tmp_path / "corpus")
    lint = _archive(tmp_path / "ansible_lint-24.12.2.tar.gz", "ansible_lint-24.12.2", [
        "src/ansiblelint/rules/yaml.md", "src/ansiblelint/rules/yaml.py", "docs/usage.md", "test/a.md"])
    _unpack(lint, "ansible-lint", tmp_path / "corpus")
    assert _kept(tmp_path / "corpus") == {
        "serverless/README.md", "serverless/docs/guides/intro.md", "ansible-lint/src/ansiblelint/rules/yaml.md"}
