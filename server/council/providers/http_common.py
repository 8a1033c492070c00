"""Shared plumbing for the HTTP providers: clients, secret scrubbing, error mapping, SSE (httpx-sse) and NDJSON
readers.

Every failure leaves here as a :class:`ProviderError` whose text has the API key scrubbed out. Stream readers
skip lines they cannot parse (logged at DEBUG, never the body at INFO) so one bad line does not end a reply.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import AsyncIterator, Iterable
from typing import Any
from urllib.parse import urlsplit

import httpx
from httpx_sse import EventSource

from council.providers.base import ProviderError

log = logging.getLogger(__name__)

MAX_ERROR_TEXT = 300


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


def make_client(
    timeout: float,
    *,
    headers: dict[str, str] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    base_url: str = "",
) -> httpx.AsyncClient:
    """An ``AsyncClient`` whose connect budget is ≤10 s and whose read budget is ``timeout`` between bytes.

    Proxy variables (``HTTPS_PROXY``…) apply to remote servers only, never to a loopback ``base_url``.
    """
    limits = httpx.Timeout(timeout, connect=min(timeout, 10.0))
    return httpx.AsyncClient(
        timeout=limits,
        headers=headers,
        transport=transport,
        trust_env=not is_loopback(base_url or "http://x"),
    )


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
        return ProviderError(
            f"{name} is rate limiting (HTTP 429): {said}",
            kind="rate_limit",
            retryable=True,
            status=status,
            retry_after=retry_after,
        )
    if status >= 500:
        return ProviderError(
            f"{name} had a server error (HTTP {status}): {said}",
            kind="server",
            retryable=True,
            status=status,
            retry_after=retry_after,
        )
    hint = {
        401: " — check the API key variable",
        403: " — the key lacks access to this model",
        404: " — check base_url and the model name",
    }.get(status, "")
    return ProviderError(f"{name} said: {said} (HTTP {status}){hint}", kind="client", status=status)


def error_from_exception(name: str, url: str, exc: Exception) -> ProviderError:
    """Map an httpx transport exception to a ProviderError."""
    if isinstance(exc, httpx.TimeoutException):
        return ProviderError(
            f"{name} did not answer in time ({type(exc).__name__}) at {url}; raise `timeout` "
            "in the provider config if the model is slow",
            kind="timeout",
            retryable=True,
        )
    if isinstance(exc, (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return ProviderError(
            f"cannot reach {name} at {url} ({type(exc).__name__}: {exc}); is the server "
            "running and base_url right?",
            kind="unreachable" if isinstance(exc, httpx.ConnectError) else "connection",  # refused / no such host
            retryable=True,                                                                 # vs. a dropped one
        )
    return ProviderError(f"{name} request failed: {type(exc).__name__}: {exc}", kind="internal")


def _payload_error(name: str, payload: dict[str, Any]) -> ProviderError:
    err = payload.get("error")
    msg = err.get("message") if isinstance(err, dict) else err
    code = err.get("code") if isinstance(err, dict) else None
    retryable = code in (429, 500, 502, 503, "rate_limit_exceeded", "server_error")
    return ProviderError(f"{name} reported an error mid-stream: {msg}", kind="server", retryable=retryable)


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
    if payload.get("error"):
        raise _payload_error(name, payload)
    return payload
