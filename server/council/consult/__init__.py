"""The consult tools (seed 000): ``council.consult``, ``persona.consult`` and ``council.define_personas`` as one
non-interactive call each, on top of the session engine.

A consult is an ordinary council session — routing, clarification, vote-first debate, convergence, synthesis —
driven to the end in one call: clarifying questions go to the caller's answer callback when it has one (MCP
elicitation), and otherwise become logged assumptions listed with the open questions. ``request`` turns the
tool input into a session request, ``runner`` drives it, ``results`` maps the finished session onto the seed's
ToolResponse/CouncilSynthesis with the depth enforced, ``overrides`` handles draft-gated persona overrides.
"""
