"""The Council plugin (``plugins/council``) against the published formats it claims, one folder in two formats:

- Claude Code: ``.claude-plugin/plugin.json`` and the repository's ``.claude-plugin/marketplace.json`` against
  SchemaStore's schemas (generated from Claude Code), and ``.mcp.json``'s servers against the same schema's server
  definitions; the name by the plugin reference's rule (kebab-case).
- Agent Plugins 1.0 (what VS Code loads when ``plugin.json`` declares its ``$schema``): ``plugin.json`` and
  ``mcp.json`` against the specification's schemas, plus the rules the schemas leave to the text (a bare executable
  name or a ``./`` path as ``command``; ``mcp.json`` targets the manifest's version).
- The skill: the Agent Skills specification, through its reference validator (``skills-ref``).

Both formats start the same server, ``council mcp``, which the CLI accepts. The schemas are vendored in
``schemas/`` (sources and commits in ``schemas/SOURCES.md``); nothing is fetched.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import skills_ref
from jsonschema import Draft7Validator, Draft202012Validator

from council.cli.main import parser

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugins" / "council"
SCHEMAS = Path(__file__).resolve().parent / "schemas"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
AGENT_PLUGINS_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/{}.schema.json"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def errors(schema: str, document: Any, draft=Draft7Validator) -> list[str]:
    validator = draft(load(SCHEMAS / schema))
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


def test_the_vendored_schemas_are_the_published_ones():
    for name, draft in [("claude-code-plugin-manifest.json", Draft7Validator),
                        ("claude-code-marketplace.json", Draft7Validator),
                        ("agent-plugins-1.0.0-plugin.schema.json", Draft202012Validator),
                        ("agent-plugins-1.0.0-mcp.schema.json", Draft202012Validator)]:
        schema = load(SCHEMAS / name)
        draft.check_schema(schema)
        assert name in (SCHEMAS / "SOURCES.md").read_text(encoding="utf-8")
    assert load(SCHEMAS / "agent-plugins-1.0.0-plugin.schema.json")["$id"] == AGENT_PLUGINS_SCHEMA.format("plugin")


def test_claude_code_manifest():
    manifest = load(PLUGIN / ".claude-plugin" / "plugin.json")
    assert errors("claude-code-plugin-manifest.json", manifest) == []
    assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", manifest["name"])  # the plugin reference's kebab-case rule
    assert manifest["version"] == VERSION
    # Components sit in the default places (skills/, .mcp.json): nothing listed that would replace them.
    assert not {"skills", "commands", "agents", "mcpServers", "hooks"} & set(manifest)


def test_claude_code_mcp_servers_are_valid_server_entries():
    servers = load(PLUGIN / ".mcp.json")
    assert set(servers) == {"mcpServers"}
    # The manifest schema's inline `mcpServers` takes the same server entries as the plugin's .mcp.json.
    assert errors("claude-code-plugin-manifest.json", {"name": "council", "mcpServers": servers["mcpServers"]}) == []
    assert servers["mcpServers"] == {"council": {"command": "council", "args": ["mcp"]}}


def test_claude_code_marketplace_lists_the_plugin():
    marketplace = load(ROOT / ".claude-plugin" / "marketplace.json")
    assert errors("claude-code-marketplace.json", marketplace) == []
    (entry,) = marketplace["plugins"]
    assert (ROOT / entry["source"]).resolve() == PLUGIN
    manifest = load(PLUGIN / ".claude-plugin" / "plugin.json")
    assert entry["name"] == manifest["name"] and entry["version"] == manifest["version"]


def test_agent_plugins_manifest_and_mcp_configuration():
    manifest = load(PLUGIN / "plugin.json")
    assert errors("agent-plugins-1.0.0-plugin.schema.json", manifest, Draft202012Validator) == []
    config = load(PLUGIN / "mcp.json")
    assert errors("agent-plugins-1.0.0-mcp.schema.json", config, Draft202012Validator) == []
    assert config["$schema"] == AGENT_PLUGINS_SCHEMA.format("mcp")  # the manifest's version (spec 7.2.2)
    for server in config["mcpServers"].values():
        # spec 7.2.1: one executable token, a bare name (found on PATH) or a ./ path inside the plugin
        assert re.fullmatch(r"[\w.-]+|\./[\w./-]+", server["command"]) and ".." not in server["command"]
    claude = load(PLUGIN / ".claude-plugin" / "plugin.json")
    shared = ("name", "version", "description", "author", "repository", "license", "keywords")
    assert {k: manifest[k] for k in shared} == {k: claude[k] for k in shared}


def test_both_formats_start_the_same_council_mcp_command():
    claude = load(PLUGIN / ".mcp.json")["mcpServers"]
    portable = load(PLUGIN / "mcp.json")["mcpServers"]
    assert {n: (s["command"], s["args"]) for n, s in claude.items()} == \
        {n: (s["command"], s["args"]) for n, s in portable.items()} == {"council": ("council", ["mcp"])}
    args = parser().parse_args(portable["council"]["args"])
    assert args.command == "mcp"


@pytest.mark.parametrize("skill", sorted(p.parent.name for p in (PLUGIN / "skills").glob("*/SKILL.md")))
def test_skills_follow_the_agent_skills_specification(skill: str):
    folder = PLUGIN / "skills" / skill
    assert skills_ref.validate(folder) == []
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    tools = {"council_consult", "persona_consult", "council_define_personas", "council_review"}
    assert tools <= set(re.findall(r"`(\w+)`", text)), "the skill names every tool of the council MCP server"


def test_the_plugin_has_a_council_skill():
    assert (PLUGIN / "skills" / "council" / "SKILL.md").is_file()
    assert skills_ref.read_properties(PLUGIN / "skills" / "council").name == "council"
