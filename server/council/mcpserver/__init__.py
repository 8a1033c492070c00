"""``council mcp``: the consult tools as an MCP server on stdio (official ``mcp`` SDK, major version 1).

``tools`` defines the three tools and their schemas; ``server`` wires them onto the shared
:class:`~council.service.CouncilService` (progress, elicitation, cancellation, the error shape).
"""
