"""Terminal printing for ``council ask``: the sidecar's markdown as styled text (ANSI only on a tty, without
``NO_COLOR``), and progress lines. Persona text (``persona.delta``) and, on a terminal, the answer (``answer.delta``)
are written as they come; lines that arrive while a stream is open wait until it ends, so one text is never cut in
two. A withdrawn draft of the answer is taken back from the terminal (cleared), never left above the answer.
"""

from __future__ import annotations

import os
import re
import shutil
import unicodedata
from typing import Any, TextIO

from council.words import speaking, t

_CODES = {"bold": "1", "dim": "2", "italic": "3", "red": "31", "green": "32", "yellow": "33",
          "blue": "34", "magenta": "35", "cyan": "36"}


class Style:
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
_QUOTE = re.compile(r"^>\s?(.*)$")
_TABLE_RULE = re.compile(r"^\|?[\s:|-]+\|[\s:|-]*$")


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
        elif _TABLE_RULE.match(line) and "-" in line:
            continue
        elif line.startswith("|") and line.rstrip().endswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            out.append("  " + "   ".join(inline(c, style) for c in cells))
        elif m := _QUOTE.match(line):
            out.append(style("│ ", "dim") + inline(m.group(1), style))
        elif m := _BULLET.match(line):
            out.append(f"{m.group(1)}  • {inline(m.group(2), style)}")
        elif m := _NUMBERED.match(line):
            out.append(f"{m.group(1)}  {m.group(2)}. {inline(m.group(3), style)}")
        else:
            out.append(inline(line, style))
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + "\n"


class StreamFormatter:
    """Markdown that arrives in arbitrary chunks: headings, ``**bold**`` and ``- `` bullets, styled as they come.

    A trailing ``*`` or a ``-``/``#`` at the start of a line is held until the next chunk shows what it is.
    """

    def __init__(self, style: Style) -> None:
        self.style = style
        self.pending = ""
        self.bold = False
        self.heading = False
        self.line_start = True

    def _code(self, on: str, off: str, flag: bool) -> str:
        return (on if flag else off) if self.style.enabled else ""

    def feed(self, text: str) -> str:
        s, self.pending = self.pending + text, ""
        out: list[str] = []
        i = 0
        while i < len(s):
            c = s[i]
            if self.line_start and c == "#":
                j = i
                while j < len(s) and s[j] == "#":
                    j += 1
                if j == len(s):
                    self.pending = s[i:]
                    break
                if s[j] == " ":
                    self.heading, self.line_start = True, False
                    out.append(self._code("\x1b[1;34m", "", True))
                    i = j + 1
                    continue
            if c == "*" or (c == "-" and self.line_start):
                if i + 1 == len(s):
                    self.pending = c
                    break
                if c == "*" and s[i + 1] == "*":
                    self.bold = not self.bold
                    out.append(self._code("\x1b[1m", "\x1b[22m", self.bold))
                    i, self.line_start = i + 2, False
                    continue
                if c == "-" and s[i + 1] == " ":
                    out.append("  • ")
                    i, self.line_start = i + 2, False
                    continue
            if c == "\n" and self.heading:
                self.heading = False
                out.append(self._code("\x1b[0m", "", True))
            out.append(c)
            self.line_start = c == "\n"
            i += 1
        return "".join(out)

    def close(self) -> str:
        tail, self.pending = self.pending, ""
        if self.bold or self.heading:
            tail += self._code("\x1b[0m", "", True)
            self.bold = self.heading = False
        self.line_start = True
        return tail


class EventPrinter:
    """Prints ``council/event`` notifications on a text stream (``quiet`` keeps only warnings).

    Every event's markdown is printed as it comes, except the final answer, which is kept for the caller to print
    where the answer belongs (stdout): ``final_markdown`` is what was not printed yet. On a terminal (``live``) the
    answer's first words print as the chair writes them (``answer.delta``); when that draft is withdrawn
    (``answer.withdrawn``: the answer is not what streamed) the terminal takes it back — the lines it took are
    cleared — so one answer stands under one heading. Elsewhere (a pipe, a file: nothing printed can be taken back)
    and when quiet, the draft is kept back and ``final_markdown`` is the whole answer. Progress events are dim status
    lines; a question's choices are numbered under it (its layout, as VS Code's buttons are).
    """

    def __init__(self, out: TextIO, style: Style, *, quiet: bool = False, live: bool | None = None) -> None:
        self.out = out
        self.style = style
        self.quiet = quiet
        self.live = bool(getattr(out, "isatty", lambda: False)()) if live is None else live
        self.draft: list[tuple[str, bool]] | None = None  # written since the answer's draft began: (text, is_draft)
        self.streaming = False  # a persona's text is being written
        self.formatter = StreamFormatter(style)
        self.at_line_start = True
        self.held: list[str] = []
        self.final_markdown: str | None = None
        self.answer_head = ""  # the answer's streamed markdown (printed unless quiet)
        self.final_continues = False  # final_markdown goes on from the streamed answer printed just before
        self.errors: list[str] = []
        self.language: str | None = None  # the session's: the words the printer adds (a choice's lean) are in it

    # --- low-level output ------------------------------------------------------------------------------------
    def _write(self, text: str, draft: bool = False) -> None:
        self.out.write(text)
        self.out.flush()
        if text:
            self.at_line_start = text.endswith("\n")
            if self.draft is not None:
                self.draft.append((text, draft))

    def _take_back(self) -> None:
        """Clear what was written since the answer's draft began, then write again what was not the draft."""
        if not self.draft:
            self.draft = None
            return
        written, others = "".join(x for x, _ in self.draft), [x for x, is_draft in self.draft if not is_draft]
        self.draft = None
        up = rows_above(written, shutil.get_terminal_size().columns)
        self.out.write("\r" + (f"\x1b[{up}F" if up else "") + "\x1b[J")
        self.at_line_start = True
        for text in others:
            self._write(text)

    def line(self, text: str) -> None:
        """A line of its own; held back while a persona's text streams."""
        if self.quiet:
            return
        if self.streaming:
            self.held.append(text)
            return
        self._write(("" if self.at_line_start else "\n") + text + "\n")

    def _end_stream(self) -> None:
        if not self.streaming:
            return
        self._write(self.formatter.close(), draft=True)
        if not self.at_line_start:
            self._write("\n", draft=True)
        self.streaming = False
        held, self.held = self.held, []
        for text in held:
            self.line(text)

    def warn(self, text: str) -> None:
        """Warnings show even when quiet."""
        self._end_stream()
        self._write(("" if self.at_line_start else "\n") + self.style(f"! {text}", "yellow") + "\n")

    # --- events ----------------------------------------------------------------------------------------------
    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("type", "")
        text = event.get("markdown") or ""
        if kind == "progress":
            self.line(self.style(f"· {event.get('message', '')}", "dim"))
        elif kind == "answer.delta":
            self.answer_head += text
            if not self.quiet and self.live:  # the answer's first words, taken back if the draft is withdrawn
                if self.draft is None:
                    if not self.at_line_start:
                        self._write("\n")
                    self.draft = []
                self.streaming = True
                self._write(self.formatter.feed(text), draft=True)
        elif kind == "answer.withdrawn":  # the final answer brings all of itself
            self._end_stream()
            self._take_back()
            self.answer_head = ""
        elif kind == "persona.delta" or (kind == "persona.completed" and self.streaming):
            if not self.quiet:  # a persona's line (its completion ends it)
                self.streaming = True
                self._write(self.formatter.feed(text))
        elif kind == "final.answer":
            self._end_stream()
            shown = bool(self.answer_head) and self.live and not self.quiet
            self.final_markdown = text if shown else self.answer_head + text
            self.final_continues = shown
            self.answer_head = ""
            self.draft = None
        elif kind == "error":
            self.errors.append(event.get("message", ""))
            self.warn(event.get("message", ""))
        elif text:
            self._end_stream()
            block = markdown(text.rstrip("\n") + choices(event, self.language), self.style)
            self.line(block.strip("\n") + "\n")  # a block, then a blank line
        if kind in ("persona.completed", "cycle.completed"):
            self._end_stream()


_SGR = re.compile(r"\x1b\[[0-9;]*m")


def width(text: str) -> int:
    """The columns ``text`` takes on a terminal: colour codes none, combining marks none, wide characters two."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in _SGR.sub("", text))


def rows_above(text: str, columns: int) -> int:
    """How many rows above the cursor's ``text`` reaches, written from the start of a row on a terminal
    ``columns`` wide (its lines wrap)."""
    lines = text.split("\n")
    rows = [max(1, -(-width(line) // max(1, columns))) for line in lines]
    return sum(rows) - 1


def choices(event: dict[str, Any], language: str | None = None) -> str:
    """A question's choices as a numbered list under it, each with the course it favours: the terminal's layout for
    them (VS Code shows buttons), in the session's ``language``."""
    if event.get("type") != "question.asked":
        return ""
    question = event.get("question") or {}
    leans = {x.get("choice"): x.get("favours") for x in ((question.get("stakes") or {}).get("leans") or [])
             if isinstance(x, dict)}
    rows = []
    with speaking(language):
        for i, c in enumerate([c for c in question.get("choices") or [] if isinstance(c, dict)], 1):
            favours = leans.get(c.get("value"))  # what this answer would move
            lean = t("cli.favours", course=" ".join(str(favours).split())) if favours else ""
            rows.append(f"\n{i}. {' '.join(str(c.get('label', '')).split())}{lean}")
    return "".join(rows)


def show_hint(out: TextIO, style: Style, question: dict[str, Any], language: str | None = None) -> None:
    """How to answer the question just printed, in the session's ``language`` (the question itself comes from the
    sidecar's markdown)."""
    with speaking(language):
        hint = t("cli.hint_choices") if question.get("choices") else t("cli.hint")
    out.write(style(f"   {hint}", "dim") + "\n")
    out.flush()
