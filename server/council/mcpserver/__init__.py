"""``council mcp``: the consult tools and the review tool as an MCP server on stdio (official ``mcp`` SDK, major
version 1).

``tools`` defines the four tools (``council_consult``, ``persona_consult``, ``council_define_personas``,
``council_review``) and their schemas; ``server`` wires them onto the shared :class:`~council.service.CouncilService`
(progress, elicitation, cancellation, the error shape).
"""
