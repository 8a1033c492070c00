"""Model failures in plain words, one phrase per kind (``council.session.calls.failure``): "api.anthropic.com is
overloaded (HTTP 529)", "could not reach localhost:11434". The status code and the provider stay data in the event's
details; the technical ``detail`` is shown only where nothing plainer is known (a client model's own message)."""

from __future__ import annotations

from collections.abc import Callable

from council.personas.names import shown
from council.present.answer import PROVIDERS, provider_name
from council.present.text import grouped, join_names, one_line
from council.providers.agent_cli import DEFAULT_MODEL
from council.providers.kinds import AGENT_CLI_KINDS, provider_class
from council.session.state.outputs import ModelFailure
from council.words import speaking, t

CLIENT_PREFIX = "the client's model failed: "


def where(f: ModelFailure) -> str:
    """Who failed, as a person knows it: the server's host, "your chat model", or the provider's name."""
    if f.provider == "client":
        return t("provider.client")
    if f.host:
        return f.host
    return provider_name(f.provider) if f.provider in PROVIDERS else f.provider or t("where.the_model")


def _said(f: ModelFailure) -> str:
    text = one_line(f.detail)
    return text[len(CLIENT_PREFIX):] if text.lower().startswith(CLIENT_PREFIX) else text


def _cause(key: str) -> Callable[[ModelFailure], str]:
    """The catalog's ``cause.<key>``, filled with who failed, the HTTP status and the model."""
    return lambda f: t(f"cause.{key}", where=where(f), http=t("http", status=f.status) if f.status else "",
                       model=f.model or t("where.the_model"))


CAUSES: dict[str, Callable[[ModelFailure], str]] = {
    **{key: _cause(key) for key in ("key_rejected", "rate_limited", "overloaded", "server_error", "timeout",
                                    "malformed", "refused", "crashed", "model_unavailable", "no_consent",
                                    "over_budget")},
    "model_not_found": lambda f: _cause("model_not_found" if f.model else "model_not_found_unnamed")(f),
    "unreachable": lambda f: t("cause.unreachable", host=f.host or where(f)),
    "client_model": lambda f: t("cause.client_model", said=_said(f)) if _said(f) else t("cause.client_model_silent"),
    "not_configured": lambda f: t("cause.not_configured", said=_said(f)),
}

ROLES = ("clarifier", "moderator", "synthesizer")  # what failed, by role (role.<role>); a persona is named in bold


#: The failures an agent CLI words itself, with its fix (``agent_cli.*``: "Claude Code does not know the model …",
#: "… wrote more than N bytes"): its message is the cause a person reads, not the kind's generic words.
CLI_WORDED = ("model_not_found", "server_error", "timeout", "rate_limited")


def cause(f: ModelFailure) -> str:
    if f.provider in AGENT_CLI_KINDS and f.kind == "model_not_found":
        return unknown_to_cli(f)
    if f.provider in AGENT_CLI_KINDS and f.kind in CLI_WORDED and f.detail:
        return f.detail
    return CAUSES[f.kind](f)


def unknown_to_cli(f: ModelFailure) -> str:
    """"Claude Code does not know the model “x”: …" in the reader's language (as ``council doctor`` says it)."""
    cli = provider_class(f.provider)
    named = f.model and f.model != DEFAULT_MODEL
    return t("agent_cli.unknown_model" if named else "agent_cli.unknown_default_model", cli=cli.title,
             binary=cli.binary_name, model=f.model)


def failed(role: str, failure: ModelFailure) -> str:
    """One line: who could not answer and why."""
    if role in ROLES:
        head, after = t(f"role.{role}"), t(f"role.{role}.after")
    else:
        head, after = t("role.persona", role=shown(role)), ""
    return t("failed", head=head, cause=cause(failure), after=after)


UNREACHABLE = ("unreachable", "model_unavailable")  # nothing answers there: no server, or the client has no such model


def unreachable(failures: dict[str, ModelFailure]) -> str | None:
    """When no advisor's model could be reached at all: where the council tried — the server's host, or the model
    the client no longer has (issue 19: say so once, with the fix, never "every advisor failed")."""
    if not failures or any(f.kind not in UNREACHABLE for f in failures.values()):
        return None
    return join_names(list(dict.fromkeys(f.host or (f.kind == "model_unavailable" and f.model) or where(f)
                                         for f in failures.values())))


def all_failed(failed: dict[str, ModelFailure]) -> str:
    """Every advisor failed: the common cause once, or each distinct cause with the advisors it hit."""
    hosts = unreachable(failed)
    if hosts is not None:
        return t("all_unreachable", hosts=hosts, fix=t("unreachable.fix"))
    return t("all_failed", why=causes_of(failed))


def causes_of(failed: dict[str, ModelFailure]) -> str:
    """Why the advisors failed: the common cause once, or each distinct cause with the advisors it hit."""
    groups = grouped((cause(f), shown(persona)) for persona, f in failed.items())
    if len(groups) == 1:
        return next(iter(groups))
    return "; ".join(f"{join_names(names)}: {text}" for text, names in groups.items())


def later_failed(cycle: int, failed: dict[str, ModelFailure]) -> str:
    """A one-shot session's later cycle whose every model call failed: dropped, the council answers from before."""
    return t("note.later_failed", cycle=cycle, why=causes_of(failed))


def no_consent(models: list[str]) -> str:
    """The user did not allow any of the models the council sat on: which, and how to allow them (no retry)."""
    names = join_names([f"**{m}**" for m in models]) if models else t("consent.chat_model")
    allow = t("consent.allow_them") if len(models) > 1 else t("consent.allow_it")
    return t("consent.none", names=names, allow=allow)


def turn_failed(f: ModelFailure, language: str | None = None) -> str:
    """The message of a JSON-RPC error when a whole turn failed (in ``language``: the session's)."""
    with speaking(language):
        if f.kind == "crashed":
            return t("turn_failed.crashed", error=f.detail.split(":", 1)[0] or t("turn_failed.unexpected"))
        return t("turn_failed", cause=cause(f))
