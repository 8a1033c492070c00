"""The ``council`` command: ``serve`` (the sidecar), ``mcp`` (the consult tools as an MCP server), ``ask`` (a
headless client of the sidecar), ``doctor``, ``decisions`` (the workspace's decision memory), and review mode's
``review`` (one request) and ``inbox`` (a drop folder)."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from council import __version__
from council.cli import ask, ask_args, decisions, doctor, inbox, mcp, review, serve


class OneLineErrors(argparse.ArgumentParser):
    """Usage errors as one line on stderr (exit ``usage_exit``, 2 unless a subcommand sets it), not a usage dump;
    subcommand parsers inherit this."""

    usage_exit = 2

    def error(self, message: str) -> NoReturn:
        self.exit(self.usage_exit, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def parser() -> argparse.ArgumentParser:
    p = OneLineErrors(prog="council", description="A council of AI personas that asks before it answers.")
    p.add_argument("--version", action="version", version=f"council {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="run the JSON-RPC sidecar on stdio (what VS Code and `council ask` start)")
    serve.add_arguments(s)
    s.set_defaults(func=serve.run)
    m = sub.add_parser("mcp", help="serve the council's tools (council_consult, persona_consult, "
                                   "council_define_personas, council_review) to MCP clients on stdio")
    mcp.add_arguments(m)
    m.set_defaults(func=mcp.run)
    a = sub.add_parser("ask", help="ask the council from the terminal (starts the sidecar and talks to it)")
    ask_args.add_arguments(a)
    a.set_defaults(func=ask.run)
    d = sub.add_parser("doctor", help="check which model providers and optional packages work right now")
    doctor.add_arguments(d)
    d.set_defaults(func=doctor.run)
    r = sub.add_parser("review", help="review one seed-004 CouncilRequest (exit 0 APPROVE, 1 REJECT, "
                                      "2 NEEDS_MORE_INFO, 3 could not review)")
    r.usage_exit = review.COULD_NOT_REVIEW  # type: ignore[attr-defined]  # 2 means NEEDS_MORE_INFO here
    review.add_arguments(r)
    r.set_defaults(func=review.run, usage_exit=review.COULD_NOT_REVIEW)
    k = sub.add_parser("decisions", help="list, search, show or forget the workspace's past council decisions "
                                         "(decision memory)")
    decisions.add_arguments(k)
    k.set_defaults(func=decisions.run)
    i = sub.add_parser("inbox", help="watch DIR/inbox/*.json and write decisions to DIR/outbox/")
    inbox.add_arguments(i)
    i.set_defaults(func=inbox.run)
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args, extra = p.parse_known_args(argv)
    if extra:  # reported with the subcommand's usage exit code (`council review` keeps 2 for NEEDS_MORE_INFO)
        p.exit(getattr(args, "usage_exit", 2), f"council: error: unrecognized arguments: {' '.join(extra)}\n")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
