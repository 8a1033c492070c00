"""Every error the sidecar sends carries ``text``: what failed, why and what to do, for a person or an agent (the
VS Code agent tools return it instead of the raw error object)."""

from __future__ import annotations

from council.errors import internal_error, permission_error, validation_error
from council.present.errors import error_text
from council.protocol.errors import error_data
from council.transport.jsonrpc import RpcError


def test_a_refused_field_names_it_and_says_to_call_again():
    text = error_text("validation", "invalid consult request: options.max_model_calls: should be at least 3",
                      {"fields": {"options.max_model_calls": "should be at least 3"}})
    assert text == ("The council refused the request: invalid consult request: options.max_model_calls: should be "
                    "at least 3. Fix `options.max_model_calls` and call again.")


def test_the_valid_values_and_the_reason_are_named():
    text = error_text("validation", "unknown persona 'Chef'", {"fields": {"persona_name": "unknown"},
                                                              "valid": [f"P{i}" for i in range(22)]})
    assert text.endswith("Fix `persona_name` and call again. Valid: " + ", ".join(f"P{i}" for i in range(20))
                         + " and 2 more.")
    assert error_text("validation", "session expired", {"reason": "expired"}) == \
        "The council refused the request: session expired. The session is gone; start a new one with the question."


def test_each_kind_says_what_to_do():
    permission = error_text("permission", "evidence is off", {})
    assert permission.endswith("Do not retry as is: ask the user to allow it (a setting, a trusted workspace) or do "
                               "without it.")
    assert error_text("internal", "boom", {}).startswith("The council failed: boom. Calling again may work")
    assert error_text("internal", "", {}).startswith("The council failed: no reason was given.")


def test_every_wire_error_carries_the_text():
    for err in (validation_error("bad", fields={"x": "y"}), permission_error("no"), internal_error("oops")):
        wire = RpcError.from_council(err).to_wire()["data"]
        assert wire["text"] == error_text(err.code.value, err.message, err.details)
        assert error_data(err).code == err.code  # the protocol's mapping; the transport adds the text
    dropped = RpcError.from_council(validation_error("bad", blob=object())).to_wire()["data"]
    assert dropped["details"] == {"detailsDropped": True} and dropped["text"].startswith("The council refused")
