"""The shared runner of the agent-CLI providers (``claude -p``, ``codex exec``, ``gemini``, ``copilot -p``): a seat
on a CLI the user is signed into is one text completion, run as a child process.

Every call: the prompt on stdin (never in argv); a fresh scratch working directory (0700, removed after); the
process in its own process group, killed as a group when the call is cancelled, outlives its deadline
(``options.deadline``) or is silent longer than ``timeout``; stdout read line by line as the CLI's JSON events and
capped (``options.max_output_bytes``), stderr kept to its last :data:`STDERR_KEEP` bytes. The child's environment
carries :data:`SEAT_MARKER`, which ``council mcp`` checks so that a CLI seated from inside Council never starts
Council again. Each CLI module says how it turns off tools, MCP servers, plugins and hooks, and how it reads its
events. A failure is an :class:`AgentCliError` whose ``failure`` is one of :data:`FAILURES`, with its fix in one
line (``words``: ``agent_cli.*``).
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from abc import abstractmethod
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from subprocess import PIPE
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, Process
from anyio.streams.buffered import BufferedByteReceiveStream
from pydantic import BaseModel, ConfigDict, Field

from council.config import ProviderConfig
from council.errors import root_cause
from council.providers.base import (
    ChatMessage,
    CompletionRequest,
    Provider,
    ProviderError,
    ProviderStatus,
    Usage,
    report_usage,
)
from council.words import t

if sys.version_info < (3, 11):  # pragma: no cover - the backport anyio depends on
    from exceptiongroup import BaseExceptionGroup

log = logging.getLogger(__name__)

#: Set in every seated CLI's environment; ``council mcp`` refuses to serve when it finds it (no recursion).
SEAT_MARKER = "COUNCIL_SEAT"
STDERR_KEEP = 16_384
CHECK_DEADLINE = 60.0
#: The model a seat names when none is configured: the CLI's own default (what the user's plan and settings pick).
DEFAULT_MODEL = "default"
FAILURES = ("not_installed", "not_signed_in", "quota", "unknown_model", "timeout", "failed")

# What a CLI says when it fails, in the words the vendors use (checked against the real CLIs' messages).
_SIGNED_OUT = re.compile(r"not (logged|signed) in|please (run )?/?login|log ?in (first|again|required)|"
                         r"authori[sz]ation is required|no authentication information|"
                         r"invalid.{0,20}(api[ _-]?key|x-api-key|token)|unauthori[sz]ed|\b401\b|authenticat|"
                         r"auth method|credentials? (not found|missing|expired)|oauth", re.I)
_QUOTA = re.compile(r"rate.?limit|\b429\b|quota|usage limit|too many requests|resource.?exhausted|"
                    r"out of (credits|premium requests)|billing|insufficient", re.I)
#: A rate limit said outright, checked before sign-in: Gemini CLI's 429 advice ends "or switch to another /auth method".
_RATE_LIMITED = re.compile(r"\b429\b|resource.?exhausted|too many requests|rate.?limit|quota", re.I)
_MODEL = re.compile(r"(model|models/)[^\n]{0,80}(not found|does not exist|not exist|unknown|invalid|not supported|"
                    r"not available|unavailable|no access)|(unknown|invalid|unsupported) model|\b404\b", re.I)


class AgentCliOptions(BaseModel):
    """``ProviderConfig.options`` for the agent-CLI kinds."""

    model_config = ConfigDict(extra="forbid")

    binary: str | None = Field(None, description="The CLI's executable (default: found on PATH by its name).")
    deadline: float = Field(600.0, gt=0, le=7200, description="Seconds one call may take in all.")
    max_output_bytes: int = Field(8 * 1024 * 1024, ge=1024, description="Most bytes of output read from the CLI.")


class AgentCliError(ProviderError):
    """A seat's CLI failed; ``failure`` is one of :data:`FAILURES` and the message ends with its fix."""

    def __init__(self, failure: str, message: str, *, kind: str, retryable: bool = False) -> None:
        super().__init__(message, kind=kind, retryable=retryable)
        self.failure = failure


@dataclass
class Event:
    """One thing read from the CLI's output: a text delta, the whole final text, usage, an error it reported, or a
    warning (which fails the call only when no reply follows it: "Loop detected, stopping execution")."""

    delta: str = ""
    final: str | None = None
    usage: Usage | None = None
    error: str | None = None
    warning: str | None = None


def transcript(messages: Iterable[ChatMessage], *, with_system: bool = True) -> str:
    """The prompt as one text for a CLI's stdin: a lone user message as it is, else each message under its role."""
    kept = [m for m in messages if with_system or m.role != "system"]
    if len(kept) == 1 and kept[0].role == "user":
        return kept[0].content
    names = {"system": "Instructions", "user": "User", "assistant": "Assistant"}
    return "\n\n".join(f"## {names[m.role]}\n\n{m.content}" for m in kept)


def system_text(messages: Iterable[ChatMessage]) -> str:
    return "\n\n".join(m.content for m in messages if m.role == "system")


def json_lines(line: bytes) -> dict[str, Any] | None:
    """A JSON object from one output line, or None (banners, warnings: skipped)."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


async def ask_quietly(argv: list[str], seconds: float = 20.0) -> tuple[int | None, str]:
    """Run a CLI's own status command (no model call): its exit status and what it wrote, stdout first (None: it
    could not run or took too long). It runs as a seat does: :data:`SEAT_MARKER` set, its own process group."""
    env = {**os.environ, SEAT_MARKER: "1", "NO_COLOR": "1"}
    try:
        with anyio.fail_after(seconds):
            done = await anyio.run_process(argv, env=env, check=False, stdin=subprocess.DEVNULL,
                                           start_new_session=True)
    except (OSError, TimeoutError) as err:
        log.debug("%s could not tell: %s", argv[:3], err)
        return None, ""
    return done.returncode, (done.stdout + b"\n" + done.stderr).decode("utf-8", "replace")


@contextmanager
def unwrapped_group() -> Iterator[None]:
    """A task group's failure as its one exception: an :class:`AgentCliError` raised inside the group (the output
    too long, silent too long) surfaces as itself, classified, not as an ``ExceptionGroup`` that says nothing."""
    try:
        yield
    except BaseExceptionGroup as group:
        root = root_cause(group)
        if isinstance(root, AgentCliError):
            raise root from None
        raise


def kill_group(process: Process) -> None:
    """SIGKILL the process's whole group (it was started as a session leader)."""
    if process.returncode is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            process.kill()
        except ProcessLookupError:
            pass


class AgentCliProvider(Provider):
    """A provider that runs one agent CLI per call. Subclasses give its name, argv, environment and event parser."""

    #: The executable's name on PATH.
    binary_name: str = ""
    #: The CLI's name in people's words (``Claude Code``).
    title: str = ""
    #: The npm package that installs it and the command that signs in (for the fix lines).
    package: str = ""
    login: str = ""
    #: Exit statuses by which the CLI says it is not signed in.
    signed_out_codes: tuple[int, ...] = ()
    #: Whether the CLI writes events while the model works (else it is silent until the reply is whole, and only
    #: the deadline bounds the wait).
    streams_events: bool = True

    def __init__(self, cfg: ProviderConfig) -> None:
        super().__init__(cfg.model or DEFAULT_MODEL)  # no model named: the CLI's own default (no --model)
        self.cfg = cfg
        self.options = AgentCliOptions.model_validate(cfg.options)
        self.silence = cfg.timeout if self.streams_events else self.options.deadline
        self.last_usage: Usage | None = None  # the last call's (a seat's calls report theirs: report_usage)

    async def parallel_calls(self) -> int | None:
        """No limit of its own: each call runs the CLI in a process of its own."""
        return None

    # --- what each CLI defines ---
    @abstractmethod
    def argv(self, request: CompletionRequest, scratch: Path) -> list[str]:
        """The arguments after the executable (files it needs go into ``scratch``)."""

    @abstractmethod
    def parse(self, data: dict[str, Any]) -> Iterable[Event]:
        """The events one JSON line of the CLI's output holds."""

    async def prepare(self, executable: str, scratch: Path) -> None:
        """Write what the call needs into ``scratch`` that takes asking the CLI itself (before :meth:`argv`)."""

    async def unready(self, executable: str) -> AgentCliError | None:
        """Why the CLI cannot answer, found without a model call (not signed in, a setting it lacks), or None (it
        may: only a call tells). :meth:`check` asks this first: a signed-out CLI may otherwise wait on its
        network until the check's deadline."""
        return None

    def prompt(self, request: CompletionRequest) -> str:
        return transcript(request.messages)

    def extra_env(self, scratch: Path) -> dict[str, str]:
        return {}

    # --- the runner ---
    def executable(self) -> str:
        found = shutil.which(self.options.binary or self.binary_name)
        if found is None:
            raise self.failure("not_installed")
        return found

    def environment(self, scratch: Path) -> dict[str, str]:
        env = dict(os.environ)
        env.update({SEAT_MARKER: "1", "NO_COLOR": "1", "CI": env.get("CI", "1")})
        env.update(self.extra_env(scratch))
        return env

    def failure(self, failure: str, said: str = "", *, fix_key: str | None = None,
                seconds: float | None = None) -> AgentCliError:
        """A failure of :data:`FAILURES` with its fix (``agent_cli.<failure>``, or ``fix_key`` for a narrower one);
        ``seconds``: the limit a timeout hit (default: ``options.deadline``). An unknown model is a model the CLI
        does not know (``model_not_found``), not a model server that is down."""
        kinds = {"not_installed": "config", "not_signed_in": "config", "quota": "rate_limit",
                 "unknown_model": "model_not_found", "timeout": "timeout", "failed": "server"}
        if failure == "unknown_model" and not self.cfg.model and fix_key is None:
            fix_key = "agent_cli.unknown_default_model"  # no model named: the CLI's own default is the one
        fix = t(fix_key or f"agent_cli.{failure}", cli=self.title, binary=self.binary_name, package=self.package,
                login=self.login, model=self.cfg.model or DEFAULT_MODEL,
                seconds=f"{self.options.deadline if seconds is None else seconds:.0f}")
        said = " ".join(said.split())[:300]
        message = f"{fix} ({said})" if said else fix
        return AgentCliError(failure, message, kind=kinds[failure])

    def classify(self, said: str, code: int | None = None) -> AgentCliError:
        if code is not None and code in self.signed_out_codes:
            return self.failure("not_signed_in", said)
        for failure, pattern in (("quota", _RATE_LIMITED), ("not_signed_in", _SIGNED_OUT), ("quota", _QUOTA),
                                 ("unknown_model", _MODEL)):
            if pattern.search(said):
                return self.failure(failure, said)
        return self.failure("failed", said)

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str]:
        executable = self.executable()
        scratch = Path(tempfile.mkdtemp(prefix=f"council-{self.id}-"))
        process: Process | None = None
        try:
            await self.prepare(executable, scratch)
            argv = [executable, *self.argv(request, scratch)]
            process = await anyio.open_process(argv, stdin=PIPE, stdout=PIPE, stderr=PIPE, cwd=scratch,
                                               env=self.environment(scratch), start_new_session=True)
            async for chunk in self._run(process, self.prompt(request)):
                yield chunk
        finally:
            if process is not None:
                kill_group(process)
                with anyio.CancelScope(shield=True):
                    await process.aclose()
            shutil.rmtree(scratch, ignore_errors=True)

    async def _run(self, process: Process, prompt: str) -> AsyncIterator[str]:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        stderr = bytearray()
        errors: list[str] = []
        warnings: list[str] = []
        final: str | None = None
        streamed = False
        usage: Usage | None = None

        async def drain(stream: ByteReceiveStream) -> None:
            async for piece in stream:
                stderr.extend(piece)
                del stderr[:-STDERR_KEEP]

        try:
            with anyio.fail_after(self.options.deadline), unwrapped_group():
                async with anyio.create_task_group() as tg:
                    tg.start_soon(drain, process.stderr)
                    try:
                        await process.stdin.send(prompt.encode())
                    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                        pass  # it exited before reading: its exit status and stderr say why
                    await process.stdin.aclose()
                    async for data in self._lines(process.stdout):
                        for event in self.parse(data):
                            if event.delta:
                                streamed = True
                                yield event.delta
                            if event.final is not None:
                                final = event.final
                            if event.usage is not None:
                                usage = event.usage
                            if event.error:
                                errors.append(event.error)
                            if event.warning:
                                warnings.append(event.warning)
                    await process.wait()
        except TimeoutError:
            raise self.failure("timeout") from None
        said = "; ".join(errors) or bytes(stderr).decode("utf-8", "replace").strip()[-1200:]
        if process.returncode != 0 or (errors and not streamed and not final):
            log.debug("%s exited with %s: %s", self.binary_name, process.returncode, said)
            raise self.classify(said or f"exit status {process.returncode}", process.returncode)
        if warnings and not streamed and not (final or "").strip():
            raise self.failure("failed", "; ".join(warnings))  # it stopped itself with nothing said: why, not ""
        self.last_usage = usage
        if usage is not None:
            log.debug("%s used %s", self.describe(), usage)
            report_usage(usage)
        if not streamed and final:
            yield final

    async def _lines(self, stdout: ByteReceiveStream) -> AsyncIterator[dict[str, Any]]:
        """The CLI's JSON lines, each within ``timeout`` seconds of the last, at most ``max_output_bytes`` in all."""
        reader = BufferedByteReceiveStream(stdout)
        budget = self.options.max_output_bytes
        while True:
            try:
                with anyio.fail_after(self.silence):
                    line = await reader.receive_until(b"\n", budget)
            except anyio.IncompleteRead:
                return
            except anyio.DelimiterNotFound:
                raise self.failure("failed", t("agent_cli.too_much", limit=self.options.max_output_bytes)) from None
            except TimeoutError:
                if not self.streams_events:  # silent until the reply is whole: only the deadline bounds it
                    raise self.failure("timeout") from None
                raise self.failure("timeout", seconds=self.silence, fix_key="agent_cli.silent") from None
            budget -= len(line) + 1
            if budget <= 0:
                raise self.failure("failed", t("agent_cli.too_much", limit=self.options.max_output_bytes))
            data = json_lines(line)
            if data is not None:
                yield data

    async def signed_in(self, executable: str | None = None) -> ProviderStatus:
        """The CLI's own sign-in check, without a model call (not on PATH: not available)."""
        if executable is None:
            try:
                executable = self.executable()
            except ProviderError as err:
                return ProviderStatus(available=False, detail=err.message)
        unready = await self.unready(executable)
        if unready is not None:
            return ProviderStatus(available=False, detail=unready.message)
        return ProviderStatus(available=True, detail=t("agent_cli.signed_in", cli=self.title, path=executable))

    async def check(self) -> ProviderStatus:
        """Whether the CLI is on PATH, signed in (:meth:`signed_in`) and answers a tiny prompt within a short
        deadline."""
        ready = await self.signed_in()
        if not ready.available:
            return ready
        path = self.executable()
        probe = type(self)(self.cfg.model_copy(update={
            "options": {**self.cfg.options, "deadline": min(self.options.deadline, CHECK_DEADLINE)}}))
        request = CompletionRequest(purpose="doctor", max_tokens=16, temperature=0.0,
                                    messages=[ChatMessage(role="user", content="Reply with the word OK.")])
        try:
            parts = [chunk async for chunk in probe.stream(request)]
        except AgentCliError as err:
            if err.failure == "timeout":  # the check's own short deadline, not options.deadline: its own fix
                err = probe.failure("timeout", fix_key="agent_cli.check_timeout")
            return ProviderStatus(available=False, detail=err.message)
        return ProviderStatus(available=True, detail=t("agent_cli.answers", cli=self.title, path=path,
                                                       said=" ".join("".join(parts).split())[:40]))

