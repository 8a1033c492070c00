"""A scripted model of one vendor that sits a whole council: it reads the reply Council's prompt asks for — the key
guide after "Reply with one JSON object only" (the JSON types, item counts and the vote's letters) and the extra
debate keys — and answers with the scripted provider's deterministic reply for that shape
(:func:`council.providers.scripted.auto_reply`), the persona read from "You are …, an advisor" and the cycle from
"Debate cycle N". Each persona's position and the chair's recommendation end with ``[vendor]``, so a test can tell
which vendor's server wrote what. A prompt that is not Council's (the doctor's "Reply with the word OK") gets "OK".

The CLIs wrap Council's prompt in their own (system prompts, tool lists, a transcript of the turn): every string in
the request's body is read, in order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from council.providers.base import ChatMessage, CompletionRequest
from council.providers.scripted import auto_reply
from council.session.calls.formats import HEAD

EXTRA = "Also include in the JSON object:"
KEY_LINE = re.compile(r'^"(\w+)": (.*)$')
COUNT = re.compile(r"^(?:exactly (\d+)|(\d+)-\d+|at least (\d+)|up to \d+)")
PERSONA = re.compile(r"You are (.+?), an advisor on a council\.")
CYCLE = re.compile(r"Debate cycle (\d+)\.")
TITLES = {"needs_clarification": "ClarifierReply", "position": "PersonaReply", "options": "OptionsReply",
          "recommendation": "SynthesisReply", "answer": "FollowUpReply", "checklist": "RoleReply",
          "summary_reasoning": "ChairReply"}
ROLES = {"ClarifierReply": "clarifier", "OptionsReply": "moderator", "SynthesisReply": "synthesizer",
         "FollowUpReply": "moderator"}


def strings(node: Any) -> Iterator[str]:
    """Every string in a JSON value, in order."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from strings(item)
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings(value)


def keys_after(text: str, head: str) -> dict[str, dict[str, Any]]:
    """The keys of the guide that follows the last ``head`` in ``text``, each as a schema property."""
    at = text.rfind(head)
    if at < 0:
        return {}
    props: dict[str, dict[str, Any]] = {}
    for line in text[at + len(head):].lstrip("\n").splitlines():
        found = KEY_LINE.match(line.strip())
        if found is None:
            break
        key, kind = found.groups()
        prop: dict[str, Any] = {}
        if kind.startswith('"'):  # an enum: "A" | "B"
            prop["enum"] = [json.loads(v) for v in re.findall(r'"[^"]*"', kind.split(",")[0])]
        elif (count := COUNT.match(kind)) is not None:
            prop["minItems"] = int(next((g for g in count.groups() if g), 0))
        props[key] = prop
    return props


def council_reply(vendor: str, body: dict[str, Any]) -> str:
    """What ``vendor``'s scripted model answers to a request's ``body`` (any of the four wire formats)."""
    text = "\n".join(strings(body))
    props = keys_after(text, HEAD)
    title = next((TITLES[key] for key in props if key in TITLES), None)
    if title is None:
        return "OK"
    props.update(keys_after(text, EXTRA))
    persona = PERSONA.search(text)
    cycle = CYCLE.search(text)
    request = CompletionRequest(purpose=persona.group(1) if persona else ROLES.get(title, title),
                                messages=[ChatMessage(role="user", content=text)],
                                json_schema={"title": title, "properties": props},
                                cycle=int(cycle.group(1)) if cycle else 1)
    reply = auto_reply(request)
    if title == "PersonaReply":
        reply["position"] = f"{reply['position']} [{vendor}]"
    elif title == "SynthesisReply":
        reply["recommendation"] = f"{reply['recommendation']} [{vendor}]"
    return json.dumps(reply, ensure_ascii=False)
