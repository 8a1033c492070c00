"""The JSON-RPC stack of the sidecar and its client: our framing and checks in front of pygls's public API.

``framing`` reads and writes ``Content-Length`` frames (leniently and resynchronising for the sidecar, strictly for
``council.client``); ``jsonrpc`` classifies a decoded frame and builds every error with the contract's ``data``;
``lsp`` is what the gate checks of the LSP handshake; ``gate`` refuses what must not run, hands the rest to pygls and
sees what pygls sends; ``pygls_adapter`` says how pygls is used and what it cannot do; ``stdio`` runs it all on
stdin/stdout. Nothing here knows about councils: ``council.server`` registers the methods as pygls features.
"""
