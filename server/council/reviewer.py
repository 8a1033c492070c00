"""The review service, the entry point of review mode for every surface: ``council review``, ``council inbox``, the
sidecar's ``council/review`` and ``council/reviewPlan``, the MCP tool ``council_review`` and VS Code's ``/review``.
It sits above the review domain (``council.review``) as ``council.service`` sits above the session's. A review that
cannot be done raises :class:`~council.review.run.ReviewFailed` (an internal error, exit 3), never a verdict.
"""

from __future__ import annotations

import logging
from contextlib import nullcontext

import anyio

from council.config import CouncilConfig
from council.personas.loader import PersonaLibrary, load_personas
from council.present.review_words import ReviewWords, plan_line
from council.protocol.methods import ClientCapabilities, ReviewPlan, SessionOptions
from council.provider_hub import ProviderHub
from council.providers.base import ProviderError
from council.review.calls import Progress
from council.review.models import ChangeType, CouncilRequest, ReviewedDecision
from council.review.panel import seat_panel
from council.review.run import ReviewFailed, ReviewSettings, ReviewWriter, conduct

log = logging.getLogger(__name__)


class Reviewer:
    """Reviews requests with one persona library and one provider hub (shared across reviews)."""

    def __init__(self, library: PersonaLibrary, hub: ProviderHub, settings: ReviewSettings | None = None,
                 writer: ReviewWriter | None = None) -> None:
        self.library = library
        self.hub = hub
        self.settings = settings or ReviewSettings()
        self.writer = writer or ReviewWords()

    @classmethod
    def from_config(cls, config: CouncilConfig, settings: ReviewSettings | None = None) -> Reviewer:
        return cls(load_personas(config.personas_dirs or None), ProviderHub(config), settings)

    def plan(self, change_type: ChangeType) -> ReviewPlan:
        """``council/reviewPlan``: the roles that sit for ``change_type`` and the fewest and most model calls a
        review makes (one verdict per role, a second round when they disagree, the chair's reasoning; repairs not
        counted), without a model call."""
        roles = [seated.name for seated in seat_panel(self.library, change_type)]
        fewest, most = len(roles) + 1, (2 if self.settings.debate else 1) * len(roles) + 1
        return ReviewPlan(change_type=change_type, roles=roles, model_calls_min=fewest, model_calls_max=most,
                          markdown=plan_line(change_type.value, roles, fewest, most))

    async def review(self, request: CouncilRequest, *, provider: str | None = None, model: str | None = None,
                     client: ClientCapabilities | None = None, on_progress: Progress | None = None,
                     timeout: float | None = None, request_sha256: str | None = None) -> ReviewedDecision:
        """Review one request. ``provider``/``model`` pick the models as a session's options do; ``client`` says
        whether the client lends its own model (VS Code)."""
        options = SessionOptions(provider=provider, model=model)
        try:
            pick, default = await self.hub.picker(options, client or ClientCapabilities())
        except ProviderError as exc:
            raise ReviewFailed(f"could not review: model provider problem: {exc.message}", reason="provider",
                               kind=exc.kind) from None
        log.info("reviewing %s (%s) with %s", request.request_id, request.change_type.value, default.describe())
        try:
            with anyio.fail_after(timeout) if timeout else nullcontext():
                return await conduct(request, self.library, pick, self.writer, settings=self.settings,
                                     progress=on_progress or (lambda kind, data: None), request_sha256=request_sha256)
        except TimeoutError:
            raise ReviewFailed(f"could not review: no decision within {timeout:g} s", reason="timeout",
                               timeout=timeout) from None

    async def aclose(self) -> None:
        await self.hub.aclose()
