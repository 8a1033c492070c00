"""``council mcp``: serve the consult tools and ``council_review`` over MCP on stdin/stdout (newline-delimited
JSON-RPC); README, *As tools: MCP and agents*. Flags: ``council serve``'s plus the MCP ones.

The advisors read the workspace as evidence only when it was given with ``--workspace``, named by the tool call's
``workspace`` argument or is a root the client shared (:mod:`council.mcpserver.roots`). As with ``serve``, fd 1 is
kept for the protocol; stdin is read through the guard of :mod:`council.mcpserver.stdio`, so every request is answered.
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import sys

from council.cli import serve
from council.cli.usage import decimal_number, setup_or_refuse

ELICITATION_TIMEOUT = 600.0  # seconds a clarifying question waits for the user (then it becomes an assumption)
SAMPLING_TIMEOUT = 300.0  # seconds a model call on the client's model may take (a long reply takes minutes)

log = logging.getLogger("council.mcp")


def add_arguments(p: argparse.ArgumentParser) -> None:
    serve.add_arguments(p)
    p.add_argument("--elicitation-timeout", type=positive_seconds,
                   default=os.environ.get("COUNCIL_ELICITATION_TIMEOUT", str(ELICITATION_TIMEOUT)),
                   help="seconds a clarifying question waits for an answer; then it and the rest become logged "
                        "assumptions (default %(default)s)")
    p.add_argument("--sampling-timeout", type=positive_seconds,
                   default=os.environ.get("COUNCIL_SAMPLING_TIMEOUT", str(SAMPLING_TIMEOUT)),
                   help="seconds one model call on the client's model (MCP sampling) may take; then it is withdrawn "
                        "and counts as that model failing (default %(default)s)")
    p.add_argument("--no-roots", action="store_true",
                   help="without --workspace, stay in the current directory even when the client offers MCP roots "
                        "or a tool call names a workspace (default: the call's workspace argument, else the "
                        "client's first root)")
    p.add_argument("--no-sampling", action="store_true",
                   help="never use the MCP client's own model (sampling), even when it offers one")
    p.add_argument("--sampling-hints", metavar="A,B,…",
                   help="model hints for the seats on the client's model, spread like the chat's several models "
                        "(default: claude,gpt,gemini; 'none': every seat on the client's own choice)")


def positive_seconds(text: str) -> float:
    try:
        if 0 < (value := decimal_number(text)) < 10**7:
            return value
    except argparse.ArgumentTypeError:
        pass
    raise argparse.ArgumentTypeError(f"not a number of seconds above 0: {text!r}")


def sampling_policy(args: argparse.Namespace):
    """Whether tool calls may run on the client's model: not after an explicit ``--provider`` (but ``client``,
    which asks for it) or ``--no-sampling``."""
    from council.mcpserver.sampling import SamplingPolicy, parse_hints

    hints = parse_hints(args.sampling_hints)
    if args.no_sampling:
        return SamplingPolicy(enabled=False, hints=hints, why_not="--no-sampling")
    if args.provider and args.provider != "client":
        return SamplingPolicy(enabled=False, hints=hints, why_not=f"--provider {args.provider}")
    return SamplingPolicy(enabled=True, hints=hints, required=args.provider == "client")


def build_config(args: argparse.Namespace, root: str | None = None):
    """``council serve``'s configuration; the workspace defaults to the current directory, which then holds persona
    overrides (and the memory, with ``--memory``) but is never read as evidence. ``root``: the workspace is this
    root the client offered (read as evidence, like an explicit ``--workspace``)."""
    args = argparse.Namespace(**vars(args))
    explicit = bool(args.workspace or root)
    args.workspace = root or args.workspace or os.getcwd()
    config = serve.build_config(args)
    if not explicit:
        config.evidence_root = None
    return config


#: Exit status when ``council mcp`` is started by an agent CLI that Council itself seated (no recursion).
SEATED = 5


def run(args: argparse.Namespace) -> int:
    if os.environ.get("COUNCIL_SEAT"):  # providers/agent_cli.SEAT_MARKER: this CLI is one of Council's seats
        print("council mcp: not started: this agent CLI is a seat of a council already running (COUNCIL_SEAT is "
              "set), and a seat never loads Council again", file=sys.stderr)
        return SEATED
    proto_out = serve.protect_stdout()
    from council.logs import setup_logging

    setup_logging(args.log_level)
    # the client's model is the sampling bridge's, chosen per call: `--provider client` configures no provider
    configured = argparse.Namespace(**{**vars(args), "provider": None if args.provider == "client" else args.provider})
    config, refused = setup_or_refuse("mcp", configured, build_config)  # before the MCP SDK loads: refused at once
    if refused is not None:
        return refused
    policy = sampling_policy(args)
    args.provider = configured.provider
    import anyio

    from council.mcpserver.roots import Workspaces
    from council.mcpserver.sampling import CallModels
    from council.mcpserver.server import EventRouter, build_mcp_server
    from council.personas.routing import exit_code
    from council.providers.sampling import SamplingBridge

    router = EventRouter()
    bridge = SamplingBridge(args.sampling_timeout) if policy.enabled else None
    service = serve.council_service(args, config, router, bridge)

    def for_root(folder):  # the service of a workspace a client names in its roots
        return serve.council_service(args, build_config(args, str(folder)), router, bridge)

    workspaces = Workspaces(service, None if args.workspace or args.no_roots else for_root)
    server = build_mcp_server(service, router, CallModels(config, bridge, policy),
                              elicitation_timeout=args.elicitation_timeout, workspaces=workspaces)
    log.info("council MCP server ready: %d personas, workspace %s; %s", len(service.library), config.workspace,
             f"the client's model when it offers sampling (hints: {', '.join(policy.hints) or 'none'})"
             if policy.enabled else f"no sampling ({policy.why_not})")

    async def main() -> None:
        from council.mcpserver.stdio import guarded_stdio

        async with anyio.create_task_group() as tg:
            tg.start_soon(stop_on_signal, tg.cancel_scope)
            try:
                async with guarded_stdio(sys.stdin.fileno(), io.BufferedWriter(proto_out)) as (read, write):
                    await server.run(read, write, server.create_initialization_options())
            finally:
                with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_SECONDS):
                    for each in workspaces.all():
                        await each.aclose()
            tg.cancel_scope.cancel()  # the client closed stdin: nothing is left to wait for

    anyio.run(main)
    return exit_code(0)


#: Seconds the sessions have to close (their model calls cancelled, agent CLIs' process groups killed) on the way out.
CLOSE_SECONDS = 0.5
STOP_SIGNALS = ("SIGINT", "SIGTERM")


async def stop_on_signal(scope) -> None:
    """A client stopping the server (Claude Code sends SIGINT, then SIGTERM a moment later if it is still there):
    the server stops at once and exits cleanly, its sessions closed, with no traceback."""
    import signal

    import anyio

    if sys.platform == "win32":  # no signal handlers on Windows' event loop: the default handling stays
        return
    with anyio.open_signal_receiver(*(getattr(signal, name) for name in STOP_SIGNALS)) as signals:
        async for signum in signals:
            log.info("council mcp: %s received; exiting", signal.Signals(signum).name)
            scope.cancel()
            return
