"""The built-in personas ship with every kind of install: the source tree's folder or the packaged copy."""

from __future__ import annotations

import sys
from pathlib import Path

from council.personas.loader import default_personas_dir, load_personas

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_default_personas_dir_holds_every_shipped_contract():
    shipped = sorted(p.name for p in (ROOT / "personas").glob("*.toml"))
    found = sorted(p.name for p in default_personas_dir().glob("*.toml"))
    assert shipped and found == shipped
    assert len(load_personas()) == len(shipped)


def test_pyproject_packages_the_persona_folder():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert config["package-dir"]["council._personas"] == "personas"
    assert "council._personas" in config["packages"]
    assert config["package-data"]["council._personas"] == ["*.toml"]
    listed = set(config["packages"])
    on_disk = {"council"} | {f"council.{p.parent.name}" for p in (ROOT / "server/council").glob("*/__init__.py")}
    assert on_disk <= listed, f"packages missing from pyproject: {on_disk - listed}"
