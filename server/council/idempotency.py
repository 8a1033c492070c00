"""Run a request once per idempotency key: a repeat (even a concurrent one) gets the first call's result.

Only successes are remembered. A refusal or a failure is handed to the calls waiting on the same key at that
moment and then forgotten, so the same button works once the reason for the refusal is gone. The memory holds at
most ``limit`` results; the oldest go first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio

T = TypeVar("T")


class _Box:
    def __init__(self) -> None:
        self.done = anyio.Event()
        self.result: Any = None
        self.error: BaseException | None = None


class KeyedOnce:
    def __init__(self, limit: int = 256) -> None:
        self.limit = limit
        self._results: OrderedDict[str, Any] = OrderedDict()
        self._running: dict[str, _Box] = {}

    def __len__(self) -> int:
        return len(self._results) + len(self._running)

    async def run(self, key: str, fn: Callable[[], Awaitable[T]], repeat: Callable[[T], T] = lambda x: x) -> T:
        if key in self._results:
            self._results.move_to_end(key)
            return repeat(self._results[key])
        box = self._running.get(key)
        if box is not None:
            await box.done.wait()
            if box.error is not None:
                raise box.error
            return repeat(box.result)
        box = self._running[key] = _Box()
        try:
            box.result = await fn()
        except BaseException as exc:
            box.error = exc if isinstance(exc, Exception) else RuntimeError("the first request was cancelled")
            raise
        else:
            self._results[key] = box.result
            while len(self._results) > self.limit:
                self._results.popitem(last=False)
            return box.result
        finally:
            del self._running[key]
            box.done.set()
