"""The ``council`` command: ``serve`` (the sidecar), ``mcp`` (the consult tools as an MCP server), ``ask`` (a
headless client of the sidecar) and ``doctor``."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from council import __version__
from council.cli import ask, ask_args, doctor, mcp, serve


class OneLineErrors(argparse.ArgumentParser):
    """Usage errors as one line on stderr (exit 2), not a usage dump; subcommand parsers inherit this."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def parser() -> argparse.ArgumentParser:
    p = OneLineErrors(prog="council", description="A council of AI personas that asks before it answers.")
    p.add_argument("--version", action="version", version=f"council {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="run the JSON-RPC sidecar on stdio (what VS Code and `council ask` start)")
    serve.add_arguments(s)
    s.set_defaults(func=serve.run)
    m = sub.add_parser("mcp", help="serve the consult tools (council_consult, persona_consult, "
                                   "council_define_personas) to MCP clients on stdio")
    mcp.add_arguments(m)
    m.set_defaults(func=mcp.run)
    a = sub.add_parser("ask", help="ask the council from the terminal (starts the sidecar and talks to it)")
    ask_args.add_arguments(a)
    a.set_defaults(func=ask.run)
    d = sub.add_parser("doctor", help="check which model providers and optional packages work right now")
    doctor.add_arguments(d)
    d.set_defaults(func=doctor.run)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
