"""Every model the sidecar serialises drops None on the wire (``to_wire``: ``exclude_none``), so a field that may be
None must also be optional when read back, or the wire form of a valid value cannot be read: issue 30's consult ended
in an `internal` error ("DebateEffect moves.0.fromOption Field required") because a persona with no first vote was
written without ``from_option`` and its result read back for the tool's text."""

from __future__ import annotations

import importlib
import pkgutil
import types
from typing import Union, get_args, get_origin

import council
from council.camel import CamelModel, SnakeModel
from council.protocol.consult import DebateChange, PositionMove
from council.session.state.outputs import DebateEffect


def _all_subclasses(base: type) -> set[type]:
    found, todo = set(), [base]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


def _may_be_none(annotation: object) -> bool:
    if annotation is None or annotation is type(None):
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        return any(_may_be_none(arg) for arg in get_args(annotation))
    return False


def test_no_wire_model_requires_a_field_that_may_be_none():
    for info in pkgutil.walk_packages(council.__path__, "council."):
        if info.name.endswith("__main__"):  # runs the command line
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:  # an optional dependency (the embedded model's) is not installed here
            continue
    models = _all_subclasses(CamelModel) | _all_subclasses(SnakeModel)
    assert len(models) > 100  # the walk found the models (an import that moved would make this vacuous)
    offenders = sorted(f"{m.__module__}.{m.__qualname__}.{name}" for m in models
                       for name, field in m.model_fields.items()
                       if field.is_required() and _may_be_none(field.annotation))
    assert offenders == []


def test_a_move_without_a_first_vote_reads_back_from_its_wire_form():
    effect = DebateEffect(verdict="overturned", first_winner="A", final_winner="B",
                          moves=[{"persona": "Senior Developer", "from_option": None, "to_option": "B", "cycle": 2}])
    camel = effect.to_wire()
    assert "fromOption" not in camel["moves"][0]
    assert DebateEffect.model_validate(camel) == effect
    snake = DebateChange.model_validate(effect.model_dump()).to_wire()
    assert DebateEffect.model_validate(snake).moves[0].from_option is None
    assert PositionMove.model_validate(snake["moves"][0]).from_option is None
