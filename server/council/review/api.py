"""The entry point of review mode for every surface: ``council review``, ``council inbox``, the sidecar's
``council/review``, and later the MCP tool ``council_review`` and VS Code's ``/review``.

:class:`Reviewer` holds what outlives one review (personas, providers); ``await reviewer.review(request)`` returns
the :class:`~council.review.models.ReviewedDecision` (decision, verdicts, audit) and reports progress through an
optional callback ``on_progress(kind, data)`` (``council.present.review_words.progress_line`` words it). A review
that cannot be done raises :class:`~council.review.run.ReviewFailed` (an internal error, exit 3), never a verdict.
:func:`review_request` is the one-call form. Each surface stays a thin adapter over these.
"""

from __future__ import annotations

import json
import logging
import re
from contextlib import nullcontext

import anyio
from pydantic import ValidationError

from council.config import CouncilConfig, load_config
from council.errors import from_pydantic, validation_error
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

MAX_FILE_BYTES = 20 * 1024 * 1024  # one request file (the inbox's, or `council review FILE`)
MAX_DEPTH = 64  # JSON objects and arrays in one another; a seed request needs 3
_SURROGATE = re.compile("[\ud800-\udfff]")

__all__ = ["ReviewFailed", "ReviewSettings", "Reviewer", "decode_json", "load_request", "parse_request",
           "review_request"]


def _quiet(kind: str, data: dict) -> None:
    """The default progress callback: nothing to report to."""


class Reviewer:
    """Reviews requests with one persona library and one provider hub (shared across reviews)."""

    def __init__(self, library: PersonaLibrary, hub: ProviderHub, settings: ReviewSettings | None = None,
                 writer: ReviewWriter | None = None) -> None:
        self.library = library
        self.hub = hub
        self.settings = settings or ReviewSettings()
        self.writer = writer or ReviewWords()

    @classmethod
    def from_config(cls, config: CouncilConfig | None = None, settings: ReviewSettings | None = None) -> Reviewer:
        """A reviewer over the configured providers and persona folders (``load_config()`` when not given)."""
        config = config or load_config()
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
                                     progress=on_progress or _quiet, request_sha256=request_sha256)
        except TimeoutError:
            raise ReviewFailed(f"could not review: no decision within {timeout:g} s", reason="timeout",
                               timeout=timeout) from None

    async def aclose(self) -> None:
        await self.hub.aclose()


async def review_request(request: CouncilRequest | dict | str | bytes, *, config: CouncilConfig | None = None,
                         settings: ReviewSettings | None = None, on_progress: Progress | None = None,
                         timeout: float | None = None) -> ReviewedDecision:
    """Review one request (a model, decoded JSON, or JSON text) with a reviewer built for this call and closed after.
    An invalid request raises a validation ``CouncilError`` with one entry per offending field."""
    if not isinstance(request, CouncilRequest):
        request = load_request(request)
    reviewer = Reviewer.from_config(config, settings)
    try:
        return await reviewer.review(request, on_progress=on_progress, timeout=timeout)
    finally:
        await reviewer.aclose()


def load_request(source: str | bytes | dict) -> CouncilRequest:
    """A ``CouncilRequest`` from a file's bytes, a context string holding its JSON, or decoded JSON (seed 004: requests
    arrive "as JSON files dropped into a directory or passed as context strings")."""
    if isinstance(source, str):
        source = source.encode("utf-8", "surrogatepass")  # a lone surrogate then fails as not UTF-8
    return parse_request(decode_json(source) if isinstance(source, bytes) else source)


def parse_request(data: object) -> CouncilRequest:
    """A ``CouncilRequest`` from decoded JSON; field-level errors as a validation ``CouncilError``, JSON nested too
    deeply (``too_deep``) or holding a lone surrogate (``lone_surrogate``) refused before the model sees it."""
    if not isinstance(data, dict):
        raise validation_error("a council request must be a JSON object", fields={"(root)": "must be an object"})
    _check_tree(data)
    try:
        return CouncilRequest.model_validate(data)
    except ValidationError as exc:
        raise from_pydantic(exc, "council request") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # whatever else a validator meets
        raise validation_error(f"invalid council request: {type(exc).__name__}: {exc}"[:500],
                               reason="invalid") from None


def decode_json(raw: bytes) -> object:
    """Decoded JSON from a file's bytes; unreadable input is a validation ``CouncilError`` saying where and why
    (``details.reason``: ``too_large``, ``not_utf8``, ``not_json``, ``too_deep``)."""
    if len(raw) > MAX_FILE_BYTES:
        raise validation_error(f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB",
                               reason="too_large", size=len(raw), limit=MAX_FILE_BYTES)
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise validation_error(f"the file is not UTF-8 text: {exc.reason} at byte {exc.start}",
                               reason="not_utf8") from None
    except json.JSONDecodeError as exc:
        raise validation_error(f"the file is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
                               reason="not_json", line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise validation_error(f"the JSON is nested deeper than {MAX_DEPTH} levels", reason="too_deep",
                               limit=MAX_DEPTH) from None
    except ValueError as exc:  # a number of more digits than Python converts, NaN/Infinity
        raise validation_error(f"the file is not valid JSON: {exc}"[:300], reason="not_json") from None


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON value")


def _check_tree(data: object) -> None:
    """Refuse JSON nested deeper than ``MAX_DEPTH`` or holding a lone surrogate (``"\\ud800"``: valid JSON, but no
    UTF-8 file, prompt or decision can carry it). Iterative, so no depth can exhaust the stack."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if not value.isascii() and _SURROGATE.search(value):
                raise validation_error("the JSON holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff "
                                       "escape), which is not text", reason="lone_surrogate")
            continue
        if not isinstance(value, (dict, list)):
            continue
        if depth > MAX_DEPTH:
            raise validation_error(f"the JSON is nested deeper than {MAX_DEPTH} levels", reason="too_deep")
        items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
        stack.extend((item, depth + 1) for item in items)
