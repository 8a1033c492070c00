"""Terminal rendering for ``council ask``: markdown to readable text and one line (or stream) per event.

Colors are ANSI escapes, used only when the stream is a tty and ``NO_COLOR`` is unset. Persona text arrives as
``persona.delta`` chunks and is written as it comes; status lines that arrive while a persona is mid-stream wait
until its stream ends, so the text of one persona is never cut in two.
"""

from __future__ import annotations

import os
import re
from typing import Any, TextIO

_CODES = {"bold": "1", "dim": "2", "italic": "3", "red": "31", "green": "32", "yellow": "33",
          "blue": "34", "magenta": "35", "cyan": "36"}


class Style:
    """Wraps text in ANSI codes when enabled."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @classmethod
    def for_stream(cls, stream: TextIO) -> Style:
        isatty = getattr(stream, "isatty", lambda: False)
        return cls(bool(isatty()) and "NO_COLOR" not in os.environ)

    def __call__(self, text: str, *styles: str) -> str:
        if not self.enabled or not styles or not text:
            return text
        codes = ";".join(_CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_ITALIC = re.compile(r"(?<![\w*])[*_](?![\s*_])(.+?)(?<![\s*_])[*_](?![\w*])")
_CODE = re.compile(r"`([^`]+)`")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^(\s*)(\d+)[.)]\s+(.*)$")


def inline(text: str, style: Style) -> str:
    """Bold, italic and code spans; markers are dropped even without colors."""
    text = _CODE.sub(lambda m: style(m.group(1), "cyan"), text)
    text = _BOLD.sub(lambda m: style(m.group(1) or m.group(2), "bold"), text)
    return _ITALIC.sub(lambda m: style(m.group(1), "italic"), text)


def markdown(text: str, style: Style) -> str:
    """Markdown as terminal text: bold headings, bullets as •, numbered lists indented."""
    out: list[str] = []
    in_code = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            out.append("    " + style(line, "cyan"))
            continue
        if m := _HEADING.match(line):
            level, title = len(m.group(1)), inline(m.group(2), Style(False))
            if out and out[-1].strip():
                out.append("")
            out.append(style(title.upper() if level == 1 else title, "bold", "blue" if level <= 2 else "bold"))
        elif m := _BULLET.match(line):
            out.append(f"{m.group(1)}  • {inline(m.group(2), style)}")
        elif m := _NUMBERED.match(line):
            out.append(f"{m.group(1)}  {m.group(2)}. {inline(m.group(3), style)}")
        else:
            out.append(inline(line, style))
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + "\n"


def describe_convergence(conv: Any) -> str:
    """`` [refining, agreement 73%]`` from a Convergence object (or a plain string); empty when absent."""
    if not conv:
        return ""
    if isinstance(conv, dict):
        parts = [str(conv["status"])] if conv.get("status") else []
        if isinstance(conv.get("agreement"), (int, float)):
            parts.append(f"agreement {conv['agreement']:.0%}")
        return f" [{', '.join(parts)}]" if parts else ""
    return f" [{conv}]"


class StreamFormatter:
    """Light markdown for text that arrives in arbitrary chunks: ``**bold**`` and ``- `` bullets.

    A trailing ``*`` or a ``-`` at the start of a line is held until the next chunk shows what it is.
    """

    def __init__(self, style: Style) -> None:
        self.style = style
        self.pending = ""
        self.bold = False
        self.line_start = True

    def _toggle(self) -> str:
        self.bold = not self.bold
        if not self.style.enabled:
            return ""
        return "\x1b[1m" if self.bold else "\x1b[22m"

    def feed(self, text: str) -> str:
        s, self.pending = self.pending + text, ""
        out: list[str] = []
        i = 0
        while i < len(s):
            c = s[i]
            if c == "*" or (c == "-" and self.line_start):
                if i + 1 == len(s):
                    self.pending = c
                    break
                if c == "*" and s[i + 1] == "*":
                    out.append(self._toggle())
                    i += 2
                    self.line_start = False
                    continue
                if c == "-" and s[i + 1] == " ":
                    out.append("  • ")
                    i += 2
                    self.line_start = False
                    continue
            out.append(c)
            self.line_start = c == "\n"
            i += 1
        return "".join(out)

    def close(self) -> str:
        tail, self.pending = self.pending, ""
        if self.bold:
            tail += self._toggle()
        self.line_start = True
        return tail


class EventPrinter:
    """Renders ``council/event`` notifications on a text stream (``quiet`` keeps only warnings)."""

    def __init__(self, out: TextIO, style: Style, *, quiet: bool = False) -> None:
        self.out = out
        self.style = style
        self.quiet = quiet
        self.streaming: str | None = None  # persona whose text is being written
        self.formatter = StreamFormatter(style)
        self.at_line_start = True
        self.held: list[str] = []
        self.streamed: set[tuple[str, int]] = set()
        self.final_markdown: str | None = None
        self.errors: list[str] = []

    # --- low-level output ------------------------------------------------------------------------------------
    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()
        if text:
            self.at_line_start = text.endswith("\n")

    def line(self, text: str) -> None:
        """A status line; held back while a persona's text streams."""
        if self.quiet:
            return
        if self.streaming is not None:
            self.held.append(text)
            return
        if not self.at_line_start:
            self._write("\n")
        self._write(text + "\n")

    def _end_stream(self) -> None:
        if self.streaming is None:
            return
        self._write(self.formatter.close())
        if not self.at_line_start:
            self._write("\n")
        self.streaming = None
        held, self.held = self.held, []
        for text in held:
            self.line(text)

    def note(self, text: str) -> None:
        self.line(self.style(f"· {text}", "dim"))

    def warn(self, text: str) -> None:
        """Warnings show even when quiet."""
        self._end_stream()
        if not self.at_line_start:
            self._write("\n")
        self._write(self.style(f"! {text}", "yellow") + "\n")

    # --- events ----------------------------------------------------------------------------------------------
    def __call__(self, event: dict[str, Any]) -> None:
        handler = getattr(self, "on_" + event.get("type", "").replace(".", "_"), None)
        if handler is not None:
            handler(event)

    def on_progress(self, e: dict[str, Any]) -> None:
        self.note(e["message"])

    def on_personas_selected(self, e: dict[str, Any]) -> None:
        sel = e["selection"]
        names = ", ".join(p["name"] for p in sel["selectedPersonas"])
        self.line(self.style("Council: ", "bold") + names + self.style(f"  ({sel.get('method', '')})", "dim"))
        if sel.get("reason"):
            self.line(self.style(f"  why: {sel['reason']}", "dim"))

    def on_assumption_recorded(self, e: dict[str, Any]) -> None:
        a = e["assumption"]
        self.line(self.style("  assumed: ", "magenta") + a["assumption"])

    def on_persona_started(self, e: dict[str, Any]) -> None:
        who = f"{e['provider']}:{e['model']}" if e.get("provider") else ""
        verb = "votes" if e.get("phase") == "vote" else "is thinking"
        self.note(f"{e['persona']} {verb}…" + (f" ({who})" if who else ""))

    def on_persona_delta(self, e: dict[str, Any]) -> None:
        if self.quiet:
            return
        persona = e["persona"]
        if self.streaming != persona:
            self._end_stream()
            self.streaming = persona
            self.streamed.add((persona, e["cycle"]))
            if not self.at_line_start:
                self._write("\n")
            self._write("\n" + self.style(f"── {persona} (cycle {e['cycle']}) ──", "bold", "cyan") + "\n")
        self._write(self.formatter.feed(e["markdown"]))

    def on_persona_completed(self, e: dict[str, Any]) -> None:
        if self.streaming == e["persona"]:
            self._end_stream()
        resp = e["response"]
        streamed = (e["persona"], e["cycle"]) in self.streamed
        if resp.get("abstained"):
            if not streamed:  # a streamed abstention already said why
                self.line(self.style(f"  {e['persona']} abstained: {resp.get('note') or 'no usable reply'}",
                                     "yellow"))
        elif not streamed:
            self.line(self.style(f"── {e['persona']} (cycle {e['cycle']}) ──", "bold", "cyan"))
            self.line(resp["position"])
        else:
            self.line(self.style(f"  confidence: {resp['confidence']}", "dim"))

    def on_cycle_completed(self, e: dict[str, Any]) -> None:
        self._end_stream()
        summary = e["resolutionSummary"]
        if not summary.lower().startswith("cycle"):
            summary = f"Cycle {e['cycle']}: {summary}"
        conv = describe_convergence(e.get("convergence"))
        self.line(self.style("✓ ", "green") + summary + self.style(conv, "dim"))

    def on_debate_limitReached(self, e: dict[str, Any]) -> None:
        text = f"Debate limit reached: {e['cycles']} of {e['limit']} cycles."
        if e.get("canExtend"):
            text += f" Say 'extend debate' to allow up to {e['extendedLimit']}."
        self.line(self.style(text, "yellow"))

    def on_options_proposed(self, e: dict[str, Any]) -> None:
        opts = "; ".join(f"{o['id']}) {o['label']}" for o in e["options"])
        self.line(self.style("Options: ", "bold") + opts)

    def on_votes_tallied(self, e: dict[str, Any]) -> None:
        t = e["tally"]
        labels = {o["id"]: o["label"] for o in t["options"]}
        counts = ", ".join(f"{labels.get(k, k)}: {v}" for k, v in t["counts"].items())
        winner = labels.get(t["winner"], t["winner"]) if t.get("winner") else "no winner"
        self.line(self.style("Vote: ", "bold") + f"{winner} ({t['consensus']}; {counts})")

    def on_final_answer(self, e: dict[str, Any]) -> None:
        self._end_stream()
        self.final_markdown = e["markdown"]

    def on_error(self, e: dict[str, Any]) -> None:
        self.errors.append(e["message"])
        self.warn(e["message"])


def show_question(out: TextIO, style: Style, q: dict[str, Any]) -> None:
    """A clarification question with numbered choices, what skipping assumes, and the commands."""
    asker = q.get("askedBy", {}).get("name", "the moderator")
    out.write("\n" + style(f"? {q['question']}", "bold", "magenta") + style(f"  (asked by {asker})", "dim") + "\n")
    for i, choice in enumerate(q.get("choices") or [], 1):
        out.write(f"   {style(str(i), 'bold')}) {choice['label']}\n")
    if q.get("defaultAssumption"):
        out.write(style(f"   if skipped: {q['defaultAssumption']}", "dim") + "\n")
    hint = "a number, " if q.get("choices") else ""
    free = "your own words, " if q.get("freeTextAllowed", True) else ""
    out.write(style(f"   answer with {hint}{free}'skip', 'skip all' or 'more'", "dim") + "\n")
    out.flush()
