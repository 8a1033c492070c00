"""Base class for everything that crosses the wire: camelCase JSON, snake_case Python, unknown fields refused."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """A pydantic model serialised as camelCase JSON; extra fields are a validation error."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        validate_assignment=False,
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict sent to clients (camelCase, no nulls)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)
