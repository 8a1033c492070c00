"""``define_personas``: persona overrides for a workspace, draft-gated (seed 001: a mutation never runs unasked).

Overrides go to ``<workspace>/.council/personas/<id>.toml`` (only the overridden fields; an existing file keeps its
others), where every surface loads them from; the draft/confirm steps are ``council/definePersonas``'s
(docs/protocol.md). The draft id is a hash of the planned files, so applying it twice writes nothing the second time.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from council.config import OVERRIDES_DIR, tomllib
from council.errors import permission_error, validation_error
from council.personas.contract import PersonaContract
from council.personas.loader import PersonaLibrary
from council.present import consult as words
from council.protocol import consult as wire

MAX_DRAFTS = 64
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass(frozen=True)
class Planned:
    path: Path
    persona: PersonaContract  # merged
    fields: list[str]
    raw: dict[str, Any]
    action: str

    @property
    def content(self) -> str:
        return toml_text(self.raw)


def info(contract: PersonaContract, source: str) -> wire.PersonaContractInfo:
    shown = set(wire.PersonaContractInfo.model_fields) - {"source"}
    return wire.PersonaContractInfo(**contract.model_dump(include=shown), source=source)


class PersonaOverrides:
    """Drafts and their application for one workspace (``workspace`` None: drafts cannot be applied)."""

    def __init__(self, workspace: Path | None) -> None:
        self.workspace = workspace
        self.directory = workspace / OVERRIDES_DIR if workspace is not None else None
        self.drafts: OrderedDict[str, dict[str, wire.PersonaOverride]] = OrderedDict()

    def define(self, params: wire.DefinePersonasParams, library: PersonaLibrary
               ) -> tuple[wire.DefinePersonasResult, bool]:
        """The result, and whether files were written (the caller then reloads the personas)."""
        if params.overrides is None and params.confirm is None:
            return wire.DefinePersonasResult(personas=[info(p, library.source(p.id)) for p in library]), False
        overrides = params.overrides if params.overrides is not None else self.drafts.get(params.confirm or "")
        if overrides is None:
            raise validation_error("unknown draft: drafts live in memory until the server stops; call again with "
                                   "the overrides (and this confirm) or without confirm for a new draft",
                                   fields={"confirm": "unknown draft"})
        planned = self._plan(self._validated(overrides, library))
        draft = self._draft(planned)
        if params.confirm is None:
            self._remember(draft.id, overrides)
            merged = {p.persona.id: p for p in planned}
            personas = [info(merged[p.id].persona, self._show(merged[p.id].path)) if p.id in merged
                        else info(p, library.source(p.id)) for p in library]
            return wire.DefinePersonasResult(personas=personas, draft=draft), False
        if draft.id != params.confirm:
            raise validation_error("the workspace's persona files changed since that draft (or the overrides "
                                   "differ from it); review the new draft and confirm its id",
                                   fields={"confirm": "does not match the overrides"}, draft=draft.to_wire())
        written = [p for p in planned if p.action != "unchanged"]
        for p in written:
            _write(p.path, p.content)
        return wire.DefinePersonasResult(personas=[], draft=draft, applied=True,
                                         written=[self._show(p.path) for p in written],
                                         unchanged=[self._show(p.path) for p in planned if p.action == "unchanged"]), \
            bool(written)

    def _validated(self, overrides: dict[str, wire.PersonaOverride], library: PersonaLibrary
                   ) -> list[tuple[PersonaContract, dict[str, Any]]]:
        if self.directory is None:
            raise permission_error("persona overrides need a workspace: start the server with --workspace DIR",
                                   reason="no workspace")
        real, root = self.directory.resolve(), self.workspace.resolve() if self.workspace else None
        if root is None or not real.is_relative_to(root):  # a .council symlink out of the workspace
            raise permission_error(f"{self.directory} leads outside the workspace (to {real}): persona overrides are "
                                   "written only inside it", reason="overrides_outside_workspace", path=str(real))
        out: list[tuple[PersonaContract, dict[str, Any]]] = []
        for key, override in overrides.items():
            contract = library.get(key)
            if contract is None:
                raise validation_error(f"unknown persona {key!r}", fields={f"overrides.{key}": "unknown persona"},
                                       persona=key, valid=library.names)
            if any(c.id == contract.id for c, _ in out):
                raise validation_error(f"{contract.name} is overridden twice", persona=contract.name,
                                       fields={f"overrides.{key}": "names a persona already overridden"})
            fields = override.model_dump(exclude_none=True)
            try:
                merged = PersonaContract.model_validate({**contract.model_dump(), **fields})
            except ValidationError as exc:
                raise _contract_error(exc, key, contract.name) from None
            out.append((merged, fields))
        return out

    def _plan(self, edits: list[tuple[PersonaContract, dict[str, Any]]]) -> list[Planned]:
        assert self.directory is not None
        existing = _files_by_id(self.directory)
        planned = []
        for contract, fields in edits:
            path = existing.get(contract.id)
            if path is None:
                planned.append(Planned(self.directory / f"{contract.id}.toml", contract, list(fields),
                                       {"id": contract.id, **fields}, "create"))
                continue
            raw = _read(path)
            new = {**raw, **fields}
            planned.append(Planned(path, contract, list(fields), new, "unchanged" if new == raw else "update"))
        return planned

    def _draft(self, planned: list[Planned]) -> wire.Draft:
        assert self.directory is not None
        files = [wire.DraftFile(path=self._show(p.path), persona=p.persona.name, action=p.action,
                                content=p.content) for p in planned]
        digest = hashlib.sha256(json.dumps([str(self.directory), [(f.path, f.content) for f in files]],
                                           ensure_ascii=False).encode()).hexdigest()
        draft_id = f"draft-{digest[:16]}"
        preview = words.draft_preview(draft_id, self._show(self.directory), [
            {"path": f.path, "persona": f.persona, "action": f.action, "fields": p.fields}
            for f, p in zip(files, planned, strict=True)])
        return wire.Draft(id=draft_id, directory=str(self.directory), files=files, preview=preview)

    def _remember(self, draft_id: str, overrides: dict[str, wire.PersonaOverride]) -> None:
        self.drafts[draft_id] = overrides
        self.drafts.move_to_end(draft_id)
        while len(self.drafts) > MAX_DRAFTS:
            self.drafts.popitem(last=False)

    def _show(self, path: Path) -> str:
        """A path relative to the workspace (what a person recognises)."""
        try:
            return str(path.relative_to(self.workspace)) if self.workspace is not None else str(path)
        except ValueError:
            return str(path)


def _contract_error(exc: ValidationError, key: str, name: str):
    fields = {}
    for err in exc.errors(include_url=False):
        loc = ".".join(str(x) for x in err["loc"]) or "(contract)"
        fields[f"overrides.{key}.{loc}"] = err["msg"].removeprefix("Value error, ")
    first = str(exc.errors()[0]["loc"][0]) if exc.errors() and exc.errors()[0]["loc"] else "(contract)"
    message = "; ".join(f"{k.removeprefix(f'overrides.{key}.')}: {v}" for k, v in fields.items())
    return validation_error(f"invalid override for {name}: {message}", fields=fields, persona=name, field=first)


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise validation_error(f"{path}: cannot read the workspace persona file: {exc}", path=str(path)) from None


def _files_by_id(directory: Path) -> dict[str, Path]:
    """The workspace's persona files by the id they define (``id``, else the file name)."""
    found: dict[str, Path] = {}
    if directory.is_dir():
        for path in sorted(directory.glob("*.toml")):
            pid = _read(path).get("id", path.stem)
            if isinstance(pid, str):
                found.setdefault(pid, path)
    return found


def _write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(content, encoding="utf-8")
    os.replace(tmp, path)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):  # JSON's string escapes are TOML's; TOML also wants DEL escaped
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007F")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, list):
        return "[\n" + "".join(f"  {_toml_value(v)},\n" for v in value) + "]" if value else "[]"
    raise ValueError(f"cannot write {type(value).__name__} values to a persona file")


def toml_text(data: dict[str, Any]) -> str:
    """``data`` as TOML, one ``key = value`` per line in order: only what persona contracts hold (strings,
    booleans, numbers and lists of them); anything else is refused rather than written wrongly."""
    return "".join(f"{k if _BARE_KEY.match(k) else _toml_value(k)} = {_toml_value(v)}\n" for k, v in data.items())
