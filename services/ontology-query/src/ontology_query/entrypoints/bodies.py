"""What ontology-query's internal routes share: strict request bodies (an unknown field is
refused with 422, never ignored), the caller's account header, and the caller built from them.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Header, Request
from pydantic import BaseModel, ConfigDict, Field

from bkn_common.framework.http import request_language
from ontology_query.service_layer.guidance import PermissionRequest
from ontology_query.service_layer.permissions import Caller

Account = Annotated[str, Header(alias="X-BKN-Account", min_length=1)]


class StrictBody(BaseModel):
    """Base of every request body: fields it does not declare are refused."""

    model_config = ConfigDict(extra="forbid")


class PermissionRequestBody(StrictBody):
    path_template: str = Field(min_length=1)
    base_url: str | None = None


def caller(request: Request, account: str, hint: PermissionRequestBody | None) -> Caller:
    """The caller of a request: its account, language and permission-request flow, if any."""
    return Caller(
        account=account,
        language=request_language(request),
        permission_request=PermissionRequest(hint.path_template, hint.base_url) if hint else None,
    )
