"""The structured answer the model gives when it grounds one page: its claims (each with a verbatim quote of the
page and evidence in the code), prose corrections where the code contradicts the page, and what it could not
support. A strict JSON schema and its pydantic model."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..fix.answer import TextEdit, strict_schema


class GroundedClaim(BaseModel):
    model_config = ConfigDict(extra="forbid")

    statement: str = Field(description="one material factual statement the page makes, as a self-contained sentence")
    quote: str = Field(description="the page text this statement grounds, copied verbatim from the page body")
    evidence: list[str] = Field(description="repo://path#Lx-Ly resources of the code that shows it is true")


class Unsupported(BaseModel):
    model_config = ConfigDict(extra="forbid")

    quote: str = Field(description="page text making a statement the code does not support or contradicts")
    reason: str = Field(description="why, in a sentence a person can check")


class GroundAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    claims: list[GroundedClaim]
    edits: list[TextEdit] = Field(description="corrections of the page's prose where the code contradicts it")
    unsupported: list[Unsupported]


def ground_schema() -> dict[str, Any]:
    """The `response_format` for a page to ground."""
    return strict_schema(GroundAnswer, "wiki_page_grounding")
