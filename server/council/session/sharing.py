"""One shared copy of pydantic's per-instance set of explicitly set fields, for the models a session keeps.

Pydantic keeps that set per instance (a set of twenty names takes over 2 KB), and a session keeps hundreds of models;
an applied record and the session objects it shares are never changed again, and a copy (``model_copy``) copies the
set before touching it, so one set per distinct content is enough. The reducer calls :func:`share_fields_sets` on
every record it applies.
"""

from __future__ import annotations

from pydantic import BaseModel

_FIELDS_SETS: dict[frozenset[str], set[str]] = {}


def share_fields_sets(node: object) -> None:
    """Give every model in ``node`` (a record, a list) the one shared copy of its set of explicitly set fields."""
    if isinstance(node, BaseModel):
        own = node.__pydantic_fields_set__
        shared = _FIELDS_SETS.setdefault(frozenset(own), own)
        if shared is not own:
            object.__setattr__(node, "__pydantic_fields_set__", shared)
        for value in node.__dict__.values():
            if isinstance(value, (BaseModel, list)):
                share_fields_sets(value)
    elif isinstance(node, list):
        for item in node:
            if isinstance(item, (BaseModel, list)):
                share_fields_sets(item)
