"""``council serve``: run the JSON-RPC sidecar on stdin/stdout (fd 1 is moved to stderr before anything runs); the
exit code is LSP's: 0 after ``shutdown`` then ``exit`` (or the end of input after ``shutdown``), else 1; 2 for a usage
error before it starts (a ``--workspace`` that is no folder, a config file that cannot be used: one line on stderr).

Start-up is lazy: only the transport is imported before ``initialize`` is answered; a configuration file
(``--config``, ``COUNCIL_CONFIG``) is read first, so a bad one fails before the handshake; pygls, the service, the
personas and the providers load right after the answer, and the embedding model's warm-up starts in the background.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from pathlib import Path
from typing import BinaryIO

from council.cli.usage import setup_or_refuse, whole_number
from council.providers.kinds import REAL_KINDS, choices

log = logging.getLogger("council.serve")

REAL_PROVIDERS = REAL_KINDS  # the provider table's (council.providers.kinds): a user's models


def protect_stdout() -> BinaryIO:
    """Return a binary stream on the real stdout and redirect fd 1 (and sys.stdout) to stderr."""
    sys.stdout.flush()
    proto_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(proto_fd, "wb", buffering=0)


def add_provider_arguments(p: argparse.ArgumentParser, *, client: bool = False, provider_help: str,
                        config_help: str = "config file (JSON or TOML): providers, persona → provider map") -> None:
    """The model flags every command that runs a council shares: ``--provider --model --base-url --api-key-env
    --config --script`` (``client``: the provider a client lends)."""
    p.add_argument("--provider", choices=choices(lent=client), help=provider_help)
    p.add_argument("--model", help="model name, or a GGUF path for the embedded provider")
    p.add_argument("--base-url", help="base URL of an OpenAI-compatible or Ollama server")
    p.add_argument("--api-key-env", help="name of the environment variable holding the API key")
    p.add_argument("--config", help=config_help)
    p.add_argument("--script", help="script file for the scripted provider")


def add_council_arguments(p: argparse.ArgumentParser, *, serve: bool) -> None:
    """The council flags ``council serve``/``mcp`` and ``council ask`` share (``serve``: each session's defaults)."""
    default = "default " if serve else ""
    p.add_argument("--personas-dir", action="append", default=[], help="extra persona folder (repeatable)")
    p.add_argument("--depth", choices=["brief", "standard", "deep"], help=f"{default}answer depth")
    p.add_argument("--max-cycles", type=whole_number, help=f"{default}cycle cap, the first vote's cycle "
                                                                "included (1–50, default 10)")
    p.add_argument("--min-cycles", type=whole_number,
                   help="cycles before the council may stop early (default 1: from the first vote)")
    p.add_argument("--workspace", help="workspace folder: the advisors may read it as evidence (read_file, "
                                       "search_code, list_files) and its .council/personas overrides the personas"
                                       + ("; define_personas writes there" if serve else ""))
    no_evidence = ("never let the advisors read the workspace" if serve
                   else "with --workspace: never let the advisors read it")
    p.add_argument("--no-evidence", action="store_true", help=no_evidence)
    p.add_argument("--evidence-any-root", action="store_true", help="let the advisors read a workspace that is a "
                   "home folder or a system folder such as / or /etc (refused by default: credentials live there)")
    p.add_argument("--memory", action="store_true", help="keep decisions in <workspace>/.council/decisions.sqlite3 "
                                                         "and recall similar past ones (needs --workspace)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_provider_arguments(p, client=True, provider_help="default provider kind (else: automatic selection)")
    add_council_arguments(p, serve=True)
    p.add_argument("--transcript-dir", help="write each completed session's markdown transcript into this folder")
    p.add_argument("--no-embeddings", action="store_true", help="route personas without sentence-transformers")
    p.add_argument("--log-level", default=os.environ.get("COUNCIL_LOG_LEVEL", "INFO"))


def build_config(args: argparse.Namespace, *, check_transcripts: bool = True):
    """The configuration of the flags over the config file's; :class:`council.config.ConfigError` (a
    ``ConfigFileError`` for the file) names what cannot be used."""
    from pydantic import ValidationError

    from council.config import OVERRIDES_DIR, ConfigError, ProviderConfig, load_config

    config = load_config(args.config)
    if args.provider:
        options = {"script": args.script} if args.script else {}
        try:
            config.providers["cli"] = ProviderConfig(kind=args.provider, model=args.model or "",
                                                     base_url=args.base_url, api_key=args.api_key_env,
                                                     options=options)
        except ValidationError as exc:  # a literal key given as --api-key-env (never echoed)
            raise ConfigError(f"--api-key-env: {exc.errors(include_url=False)[0]['msg']}") from None
        config.default = "cli"
    config.personas_dirs = [*config.personas_dirs, *(Path(d) for d in args.personas_dir)]
    if getattr(args, "workspace", None):  # `council review` and `council inbox` have no workspace
        config.workspace = Path(args.workspace).resolve()
        overrides = config.workspace / OVERRIDES_DIR  # the last layer: what define_personas writes wins
        config.personas_dirs = [*(d for d in config.personas_dirs if d.resolve() != overrides), overrides]
        config.evidence_root = None if getattr(args, "no_evidence", False) else config.workspace
    if getattr(args, "evidence_any_root", False):
        config.evidence_any_root = True
    if getattr(args, "memory", False):
        if config.workspace is None:
            log.warning("--memory needs --workspace: decision memory stays off")
        config.memory = config.workspace is not None
    if getattr(args, "transcript_dir", None):
        config.transcript_dir = Path(args.transcript_dir).expanduser().resolve()
        if check_transcripts:
            check_transcript_dir(config.transcript_dir)
    return config


def eager_config(args: argparse.Namespace) -> bool:
    """Whether ``council serve`` builds its configuration before the handshake: when something given can be wrong
    (a config file, a key variable), so that it is refused at start (else it is built after the answer)."""
    return bool(args.config or os.environ.get("COUNCIL_CONFIG") or args.api_key_env)


def check_transcript_dir(folder: Path) -> None:
    """Say at start when transcripts cannot be written into ``folder`` (tried anyway: it may appear later)."""
    from council.transcripts import folder_problem

    if (problem := folder_problem(folder)) is not None:
        from council.present.transcript import unusable_folder

        log.warning("--transcript-dir: %s", unusable_folder(folder, problem))


def session_settings(args: argparse.Namespace):
    from council.session.state.entities import SessionSettings

    update = {"max_cycles": args.max_cycles, "min_cycles": args.min_cycles, "depth": args.depth}
    if args.max_cycles:
        update["extended_max_cycles"] = max(20, args.max_cycles)
    return SessionSettings().model_copy(update={key: value for key, value in update.items() if value})


def run(args: argparse.Namespace) -> int:
    proto_out = protect_stdout()
    from council.logs import setup_logging

    setup_logging(args.log_level)
    from council.transport.framing import FrameWriter
    from council.transport.gate import Gate
    from council.transport.stdio import serve_stdio

    if args.transcript_dir:
        check_transcript_dir(Path(args.transcript_dir).expanduser().resolve())
    config, refused = setup_or_refuse("serve", args, (lambda a: build_config(a, check_transcripts=False))
                                      if eager_config(args) else None)  # else: after the answer
    if refused is not None:
        return refused
    gate = Gate(None, FrameWriter(proto_out),
                load=lambda: load(args, config or build_config(args, check_transcripts=False)))
    code = serve_stdio(gate, sys.stdin.fileno())
    from council.personas.routing import exit_code

    return exit_code(code)


def load(args: argparse.Namespace, config):
    """The server behind the gate (``council.transport.gate.Served``), built once ``initialize`` is answered."""
    from council.server import build_server

    server = build_server(lambda sink, bridge: council_service(args, config, sink, bridge))
    log.info("council sidecar ready: %d personas", len(server.service.library))
    # What is loaded by now (modules, reply schemas, the persona library, the service) lives as long as the
    # process: frozen, it is left out of the collector's full passes, which otherwise walk it again every few
    # sessions (issue 34: ~2 ms a session on average). Objects made later are collected as before.
    gc.freeze()
    return server.served()


def council_service(args: argparse.Namespace, config, sink, bridge):
    """The service of ``council serve`` and ``council mcp``: the persona library of ``config``, the session
    settings of the flags, and the embedding model's warm-up unless ``--no-embeddings``."""
    from council.personas.loader import load_personas
    from council.personas.routing import default_ranker, start_embedding_warmup
    from council.service import CouncilService

    library = load_personas(config.persona_layers())
    if not args.no_embeddings:
        start_embedding_warmup(library)  # loads torch + the model in a background thread, off the request path
    return CouncilService(library, config, sink, bridge=bridge, settings=session_settings(args),
                          ranker_factory=(lambda: None) if args.no_embeddings else default_ranker)
