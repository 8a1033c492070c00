"""The JSON-RPC stack of the sidecar and its client: our framing and checks in front of pygls's public API
(``framing`` → ``jsonrpc`` → ``gate`` → pygls, run by ``stdio``; ``pygls_adapter`` says what pygls cannot do).
Nothing here knows about councils: ``council.server`` registers the methods as pygls features.
"""
