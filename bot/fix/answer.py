"""The structured answer the model gives for one page, as a strict JSON schema and its pydantic model."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ClaimDecision(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    action: Literal["confirm", "update", "retract"]
    statement: str | None = Field(None, description="update: the corrected statement (None keeps the old one)")
    evidence: list[str] | None = Field(None, description="update: the new evidence resources (None keeps them)")
    reason: str = Field(description="why, in one or two sentences a reviewer can check")


class TextEdit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file: str = Field(description="the page being fixed; any other file is refused")
    search: str = Field(description="text that occurs exactly once in the page body")
    replace: str


class PageAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    claims: list[ClaimDecision]
    edits: list[TextEdit]


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAI's strict structured outputs: no extra keys anywhere, every property listed as required."""
    if schema.get("type") == "object" or "properties" in schema:
        schema["additionalProperties"] = False
        schema["required"] = list(schema.get("properties", {}))
    for value in schema.values():
        if isinstance(value, dict):
            _strict(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    _strict(item)
    return schema


def answer_schema() -> dict[str, Any]:
    """The `response_format` for a page to fix: a JSON schema in strict mode, definitions inlined."""
    return strict_schema(PageAnswer, "wiki_page_fix")


def strict_schema(model: type[BaseModel], name: str) -> dict[str, Any]:
    """A model's JSON schema as OpenAI's strict structured outputs take it: definitions inlined, no titles or
    defaults, no extra keys, every property required."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(dict(definitions[node["$ref"].rsplit("/", 1)[-1]]))
            return {k: inline(v) for k, v in node.items() if k not in ("title", "default")}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    return {"name": name, "strict": True, "schema": _strict(inline(schema))}
