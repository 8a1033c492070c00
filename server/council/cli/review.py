"""``council review FILE|-``: review one seed-004 CouncilRequest in this process, through the same entry point as the
sidecar's ``council/review`` (``council.reviewer.Reviewer``), and print the decision. Output and exit codes: README,
*Review mode* (and 130 when interrupted); progress lines go to stderr unless ``--quiet``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from typing import Any

import anyio

from council.cli.serve import add_provider_arguments, build_config
from council.cli.usage import UsageError, checked_setup, decimal_number, locale_language, whole_number
from council.errors import CouncilError, validation_error
from council.words import speaking

APPROVE, REJECT, NEEDS_MORE_INFO, COULD_NOT_REVIEW, INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CODES = {"APPROVE": APPROVE, "REJECT": REJECT, "NEEDS_MORE_INFO": NEEDS_MORE_INFO}


def add_model_arguments(p: argparse.ArgumentParser) -> None:
    """Model and review flags shared by ``council review`` and ``council inbox``."""
    add_provider_arguments(p, provider_help="model provider (default: automatic: configured default, local Ollama, "
                                         "embedded SmolLM2)")
    p.add_argument("--personas-dir", action="append", default=[], help="extra persona folder (repeatable)")
    p.add_argument("--artifact-budget", type=whole_number,
                   help="characters of artifacts per role prompt (default 16000)")
    p.add_argument("--max-tokens", type=whole_number, help="reply budget of one role, in tokens (default 1500)")
    p.add_argument("--no-debate", action="store_true", help="skip the debate round when the roles disagree")
    p.add_argument("--timeout", type=decimal_number, help="give up on one review after this many seconds")
    p.add_argument("--verbose", "-v", action="store_true", help="log to stderr")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE|-", help="the CouncilRequest JSON file, or - for stdin")
    p.add_argument("--json", action="store_true", help="print the decision (with verdicts and audit) as JSON")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    add_model_arguments(p)


def check_usage(args: argparse.Namespace) -> str | None:
    if args.script and args.provider != "scripted":
        return "--script needs --provider scripted"
    if args.artifact_budget is not None and not 1_000 <= args.artifact_budget <= 1_000_000:
        return "--artifact-budget must be between 1000 and 1000000"
    if args.max_tokens is not None and not 100 <= args.max_tokens <= 32_768:
        return "--max-tokens must be between 100 and 32768"
    if args.timeout is not None and args.timeout <= 0:
        return "--timeout must be positive"
    with speaking(locale_language()):  # the config file, as the reviewer will read it
        try:
            checked_setup(args, build_config)
        except UsageError as err:
            return err.message
    return None


def reviewer_for(args: argparse.Namespace):
    from council.cli.serve import build_config
    from council.review.run import ReviewSettings
    from council.reviewer import Reviewer

    defaults = ReviewSettings()
    settings = ReviewSettings(artifact_budget=args.artifact_budget or defaults.artifact_budget,
                              max_tokens=args.max_tokens or defaults.max_tokens, debate=not args.no_debate)
    return Reviewer.from_config(build_config(args), settings)


async def review_file(args: argparse.Namespace):
    from council.present.review_words import progress_line
    from council.review.files import read_request_file
    from council.review.requests import MAX_FILE_BYTES, load_request

    raw = read_request_file(args.file, MAX_FILE_BYTES, stream_ok=True)
    request = load_request(raw)
    reviewer = reviewer_for(args)

    def progress(kind: str, data: dict[str, Any]) -> None:
        line = progress_line(kind, data)
        if line and not args.quiet:
            print(line, file=sys.stderr, flush=True)

    try:
        return await reviewer.review(request, on_progress=progress, timeout=args.timeout,
                                     request_sha256=hashlib.sha256(raw).hexdigest())
    finally:
        await reviewer.aclose()


def fail(args: argparse.Namespace, err: CouncilError) -> int:
    from council.present.review import failure_markdown

    roles = err.details.get("roles") if isinstance(err.details.get("roles"), dict) else None
    print(f"council review: {err.message}", file=sys.stderr)
    if args.json:
        print(json.dumps({"error": {"code": err.code.value, "message": err.message, "details": err.details}},
                         ensure_ascii=False, indent=2, default=str))
    elif roles:
        print(failure_markdown(err.message, roles), end="")
    return COULD_NOT_REVIEW


def run(args: argparse.Namespace) -> int:
    from council.config import ConfigError
    from council.logs import setup_logging

    setup_logging("INFO" if args.verbose else "WARNING")
    problem = check_usage(args)
    if problem:
        print(f"council review: error: {problem}", file=sys.stderr)
        return COULD_NOT_REVIEW
    try:
        decision = anyio.run(review_file, args)
    except CouncilError as err:
        return fail(args, err)
    except (ConfigError, OSError, ValueError) as exc:
        return fail(args, validation_error(f"could not review: {exc}"))
    except KeyboardInterrupt:
        print("council review: interrupted", file=sys.stderr)
        return INTERRUPTED
    if args.json:
        print(json.dumps(decision.to_wire(), ensure_ascii=False, indent=2))
    else:
        from council.present.review import decision_markdown

        print(decision_markdown(decision), end="")
    return EXIT_CODES[decision.final_outcome.value]
