"""``python -m tools.lmtools [--check]``: writes the council's tools into package.json's ``languageModelTools``.

VS Code's agent-mode tools carry exactly the MCP tools' names, titles, descriptions and input schemas
(:data:`council.mcpserver.tools.TOOLS`); hand-written fields of existing entries are kept. ``--check`` exits 1 on drift.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from council.mcpserver.tools import TOOLS, input_schema
from tools import write_or_check

LM_TOOL_DEFAULTS = {  # what the VS Code contribution adds (kept when already there: edit them in package.json)
    "council_consult": {"toolReferenceName": "council", "icon": "$(organization)"},
    "persona_consult": {"toolReferenceName": "councilPersona", "icon": "$(person)"},
    "council_define_personas": {"toolReferenceName": "councilPersonas", "icon": "$(edit)"},
    "council_review": {"toolReferenceName": "councilReview", "icon": "$(checklist)"},
}
AGENT_TOOLS_WHEN = "config.council.agentTools == 'languageModelTools'"


def lm_tools(existing: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_name = {entry.get("name"): entry for entry in existing}
    out = []
    for t in TOOLS:
        entry = {"name": t.name, **LM_TOOL_DEFAULTS[t.name], **by_name.get(t.name, {})}
        entry.update({"displayName": t.title, "userDescription": t.title, "modelDescription": t.description,
                      "canBeReferencedInPrompt": True, "when": AGENT_TOOLS_WHEN, "inputSchema": input_schema(t)})
        out.append(entry)
    return out


def sync_package_json(path: Path, check: bool) -> int:
    """Write the tools into ``path``'s ``contributes.languageModelTools`` (``check``: exit 1 when it differs)."""
    text = path.read_text(encoding="utf-8")
    package = json.loads(text)
    contributes = package.setdefault("contributes", {})
    contributes["languageModelTools"] = lm_tools(contributes.get("languageModelTools", []))
    new = json.dumps(package, indent=2, ensure_ascii=False) + "\n"
    return write_or_check(path, new, check, f"{path}: languageModelTools are out of date: run python -m tools.lmtools")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Write the council's tools into package.json's languageModelTools.")
    p.add_argument("--package-json", type=Path, default=Path(__file__).resolve().parents[1] / "package.json")
    p.add_argument("--check", action="store_true", help="exit 1 if package.json is out of date")
    args = p.parse_args(argv)
    return sync_package_json(args.package_json, args.check)


if __name__ == "__main__":
    sys.exit(main())
