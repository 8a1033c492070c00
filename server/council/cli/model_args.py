"""The model flags every command that runs a council shares: which provider, model, server, key and config."""

from __future__ import annotations

import argparse

REAL_PROVIDERS = ("openai", "ollama", "embedded")


def add_provider_arguments(p: argparse.ArgumentParser, *, client: bool = False, provider_help: str,
                        config_help: str = "config file (JSON or TOML): providers, persona → provider map") -> None:
    """``--provider --model --base-url --api-key-env --config --script`` (``client``: the provider a client lends)."""
    kinds = [*REAL_PROVIDERS, "scripted", *(["client"] if client else [])]
    p.add_argument("--provider", choices=kinds, help=provider_help)
    p.add_argument("--model", help="model name, or a GGUF path for the embedded provider")
    p.add_argument("--base-url", help="base URL of an OpenAI-compatible or Ollama server")
    p.add_argument("--api-key-env", help="name of the environment variable holding the API key")
    p.add_argument("--config", help=config_help)
    p.add_argument("--script", help="script file for the scripted provider")
