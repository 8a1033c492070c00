"""Build tools, not shipped in the wheel: the generators of what is derived from the wire models (``docgen``:
docs/protocol.md, ``tsgen``: extension/src/wire.ts, ``lmtools``: package.json's languageModelTools). Run each from
the repository root as ``python -m tools.<name>``; ``--check`` exits 1 when the committed file is out of date."""
