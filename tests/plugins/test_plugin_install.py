"""The plugin's install steps on a fresh machine, as the README gives them: build the wheel, install it into a new
virtual environment (its dependencies from the package index), put that environment's ``bin`` on ``PATH``, and start
the MCP server exactly as the plugin's ``mcp.json`` says (``council mcp``, a bare command found on ``PATH``) with the
official MCP Python SDK client. The server must list the council's tools and answer ``council_define_personas``
(the persona listing needs no model) with the personas that shipped inside the wheel.

Slow (about a minute with a warm pip cache): it builds and installs a real wheel. The build runs on a copy of the
sources, so nothing is written into the tree.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugins" / "council"
TOOLS = {"council_consult", "persona_consult", "council_define_personas", "council_review"}


def run(*args: str | Path, cwd: Path | None = None) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # a fresh machine: pip sees only the venv
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, f"{' '.join(map(str, args))} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new venv with the wheel built from this tree installed; its bin folder."""
    work = tmp_path_factory.mktemp("plugin-install")
    source = work / "source"
    source.mkdir()
    for item in ("pyproject.toml", "README.md", "server", "personas"):
        copy = shutil.copytree if (ROOT / item).is_dir() else shutil.copy2
        copy(ROOT / item, source / item, **({"symlinks": True, "ignore": shutil.ignore_patterns(
            "__pycache__", "*.egg-info")} if (ROOT / item).is_dir() else {}))
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", work / "dist", source)
    (wheel,) = (work / "dist").glob("council-*.whl")
    venv = work / "venv"
    run(sys.executable, "-m", "venv", venv)
    run(venv / "bin" / "python", "-m", "pip", "install", "-q", wheel)
    return venv / "bin"


async def test_the_plugins_mcp_command_serves_the_council_from_the_wheel(installed: Path, tmp_path: Path):
    (server,) = json.loads((PLUGIN / "mcp.json").read_text(encoding="utf-8"))["mcpServers"].values()
    claude = json.loads((PLUGIN / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["council"]
    assert (claude["command"], claude["args"]) == (server["command"], server["args"])
    path = f"{installed}{os.pathsep}{os.environ.get('PATH', '')}"
    assert shutil.which(server["command"], path=path) == str(installed / server["command"])
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8"}  # a user's shell: no COUNCIL_* settings
    params = StdioServerParameters(command=server["command"], args=server["args"], env=env, cwd=str(tmp_path))
    with (tmp_path / "server.log").open("w", encoding="utf-8") as errlog, anyio.fail_after(120):
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            tools = {t.name for t in (await session.list_tools()).tools}
            listed = await session.call_tool("council_define_personas", {})
    assert init.server_info.name and tools == TOOLS
    assert not listed.is_error, listed.content
    names = {p["name"] for p in listed.structured_content["personas"]}
    shipped = len(list((ROOT / "personas").glob("*.toml")))
    assert len(names) == shipped and {"Devil's Advocate", "Software Architect", "Security Expert"} <= names
    assert "council MCP server ready" in (tmp_path / "server.log").read_text(encoding="utf-8")
