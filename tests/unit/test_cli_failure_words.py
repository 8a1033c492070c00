"""An agent CLI's failure is worded with its own fix wherever a person reads it (a chat's, ``council ask``'s and a
consult's failure lines): a model the CLI does not know is not a model server to start (no ``ollama serve``), and a
CLI run with no model named says its default model, never “?”."""

from __future__ import annotations

from council.config import ProviderConfig
from council.present.failures import all_failed, failed
from council.providers.registry import build_provider
from council.session.calls.failure import failure_of
from council.words import speaking


def test_a_model_the_cli_does_not_know_says_the_clis_fix_not_ollamas():
    seat = build_provider(ProviderConfig(kind="claude", model="claude-nope"))
    f = failure_of(seat.classify("API Error: 404 model: claude-nope not found"), seat)  # type: ignore[attr-defined]
    for text in (all_failed({"Skeptic": f}), failed("Skeptic", f)):
        assert "Claude Code does not know the model “claude-nope”" in text, text
        assert "ollama" not in text.lower() and "model server" not in text
    with speaking("ru"):
        assert "Claude Code не знает модель «claude-nope»" in all_failed({"Skeptic": f})


def test_no_model_named_is_called_the_clis_default_model():
    for kind in ("claude", "codex", "gemini", "copilot"):
        seat = build_provider(ProviderConfig(kind=kind))
        message = seat.classify("models/unknown is not found for API version v1beta").message  # type: ignore[attr-defined]
        assert "“?”" not in message and "default model" in message, message
