"""The sidecar's stdio transport: our framing and checks in front of pygls.

``framing`` reads and writes ``Content-Length`` frames and resynchronises after any malformed input; ``jsonrpc``
classifies a decoded frame and builds every error with the contract's ``data``; ``lsp`` is what the gate checks of
the LSP handshake; ``gate`` refuses what must not run and hands the rest to pygls; ``pygls_adapter`` is the one
module that relies on pygls internals; ``stdio`` runs it all on stdin/stdout. Nothing here knows about councils:
``council.server`` registers the methods as pygls features.
"""
