"""The contract's plain constants: the JSON-RPC numeric codes (one per error kind, and the transport's own), the
names of the methods that carry events and completions, and the text limits every surface shares.

No model behind them, so the sidecar's transport can import them before ``initialize`` is answered, and ``council
ask`` before it starts the sidecar, without loading pydantic (``council.protocol.errors`` re-exports the codes).
"""

from __future__ import annotations

from council.errors import ErrorCode

EVENT_METHOD = "council/event"
COMPLETE_METHOD = "council/complete"
COMPLETE_DELTA_METHOD = "council/completeDelta"

# Text limits of a chat turn, an answer to a clarifying question (by ``council/answer`` or MCP elicitation), a
# consult's problem, attached context: one definition each.
MAX_TEXT = 20_000  # characters in one chat turn, one answer, one consult problem
MAX_CONTEXT = 200_000  # characters of attached context in one turn or consult
MAX_CHOICE = 120  # characters of a choice's value
MAX_MODEL_SPECS = 12  # `models` of a turn: one per seat at most (max_personas is 12)

# JSON-RPC numeric codes used for each kind (the string code in ``data.code`` is the contract).
JSONRPC_CODES: dict[ErrorCode, int] = {
    ErrorCode.VALIDATION: -32602,  # Invalid params
    ErrorCode.PERMISSION: -32001,
    ErrorCode.INTERNAL: -32603,  # Internal error
}


# JSON-RPC codes of the transport itself. Their ``data.code`` is always ``validation``: the client sent something
# the sidecar cannot or will not serve; ``details.reason`` says what.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
SERVER_NOT_INITIALIZED = -32002
REQUEST_CANCELLED = -32800

TRANSPORT_ERRORS: dict[int, str] = {
    PARSE_ERROR: "unreadable bytes: no header where one must start, a bad `Content-Length`, a body that is not "
                 "UTF-8 JSON (id null)",
    INVALID_REQUEST: "readable but not servable: not a JSON-RPC 2.0 request object, a bad `id`/`method`/`params`, "
                     "a body over the size limit, a wrong `Content-Length`, a batch, a duplicate id in flight, "
                     "`initialize` twice, any request after `shutdown`",
    METHOD_NOT_FOUND: "no request by that name (also a notification method such as `initialized` sent with an id)",
    SERVER_NOT_INITIALIZED: "a request before `initialize` succeeded",
    REQUEST_CANCELLED: "the client cancelled the request with `$/cancelRequest` (`details.reason`: `cancelled`)",
}
