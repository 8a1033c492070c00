"""The gate in front of pygls: it answers every refusal itself (docs/protocol.md's "Transport" says which, how) and
hands the rest to pygls's protocol one top-level message at a time; what pygls sends passes back through it
(``outgoing``), so pygls's errors get the contract's data and its responses end the requests in flight.

The gate also keeps the requests the sidecar sends its client (``council/complete``) until each ends, once: with the
client's reply, with an error when the reply is malformed (its id read wherever it can be: a body that is not JSON, a
response without ``result`` or ``error``, one too large to read), or when the sidecar cancels it (``$/cancelRequest``
leaving: the caller's deadline or cancel). A reply to a request that has ended (late, repeated, unknown) is dropped.

Built with ``load`` (what ``council serve`` does), the gate answers ``initialize`` itself before pygls, lsprotocol
and the service are imported, then loads them and runs pygls's own ``initialize`` with its answer kept back. pygls
never gets ``exit`` (it would call ``sys.exit``): :meth:`Gate.close` lets a pending ``shutdown`` answer, closes the
service if ``shutdown`` never came, refuses what still runs (every request is answered once) and returns LSP's code.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from council import __version__
from council.errors import ErrorCode, from_pydantic
from council.protocol.constants import JSONRPC_CODES, METHOD_NOT_FOUND, REQUEST_CANCELLED, SERVER_NOT_INITIALIZED
from council.transport import jsonrpc as rpc
from council.transport import lsp
from council.transport.framing import Fault, FrameWriter, Message

if TYPE_CHECKING:
    from pygls.protocol import JsonRPCProtocol

log = logging.getLogger(__name__)

TEARDOWN_SECONDS = 10.0  # how long a pending shutdown, and the service's close at exit, get


class Phase(Enum):
    WAITING = "waiting for initialize"
    RUNNING = "running"
    SHUTDOWN = "shutting down"


@dataclass
class Served:
    """What the gate hands messages to: pygls's protocol, the registered features that are notifications, and what
    closes the service when the client goes away without ``shutdown``."""

    protocol: JsonRPCProtocol
    notifications: frozenset[str] = frozenset()
    teardown: Callable[[], Awaitable[None]] | None = None


class Gate:
    def __init__(self, protocol: JsonRPCProtocol | None, writer: FrameWriter, *,
                 load: Callable[[], Served] | None = None) -> None:
        """Without ``protocol``, ``load`` gives a :class:`Served` once ``initialize`` is answered."""
        if protocol is None and load is None:
            raise ValueError("a gate needs a protocol or a way to load one")
        self.protocol: JsonRPCProtocol | None = None
        self.load = load
        self.failed: str | None = None  # why ``load`` failed
        self.writer = writer
        self.notifications: frozenset[str] = frozenset()
        self.teardown: Callable[[], Awaitable[None]] | None = None
        self.phase = Phase.WAITING
        self.stopped = False
        self.on_stop: Callable[[], None] = lambda: None  # the stdio loop's wake-up
        self._in_flight: set[rpc.MsgId] = set()
        self._cancelled: set[rpc.MsgId] = set()
        self._initializing: rpc.MsgId | None = None
        self._shutdown_id: rpc.MsgId | None = None
        self._shut_down = asyncio.Event()
        self._muted: set[rpc.MsgId] = set()  # requests pygls runs whose answer the gate sent already (initialize)
        self._asked: dict[rpc.MsgId, str] = {}  # the sidecar's own requests to the client not ended yet → method
        writer.outgoing = self._outgoing
        writer.on_broken = self.stop
        if protocol is not None:
            self._attach(Served(protocol))

    def _attach(self, served: Served) -> None:
        from council.transport import pygls_adapter  # loads pygls: once a protocol is served, never before

        self._adapter = pygls_adapter
        self.protocol, self.notifications, self.teardown = served.protocol, served.notifications, served.teardown
        self.protocol.set_writer(self.writer, include_headers=False)

    # --- input ----------------------------------------------------------------------------------------------
    def receive(self, event: Message | Fault) -> None:
        """Handle one event of the frame reader (synchronously; pygls starts a task per request)."""
        if self.stopped:
            return
        if isinstance(event, Fault):
            log.warning("malformed frame answered with id %r: %s", event.id, event.details.get("reason", event.code))
            log.debug("malformed frame: %s", event.message)  # may quote the client's bytes
            error = rpc.RpcError(event.code, event.message, **event.details)
            if event.response_to in self._asked:  # the client's answer to a request of the sidecar's: it fails now
                self._refuse(None, error)
                self._end_asked(event.response_to, event.code, f"the client's reply was malformed: {event.message}")
            else:
                self._refuse(event.id, error)
            return
        envelope = rpc.classify(event.value)
        if event.length_mismatch:
            log.warning("Content-Length %d but the JSON ended after %d bytes: message refused",
                        event.declared, event.used)
            error = rpc.invalid(f"Content-Length is {event.declared} but the JSON message ends after {event.used} "
                                "bytes: the message was not run", "length mismatch", declared=event.declared,
                                used=event.used)
            if not self._malformed_reply(event.value, error):
                self._refuse(envelope.id if isinstance(envelope, rpc.Request) else None, error)
            return
        if isinstance(envelope, rpc.Invalid) and self._malformed_reply(event.value, envelope.error):
            return
        for item in envelope if isinstance(envelope, list) else [envelope]:
            self._dispatch(item)

    def _dispatch(self, envelope: rpc.Envelope) -> None:
        if isinstance(envelope, rpc.Request):
            self._request(envelope)
        elif isinstance(envelope, rpc.Notification):
            self._notification(envelope)
        elif isinstance(envelope, rpc.Response):
            self._response(envelope)
        elif isinstance(envelope, rpc.Invalid):
            log.warning("invalid message (id %r): %s", envelope.id, envelope.error.message)
            self._refuse(envelope.id, envelope.error)
        elif isinstance(envelope, rpc.Dropped):
            log.warning("dropped %s", envelope.reason)

    def _request(self, req: rpc.Request) -> None:
        refusal = self._refusal(req)
        if refusal is None and req.method == lsp.INITIALIZE:
            refusal = self._check_initialize(req.params)
        if refusal is not None:
            log.info("request %r (%s) refused: %s", req.id, req.method[:80], refusal.message)
            self._refuse(req.id, refusal)
            return
        params = req.params
        if req.method == lsp.INITIALIZE and self.protocol is None:
            self._initialize_then_load(req)
            return
        if req.method == lsp.SHUTDOWN and self.protocol is None:  # it never started: nothing to shut down
            self.phase, self._shutdown_id = Phase.SHUTDOWN, req.id
            self.writer.send({"jsonrpc": "2.0", "id": req.id, "result": None})
            self._shut_down.set()
            return
        if req.method == lsp.INITIALIZE:
            self._initializing = req.id
        elif req.method == lsp.SHUTDOWN:
            self.phase, self._shutdown_id, params = Phase.SHUTDOWN, req.id, None  # shutdown takes no params
        self._in_flight.add(req.id)
        self._forward({"jsonrpc": "2.0", "id": req.id, "method": req.method, "params": params}, req.id)

    def _initialize_then_load(self, req: rpc.Request) -> None:
        """Answer ``initialize`` at once, then load pygls and the service and let pygls initialize quietly."""
        assert self.load is not None
        self.writer.send({"jsonrpc": "2.0", "id": req.id, "result": {
            "capabilities": {}, "serverInfo": {"name": "council", "version": __version__}}})
        self.phase = Phase.RUNNING
        try:
            served = self.load()
        except Exception as exc:
            log.exception("the sidecar could not start after initialize")
            self.failed = f"{type(exc).__name__}: {exc}"[:2000]
            return
        self._attach(served)
        self._muted.add(req.id)  # pygls's own initialize (client capabilities, process id, workspace), unanswered
        try:
            served.protocol.handle_message(self._adapter.structure(served.protocol, {
                "jsonrpc": "2.0", "id": req.id, "method": req.method, "params": req.params}))
        except Exception as exc:  # pygls keeps its defaults (no client capabilities): the council needs none
            self._muted.discard(req.id)
            log.warning("pygls could not take the initialize params: %s", exc)

    def _refusal(self, req: rpc.Request) -> rpc.RpcError | None:
        method = req.method
        if self.phase is Phase.SHUTDOWN:
            return rpc.invalid(f"the server is shutting down: {method} refused", "shutdown", method=method)
        if method == lsp.INITIALIZE and (self.phase is Phase.RUNNING or self._initializing is not None):
            return rpc.invalid("initialize was already received", "already initialized")
        if self.phase is Phase.WAITING and method != lsp.INITIALIZE:
            return rpc.RpcError(SERVER_NOT_INITIALIZED, f"server not initialized: send initialize before {method}",
                                reason="not initialized", method=method)
        if self.protocol is None and self.failed is not None and method != lsp.SHUTDOWN:
            return rpc.RpcError(JSONRPC_CODES[ErrorCode.INTERNAL], f"the sidecar could not start: {self.failed}",
                                ErrorCode.INTERNAL, reason="not started", cause=self.failed)
        if not self._serves(method):
            if method in lsp.NOTIFICATIONS or method in self.notifications:
                return rpc.RpcError(METHOD_NOT_FOUND, f"{method} is a notification: send it without an id",
                                    reason="notification", method=method)
            return rpc.RpcError(METHOD_NOT_FOUND, f"method not found: {method}", reason="unknown method",
                                method=method)
        if req.id in self._in_flight:
            return rpc.invalid(f"request id {req.id!r} is already in flight", "duplicate id", id=req.id)
        return None

    def _serves(self, method: str) -> bool:
        """A request pygls should run: the handshake's, or a registered feature that is not a notification."""
        if method in (lsp.INITIALIZE, lsp.SHUTDOWN):
            return True
        return (self.protocol is not None and method in self.protocol.fm.features
                and method not in self.notifications
                and method not in lsp.NOTIFICATIONS)

    def _check_initialize(self, params: Any) -> rpc.RpcError | None:
        params = params if params is not None else {}
        if not lsp.plainly_valid(params):  # the model decides, with field details (pydantic loads only here)
            from pydantic import ValidationError

            from council.transport.lsp_params import InitializeParams

            try:
                InitializeParams.model_validate(params)
            except ValidationError as exc:
                return rpc.RpcError.from_council(from_pydantic(exc, "initialize params"))
        log.info("initialize from %s", (lsp.client_name(params) or "a client")[:100])
        return None

    def _notification(self, note: rpc.Notification) -> None:
        method = note.method
        if method == lsp.EXIT:
            log.info("exit received%s", "" if self._shutdown_id is not None else " without shutdown")
            self.stop()
        elif self.phase is not Phase.RUNNING:
            log.debug("notification %s dropped: %s", method[:80], self.phase.value)
        elif method == lsp.CANCEL_REQUEST:
            self._cancel(note.params)
        elif method in lsp.FORWARDED or method in self.notifications:
            params = {} if note.params is None and method == lsp.INITIALIZED else note.params
            self._forward({"jsonrpc": "2.0", "method": method, "params": params})
        elif self._serves(method):
            log.warning("%s sent without an id: not run (a request needs an id)", method)
        else:
            log.debug("notification %s ignored", method[:80])

    def _cancel(self, params: Any) -> None:
        target = params.get("id") if isinstance(params, dict) else None
        if not rpc.valid_id(target) or target not in self._in_flight or target in self._cancelled \
                or target == self._shutdown_id:
            log.debug("$/cancelRequest for %r: no such request in flight", target)
            return
        self._cancelled.add(target)
        log.debug("$/cancelRequest for %r: the request is cancelled", target)
        self._forward({"jsonrpc": "2.0", "method": lsp.CANCEL_REQUEST, "params": {"id": target}})

    def _response(self, resp: rpc.Response) -> None:
        if resp.id in self._in_flight:
            log.warning("a response with the id of the client's own request %r in flight was dropped", resp.id)
            return
        if self._asked.pop(resp.id, None) is None:
            log.debug("a response to %r, which the sidecar is not waiting for (ended, or never asked): dropped",
                      resp.id)
            return
        outcome = {"result": resp.result} if resp.error is None else {"error": resp.error}
        self._forward({"jsonrpc": "2.0", "id": resp.id, **outcome})

    def _malformed_reply(self, value: Any, error: rpc.RpcError) -> bool:
        """A refused message that is the client's reply to a request the sidecar is waiting for (no method, and the
        id of that request): refused with id null (the id is the sidecar's, not a request of the client's) and the
        request ends with the error. False for anything else (refused as usual)."""
        msg_id = value.get("id") if isinstance(value, dict) and "method" not in value else None
        if not rpc.valid_id(msg_id) or msg_id not in self._asked:
            return False
        log.warning("a malformed reply to the sidecar's request %r: %s", msg_id, error.message)
        self._refuse(None, error)
        self._end_asked(msg_id, error.code, f"the client's reply was malformed: {error.message}")
        return True

    def _end_asked(self, msg_id: rpc.MsgId, code: int, message: str) -> None:
        """End the sidecar's request ``msg_id`` with an error (pygls's future fails), unless it has ended."""
        if self._asked.pop(msg_id, None) is None:
            log.debug("the sidecar's request %r had ended already", msg_id)
            return
        self._forward({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message[:2000]}})

    # --- to pygls -------------------------------------------------------------------------------------------
    def _forward(self, message: dict[str, Any], request_id: rpc.MsgId | None = None) -> None:
        """Hand one checked message to pygls. A request whose LSP params pygls cannot read is refused here."""
        if self.protocol is None:  # not loaded (it failed): nothing runs
            if request_id is not None:
                self._refuse(request_id, rpc.RpcError(SERVER_NOT_INITIALIZED, "the sidecar failed to start",
                                                      reason="not started"))
            return
        try:
            structured = self._adapter.structure(self.protocol, message)
        except rpc.RpcError as err:
            if request_id is None:
                log.debug("%s dropped: %s", message.get("method", "a response"), err.message)
                return
            self._refuse(request_id, err)
            self._answered(request_id, False)
            return
        try:
            self.protocol.handle_message(structured)
        except Exception:
            log.exception("pygls failed on %s", message.get("method", "a response"))

    def _outgoing(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Every message pygls sends: its errors get the contract's data, its responses settle the bookkeeping; the
        answer to a request the gate answered itself is not sent (None). The sidecar's own requests are kept until
        they end; cancelling one ends it (the client's late answer is then dropped)."""
        method = message.get("method")
        if method is not None and rpc.valid_id(message.get("id")):
            self._asked[message["id"]] = method
        elif method == lsp.CANCEL_REQUEST and isinstance(params := message.get("params"), dict) \
                and params.get("id") in self._asked:
            asyncio.get_running_loop().call_soon(self._end_asked, params["id"], REQUEST_CANCELLED,
                                                 "the sidecar cancelled the request")
        if "method" not in message and "id" in message:
            if message["id"] in self._muted:
                self._muted.discard(message["id"])
                if "error" in message:
                    log.warning("pygls's own initialize failed after the gate answered it: %s", message["error"])
                return None
            if "error" in message:
                message["error"] = self._adapter.contract_error(message["id"], message["error"])
            self._answered(message["id"], "error" not in message)
        return message

    def _answered(self, msg_id: rpc.MsgId, ok: bool) -> None:
        """Every response that leaves (pygls's or the gate's for a forwarded request)."""
        self._in_flight.discard(msg_id)
        self._cancelled.discard(msg_id)
        if msg_id == self._initializing:
            self._initializing = None
            if ok and self.phase is Phase.WAITING:
                self.phase = Phase.RUNNING
        elif msg_id == self._shutdown_id:
            self._shut_down.set()

    def _refuse(self, msg_id: rpc.MsgId | None, error: rpc.RpcError) -> None:
        self.writer.send({"jsonrpc": "2.0", "id": msg_id, "error": error.to_wire()})

    # --- end ------------------------------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop reading (``exit``, the end of input, a broken stdout)."""
        if not self.stopped:
            self.stopped = True
            self.on_stop()

    async def close(self) -> int:
        """Let a pending ``shutdown`` answer, close the service if it never came, close the output; LSP's exit code:
        0 after ``shutdown`` was answered (1 when the sidecar never started), else 1."""
        self.stop()
        if self._shutdown_id is not None:
            try:
                await asyncio.wait_for(self._shut_down.wait(), TEARDOWN_SECONDS)
            except asyncio.TimeoutError:
                log.warning("shutdown did not answer within %g s", TEARDOWN_SECONDS)
        if not self._shut_down.is_set() and self.teardown is not None:
            try:
                await asyncio.wait_for(self.teardown(), TEARDOWN_SECONDS)
            except Exception as exc:
                log.warning("closing the service at exit failed: %s", exc)
        for msg_id in list(self._in_flight):  # still running (it came right behind initialize …): refused, not lost
            log.info("request %r was still running at exit: refused", msg_id)
            self._refuse(msg_id, rpc.invalid(f"the server exited before request {msg_id!r} was answered",
                                             "shutdown", id=msg_id))
            self._answered(msg_id, False)
        self.writer.close()
        return 0 if self._shut_down.is_set() and self.protocol is not None else 1
