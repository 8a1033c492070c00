"""``council decisions list|search|show|forget``: the workspace's decision memory from the terminal (README,
*Evidence, transcripts and decision memory*).

Listing and searching never create the memory file. ``search`` ranks by TF-IDF similarity of the questions (the
embedding model is not loaded for a one-shot command). Exit codes: 0 done, 1 nothing found (``show``/``forget`` of
an unknown id), 2 bad usage, 3 the memory file cannot be used (one line says why and what to do).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from council.cli.usage import whole_number

OK, NOT_FOUND, USAGE, UNUSABLE = 0, 1, 2, 3


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workspace", default=None, help="the workspace whose .council/ holds the memory (default: .)")
    p.add_argument("--json", action="store_true", help="print the decisions as JSON")
    sub = p.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="the newest decisions")
    listing.add_argument("--limit", type=whole_number, default=20)
    search = sub.add_parser("search", help="decisions whose questions are like QUERY, most similar first")
    search.add_argument("query", help="a question or topic")
    search.add_argument("--limit", type=whole_number, default=10)
    show = sub.add_parser("show", help="one decision in full")
    show.add_argument("id", help="a decision id (or a prefix naming exactly one)")
    forget = sub.add_parser("forget", help="delete one decision")
    forget.add_argument("id", help="a decision id (or a prefix naming exactly one)")


def run(args: argparse.Namespace) -> int:
    from council.memory import MemoryRefused, MemoryStore
    from council.present import decisions as words

    if getattr(args, "limit", 1) < 1:
        print("council decisions: error: --limit must be at least 1", file=sys.stderr)
        return USAGE
    try:
        return _run(args, MemoryStore(Path(args.workspace or ".").resolve()))
    except MemoryRefused as err:
        print(f"council decisions: error: {words.refused(err)}", file=sys.stderr)
        return UNUSABLE


def _run(args: argparse.Namespace, store) -> int:
    from council.cli.render import Style, markdown
    from council.present import decisions as words

    similarity: list[float] | None = None
    if args.action == "list":
        found = store.all(args.limit)
    elif args.action == "search":
        ranked, _ = store.similar(args.query, None, args.limit, threshold=False)
        found, similarity = [d for d, _ in ranked], [s for _, s in ranked]
    else:
        one = store.get(args.id) if args.action == "show" else store.forget(args.id)
        found = [one] if one is not None else []
        if args.action == "forget" and not args.json:
            sys.stdout.write(markdown(words.forgotten(one, args.id), Style.for_stream(sys.stdout)))
    if args.json:
        payload = [d.to_wire() for d in found]
        if similarity is not None:
            payload = [{**d, "similarity": round(s, 4)} for d, s in zip(payload, similarity, strict=True)]
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    elif args.action != "forget":
        text = words.listing(found, similarity, full_view=args.action == "show", searched=args.action != "list")
        sys.stdout.write(markdown(text, Style.for_stream(sys.stdout)))
    return NOT_FOUND if args.action in ("show", "forget") and not found else OK
