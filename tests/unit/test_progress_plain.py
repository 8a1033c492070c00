"""A consult's progress messages are plain text: a seating event's markdown paragraphs (the CLIs found, the seats,
how each bills) come as one line with no emphasis markers between them, the underscores inside names kept."""

from __future__ import annotations

from council.present.consult import stage
from council.words import t


def test_the_seating_paragraphs_come_as_plain_text():
    markdown = "\n\n".join([t("seats.found", clis="Claude Code and Gemini CLI", chair="Claude Code"),
                            t("seats.line", seats="Skeptic → gemini:default", chair="claude:default"),
                            t("seats.bills", bills=t("bills.claude")), "**Skeptic** speaks with my_model"])
    line = stage({"type": "seating.decided", "markdown": markdown})
    assert line is not None and "\n" not in line
    assert "._ _" not in line and "_🪑" not in line and "_💳" not in line and "**" not in line, line
    assert line.startswith("🔎 No model is configured") and line.endswith("Skeptic speaks with my_model"), line
    assert "COUNCIL_AGENT_CLIS=0 turns this off. 🪑 Seats: Skeptic → gemini:default." in line.replace("`", "")
