"""The layering and size rules of the codebase, checked on the source itself.

- The session domain never imports the wire protocol, the transport or the presentation: it produces data.
- Inside it the layers run one way: ``session.state`` (the kernel) imports neither ``calls`` nor ``steps``, and
  ``session.calls`` (model-call plumbing) does not import ``steps`` (the deliberation).
- Only ``council.present`` writes prose; the protocol and the domain import nothing from it (the service and the
  narrator do).
- Review mode's domain (``council.review``; its entry point is ``council.reviewer``) writes no prose and knows no
  wire either.
- Size: a source file over 400 lines or a Python function over ~60 lines is reported as a warning, never a
  failure — a file is as long as its one job needs; the warning asks whether it still has one job.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "server" / "council"
GENERATED = {ROOT / "extension" / "src" / "wire.ts"}
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 65


def imports_of(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)  # from council.session import steps
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("package, forbidden", [
    ("session", ("council.protocol", "council.present", "council.transport", "council.server", "council.narrator",
                 "pygls")),
    ("present", ("council.protocol", "council.transport", "council.server", "council.narrator")),
    ("protocol", ("council.present", "council.service", "council.narrator")),
    ("session/state", ("council.session.calls", "council.session.steps")),
    ("session/calls", ("council.session.steps",)),
])
def test_layers(package: str, forbidden: tuple[str, ...]):
    offenders = [f"{path.relative_to(ROOT)} imports {name}"
                 for path in sorted((SERVER / package).rglob("*.py"))
                 for name in imports_of(path) if name.startswith(forbidden)]
    assert offenders == []


def test_the_review_domain_imports_no_presentation_or_wire():
    forbidden = ("council.protocol", "council.present", "council.transport", "council.server", "council.narrator",
                 "council.service", "pygls")
    offenders = [f"{path.relative_to(ROOT)} imports {name}"
                 for path in sorted((SERVER / "review").glob("*.py"))
                 for name in imports_of(path) if name.startswith(forbidden)]
    assert offenders == []


def source_files() -> list[Path]:
    files = [*SERVER.rglob("*.py"), *(ROOT / "extension" / "src").rglob("*.ts"), *(ROOT / "bench").glob("*.py")]
    return sorted(f for f in files if f not in GENERATED)


class SizeWarning(UserWarning):
    """A file or function long enough to ask whether it still has one job."""


def test_long_source_files_are_reported():
    long = [f"{f.relative_to(ROOT)}: {n}" for f in source_files()
            if (n := len(f.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES]
    for entry in long:
        warnings.warn(SizeWarning(f"over {MAX_FILE_LINES} lines (does it still have one job?): {entry}"), stacklevel=1)
    assert len(source_files()) > 100  # the walk still finds the sources (a moved tree would make this vacuous)


def test_long_python_functions_are_reported():
    long = []
    for f in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = node.end_lineno - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    long.append(f"{f.relative_to(ROOT)}:{node.lineno} {node.name} ({size} lines)")
    for entry in long:
        warnings.warn(SizeWarning(f"a function over {MAX_FUNCTION_LINES} lines: {entry}"), stacklevel=1)
