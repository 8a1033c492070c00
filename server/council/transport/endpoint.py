"""The sidecar's JSON-RPC endpoint: LSP lifecycle, dispatch, cancellation and exactly one response per request.

The stdio loop feeds it :class:`~council.transport.framing.Message` and ``Fault`` events; it writes whole frames
through ``write``.

- A malformed frame is answered with id null (its fault's code). A message whose declared length ran past its JSON
  is refused (-32600, with its id when it is a request) and never runs.
- Before ``initialize`` every other request gets -32002 and every notification but ``exit`` is dropped.
  ``initialize`` params are validated (-32602 with field details); a second ``initialize`` gets -32600.
- ``shutdown`` runs the shutdown hook, then answers null; from its arrival every request gets -32600 and every
  notification but ``exit`` is dropped. ``exit`` ends the server: exit code 0 after ``shutdown``, else 1; the end
  of input and a broken stdout end it by the same rule.
- A request for an unregistered method (or for a notification method, sent with an id) gets -32601; an unknown
  notification is ignored (debug log); a request method sent without an id is not run (warning).
- Each request runs as its own asyncio task. ``$/cancelRequest`` cancels it and it answers -32800, unless it had
  already answered. A handler's :class:`~council.errors.CouncilError` becomes its JSON-RPC error; anything else is
  logged with its traceback on stderr and answered -32603 ``internal`` with the exception's type and message.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import Any

from pydantic import ValidationError

from council.errors import CouncilError, from_pydantic, internal_error
from council.protocol.errors import METHOD_NOT_FOUND, REQUEST_CANCELLED, SERVER_NOT_INITIALIZED
from council.transport import lsp
from council.transport.framing import Fault, Message, encode_frame
from council.transport.jsonrpc import (
    Dropped,
    Envelope,
    Invalid,
    MsgId,
    Notification,
    PeerError,
    Request,
    Response,
    RpcError,
    classify,
    invalid,
)

log = logging.getLogger(__name__)

RequestHandler = Callable[[Any], Awaitable[Any]]
NotificationHandler = Callable[[Any], None]
TEARDOWN_SECONDS = 10.0  # how long a pending shutdown, cancelled requests and the shutdown hook get at exit
CONNECTION_CLOSED = -32099  # a PeerError code for the sidecar's own requests when the client goes away


class Phase(Enum):
    WAITING = "waiting for initialize"
    RUNNING = "running"
    SHUTDOWN = "shutting down"
    EXITED = "exited"


class Endpoint:
    """Dispatches client messages to registered handlers and sends the sidecar's own requests and notifications."""

    def __init__(self, name: str, version: str) -> None:
        self.write: Callable[[bytes], None] | None = None  # set by the transport
        self.on_finish: Callable[[], None] = lambda: None  # called once when the server should stop reading
        self.phase = Phase.WAITING
        self.exit_code: int | None = None
        self._info = lsp.initialize_result(name, version)
        self._requests: dict[str, RequestHandler] = {}
        self._notifications: dict[str, NotificationHandler] = {}
        self._shutdown_hook: Callable[[], Awaitable[None]] | None = None
        self._shut_down = False
        self._shutdown_task: asyncio.Task[None] | None = None
        self._running: dict[MsgId, asyncio.Task[None]] = {}
        self._cancelled: set[MsgId] = set()
        self._outgoing: dict[str, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._broken = False

    # --- registration ---------------------------------------------------------------------------------------
    def on_request(self, method: str, handler: RequestHandler) -> None:
        self._requests[method] = handler

    def on_notification(self, method: str, handler: NotificationHandler) -> None:
        self._notifications[method] = handler

    def on_shutdown(self, hook: Callable[[], Awaitable[None]]) -> None:
        self._shutdown_hook = hook

    @property
    def finished(self) -> bool:
        return self.exit_code is not None

    # --- input ----------------------------------------------------------------------------------------------
    def receive(self, event: Message | Fault) -> None:
        """Handle one event of the frame reader (synchronously; requests start tasks)."""
        if self.finished:
            return
        if isinstance(event, Fault):
            log.warning("malformed frame answered with id null: %s", event.details.get("reason", event.code))
            log.debug("malformed frame: %s", event.message)  # may quote the client's bytes
            self._send_error(None, RpcError(event.code, event.message, **event.details))
            return
        envelope = classify(event.value)
        if event.length_mismatch:
            reply_id = envelope.id if isinstance(envelope, Request) else None
            log.warning("Content-Length %d but the JSON ended after %d bytes: message refused",
                        event.declared, event.used)
            self._send_error(reply_id, invalid(
                f"Content-Length is {event.declared} but the JSON message ends after {event.used} bytes: "
                "the message was not run", "length mismatch", declared=event.declared, used=event.used))
            return
        for item in envelope if isinstance(envelope, list) else [envelope]:
            self._dispatch(item)

    def _dispatch(self, envelope: Envelope) -> None:
        if isinstance(envelope, Request):
            self._request(envelope)
        elif isinstance(envelope, Notification):
            self._notification(envelope)
        elif isinstance(envelope, Response):
            self._settle(envelope)
        elif isinstance(envelope, Invalid):
            log.warning("invalid message (id %r): %s", envelope.id, envelope.error.message)
            self._send_error(envelope.id, envelope.error)
        elif isinstance(envelope, Dropped):
            log.warning("dropped %s", envelope.reason)

    def _request(self, req: Request) -> None:
        refusal = self._refusal(req)
        if refusal is not None:
            log.info("request %r (%s) refused: %s", req.id, req.method[:80], refusal.message)
            self._send_error(req.id, refusal)
        elif req.method == lsp.INITIALIZE:
            self._initialize(req)
        elif req.method == lsp.SHUTDOWN:
            self.phase, self._shut_down = Phase.SHUTDOWN, True
            self._shutdown_task = self._start(req, self._shutdown)
        else:
            self._start(req, self._requests[req.method])

    def _refusal(self, req: Request) -> RpcError | None:
        method = req.method
        if self.phase is Phase.SHUTDOWN:
            return invalid(f"the server is shutting down: {method} refused", "shutdown", method=method)
        if self.phase is Phase.WAITING and method != lsp.INITIALIZE:
            return RpcError(SERVER_NOT_INITIALIZED, f"server not initialized: send initialize before {method}",
                            reason="not initialized", method=method)
        if method == lsp.INITIALIZE and self.phase is Phase.RUNNING:
            return invalid("initialize was already received", "already initialized")
        if method not in self._requests and method not in (lsp.INITIALIZE, lsp.SHUTDOWN):
            if method in lsp.NOTIFICATIONS or method in self._notifications:
                return RpcError(METHOD_NOT_FOUND, f"{method} is a notification: send it without an id",
                                reason="notification", method=method)
            return RpcError(METHOD_NOT_FOUND, f"method not found: {method}", reason="unknown method",
                            method=method)
        if req.id in self._running:
            return invalid(f"request id {req.id!r} is already in flight", "duplicate id", id=req.id)
        return None

    def _initialize(self, req: Request) -> None:
        try:
            params = lsp.InitializeParams.model_validate(req.params if req.params is not None else {})
        except ValidationError as exc:
            self._send_error(req.id, RpcError.from_council(from_pydantic(exc, "initialize params")))
            return
        self.phase = Phase.RUNNING
        client = params.client_info.name if params.client_info else "an unnamed client"
        log.info("initialized by %s", client[:100])
        self._send_result(req.id, self._info)

    async def _shutdown(self, _params: Any) -> None:
        if self._shutdown_hook is not None:
            await self._shutdown_hook()

    def _start(self, req: Request, handler: RequestHandler) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(self._run(req, handler), name=f"request {req.id!r}")
        self._running[req.id] = task
        return task

    async def _run(self, req: Request, handler: RequestHandler) -> None:
        try:
            result = await handler(req.params)
        except asyncio.CancelledError:
            if req.id not in self._cancelled:
                raise  # teardown: the client has gone
            log.info("request %r (%s) cancelled by the client", req.id, req.method)
            self._send_error(req.id, RpcError(REQUEST_CANCELLED, f"request {req.id!r} was cancelled",
                                              reason="cancelled", id=req.id))
        except CouncilError as err:
            log.info("%s refused: %s", req.method, err.message)
            self._send_error(req.id, RpcError.from_council(err))
        except RpcError as err:
            self._send_error(req.id, err)
        except Exception as exc:
            log.exception("%s failed", req.method)
            self._send_error(req.id, RpcError.from_council(
                internal_error(f"{req.method} failed: {type(exc).__name__}: {exc}"[:2000])))
        else:
            self._send_result(req.id, result)
        finally:
            self._running.pop(req.id, None)
            self._cancelled.discard(req.id)

    def _notification(self, note: Notification) -> None:
        method = note.method
        if method == lsp.EXIT:
            log.info("exit received%s", "" if self._shut_down else " without shutdown")
            self._finish()
        elif self.phase is not Phase.RUNNING:
            log.debug("notification %s dropped: %s", method[:80], self.phase.value)
        elif method == lsp.CANCEL_REQUEST:
            self._cancel(note.params)
        elif method in self._notifications:
            try:
                self._notifications[method](note.params)
            except Exception:
                log.exception("notification %s failed", method)
        elif method in self._requests or method in (lsp.INITIALIZE, lsp.SHUTDOWN):
            log.warning("%s sent without an id: not run (a request needs an id)", method)
        else:
            log.debug("notification %s ignored", method[:80])

    def _cancel(self, params: Any) -> None:
        try:
            target = lsp.CancelParams.model_validate(params).id
        except ValidationError:
            log.debug("malformed $/cancelRequest ignored")
            return
        task = self._running.get(target)
        if task is None or task.done() or task is self._shutdown_task:
            log.debug("$/cancelRequest for %r: no such request in flight", target)
            return
        self._cancelled.add(target)
        task.cancel()

    def _settle(self, resp: Response) -> None:
        future = self._outgoing.pop(resp.id, None)  # type: ignore[call-overload]
        if future is None or future.done():
            log.debug("response to unknown request %r ignored", resp.id)
        elif resp.error is not None:
            future.set_exception(resp.error)
        else:
            future.set_result(resp.result)

    # --- output ---------------------------------------------------------------------------------------------
    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification (dropped once the server has finished)."""
        if not self.finished:
            self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any = None) -> Any:
        """Send a request to the client and wait for its result; cancelling sends ``$/cancelRequest``."""
        if self.finished:
            raise PeerError(CONNECTION_CLOSED, "the client connection is closed")
        msg_id = f"council-{next(self._ids)}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._outgoing[msg_id] = future
        if not self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}):
            self._outgoing.pop(msg_id, None)
            raise PeerError(CONNECTION_CLOSED, f"the {method} request could not be encoded")
        try:
            return await future
        except asyncio.CancelledError:
            if self._outgoing.pop(msg_id, None) is not None:
                self.notify(lsp.CANCEL_REQUEST, {"id": msg_id})  # a late reply is then ignored
            raise
        finally:
            self._outgoing.pop(msg_id, None)

    def _send_result(self, msg_id: MsgId, result: Any) -> None:
        if not self._send({"jsonrpc": "2.0", "id": msg_id, "result": result}):
            self._send_error(msg_id, RpcError.from_council(internal_error("the result could not be encoded")))

    def _send_error(self, msg_id: MsgId | None, error: RpcError) -> None:
        self._send({"jsonrpc": "2.0", "id": msg_id, "error": error.to_wire()})

    def _send(self, message: dict[str, Any]) -> bool:
        """Write one frame; False when the message cannot be encoded (a bug: logged)."""
        try:
            frame = encode_frame(message)
        except (TypeError, ValueError) as exc:
            log.error("a %s could not be encoded as JSON: %s", "response" if "id" in message else "notification",
                      exc)
            return False
        if self._broken or self.write is None:
            return True
        try:
            self.write(frame)
        except OSError as exc:
            self._broken = True
            log.error("council serve: writing to the client failed (%s); exiting", exc)
            self._finish()
        return True

    # --- end ------------------------------------------------------------------------------------------------
    def _finish(self) -> None:
        if self.exit_code is None:
            self.exit_code = 0 if self._shut_down else 1
            self.phase = Phase.EXITED
            self.on_finish()

    async def aclose(self) -> None:
        """After ``exit`` or the end of input: let a pending ``shutdown`` answer, cancel the other requests, fail the
        sidecar's own pending requests and run the shutdown hook if ``shutdown`` never came."""
        self._finish()
        if self._shutdown_task is not None:
            await asyncio.wait({self._shutdown_task}, timeout=TEARDOWN_SECONDS)
        tasks = [task for task in self._running.values() if not task.done()]
        for task in tasks:
            task.cancel()
        for future in self._outgoing.values():
            if not future.done():
                future.set_exception(PeerError(CONNECTION_CLOSED, "the client connection is closed"))
        self._outgoing.clear()
        if tasks:
            await asyncio.wait(tasks, timeout=TEARDOWN_SECONDS)
        if not self._shut_down and self._shutdown_hook is not None:
            try:
                await asyncio.wait_for(self._shutdown_hook(), TEARDOWN_SECONDS)
            except Exception as exc:
                log.warning("closing the service at exit failed: %s", exc)
