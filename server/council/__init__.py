"""Council: a council of AI personas that asks before it answers.

The package is the JSON-RPC sidecar (``council serve``), the headless client (``council ask``) and the domain
they share. ``council.protocol`` is the wire contract; ``council.session`` owns the state machine and the
deliberation; ``council.providers`` talks to language models; ``council.server`` is the pygls wiring only.
"""

__version__ = "0.1.0"
