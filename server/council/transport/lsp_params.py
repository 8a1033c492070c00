"""The ``initialize`` params as the gate checks them when they are not plainly valid (``lsp.plainly_valid``): strict
types and field details for the fields the council reads and the shape of LSP's top-level fields; deeper
capabilities are pygls's to read. Apart from ``council.transport.lsp`` so that pydantic loads only when needed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, StrictInt, StrictStr

from council.camel import CamelModel


class _Open(CamelModel):
    """LSP's objects may carry fields the gate does not check: they are kept for pygls."""

    model_config = ConfigDict(**{**CamelModel.model_config, "extra": "allow"})


class ClientInfo(_Open):
    name: StrictStr
    version: StrictStr | None = None


class WorkspaceFolder(_Open):
    uri: StrictStr
    name: StrictStr


Group = dict[str, Any] | None  # one group of client capabilities: an object (its members are pygls's to read)


class ClientCapabilities(_Open):
    workspace: Group = None
    text_document: Group = None
    notebook_document: Group = None
    window: Group = None
    general: Group = None
    experimental: Any = None


class InitializeParams(_Open):
    """What the gate checks of ``initialize`` params (LSP's other fields are accepted and left to pygls)."""

    process_id: StrictInt | None = None
    client_info: ClientInfo | None = None
    locale: StrictStr | None = None
    root_path: StrictStr | None = None
    root_uri: StrictStr | None = None
    capabilities: ClientCapabilities
    initialization_options: Any = None
    trace: Literal["off", "messages", "verbose"] | None = None
    workspace_folders: list[WorkspaceFolder] | None = None
