"""Fixtures for review mode: the shipped persona library and reviewers on the scripted provider."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from council.config import CouncilConfig, ProviderConfig
from council.personas.loader import PersonaLibrary, load_personas
from council.provider_hub import ProviderHub
from council.providers.scripted import ScriptedProvider
from council.review.run import ReviewSettings
from council.reviewer import Reviewer


@pytest.fixture(scope="session")
def library() -> PersonaLibrary:
    return load_personas()


class ScriptedReviewer:
    """A Reviewer whose every role and the chair use one ScriptedProvider (kept to inspect its calls)."""

    def __init__(self, library: PersonaLibrary, script: dict[str, Any] | None, settings: ReviewSettings) -> None:
        config = CouncilConfig(default="s", providers={"s": ProviderConfig(kind="scripted")})
        self.hub = ProviderHub(config)
        self.provider = ScriptedProvider(script=script or {})
        self.hub._get = lambda cfg: self.provider  # every role → this one provider
        self.reviewer = Reviewer(library, self.hub, settings)
        self.progress: list[tuple[str, dict[str, Any]]] = []

    async def review(self, request, **kwargs: Any):
        return await self.reviewer.review(request, on_progress=lambda k, d: self.progress.append((k, d)), **kwargs)

    def prompts(self, role: str, cycle: int | None = None) -> list[str]:
        return [c.messages[-1].content for c in self.provider.calls
                if c.purpose == role and (cycle is None or c.cycle == cycle)]


@pytest.fixture
def scripted(library) -> Callable[..., ScriptedReviewer]:
    def make(script: dict[str, Any] | None = None, **settings: Any) -> ScriptedReviewer:
        return ScriptedReviewer(library, script, ReviewSettings(**settings))
    return make
