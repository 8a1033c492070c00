"""The sidecar's own JSON-RPC transport over stdio: framing, envelopes, LSP lifecycle and dispatch.

``framing`` reads and writes ``Content-Length`` frames and resynchronises after any malformed input; ``jsonrpc``
classifies a decoded frame and builds every error with the contract's ``data``; ``lsp`` is the slice of LSP the
sidecar speaks; ``endpoint`` dispatches and guarantees one response per request; ``stdio`` runs it all on
stdin/stdout. Nothing here knows about councils: ``council.server`` registers the methods.
"""
