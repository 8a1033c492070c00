"""One shared copy of pydantic's per-instance set of explicitly set fields, for the models a session keeps.

Pydantic keeps that set per instance (a set of twenty names takes over 2 KB), and a session keeps hundreds of models;
an applied record and the session objects it shares are never changed again, and a copy (``model_copy``) copies the
set before touching it, so one set per distinct content is enough. The session's runtime passes every record
through :func:`with_shared_fields_sets` before it applies and journals it (and every journal it restores).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

T = TypeVar("T")
_FIELDS_SETS: dict[frozenset[str], set[str]] = {}


def with_shared_fields_sets(node: T) -> T:
    """``node`` (a record, a list, a model in one) with every model in it holding the one shared copy of its
    ``model_fields_set``: a model that does not yet is rebuilt with ``model_construct`` (its values are validated
    already); what needs no change is returned as it is."""
    if isinstance(node, BaseModel):
        values: dict[str, Any] = {k: with_shared_fields_sets(v) for k, v in node.__dict__.items()}
        own = node.model_fields_set
        shared = _FIELDS_SETS.setdefault(frozenset(own), own)
        if shared is own and all(values[k] is v for k, v in node.__dict__.items()):
            return node
        return type(node).model_construct(_fields_set=shared, **values, **(node.model_extra or {}))
    if isinstance(node, list):
        items = [with_shared_fields_sets(item) for item in node]
        return node if all(a is b for a, b in zip(items, node, strict=True)) else items  # type: ignore[return-value]
    return node
