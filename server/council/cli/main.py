"""The ``council`` command: ``serve`` (the sidecar), ``mcp`` (the consult tools as an MCP server), ``ask`` (a
headless client of the sidecar), ``doctor``, ``decisions`` (the workspace's decision memory), and review mode's
``review`` (one request) and ``inbox`` (a drop folder)."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn

from council import __version__


class OneLineErrors(argparse.ArgumentParser):
    """Usage errors as one line on stderr (exit ``usage_exit``, 2 unless a subcommand sets it), not a usage dump;
    subcommand parsers inherit this."""

    usage_exit = 2

    def error(self, message: str) -> NoReturn:
        self.exit(self.usage_exit, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


# name → help; the command's add_arguments and run are in the module council.cli.<name>. A module is imported only
# when its command runs (or every help is asked for), so `council serve` does not load the client, the MCP SDK or
# the review code.
COMMANDS: dict[str, str] = {
    "serve": "run the JSON-RPC sidecar on stdio (what VS Code and `council ask` start)",
    "mcp": "serve the council's tools (council_consult, persona_consult, council_define_personas, council_review) to "
           "MCP clients on stdio",
    "ask": "ask the council from the terminal (starts the sidecar and talks to it)",
    "doctor": "check which model providers and optional packages work right now",
    "review": "review one seed-004 CouncilRequest (exit 0 APPROVE, 1 REJECT, 2 NEEDS_MORE_INFO, 3 could not review)",
    "decisions": "list, search, show or forget the workspace's past council decisions (decision memory)",
    "inbox": "watch DIR/inbox/*.json and write decisions to DIR/outbox/",
}
ARGUMENTS = {"ask": "ask_args"}  # a command whose arguments live apart from its run (parsing loads no client)


def _module(name: str):
    return importlib.import_module(f"council.cli.{name}")


def parser(only: str | None = None) -> OneLineErrors:
    """The command line; with ``only``, the other subcommands are listed without their arguments (not loaded)."""
    p = OneLineErrors(prog="council", description="A council of AI personas that asks before it answers.")
    p.add_argument("--version", action="version", version=f"council {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    for name, text in COMMANDS.items():
        s = sub.add_parser(name, help=text)
        if only is not None and only != name:
            continue
        _module(ARGUMENTS.get(name, name)).add_arguments(s)
        if name == "review":
            code = _module("review").COULD_NOT_REVIEW  # 2 means NEEDS_MORE_INFO here
            s.usage_exit = code  # type: ignore[attr-defined]
            s.set_defaults(usage_exit=code)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = next((a for a in argv if not a.startswith("-")), None)
    p = parser(command if command in COMMANDS else None)
    args, extra = p.parse_known_args(argv)
    if extra:  # reported with the subcommand's usage exit code (`council review` keeps 2 for NEEDS_MORE_INFO)
        p.exit(getattr(args, "usage_exit", 2), f"council: error: unrecognized arguments: {' '.join(extra)}\n")
    return _module(args.command).run(args)


if __name__ == "__main__":
    sys.exit(main())
