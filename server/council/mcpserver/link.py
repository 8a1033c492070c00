"""One tool call's line back to the MCP client (SDK 2.x): the server→client requests ``council mcp`` makes
(sampling, elicitation, roots) and its notifications, under request ids it picks itself, so that
:func:`~council.providers.sampling.ask_client` knows a request's id before it is sent and can withdraw it
(``notifications/cancelled`` with its reason) when the council stops waiting. The SDK 2.x mints ids inside its
dispatcher and says none of them beforehand; it takes a caller's own id (``CallOptions.request_id``).

Ids count from 0 per connection, as the SDK 1.x did; every server→client request of ``council mcp`` goes through
here, so none is minted twice.
"""

from __future__ import annotations

from typing import Any, TypeVar

import mcp.types as types
from mcp.server.session import ServerSession
from pydantic import BaseModel

ResultT = TypeVar("ResultT", bound=BaseModel)
_NEXT_ID = "council.next_request_id"  # the connection's counter, in its per-connection state


class ClientLink:
    """What the council needs of a tool call's ``ServerSession``: its client, requests with known ids, and
    notifications (the request-scoped channel when ``related_request_id`` is given, as the SDK's own)."""

    def __init__(self, session: ServerSession) -> None:
        self.session = session
        self._connection = session._connection  # pinned to mcp 2.x: the per-connection state and channel
        self._state = self._connection.state
        self._state.setdefault(_NEXT_ID, 0)

    @property
    def client_params(self) -> types.InitializeRequestParams | None:
        return self.session.client_params

    @property
    def client_capabilities(self) -> types.ClientCapabilities | None:
        return self.session.client_capabilities

    @property
    def _request_id(self) -> int:
        """The id the next request takes (:func:`~council.providers.sampling.ask_client` reads it)."""
        return self._state[_NEXT_ID]

    async def send_request(self, request: BaseModel, result_type: type[ResultT],
                           related_request_id: types.RequestId | None = None) -> ResultT:
        """Send ``request``; the client's result read as ``result_type`` (an error is raised as ``MCPError``)."""
        request_id = self._state[_NEXT_ID]
        self._state[_NEXT_ID] = request_id + 1
        channel = self.session._request_outbound if related_request_id is not None else self._connection.outbound
        data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
        result = await channel.send_raw_request(data["method"], data.get("params"), {"request_id": request_id})
        return result_type.model_validate(result, by_name=False)

    async def send_notification(self, notification: BaseModel,
                                related_request_id: types.RequestId | None = None) -> None:
        await self.session.send_notification(notification, related_request_id)  # type: ignore[arg-type]

    async def send_progress_notification(self, token: types.ProgressToken | None, progress: float,
                                         total: float | None, message: str | None,
                                         related_request_id: types.RequestId | None) -> None:
        """Progress of the call (none when the client sent no progress token)."""
        if token is None:
            return
        await self.session.send_progress_notification(token, progress, total, message,
                                                      related_request_id=related_request_id)  # type: ignore[arg-type]

    async def create_message(self, messages: list[types.SamplingMessage], *, max_tokens: int,
                             related_request_id: types.RequestId | None = None,
                             **kwargs: Any) -> types.CreateMessageResult:
        """``sampling/createMessage`` (the client's model)."""
        params = types.CreateMessageRequestParams(messages=messages, max_tokens=max_tokens, **kwargs)
        return await self.send_request(types.CreateMessageRequest(params=params), types.CreateMessageResult,
                                       related_request_id)

    async def elicit_form(self, message: str, requested_schema: dict[str, Any],
                          related_request_id: types.RequestId | None = None) -> types.ElicitResult:
        """``elicitation/create`` in form mode (a clarifying question)."""
        params = types.ElicitRequestFormParams(message=message, requested_schema=requested_schema)
        return await self.send_request(types.ElicitRequest(params=params), types.ElicitResult, related_request_id)
