"""Who may read the workspace: ``council serve``/``ask`` only with ``--workspace`` (and not with ``--no-evidence``),
``council mcp`` only when the workspace was given explicitly; memory only with ``--memory`` and a workspace."""

from __future__ import annotations

from pathlib import Path

from council.cli import mcp, serve
from council.cli.ask_args import serve_args
from council.cli.main import parser


def config_of(*argv: str):
    args = parser().parse_args(list(argv))
    return (mcp.build_config if args.command == "mcp" else serve.build_config)(args)


def test_serve_reads_evidence_only_from_an_explicit_workspace(tmp_path: Path):
    assert config_of("serve").evidence_root is None
    assert config_of("serve", "--workspace", str(tmp_path)).evidence_root == tmp_path.resolve()
    assert config_of("serve", "--workspace", str(tmp_path), "--no-evidence").evidence_root is None


def test_mcp_defaults_its_workspace_but_reads_evidence_only_when_told(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    implicit = config_of("mcp")
    assert implicit.workspace == tmp_path.resolve() and implicit.evidence_root is None
    assert config_of("mcp", "--workspace", str(tmp_path)).evidence_root == tmp_path.resolve()


def test_memory_and_transcripts_are_opt_in(tmp_path: Path):
    assert not config_of("serve", "--workspace", str(tmp_path)).memory
    assert config_of("serve", "--workspace", str(tmp_path), "--memory").memory
    assert not config_of("serve", "--memory").memory  # no workspace: nowhere to keep it
    assert config_of("serve").transcript_dir is None
    assert config_of("serve", "--transcript-dir", str(tmp_path / "t")).transcript_dir == (tmp_path / "t").resolve()


def test_ask_passes_workspace_memory_and_transcripts_on(tmp_path: Path):
    args = parser().parse_args(["ask", "--workspace", str(tmp_path), "--memory", "--transcript", "out", "q"])
    argv = serve_args(args)
    assert argv[argv.index("--workspace") + 1] == str(tmp_path.resolve())
    assert "--memory" in argv and Path(argv[argv.index("--transcript-dir") + 1]).is_absolute()
    plain = serve_args(parser().parse_args(["ask", "q"]))
    assert "--workspace" not in plain and "--memory" not in plain and "--transcript-dir" not in plain


def test_mcp_reads_evidence_from_a_root_the_client_offered(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "root"
    args = parser().parse_args(["mcp"])
    offered = mcp.build_config(args, str(root))
    assert offered.workspace == offered.evidence_root == root.resolve() and args.workspace is None  # args unchanged
    assert mcp.build_config(args).workspace == tmp_path.resolve()
    assert mcp.build_config(parser().parse_args(["mcp", "--no-evidence"]), str(root)).evidence_root is None
