"""``council mcp``: the consult tools and the review tool as an MCP server on stdio (official ``mcp`` SDK 2.x).
``tools`` defines them and their schemas, ``server`` wires them onto the shared
:class:`~council.service.CouncilService`, ``guard`` and ``stdio`` answer every line a client writes.
"""
