"""Helpers for bilingual, strict input models."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bkn_common.contracts.i18n import Language


class ToolInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


def described(zh: str, en: str, **kwargs: Any) -> Any:
    """A field whose description exists in both languages (zh-CN default, en-US alternate)."""
    extra = dict(kwargs.pop("json_schema_extra", {}) or {})
    extra["description_en"] = en
    return Field(description=zh, json_schema_extra=extra, **kwargs)


def localized_schema(model: type[BaseModel], language: Language) -> dict[str, Any]:
    """The model's JSON schema with descriptions in ``language``."""
    schema: dict[str, Any] = _localize(model.model_json_schema(), language)
    return schema


def _localize(node: Any, language: Language) -> Any:
    if isinstance(node, dict):
        english = node.get("description_en")
        out = {k: _localize(v, language) for k, v in node.items() if k != "description_en"}
        if english is not None and language == "en-US":
            out["description"] = english
        return out
    if isinstance(node, list):
        return [_localize(v, language) for v in node]
    return node
