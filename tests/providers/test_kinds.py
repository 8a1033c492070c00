"""The provider table (issue 32, "One provider table"): every place that lists provider kinds is derived from
:data:`council.providers.kinds.TABLE`, so a row is all a new kind needs besides its module and its words; the VS
Code settings that choose a provider are written from it (``python -m tools.kindsgen``) and checked for drift."""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from council.cli import doctor, serve
from council.config import AGENT_CLI_KINDS, ProviderConfig, ProviderKind
from council.present.answer import PROVIDERS, provider_name
from council.provider_hub import KINDS as HUB_KINDS
from council.providers import kinds
from council.providers.base import Provider, ProviderError
from council.providers.kinds import TABLE, AgentCli, Kind, Setting
from council.providers.registry import build_provider, metered
from council.words import catalog
from tools.kindsgen import provider_settings, sync, typescript

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "package.json"
TS = ROOT / "extension" / "src" / "providerKinds.ts"


def test_the_config_the_hub_and_the_catalog_names_take_the_tables_kinds():
    assert ProviderKind.__args__ == kinds.KINDS == tuple(row.kind for row in TABLE)  # type: ignore[attr-defined]
    assert ProviderConfig.model_json_schema()["properties"]["kind"]["enum"] == list(kinds.KINDS)
    assert HUB_KINDS == PROVIDERS == kinds.KINDS
    assert AGENT_CLI_KINDS == tuple(row.kind for row in TABLE if row.cli is not None)
    assert serve.REAL_PROVIDERS == tuple(row.kind for row in TABLE if row.real)


def choices_of(add_arguments) -> list[str]:
    p = argparse.ArgumentParser()
    add_arguments(p)
    return next(a.choices for a in p._actions if a.dest == "provider")


def test_every_command_offers_the_tables_kinds_as_provider_choices():
    lent = [row.kind for row in TABLE if row.lent]
    unlent = [row.kind for row in TABLE if not row.lent]
    assert sorted(choices_of(serve.add_arguments)) == sorted(kinds.KINDS)  # a sidecar a client may lend a model to
    assert sorted(choices_of(doctor.add_arguments)) == sorted(unlent) and lent == ["client"]
    assert choices_of(doctor.add_arguments)[:len(kinds.REAL_KINDS)] == list(kinds.REAL_KINDS)  # real ones first


@pytest.mark.parametrize("row", TABLE, ids=lambda row: row.kind)
def test_each_row_names_the_class_that_serves_it_and_its_words(row: Kind):
    cls = kinds.provider_class(row.kind)
    assert issubclass(cls, Provider) and cls.id == row.kind
    for lang in ("en", "ru"):
        assert row.words in catalog(lang), (lang, row.words)
        if row.cli is not None:
            assert row.cli.bills in catalog(lang), (lang, row.cli.bills)
    assert provider_name(row.kind) == catalog("en")[row.words]


BAD_OPTIONS = {"openai": {"json_mode": "xml"}, "ollama": {"num_ctx": "many"}, "embedded": {"n_ctx": "many"}}


@pytest.mark.parametrize("row", [row for row in TABLE if row.options], ids=lambda row: row.kind)
def test_each_rows_options_model_checks_that_kinds_options(row: Kind):
    bad = BAD_OPTIONS.get(row.kind, {"deadline": "never"})
    with pytest.raises(Exception) as table:
        kinds.options_model(row.kind).model_validate(bad)
    with pytest.raises(ProviderError, match=f"invalid options for the {row.kind} provider") as info:
        build_provider(ProviderConfig(kind=row.kind, model="m", options=bad))
    assert info.value.kind == "config" and str(table.value.errors()[0]["msg"]) in info.value.message


@pytest.mark.parametrize("row", TABLE, ids=lambda row: row.kind)
def test_what_a_call_costs_follows_the_row(row: Kind):
    class Stub:
        id = row.kind
        base_url = "http://127.0.0.1:9"

    remote = type("Remote", (Stub,), {"base_url": "https://api.example.com"})
    assert metered(Stub()) is (row.cost == "metered")  # type: ignore[arg-type]
    assert metered(remote()) is (row.cost != "free")  # type: ignore[arg-type]


def test_package_json_and_the_extensions_lists_are_written_from_the_table():
    assert sync(PACKAGE, TS, check=True) == 0
    settings = json.loads(PACKAGE.read_text(encoding="utf-8"))["contributes"]["configuration"]["properties"]
    offered = [row.setting for row in TABLE if row.setting is not None]
    assert sorted(settings["council.provider"]["enum"]) == sorted(s.value for s in offered)
    assert settings["council.provider"]["enum"][0] == settings["council.provider"]["default"] == "chat"
    assert settings["council.http.provider"]["enum"] == ["auto", *(s.value for s in offered if s.fallback)]
    assert "PROVIDER_SETTING = ['chat', 'openai', 'ollama', 'embedded', 'scripted'] as const;" in TS.read_text()


def test_a_new_row_reaches_the_settings_and_a_stale_enum_is_reported(tmp_path: Path):
    """A row is all the settings need: the generator offers it; a package.json whose enum differs fails --check."""
    row = Kind("acme", "acme.provider", "AcmeProvider", real=True, cost="metered",
               cli=AgentCli(vendor="acme", bills="bills.acme"), setting=Setting("acme", "Acme's CLI.", fallback=True))
    package, ts = tmp_path / "package.json", tmp_path / "providerKinds.ts"
    package.write_text(PACKAGE.read_text(encoding="utf-8"), encoding="utf-8")
    ts.write_text(TS.read_text(encoding="utf-8"), encoding="utf-8")
    assert sync(package, ts, check=True, table=(*TABLE, row)) == 1  # the committed files lack it
    assert sync(package, ts, check=False, table=(*TABLE, row)) == 0
    properties = json.loads(package.read_text(encoding="utf-8"))["contributes"]["configuration"]["properties"]
    assert properties["council.provider"]["enum"][-1] == "acme"
    assert properties["council.provider"]["enumDescriptions"][-1] == "Acme's CLI."
    assert properties["council.http.provider"]["enum"][-1] == "acme"
    assert "'acme'] as const;" in ts.read_text(encoding="utf-8")
    assert sync(package, ts, check=True) == 1  # now the table lacks it: drift both ways
    assert properties == provider_settings(properties, (*TABLE, row))  # and writing again changes nothing
    assert typescript(properties) == ts.read_text(encoding="utf-8")


def test_the_check_fails_on_a_hand_edited_enum_and_the_generator_restores_it(tmp_path: Path):
    stale = json.loads(PACKAGE.read_text(encoding="utf-8"))
    stale["contributes"]["configuration"]["properties"]["council.provider"]["enum"].remove("scripted")
    package = tmp_path / "package.json"
    package.write_text(json.dumps(stale, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    ts = tmp_path / "kinds.ts"
    ts.write_text(TS.read_text(encoding="utf-8"), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "tools.kindsgen", "--check", "--package-json", str(package),
                          "--ts-out", str(ts)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 1 and "python -m tools.kindsgen" in run.stderr
    assert subprocess.run([sys.executable, "-m", "tools.kindsgen", "--package-json", str(package), "--ts-out",
                           str(ts)], timeout=60, cwd=ROOT).returncode == 0
    assert package.read_text(encoding="utf-8") == PACKAGE.read_text(encoding="utf-8")


def test_the_table_is_frozen_and_imports_no_provider():
    with pytest.raises(dataclasses.FrozenInstanceError):
        TABLE[0].real = False  # type: ignore[misc]
    code = ("import sys\nimport council.providers.kinds\n"
            "print(sorted(m for m in sys.modules if m.startswith('council.') and m != 'council.providers.kinds'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "['council.providers']"
