"""The bases of every model the sidecar serialises: camelCase JSON (or snake_case for the consult tools), unknown
fields refused.

Neutral ground: the session domain, the providers and the wire protocol all build on it, and none of them has
to import another to share it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class CamelModel(BaseModel):
    """A pydantic model serialised as camelCase JSON; extra fields are a validation error."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class SnakeModel(BaseModel):
    """A pydantic model serialised with its snake_case field names (the consult tools' payloads, seed 000);
    extra fields are a validation error."""

    model_config = ConfigDict(extra="forbid")

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)
