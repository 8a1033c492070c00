"""Everything a person reads: the only code that turns council data into prose — the chat's lines while the council
works, the final answer, the transcript, status replies, errors and review decisions. The session and review domains
produce data; the narrator (``council.narrator``), the service and the CLI put this markdown on the wire.
"""
