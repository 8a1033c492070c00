"""The consult tools (seed 000): ``council.consult``, ``persona.consult`` and ``council.define_personas`` as one
non-interactive call each, on the session engine: ``request`` turns the tool input into a session plan, ``runner``
drives it, ``results`` maps the finished session onto the seed's shapes, ``overrides`` writes draft-gated persona
overrides."""
