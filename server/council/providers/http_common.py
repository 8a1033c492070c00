"""Shared plumbing for the HTTP providers: clients, secret scrubbing, error mapping, SSE (httpx-sse) and NDJSON
readers, retries (tenacity), and :class:`HttpProvider`, the client lifecycle both HTTP providers share.

Every failure leaves here as a :class:`ProviderError` whose text has the API key scrubbed out. Stream readers skip
lines they cannot parse (logged at DEBUG, never the body at INFO) so one bad line does not end a reply. Only *opening*
a stream is retried (429 / 5xx / connection errors), never a stream that already yielded text, so a retry cannot
duplicate output; each retry asks the caller's gate first (``base.retry_gate``). Other 4xx fail at once.
How many requests a server runs at once (:meth:`HttpProvider.parallel_calls`) is asked of it once, within
:data:`SLOTS_PROBE_SECONDS`; a server that does not say, or does not answer in time, is taken to run one at a time.
"""

from __future__ import annotations

import email.utils
import ipaddress
import json
import logging
import math
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
from httpx_sse import EventSource
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from council.config import ProviderConfig
from council.providers.base import Provider, ProviderError, may_retry

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]

MAX_ERROR_TEXT = 300
#: How long a session's start may wait for a server to say how many requests it runs at once; then it is taken to
#: run one at a time.
SLOTS_PROBE_SECONDS = 0.5
#: A server that did not answer that question (not up yet, or hung) is asked again after this long; an answer,
#: even one that says nothing, is kept for the provider's life.
SLOTS_RETRY_SECONDS = 60.0


def scrub(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with every secret replaced by ``***`` (short strings are left alone)."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def make_client(timeout: float, *, headers: dict[str, str] | None = None,
                transport: httpx.AsyncBaseTransport | None = None, base_url: str = "") -> httpx.AsyncClient:
    """An ``AsyncClient`` whose connect budget is ≤10 s and whose read budget is ``timeout`` between bytes.

    Proxy variables (``HTTPS_PROXY``…) apply to remote servers only, never to a loopback ``base_url``.
    """
    limits = httpx.Timeout(timeout, connect=min(timeout, 10.0))
    return httpx.AsyncClient(timeout=limits, headers=headers, transport=transport,
                             trust_env=not is_loopback(base_url or "http://x"))


def _provider_message(body: str) -> str:
    """The message in an error body (OpenAI ``{"error": {"message"}}``, Ollama ``{"error": "…"}``)."""
    try:
        data = json.loads(body)
    except ValueError:
        return " ".join(body.split())[:MAX_ERROR_TEXT] or "(empty body)"
    if isinstance(data, dict):
        err = data.get("error", data.get("detail", data.get("message")))
        if isinstance(err, dict):
            err = err.get("message") or err.get("msg") or json.dumps(err)
        if err:
            return str(err)[:MAX_ERROR_TEXT]
    return json.dumps(data)[:MAX_ERROR_TEXT]


def error_from_status(name: str, status: int, body: str, retry_after: float | None = None) -> ProviderError:
    """Map an HTTP error status to a ProviderError: 429/5xx retryable, other 4xx fail fast."""
    said = _provider_message(body)
    if status == 429:
        return ProviderError(f"{name} is rate limiting (HTTP 429): {said}", kind="rate_limit", retryable=True,
                             status=status, retry_after=retry_after)
    if status >= 500:
        return ProviderError(f"{name} had a server error (HTTP {status}): {said}", kind="server", retryable=True,
                             status=status, retry_after=retry_after)
    hint = {
        401: " — check the API key variable",
        403: " — the key lacks access to this model",
        404: " — check base_url and the model name",
    }.get(status, "")
    return ProviderError(f"{name} said: {said} (HTTP {status}){hint}", kind="client", status=status)


def error_from_exception(name: str, url: str, exc: Exception) -> ProviderError:
    if isinstance(exc, httpx.TimeoutException):
        return ProviderError(f"{name} did not answer in time ({type(exc).__name__}) at {url}; raise `timeout` in the "
                             "provider config if the model is slow", kind="timeout", retryable=True)
    if isinstance(exc, (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return ProviderError(
            f"cannot reach {name} at {url} ({type(exc).__name__}: {exc}); is the server "
            "running and base_url right?",
            kind="unreachable" if isinstance(exc, httpx.ConnectError) else "connection",  # refused / no such host
            retryable=True,                                                                 # vs. a dropped one
        )
    return ProviderError(f"{name} request failed: {type(exc).__name__}: {exc}", kind="internal")


async def iter_sse(response: httpx.Response, name: str) -> AsyncIterator[dict[str, Any]]:
    """JSON payloads of the stream's events (read by httpx-sse). ``[DONE]`` ends; ``error`` payloads raise;
    events that are not JSON objects are skipped. A body not labelled ``text/event-stream`` (some servers and
    proxies send ``text/plain`` or no type) is read as events all the same: the caller asked for a stream."""
    if "text/event-stream" not in response.headers.get("content-type", ""):
        response.headers["content-type"] = "text/event-stream"
    async for event in EventSource(response).aiter_sse():
        if event.data.strip() == "[DONE]":
            return
        if event.data and (payload := _parse_json(name, event.data)) is not None:
            yield payload


async def iter_ndjson(response: httpx.Response, name: str) -> AsyncIterator[dict[str, Any]]:
    """One JSON object per line; blank or malformed lines are skipped."""
    async for line in response.aiter_lines():
        if line.strip() and (payload := _parse_json(name, line)) is not None:
            yield payload


def _parse_json(name: str, data: str) -> dict[str, Any] | None:
    try:
        payload = json.loads(data)
    except ValueError:
        log.debug("%s: skipping a malformed stream line (%d chars)", name, len(data))
        return None
    if not isinstance(payload, dict):
        log.debug("%s: skipping a stream line that is not an object", name)
        return None
    err = payload.get("error")
    if err:
        msg, code = (err.get("message"), err.get("code")) if isinstance(err, dict) else (err, None)
        raise ProviderError(f"{name} reported an error mid-stream: {msg}", kind="server",
                            retryable=code in (429, 500, 502, 503, "rate_limit_exceeded", "server_error"))
    return payload


#: Retry waits, in seconds: exponential from BASE_DELAY with up to BASE_DELAY of jitter, at most MAX_DELAY; a
#: server's ``Retry-After`` instead, honoured up to RETRY_AFTER_CAP.
BASE_DELAY, MAX_DELAY, RETRY_AFTER_CAP = 0.5, 20.0, 60.0


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date), clamped to [0, RETRY_AFTER_CAP]."""
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
        seconds = when.timestamp() - time.time()
    return max(0.0, min(seconds, RETRY_AFTER_CAP))


def _wait(state: RetryCallState) -> float:
    exc = state.outcome.exception() if state.outcome else None
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is not None:
        return min(float(retry_after), RETRY_AFTER_CAP)
    exp = BASE_DELAY * 2 ** (state.attempt_number - 1)
    return min(MAX_DELAY, exp + random.uniform(0, BASE_DELAY))


def _scrubbed(err: ProviderError, secrets: Iterable[str | None]) -> ProviderError:
    err.message = scrub(err.message, secrets)
    err.args = (err.message,)
    return err


@contextmanager
def provider_errors(name: str, url: str, secrets: list[str | None]) -> Iterator[None]:
    """Turn httpx errors into ProviderError and scrub secrets from every ProviderError passing through."""
    try:
        yield
    except ProviderError as err:
        raise _scrubbed(err, secrets) from None
    except httpx.HTTPError as exc:
        raise _scrubbed(error_from_exception(name, url, exc), secrets) from None


class HttpProvider(Provider):
    """A provider over HTTP: its config (retries, timeout) and one client made on first use (closed by :meth:`aclose`).
    A subclass sets ``url`` and reads the response of :meth:`post`."""

    url: str

    def __init__(self, cfg: ProviderConfig, model: str, base_url: str, *,
                 transport: httpx.AsyncBaseTransport | None = None, sleep: Sleep | None = None) -> None:
        super().__init__(model)
        self.cfg = cfg
        self.base_url = base_url
        self._sleep = sleep or anyio.sleep
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._key: str | None = None  # an API key: scrubbed from every error
        self._slots = 1
        self._slots_until = 0.0  # time.monotonic() when the server is asked again (0: not asked yet)

    def headers(self) -> dict[str, str]:
        """The client's headers (asked once, when the client is made)."""
        return {}

    def backend(self) -> str:
        """The server: its host and port (two models on one server share its slots; ``localhost`` is
        ``127.0.0.1``)."""
        parts = urlsplit(self.base_url)
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:  # a port that is no number: the URL itself names the backend
            return self.base_url
        host = "127.0.0.1" if is_loopback(self.base_url) else (parts.hostname or "").lower()
        return f"{host}:{port}"

    async def slots_said(self) -> int | None:
        """How many requests the server says it runs at once (None: it has no way to say, or did not say); raises
        when it does not answer. Nothing is asked here: a subclass whose server says it asks it."""
        return None

    async def parallel_calls(self) -> int | None:
        """What the server says (:meth:`slots_said`), asked within :data:`SLOTS_PROBE_SECONDS` and remembered; 1
        when it says nothing, fails, or does not answer in time (then asked again after :data:`SLOTS_RETRY_SECONDS`)."""
        now = time.monotonic()
        if now >= self._slots_until:
            try:
                with anyio.fail_after(SLOTS_PROBE_SECONDS):
                    said = await self.slots_said()
                self._slots, self._slots_until = said or 1, math.inf
            except Exception as exc:  # a probe never fails a session: unknown is one request at a time
                log.debug("%s at %s did not say how many requests it runs at once (%s); taking 1", self.id,
                          self.base_url, type(exc).__name__)
                self._slots, self._slots_until = 1, now + SLOTS_RETRY_SECONDS
        return self._slots

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = make_client(self.cfg.timeout, headers=self.headers(), transport=self._transport,
                                       base_url=self.base_url)
        return self._client

    @asynccontextmanager
    async def post(self, name: str, body: dict[str, Any]) -> AsyncIterator[httpx.Response]:
        """The 2xx streaming response to ``body``, after retries; inside the block, errors become scrubbed
        ProviderErrors. Leaving the block (or cancellation) closes the response at once."""
        client = self._http()  # first: making the client reads the key
        secrets = [self._key]

        async def attempt() -> tuple[httpx.Response, AsyncExitStack]:
            stack = AsyncExitStack()
            try:
                with provider_errors(name, self.url, secrets):
                    response = await stack.enter_async_context(client.stream("POST", self.url, json=body))
                    if response.status_code >= 400:
                        text = (await response.aread()).decode("utf-8", "replace")
                        after = parse_retry_after(response.headers.get("retry-after"))
                        raise error_from_status(name, response.status_code, text, after)
                return response, stack
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await stack.aclose()
                raise

        def refused(state: RetryCallState) -> bool:
            """A stop condition asked last, only for a retry that would otherwise be made: the caller's gate books
            the retry (False: go on) or refuses it (True: stop)."""
            if may_retry():
                return False
            log.info("%s: no retry after attempt %d: the caller's bound of model calls leaves no room", name,
                     state.attempt_number)
            return True

        def before_sleep(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            log.debug("%s: attempt %d failed (%s); retrying in %.2fs", name, state.attempt_number,
                      getattr(exc, "kind", type(exc).__name__), state.upcoming_sleep)

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.cfg.max_retries + 1) | refused,
            wait=_wait,
            retry=retry_if_exception(lambda exc: isinstance(exc, ProviderError) and exc.retryable),
            before_sleep=before_sleep,
            reraise=True,
            sleep=self._sleep,
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
            with provider_errors(name, self.url, secrets):
                yield response
        finally:
            with anyio.CancelScope(shield=True):
                await stack.aclose()

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
