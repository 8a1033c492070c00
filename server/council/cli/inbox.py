"""``council inbox DIR``: watch ``DIR/inbox/*.json`` and answer each CouncilRequest in ``DIR/outbox/``.

Layout, crash-safety and ``--once`` exit codes: README, *Review mode*. Without ``--once`` the watcher polls until
Ctrl-C or SIGTERM and exits 0 (what it was reviewing stays in processing/ for the next start); ``--once``
interrupted by Ctrl-C exits 130. One line per request goes to stderr.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Any

import anyio

from council.cli.review import add_model_arguments, check_usage, reviewer_for
from council.cli.usage import decimal_number, whole_number

OK, USAGE, COULD_NOT, INTERRUPTED = 0, 2, 3, 130


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the folder holding inbox/ (created with its siblings if missing)")
    p.add_argument("--once", action="store_true", help="process what is there now, then exit")
    p.add_argument("--jobs", type=whole_number, default=2, help="reviews at once (default 2)")
    p.add_argument("--interval", type=decimal_number, default=0.5, help="seconds between looks at inbox/ (default 0.5)")
    p.add_argument("--settle", type=decimal_number, default=0.5,
                   help="a drop is claimed once unchanged this many seconds (default 0.5; --once: 0)")
    p.add_argument("--quiet", "-q", action="store_true", help="no per-request lines on stderr")
    add_model_arguments(p)


async def watch(args: argparse.Namespace, inbox, early: list[int]) -> dict[str, int]:
    """Run the inbox; a watcher stops on SIGINT/SIGTERM, also on a SIGTERM that came (into ``early``) before its
    loop listened."""
    if args.once:
        return await inbox.run(once=True)
    counts: dict[str, int] = {}
    async with anyio.create_task_group() as tg:
        async def stop_on_signal(*, task_status=anyio.TASK_STATUS_IGNORED) -> None:
            with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                task_status.started()
                if not early:
                    async for _ in signals:
                        break
                tg.cancel_scope.cancel()

        async def serve() -> None:
            counts.update(await inbox.run())

        await tg.start(stop_on_signal)
        tg.start_soon(serve)
    return counts or dict(inbox.counts)


def run(args: argparse.Namespace) -> int:
    from council.config import ConfigError
    from council.logs import setup_logging
    from council.present.review_words import inbox_line
    from council.review.inbox import Inbox, InboxBusy

    setup_logging("INFO" if args.verbose else "WARNING")
    problem = check_usage(args) or (None if args.jobs >= 1 else "--jobs must be at least 1")
    if problem:
        print(f"council inbox: error: {problem}", file=sys.stderr)
        return USAGE

    def report(kind: str, data: dict[str, Any]) -> None:
        if not args.quiet:
            print(inbox_line(kind, data), file=sys.stderr, flush=True)

    try:
        reviewer = reviewer_for(args)
    except (ConfigError, OSError, ValueError) as exc:
        print(f"council inbox: {exc}", file=sys.stderr)
        return COULD_NOT
    inbox = Inbox(Path(args.dir), reviewer, jobs=args.jobs, settle=args.settle, interval=args.interval,
                  timeout=args.timeout, report=report)
    early: list[int] = []  # a SIGTERM before the watcher's loop listens still stops it (once it can stop cleanly)
    if not args.once:
        signal.signal(signal.SIGTERM, lambda signum, frame: early.append(signum))
    interrupted = False
    try:
        inbox.open()
        counts = anyio.run(watch, args, inbox, early)
    except (InboxBusy, OSError) as exc:
        print(f"council inbox: {exc}", file=sys.stderr)
        return COULD_NOT
    except KeyboardInterrupt:
        counts, interrupted = dict(inbox.counts), True
    finally:
        inbox.close()
        anyio.run(reviewer.aclose)
    if not args.quiet:
        print(inbox_line("summary", counts), file=sys.stderr)
    if not args.once:
        return OK
    if interrupted:
        return INTERRUPTED
    return COULD_NOT if counts.get("failed") or counts.get("stuck") or counts.get("unclaimed") else OK
