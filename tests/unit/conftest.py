"""Fixtures for the session-domain unit tests: a hand-driven journal builder and an in-process service."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from unit_helpers import Builder

from council.config import CouncilConfig, ProviderConfig
from council.personas.loader import PersonaLibrary, load_personas
from council.service import CouncilService
from council.session.state.entities import SessionSettings


@pytest.fixture(scope="session")
def persona_library() -> PersonaLibrary:
    return load_personas()


@pytest.fixture
def builder() -> Builder:
    return Builder()


class ServiceHarness:
    """A CouncilService on the scripted provider plus the events it emitted."""

    def __init__(self, service: CouncilService, events: list[dict[str, Any]]) -> None:
        self.service = service
        self.events = events

    def of(self, session_id: str, kind: str | None = None) -> list[dict[str, Any]]:
        return [
            e for e in self.events if e["sessionId"] == session_id and (kind is None or e["type"] == kind)
        ]

    def runtime(self, session_id: str):
        return self.service.store.get(session_id).rt


@pytest.fixture
def make_service(tmp_path: Path, persona_library: PersonaLibrary) -> Callable[..., ServiceHarness]:
    """``make_service(script=None, settings=None)``: a service whose every model is a ScriptedProvider."""
    counter = iter(range(1_000_000))

    def make(
        script: dict[str, Any] | None = None, settings: SessionSettings | None = None, **config: Any
    ) -> ServiceHarness:
        options: dict[str, Any] = {}
        if script is not None:
            path = tmp_path / f"script{next(counter)}.json"
            path.write_text(json.dumps(script), encoding="utf-8")
            options["script"] = str(path)
        cfg = CouncilConfig(
            default="s", providers={"s": ProviderConfig(kind="scripted", options=options)}, **config
        )
        events: list[dict[str, Any]] = []
        service = CouncilService(
            persona_library, cfg, events.append, settings=settings or SessionSettings(min_cycles=2)
        )
        return ServiceHarness(service, events)

    return make
