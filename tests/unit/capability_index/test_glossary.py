"""The glossary's data file and its loader."""

from __future__ import annotations

import pytest

from capability_index.domain import glossary
from capability_index.domain.glossary import EXTRA_WORDS, GLOSSARY, GROUP_KINDS, domain_words, parse
from capability_index.domain.tokenizer import fingerprint, tokenize


def test_parse_reads_sections_groups_and_extra_words() -> None:
    groups, extra = parse("# a comment\n[operation]\ncreate | 新建\n\n[term]\ninvoice | 发票 | bill\n"
                          "[extra words]\n请购单\n")
    assert groups == {"operation": [("create", "新建")], "period": [],
                      "term": [("invoice", "发票", "bill")]}
    assert extra == ("请购单",)


@pytest.mark.parametrize("text", ["create | new\n", "[verbs]\ncreate\n"])
def test_parse_refuses_a_group_outside_a_known_section(text: str) -> None:
    with pytest.raises(ValueError, match="glossary line"):
        parse(text)


def test_the_packaged_glossary_loads() -> None:
    assert len(GLOSSARY) == len(GROUP_KINDS) > 100
    assert set(GROUP_KINDS) == {"operation", "period", "term"}
    assert all(group and all(phrase.strip() == phrase and phrase for phrase in group)
               for group in GLOSSARY)
    assert set(EXTRA_WORDS) <= set(domain_words())


def test_the_tokenizer_fingerprint_follows_the_glossary_words(monkeypatch: pytest.MonkeyPatch) -> None:
    before = fingerprint(tokenize)
    words = domain_words()
    monkeypatch.setattr(glossary, "domain_words", lambda: list(words))  # same words, read anew
    assert fingerprint(tokenize) == before
    monkeypatch.setattr(glossary, "domain_words", lambda: [*words, "新词语"])
    assert fingerprint(tokenize) != before
