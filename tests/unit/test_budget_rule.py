"""One rule for a budget of model calls on every surface (``council.protocol.consult.ModelCallBudget``): a JSON
integer from 3 to 1000 — a number with no fraction (``20``, and ``20.0``, which JSON Schema's ``integer`` admits),
never a string, a boolean, a fraction, infinity or NaN — refused as a validation error naming the field. The
decoder both servers read JSON with turns a number too large for a double (``1e999``) into the integer it stands for,
so it is refused by the range like any other (as infinity the MCP SDK turned it into ``null``: no budget)."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from council.protocol.consult import ConsultParams, ConsultRequest, PersonaConsultParams
from council.protocol.methods import SessionOptions
from council.transport.framing import decode_json

MODELS = [  # (model, the field's name on its wire, what else it needs)
    (ConsultParams, "max_model_calls", {"user_problem": "q"}),
    (PersonaConsultParams, "max_model_calls", {"user_problem": "q", "persona_name": "Devil's Advocate"}),
    (ConsultRequest, "max_model_calls", {"user_problem": "q"}),
    (SessionOptions, "maxModelCalls", {}),
]
REFUSED = [("5", "not a string"), (True, "not a boolean"), (False, "not a boolean"), (5.5, "not 5.5"),
           (math.inf, "not inf"), (-math.inf, "not -inf"), (math.nan, "not nan"), ([5], "not a list"),
           ({"n": 5}, "not a dict"), ("٣", "not a string"), (2, "greater than or equal to 3"),
           (1001, "less than or equal to 1000"), (10**400, "less than or equal to 1000"), (2.0, "greater than")]


@pytest.mark.parametrize(("model", "field", "base"), MODELS)
@pytest.mark.parametrize(("value", "says"), REFUSED)
def test_anything_but_a_whole_number_in_range_is_refused_naming_the_field(model, field, base, value, says):
    with pytest.raises(ValidationError) as err:
        model.model_validate({**base, field: value})
    (error,) = err.value.errors()
    assert error["loc"] == (field,) and says in error["msg"], error


@pytest.mark.parametrize(("model", "field", "base"), MODELS)
@pytest.mark.parametrize(("value", "budget"), [(3, 3), (20, 20), (1000, 1000), (20.0, 20), (None, None)])
def test_a_whole_number_in_range_is_the_budget(model, field, base, value, budget):
    assert model.model_validate({**base, field: value}).max_model_calls == budget


def test_the_tools_schema_still_says_an_integer_from_3_to_1000():
    for model, field, _ in MODELS:
        schema = model.model_json_schema(by_alias=True)["properties"][field]
        assert {"type": "integer", "minimum": 3, "maximum": 1000} in schema["anyOf"], schema


@pytest.mark.parametrize(("number", "exact"), [("1e999", 10**999), ("-1e999", -10**999), ("1.5e400", 15 * 10**399)])
def test_the_decoder_reads_a_number_too_large_for_a_double_as_its_integer(number: str, exact: int):
    value = decode_json(f'{{"max_model_calls": {number}}}')["max_model_calls"]
    assert value == exact and isinstance(value, int)
    with pytest.raises(ValidationError) as err:
        ConsultParams.model_validate({"user_problem": "q", "max_model_calls": value})
    assert err.value.errors()[0]["loc"] == ("max_model_calls",)


@pytest.mark.parametrize("number", ["1e5000", "1." + "3" * 400 + "e309"])
def test_the_decoder_refuses_a_huge_number_it_cannot_hold_exactly(number: str):
    with pytest.raises(ValueError, match="too large a number"):
        decode_json(f"[{number}]")


def test_the_decoder_keeps_every_finite_number():
    assert decode_json("[1e308, -1e308, 1e-999, 5.0, 12345678901234567890123]") == [
        1e308, -1e308, 0.0, 5.0, 12345678901234567890123]
