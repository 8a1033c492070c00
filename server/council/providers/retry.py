"""Retries for the HTTP providers: open a streaming request, retrying 429 / 5xx / connection errors.

Only *opening* the stream is retried (status line and headers), never a stream that already yielded text, so a
retry can not duplicate output. Every retry asks the caller's gate first (``council.providers.base.retry_gate``): a
session counts each attempt against the calls it said it would make at most, and stops the retries when they would
not fit.
Waits are exponential with jitter; a ``Retry-After`` header (seconds or an HTTP date) wins, capped. Other 4xx fail
at once with the provider's own message. ``sleep`` is injectable for tests.
"""

from __future__ import annotations

import email.utils
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from typing import Any

import anyio
import httpx
from pydantic import BaseModel, Field
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from council.providers.base import ProviderError, may_retry
from council.providers.http_common import error_from_exception, error_from_status, scrub

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]


class RetryPolicy(BaseModel):
    """How hard to try. ``max_retries`` comes from ``ProviderConfig``; the rest rarely needs changing."""

    max_retries: int = Field(3, ge=0, le=10)
    base_delay: float = Field(0.5, ge=0)
    max_delay: float = Field(20.0, ge=0)
    retry_after_cap: float = Field(60.0, ge=0, description="Longest Retry-After we honour, in seconds.")


def parse_retry_after(value: str | None, cap: float, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date), clamped to [0, cap]."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, min(seconds, cap))


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, ProviderError) and exc.retryable


def _make_wait(policy: RetryPolicy) -> Callable[[RetryCallState], float]:
    def backoff(state: RetryCallState) -> float:
        exp = policy.base_delay * 2 ** (state.attempt_number - 1)
        return min(policy.max_delay, exp + random.uniform(0, policy.base_delay))

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            return min(float(retry_after), policy.retry_after_cap)
        return backoff(state)

    return wait


def _scrubbed(err: ProviderError, secrets: Iterable[str | None]) -> ProviderError:
    err.message = scrub(err.message, secrets)
    err.args = (err.message,)
    return err


def _refused_by_caller(name: str) -> Callable[[RetryCallState], bool]:
    """A stop condition asked last, only for a retry that would otherwise be made: the caller's gate books the retry
    (False: go on) or refuses it (True: stop)."""

    def refused(state: RetryCallState) -> bool:
        if may_retry():
            return False
        log.info("%s: no retry after attempt %d: the caller's bound of model calls leaves no room", name,
                 state.attempt_number)
        return True

    return refused


@contextmanager
def provider_errors(name: str, url: str, secrets: Iterable[str | None] = ()) -> Iterator[None]:
    """Turn httpx errors into ProviderError and scrub secrets from every ProviderError passing through."""
    secrets = list(secrets)
    try:
        yield
    except ProviderError as err:
        raise _scrubbed(err, secrets) from None
    except httpx.HTTPError as exc:
        raise _scrubbed(error_from_exception(name, url, exc), secrets) from None


@asynccontextmanager
async def open_stream(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    name: str,
    json: Any = None,
    policy: RetryPolicy,
    sleep: Sleep | None = None,
    secrets: Iterable[str | None] = (),
) -> AsyncIterator[httpx.Response]:
    """A 2xx streaming response, after retries. Leaving the block (or cancellation) closes it at once."""
    secrets = list(secrets)

    async def attempt() -> tuple[httpx.Response, AsyncExitStack]:
        stack = AsyncExitStack()
        try:
            with provider_errors(name, url, secrets):
                response = await stack.enter_async_context(client.stream(method, url, json=json))
                if response.status_code >= 400:
                    body = (await response.aread()).decode("utf-8", "replace")
                    after = parse_retry_after(response.headers.get("retry-after"), policy.retry_after_cap)
                    raise error_from_status(name, response.status_code, body, after)
            return response, stack
        except BaseException:
            with anyio.CancelScope(shield=True):
                await stack.aclose()
            raise

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        log.debug(
            "%s: attempt %d failed (%s); retrying in %.2fs",
            name,
            state.attempt_number,
            getattr(exc, "kind", type(exc).__name__),
            state.upcoming_sleep,
        )

    extra: dict[str, Any] = {"sleep": sleep} if sleep is not None else {}
    retrying = AsyncRetrying(
        stop=stop_after_attempt(policy.max_retries + 1) | _refused_by_caller(name),
        wait=_make_wait(policy),
        retry=retry_if_exception(_retryable),
        before_sleep=before_sleep,
        reraise=True,
        **extra,
    )
    try:
        response, stack = await retrying(attempt)
    except ProviderError as err:
        attempts = retrying.statistics.get("attempt_number", 1)
        if err.retryable and attempts > 1:
            err.message = f"{err.message} (gave up after {attempts} attempts)"
            err.args = (err.message,)
        raise
    try:
        yield response
    finally:
        with anyio.CancelScope(shield=True):
            await stack.aclose()
