"""The VS Code extension's agent-mode tools carry exactly the MCP tools' names, titles, descriptions and input
schemas (package.json is written by ``python -m tools.lmtools``), and appear only when selected."""

from __future__ import annotations

import json
from pathlib import Path

from council.mcpserver.tools import TOOLS, input_schema
from tools.lmtools import AGENT_TOOLS_WHEN, sync_package_json

PACKAGE = Path(__file__).resolve().parents[2] / "package.json"


def test_package_json_is_in_sync_with_the_tool_specs():
    assert sync_package_json(PACKAGE, check=True) == 0


def test_each_contributed_tool_matches_its_mcp_tool():
    contributes = json.loads(PACKAGE.read_text(encoding="utf-8"))["contributes"]
    tools = {t["name"]: t for t in contributes["languageModelTools"]}
    assert list(tools) == [t.name for t in TOOLS]
    for spec in TOOLS:
        entry = tools[spec.name]
        assert entry["inputSchema"] == input_schema(spec) and entry["modelDescription"] == spec.description
        assert entry["displayName"] == spec.title and entry["when"] == AGENT_TOOLS_WHEN
    assert contributes["mcpServerDefinitionProviders"] == [{"id": "council.mcp", "label": "Council"}]
    setting = contributes["configuration"]["properties"]["council.agentTools"]
    assert setting["enum"] == ["languageModelTools", "mcp", "off"] and setting["default"] == "languageModelTools"


def test_a_stale_package_json_is_reported(tmp_path: Path):
    stale = json.loads(PACKAGE.read_text(encoding="utf-8"))
    stale["contributes"]["languageModelTools"][0]["inputSchema"]["properties"].pop("depth")
    path = tmp_path / "package.json"
    path.write_text(json.dumps(stale, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert sync_package_json(path, check=True) == 1
    assert sync_package_json(path, check=False) == 0
    assert path.read_text(encoding="utf-8") == PACKAGE.read_text(encoding="utf-8")
