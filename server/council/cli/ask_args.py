"""``council ask``'s command line: its flags, how they become ``council serve`` flags and session options, usage
checks, and the exit codes (README, *In a terminal*). Apart from ``ask.py`` so the parser loads no client code."""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path
from typing import Any

from council.cli.serve import add_council_arguments, add_provider_arguments, build_config
from council.cli.usage import UsageError, checked_setup, locale_language, whole_number
from council.client.rpc import RpcError
from council.protocol.constants import MAX_MODEL_SPECS
from council.session.state.language import session_language
from council.words import LANGUAGES, speaking, t

OK, USAGE, UNAVAILABLE, FAILED, CANCELLED = 0, 2, 3, 4, 130


class AskError(Exception):
    """A failure with its exit code and a one-line message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = " ".join(message.split())


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("question", nargs="?", help="the question (else read interactively, or from stdin)")
    add_provider_arguments(p, provider_help="model provider (default: automatic: local Ollama, else the embedded "
                                            "SmolLM2)", config_help="sidecar config file (JSON or TOML)")
    p.add_argument("--personas", help="comma-separated persona names (overrides routing)")
    add_council_arguments(p, serve=False)
    p.add_argument("--max-personas", type=whole_number, help="how many personas debate (1–12, default 5)")
    p.add_argument("--models", help="comma-separated provider:model specs to seat the council on, e.g. "
                                    "openai:gpt-4o,ollama:qwen2.5:7b (the provider a kind or a --config provider "
                                    "name; the model may contain colons); the first is the moderator's and chair's; "
                                    "an openai spec takes OPENAI_API_KEY and OPENAI_BASE_URL")
    p.add_argument("--seating", choices=["diverse", "chat"], help="with --models: spread the personas over them "
                                                                  "(diverse, the default) or seat all on the first")
    p.add_argument("--max-calls", type=whole_number, help="budget of model calls, retries included (at least 3): the "
                                                 "council plans fewer cycles or personas to fit and says so")
    p.add_argument("--speculate", choices=["auto", "always", "never"],
                   help="start cycle 2, the first debate cycle, beside the options call (faster; its calls are "
                        "sent even when the first vote settles it): auto (the default) only on free, local models")
    p.add_argument("--language", choices=list(LANGUAGES), help="the language the council writes in (default: the "
                                                                "question's, else the locale's when it does not tell)")
    p.add_argument("--embeddings", dest="embeddings", action="store_true", default=False,
                   help="let the sidecar warm up sentence-transformers for routing (off by default: a one-shot "
                        "run routes before the warm-up ends, and the warm-up competes with a local model)")
    p.add_argument("--no-embeddings", dest="embeddings", action="store_false", help=argparse.SUPPRESS)
    p.add_argument("--transcript", metavar="DIR", help="write the session's markdown transcript into DIR")
    p.add_argument("--yes", "-y", action="store_true",
                   help="answer nothing: every clarification question becomes a logged assumption")
    p.add_argument("--json", action="store_true", help="print the final session snapshot as JSON on stdout")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress or persona text, only the answer")
    p.add_argument("--verbose", "-v", action="store_true", help="show the sidecar's log on stderr")


def serve_args(args: argparse.Namespace) -> list[str]:
    argv = ["--log-level", "INFO" if args.verbose else "WARNING"]
    for flag, value in (("--provider", args.provider), ("--model", args.model if args.provider else None),
                        ("--base-url", args.base_url), ("--api-key-env", args.api_key_env),
                        ("--config", args.config), ("--script", args.script), ("--depth", args.depth),
                        ("--max-cycles", args.max_cycles), ("--min-cycles", args.min_cycles)):
        if value is not None:
            argv += [flag, str(value)]
    for flag, value in (("--workspace", args.workspace), ("--transcript-dir", args.transcript)):
        if value:
            argv += [flag, str(Path(value).expanduser().resolve())]
    for folder in args.personas_dir:
        argv += ["--personas-dir", folder]
    on = {"--no-evidence": args.no_evidence, "--evidence-any-root": args.evidence_any_root, "--memory": args.memory,
          "--no-embeddings": not args.embeddings}
    return argv + [flag for flag, given in on.items() if given]


def session_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {
        "personas": [n.strip() for n in args.personas.split(",") if n.strip()] if args.personas else None,
        "depth": args.depth, "maxCycles": args.max_cycles, "maxPersonas": args.max_personas,
        "model": args.model if not args.provider else None,
        "models": model_specs(args.models) if args.models else None,
        "seating": args.seating, "maxModelCalls": args.max_calls, "language": args.language,
        "speculate": args.speculate,
        "uiLanguage": locale_language(),
    }
    return {key: value for key, value in options.items() if value not in (None, 0, "")}  # what was given


def model_specs(text: str) -> list[str]:
    """``--models``: specs split at commas (a model name may hold colons, as ``qwen2.5:7b``, never a comma)."""
    return [spec.strip() for spec in text.split(",") if spec.strip()]


def usage_language(args: argparse.Namespace) -> str:
    """The language of council ask's own errors: the session's as the sidecar will decide it (``--language``, else
    the question's, else the locale's), English when nothing tells."""
    return session_language(args.question or "", args.language, locale_language())


def check_usage(args: argparse.Namespace) -> str | None:
    """A usage problem argparse cannot see, or None; in :func:`usage_language`. A ``--workspace`` that is no folder, a
    config file that cannot be used and a ``--transcript`` folder that cannot take the transcript are refused here,
    before the sidecar starts, so before any model call."""
    with speaking(usage_language(args)):
        for flag, value, low, high in (("--max-cycles", args.max_cycles, 1, 50),
                                       ("--min-cycles", args.min_cycles, 1, 50),
                                       ("--max-personas", args.max_personas, 1, 12)):
            if value is not None and not low <= value <= high:
                return t("usage.between", flag=flag, low=low, high=high)
        if args.max_calls is not None and not 3 <= args.max_calls <= 1000:
            return t("usage.max_calls")
        if args.models is not None and not all(":" in spec for spec in model_specs(args.models) or [""]):
            return t("usage.models")
        if args.models is not None and len(model_specs(args.models)) > MAX_MODEL_SPECS:
            return t("usage.too_many_models", limit=MAX_MODEL_SPECS, given=len(model_specs(args.models)))
        if args.seating and not args.models:
            return t("usage.needs", flag="--seating", needed="--models")
        if args.personas is not None and not [n for n in args.personas.split(",") if n.strip()]:
            return t("usage.needs_name")
        if args.memory and not args.workspace:
            return t("usage.memory")
        if args.no_evidence and not args.workspace:
            return t("usage.no_evidence")
        if args.evidence_any_root and not args.workspace:
            return t("usage.needs", flag="--evidence-any-root", needed="--workspace")
        if args.script and args.provider != "scripted":
            return t("usage.needs", flag="--script", needed="--provider scripted")
        if args.question is not None and not args.question.strip():
            return t("usage.empty_question")
        try:  # what the sidecar would refuse at start: the workspace, the config file, the key variable
            checked_setup(args, partial(build_config, check_transcripts=False))
        except UsageError as err:
            return err.message
        if args.transcript:
            from council.present.transcript import unusable_folder
            from council.transcripts import folder_problem

            path = Path(args.transcript).expanduser().resolve()
            problem = folder_problem(path)
            return f"--transcript {args.transcript}: " + unusable_folder(path, problem) if problem else None
        return None


def rpc_failure(err: RpcError, *, starting: bool) -> AskError:
    """Map a JSON-RPC error (data {code, message, details}) to an exit code."""
    data = err.data if isinstance(err.data, dict) else {}
    message = data.get("message") or err.message
    details = data.get("details") or {}
    if "model provider problem" in message or "kind" in details:
        return AskError(UNAVAILABLE, message)
    if data.get("code") == "validation" and starting:
        return AskError(USAGE, message)
    return AskError(FAILED, message)


