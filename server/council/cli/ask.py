"""``council ask``: a headless client of the sidecar over the same JSON-RPC contract as the VS Code extension. Flags
and exit codes: README, *In a terminal*.

It starts ``council serve``, sends the question as a ``council/turn``, renders the ``council/event`` stream and asks
the clarification questions one at a time (the sidecar decides what an answer means). Ctrl-C cancels: the pending
request (``$/cancelRequest``), the session (``council/cancel``), then the sidecar is shut down; exit 130. SIGTERM and
SIGHUP (a ``kill`` of the process group, a closed terminal) cancel the same way: the sidecar blocks them, as Ctrl-C,
and is shut down by ``council ask``.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.abc import TaskStatus

from council.cli import ask_args
from council.cli.ask_args import CANCELLED, FAILED, OK, UNAVAILABLE, USAGE, AskError, rpc_failure
from council.cli.render import EventPrinter, Style, markdown, show_hint
from council.client.rpc import FramingError, RpcError, Sidecar, start_sidecar
from council.config import AGENT_CLI_KINDS
from council.session.state.language import session_language
from council.words import speaking, t

#: The signals that cancel a run (Ctrl-C, a kill, the terminal closing); the sidecar is started with them blocked.
CANCEL_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupt:
    """Turns :data:`CANCEL_SIGNALS` into cancellation of one scope (later signals are ignored while cleaning up)."""

    def __init__(self) -> None:
        self.scope = anyio.CancelScope()
        self.fired = False

    async def watch(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        with anyio.open_signal_receiver(*CANCEL_SIGNALS) as signals:
            task_status.started()
            async for _ in signals:
                if not self.fired:
                    self.fired = True
                    self.scope.cancel()


@asynccontextmanager
async def sidecar_for(args: argparse.Namespace, log_file: TextIO | None) -> AsyncIterator[Sidecar]:
    """``start_sidecar`` with :data:`CANCEL_SIGNALS` blocked while the child is spawned: it inherits the mask and so
    ignores the terminal's Ctrl-C and a SIGTERM or SIGHUP sent to the whole process group (``council ask`` cancels and
    then shuts it down); such a signal meanwhile stays pending here and is handled once the handshake is done."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, set(CANCEL_SIGNALS))
    try:
        async with start_sidecar(ask_args.serve_args(args), stderr=log_file) as sc:  # type: ignore[arg-type]
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
            yield sc
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


async def read_line(ui: TextIO, prompt_text: str) -> str | None:
    """A line from stdin without blocking the event loop (None at end of input).

    A daemon thread reads, so a Ctrl-C while waiting at the prompt never leaves a thread that blocks exit.
    """
    ui.write(prompt_text)
    ui.flush()
    box: list[str] = []
    done = anyio.Event()
    token = anyio.lowlevel.current_token()

    def work() -> None:
        try:
            box.append(sys.stdin.readline())
        except (OSError, ValueError):
            box.append("")
        try:
            anyio.from_thread.run_sync(done.set, token=token)
        except Exception:  # the loop is gone: we were cancelled
            pass

    threading.Thread(target=work, name="council-ask-input", daemon=True).start()
    await done.wait()
    return box[0] or None


async def preflight(sc: Sidecar, args: argparse.Namespace) -> None:
    """Fail fast (exit 3) when the provider this run would use cannot work right now (``--models``: each spec says
    for itself when it fails)."""
    if args.models:
        return
    result = await sc.call("council/providers")
    providers = result["providers"]
    if result["default"] != "automatic":
        chosen = [p for p in providers if p["id"] == result["default"]]
    else:  # the agent CLIs found on PATH, a local Ollama, the embedded model (README, "Models")
        chosen = [p for p in providers if p["kind"] in ("ollama", "embedded")
                  or (p["kind"] in AGENT_CLI_KINDS and p["id"] == p["kind"])]
    if chosen and not any(p["available"] for p in chosen):
        detail = "; ".join(f"{p['kind']}: {p['detail']}" for p in chosen)
        raise AskError(UNAVAILABLE, f"no usable model provider ({detail})")


class Asker:
    """One session: the first turn, the question loop, and the outcome."""

    def __init__(self, sc: Sidecar, args: argparse.Namespace, printer: EventPrinter, ui: TextIO) -> None:
        self.sc, self.args, self.printer, self.ui = sc, args, printer, ui
        self.style = printer.style
        self.session_id: str | None = None
        self.interactive = not args.yes and sys.stdin.isatty()
        self.language: str | None = None  # the session's, from its first result: the prompts are in it

    def say(self, key: str) -> str:
        """A prompt of council ask's, in the session's language."""
        with speaking(self.language):
            return t(key)

    async def run(self, question: str) -> dict[str, Any]:
        options = ask_args.session_options(self.args)  # the session's language, as the sidecar will decide it
        self.printer.language = session_language(question, options.get("language"), options.get("uiLanguage"))
        try:
            result = await self.sc.call("council/turn", {"text": question, "options": options})
        except RpcError as err:
            raise rpc_failure(err, starting=True) from None
        self.session_id, self.language = result.get("sessionId"), result.get("language")
        self.printer.language = self.language or self.printer.language
        return await self.until_done(result)

    async def until_done(self, result: dict[str, Any]) -> dict[str, Any]:
        """Answer questions until the session stops; interactively, offer 'retry' when the models failed (before
        the questions, when no model could answer the clarifier, or in the debate)."""
        while True:
            while result.get("awaiting") == "answer" and result.get("question"):
                result = await self.answer(result)
                if result.get("message") and result.get("awaiting") == "answer":
                    self.printer.line(markdown(result["message"], self.style).rstrip("\n"))
            if not self.interactive or result.get("status") not in ("created", "debating", "final"):
                return result
            self.printer.warn(result.get("message") or self.say("cli.stopped"))
            line = await read_line(self.ui, self.style(self.say("cli.retry"), "bold"))
            if not line or line.strip().lower() != "retry":
                return result
            result = await self.turn({"command": "retry"})

    async def offer_extension(self, result: dict[str, Any]) -> dict[str, Any] | None:
        """After a capped debate, interactively offer more cycles; the new result, or None."""
        if not (self.interactive and result.get("canExtend") and result.get("limitReached")):
            return None
        line = await read_line(self.ui, self.style(self.say("cli.extend"), "bold"))
        if not line or line.strip().lower() not in ("extend", "extend debate"):
            return None
        self.printer.final_markdown = None
        return await self.until_done(await self.turn({"command": "extend"}))

    async def answer(self, result: dict[str, Any]) -> dict[str, Any]:
        q = result["question"]
        if not self.interactive:
            return await self.turn({"command": "skipAll"})
        show_hint(self.ui, self.style, q, self.language)
        line = await read_line(self.ui, self.style("> ", "bold", "magenta"))
        while True:
            if line is None:  # end of input: let the council assume the rest
                return await self.turn({"command": "skipAll"})
            text = line.strip()
            if not text:
                line = await read_line(self.ui, self.style("> ", "bold", "magenta"))
                continue
            try:  # a number picks a choice; the sidecar decides what the text means
                result = await self.sc.call("council/turn", {"sessionId": self.session_id, "text": text})
            except RpcError as err:
                self.printer.warn(rpc_failure(err, starting=False).message)
                line = await read_line(self.ui, self.style("> ", "bold", "magenta"))
                continue
            if result.get("intent") != "confirm_new":
                return result
            # it read like a new question (the sidecar said so above): 'y' records it, other text answers anew
            line = await read_line(self.ui, self.style(self.say("cli.confirm"), "bold"))
            if line is not None and line.strip().lower() in ("y", "yes"):
                return await self.turn({"command": "answer", "text": text})

    async def turn(self, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return await self.sc.call("council/turn", {"sessionId": self.session_id, **params})
        except RpcError as err:
            raise rpc_failure(err, starting=False) from None

    async def snapshot(self) -> dict[str, Any] | None:
        if self.session_id is None:
            return None
        try:
            return await self.sc.call("council/snapshot", {"sessionId": self.session_id})
        except RpcError:
            return None


def outcome(result: dict[str, Any], printer: EventPrinter) -> int:
    status = result.get("status")
    if status == "completed":
        return OK
    if status == "cancelled":
        return CANCELLED
    reason = result.get("message") or (printer.errors[-1] if printer.errors else f"session ended as {status}")
    raise AskError(FAILED, f"the session did not finish: {reason}")


async def run_session(args: argparse.Namespace, question: str, out: TextIO, ui: TextIO, log_file) -> int:
    """Run one session; errors are caught here (inside the task groups) and returned as exit codes."""
    interrupt = Interrupt()
    printer = EventPrinter(ui, Style.for_stream(ui), quiet=args.quiet)
    failure: AskError | None = None
    code = OK
    async with anyio.create_task_group() as tg:
        await tg.start(interrupt.watch)
        with interrupt.scope:
            try:
                async with sidecar_for(args, log_file) as sc:
                    sc.on_event(printer)
                    asker = Asker(sc, args, printer, ui)
                    try:
                        code = await drive(asker, question, out)
                    except AskError as err:
                        failure = await _explain_death(sc, err, log_file)
                        if args.json and (snap := await asker.snapshot()) is not None:
                            _print_json(out, snap)
                    except RpcError as err:  # the sidecar could not load its server, or broke the protocol
                        cause = not_started(err)
                        failure = (AskError(FAILED, f"the sidecar did not start: {cause}")
                                   if cause else await _explain_death(
                                       sc, AskError(FAILED, f"the sidecar failed: {err.message}"), log_file))
                    finally:
                        if interrupt.fired and asker.session_id and not sc.rpc.closed.is_set():
                            with anyio.CancelScope(shield=True), anyio.move_on_after(3):
                                try:
                                    await sc.call("council/cancel", {"sessionId": asker.session_id})
                                except (RpcError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                                    pass  # the sidecar is gone (killed on its own): nothing is left to cancel
            except Exception as exc:  # the handshake failed (wrapped by start_sidecar's task group)
                err = _find(exc, (RpcError, FramingError))
                if err is None:
                    raise
                failure = AskError(FAILED, f"the sidecar did not start: {err}{_log_tail(log_file)}")
        tg.cancel_scope.cancel()
    if interrupt.fired:
        return CANCELLED
    if failure is not None:
        raise failure
    return code


async def drive(asker: Asker, question: str, out: TextIO) -> int:
    args, printer = asker.args, asker.printer
    await preflight(asker.sc, args)
    result = await asker.run(question)
    code = outcome(result, printer)
    while not args.json:
        if printer.final_markdown:  # the rest of the answer whose first words streamed (else all of it)
            out.write(("" if printer.final_continues else "\n") + markdown(printer.final_markdown,
                                                                           Style.for_stream(out)))
            spent = (result.get("usage") or {}).get("markdown")  # the calls made against what it said (issue 31)
            if spent:
                out.write("\n" + markdown(spent, Style.for_stream(out)))
            out.flush()
        extended = await asker.offer_extension(result)
        if extended is None:
            break
        result = extended
        code = outcome(result, printer)
    snap = await asker.snapshot()
    if args.json:
        _print_json(out, snap)
    elif args.transcript and snap is not None and snap["session"]["status"] == "completed":
        from council.present.transcript import written_line

        with speaking(asker.language):
            line = written_line(transcript_file(args.transcript, snap["session"]))
        out.write("\n" + markdown(line, Style.for_stream(out)))
        out.flush()
    return code


def transcript_file(folder: str, session: dict[str, Any]) -> Path:
    """Where the sidecar wrote the session's transcript (``--transcript DIR``)."""
    from council.transcripts import transcript_name

    created = datetime.fromisoformat(str(session["createdAt"]).replace("Z", "+00:00"))
    return Path(folder).expanduser().resolve() / transcript_name(created, session["requestText"], session["sessionId"])


def _print_json(out: TextIO, snapshot: dict[str, Any] | None) -> None:
    out.write(json.dumps(snapshot, indent=2, ensure_ascii=False) + "\n")
    out.flush()


def read_question(args: argparse.Namespace, ui: TextIO) -> str:
    if args.question is not None:
        return args.question.strip()
    if sys.stdin.isatty():
        ui.write("What should the council decide? ")
        ui.flush()
        text = sys.stdin.readline().strip()
    else:
        text = sys.stdin.read().strip()
    if not text:
        with speaking(ask_args.usage_language(args)):
            raise AskError(USAGE, t("usage.no_question"))
    return text


def skip_unusable_memory(args: argparse.Namespace) -> None:
    """``--memory`` with a memory file that cannot be used: say so once and run without memory."""
    if not args.memory:
        return
    from council.memory import MemoryRefused, MemoryStore
    from council.present.decisions import refused

    try:
        MemoryStore(Path(args.workspace).expanduser().resolve()).check()
    except MemoryRefused as err:
        print(f"council ask: warning: decision memory skipped: {refused(err)}", file=sys.stderr)
        args.memory = False


def run(args: argparse.Namespace) -> int:
    out = sys.stdout
    ui = sys.stderr if args.json else sys.stdout
    try:
        if problem := ask_args.check_usage(args):
            raise AskError(USAGE, problem)
        skip_unusable_memory(args)
        question = read_question(args, ui)
    except AskError as err:
        return _failed(args, err)
    except KeyboardInterrupt:
        print("\ncancelled", file=sys.stderr)
        return CANCELLED
    log_file = None if args.verbose else tempfile.TemporaryFile("w+", encoding="utf-8")
    try:
        code = anyio.run(run_session, args, question, out, ui, log_file)
    except AskError as err:
        return _failed(args, err)
    if code == CANCELLED:
        print("\ncancelled", file=sys.stderr)
    return code


def _failed(args: argparse.Namespace, err: AskError) -> int:
    """Say why council ask stops (one line on stderr, in the session's language as far as it is known)."""
    with speaking(ask_args.usage_language(args)):
        print(t("usage.error", message=err.message), file=sys.stderr)
    return err.code


async def _explain_death(sc: Sidecar, err: AskError, log_file) -> AskError:
    """``err``, or, when the sidecar process died, a message that says so (signal or exit code, last log line)."""
    if not sc.rpc.closed.is_set():
        return err
    with anyio.move_on_after(2):
        await sc.process.wait()
    rc = sc.process.returncode
    if rc is None:
        return err
    how = f"was killed by {signal.Signals(-rc).name}" if rc < 0 and -rc in signal.valid_signals() else (
        f"exited with code {rc}")
    return AskError(FAILED, f"the sidecar stopped unexpectedly: it {how}{_log_tail(log_file)}")


def not_started(err: RpcError) -> str | None:
    """Why the sidecar could not start after answering ``initialize`` (a broken persona file …), if that is what
    ``err`` says (``details.reason`` ``not started``)."""
    details = err.data.get("details") if isinstance(err.data, dict) else None
    if isinstance(details, dict) and details.get("reason") == "not started":
        return str(details.get("cause") or err.message)
    return None


def _find(exc: BaseException, kinds: tuple[type[BaseException], ...]) -> BaseException | None:
    """The first exception of ``kinds`` in ``exc`` or, for an exception group, among its leaves."""
    if isinstance(exc, kinds):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        if (found := _find(inner, kinds)) is not None:
            return found
    return None


def _log_tail(log_file) -> str:
    if log_file is None:
        return ""
    log_file.seek(0)
    lines = [line.strip() for line in log_file.read().splitlines() if line.strip()]
    return f" ({lines[-1]})" if lines else ""
