"""The failures the council reports: ``validation`` (bad input or wrong state), ``permission`` (refused by a limit
or a rule), ``internal`` (a fault of ours).

Domain code raises :class:`CouncilError`; it knows nothing of JSON-RPC. A reason a person reads comes from the
catalogs (``council.words.t``), in the language of the request's session. The one place that turns it into a wire
error is ``council.protocol.errors`` (used by the server, the MCP server and every other surface).
"""

from __future__ import annotations

import sys
from enum import Enum
from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # not imported at run time: the sidecar's transport loads this module before pydantic
    from pydantic import ValidationError

from council import words

if sys.version_info < (3, 11):  # pragma: no cover - the backport anyio depends on
    from exceptiongroup import BaseExceptionGroup


class ErrorCode(str, Enum):
    """What kind of failure: the caller's input, a refused permission, or a fault of ours."""

    VALIDATION = "validation"
    PERMISSION = "permission"
    INTERNAL = "internal"


class CouncilError(Exception):
    """A failure to report to the caller with its kind, a readable message and structured details. ``language`` is
    the one being written where it was raised (``council.words``: the session's, while the service handles a request
    about a session): a message from the catalogs is in it, and so is the sentence around it (``ErrorData.text``)."""

    def __init__(self, code: ErrorCode, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        self.language = words.language()


validation_error = partial(CouncilError, ErrorCode.VALIDATION)
permission_error = partial(CouncilError, ErrorCode.PERMISSION)
internal_error = partial(CouncilError, ErrorCode.INTERNAL)


def root_cause(exc: BaseException) -> BaseException:
    """The exception that actually went wrong: task groups wrap failures in ``ExceptionGroup``s ("unhandled errors
    in a TaskGroup (1 sub-exception)"), which say nothing. Unwraps nested groups to their first leaf that is not a
    cancellation (or the first leaf when every one is)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        leaves = [e for e in exc.exceptions if not _is_cancellation(e)]
        exc = (leaves or list(exc.exceptions))[0]
    return exc


def _is_cancellation(exc: BaseException) -> bool:
    return type(exc).__name__ == "CancelledError" or (
        isinstance(exc, BaseExceptionGroup) and all(_is_cancellation(e) for e in exc.exceptions))


def from_pydantic(exc: ValidationError, what: str, prefix: str = "") -> CouncilError:
    """A validation CouncilError with one entry per offending field (dotted camelCase path → message); ``prefix``
    names where the validated value sits in the request (``journal`` → ``journal.0.kind``). An error that carries
    ``limit`` and ``actual`` also gives ``details.reason``/``limit``/``actual``."""
    fields: dict[str, str] = {}
    limits: dict[str, Any] = {}
    for err in exc.errors(include_url=False):
        path = ".".join(str(p) for p in (prefix, *err["loc"]) if p != "") or "(root)"
        fields[path] = err["msg"]
        ctx = err.get("ctx") or {}
        if "limit" in ctx and "actual" in ctx:  # a limit of ours (e.g. the context of a turn): the numbers too
            limits = {"reason": err["type"], "limit": ctx["limit"], "actual": ctx["actual"]}
    return validation_error(f"invalid {what}: " + "; ".join(f"{k}: {v}" for k, v in fields.items()), fields=fields,
                            **limits)
