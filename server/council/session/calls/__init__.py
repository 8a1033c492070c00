"""Model-call plumbing for a session: prompts, reply formats, parsing (whole and partial), ordered streaming, and
one structured call with its repair retry and failure handling. Imports ``state``, never ``steps``."""
