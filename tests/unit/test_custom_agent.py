"""The Council custom agent the extension contributes (``contributes.chatAgents`` → ``agents/council.agent.md``):
a VS Code ``.agent.md`` file whose header uses only the documented fields and whose tools are the council's own —
each extension tool by its full reference name (``<publisher>.<name>/<toolReferenceName>``, as VS Code 1.139 names
an extension's tools), the MCP server's by ``<label in lower case>/*`` — so the agent has exactly the council tools
in either ``council.agentTools`` mode. The e2e (agent-scenario.js) checks the same file in the real VS Code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
# https://code.visualstudio.com/docs/agent-customization/custom-agents#_header-optional (the VS Code format's fields)
DOCUMENTED_FIELDS = {"description", "name", "argument-hint", "tools", "agents", "model", "user-invocable",
                     "disable-model-invocation", "infer", "target", "mcp-servers", "handoffs", "hooks"}


def agent_file() -> tuple[dict, str]:
    (entry,) = PACKAGE["contributes"]["chatAgents"]
    path = (ROOT / entry["path"]).resolve()
    assert path.is_relative_to(ROOT) and path.name.endswith(".agent.md")
    head, body = re.fullmatch(r"---\n(.*?)\n---\n(.*)", path.read_text(encoding="utf-8"), re.S).groups()
    return yaml.safe_load(head), body


def test_the_agent_is_contributed_with_the_documented_fields():
    (entry,) = PACKAGE["contributes"]["chatAgents"]
    assert set(entry) <= {"path", "when"}  # name/description in the contribution are deprecated in 1.139
    assert entry["when"] == "config.council.agentTools != 'off'"
    header, body = agent_file()
    assert set(header) <= DOCUMENTED_FIELDS
    assert header["name"] == "Council" and header["description"] and header["argument-hint"]
    assert "Do not answer the decision yourself" in body


def test_the_agent_has_exactly_the_council_tools_in_both_modes():
    extension_id = f"{PACKAGE['publisher']}.{PACKAGE['name']}".lower()
    references = {t["toolReferenceName"]: t["name"] for t in PACKAGE["contributes"]["languageModelTools"]}
    (mcp,) = PACKAGE["contributes"]["mcpServerDefinitionProviders"]
    header, _ = agent_file()
    tools = header["tools"]
    extension_tools = [t.removeprefix(f"{extension_id}/") for t in tools if t.startswith(f"{extension_id}/")]
    assert sorted(extension_tools) == sorted(references), "every council tool by its full reference name, once"
    assert f"{mcp['label'].lower().replace(' ', '-')}/*" in tools, "the MCP server's tools (council.agentTools: mcp)"
    assert set(tools) - {f"{extension_id}/{r}" for r in references} - {"council/*"} == {"vscode/askQuestions"}


def test_the_instructions_name_only_tools_the_agent_has():
    header, body = agent_file()
    mentioned = re.findall(r"#tool:([\w./-]+)", body)
    assert mentioned and set(mentioned) <= set(header["tools"])
    names = {t["name"] for t in PACKAGE["contributes"]["languageModelTools"]}
    assert set(re.findall(r"`((?:council|persona)_(?:consult|define_personas|review))`", body)) == names
