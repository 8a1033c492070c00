"""Loading persona files: error messages that name the file and field, override layers, loose lookups."""

from __future__ import annotations

import pytest

from council.personas.loader import PersonaLoadError, UnknownPersonaError, load_personas, normalize_name


def test_missing_focus_names_the_file_and_the_field(write_persona):
    path = write_persona("broken.toml", focus=[])
    with pytest.raises(PersonaLoadError) as err:
        load_personas([path.parent])
    message = str(err.value)
    assert message.startswith(str(path)) or message.startswith("broken.toml") or "broken.toml:" in message
    assert "broken.toml: field 'focus': List should have at least 1 item" in message
    assert err.value.field == "focus" and err.value.path == path


def test_missing_required_field_and_bad_constraint_are_both_reported(write_persona):
    path = write_persona("no-soul.toml", drop=("soul",), constraints=["Be nice."])
    with pytest.raises(PersonaLoadError) as err:
        load_personas([path.parent])
    message = str(err.value)
    assert "no-soul.toml" in message
    assert "field 'soul': Field required" in message
    assert "field 'constraints': constraints must state a refusal pattern" in message


def test_toml_syntax_error_names_the_file_and_line(write_persona):
    path = write_persona("syntax.toml", raw='id = "syntax"\nname = "Syntax"\nfocus = ["a",\ntone = \n')
    with pytest.raises(PersonaLoadError) as err:
        load_personas([path.parent])
    message = str(err.value)
    assert "syntax.toml: TOML syntax error at line 4" in message
    assert err.value.line == 4


def test_workspace_dir_overrides_a_persona_by_id(write_persona, library):
    path = write_persona("my-da.toml", id="devils-advocate", name="Devil's Advocate",
                         soul="A grumpy reviewer. Trusts nothing.", councils=["business", "engineering"],
                         always_include=True)
    merged = load_personas([path.parent])
    assert len(merged) == len(library)
    da = merged.get("devils advocate")
    assert da.soul == "A grumpy reviewer. Trusts nothing."
    assert da.focus == ["Reproducible failures", "Fast feedback"]
    assert merged.source("devils-advocate").endswith("my-da.toml")
    assert library.get("devils-advocate").soul != da.soul  # the shipped library is untouched
    assert [p.id for p in merged.all] == [p.id for p in library.all]  # position is kept


def test_partial_override_changes_only_the_given_fields(write_persona, library):
    path = write_persona("security-expert.toml", raw='tone = "blunt"\n')  # id comes from the file name
    merged = load_personas([path.parent])
    expert = merged.get("security-expert")
    assert expert.tone == "blunt"
    assert expert.soul == library.get("security-expert").soul


def test_a_new_persona_in_a_workspace_dir_is_added(write_persona, library):
    path = write_persona()
    merged = load_personas([path.parent])
    assert merged.all[-1].name == "Test Persona"
    assert "Test Persona" in merged.councils["engineering"]
    assert len(merged) == len(library) + 1


def test_later_dirs_win_over_earlier_ones(write_persona):
    first = write_persona(directory="one", tone="first")
    second = write_persona(directory="two", tone="second")
    assert load_personas([first.parent, second.parent]).get("test-persona").tone == "second"


def test_duplicate_name_under_another_id_is_refused(write_persona):
    path = write_persona("copycat.toml", id="copycat", name="Security Expert")
    with pytest.raises(PersonaLoadError, match=r"copycat\.toml: field 'name': 'Security Expert' is already"):
        load_personas([path.parent])


def test_duplicate_id_in_one_dir_names_both_files(write_persona):
    write_persona("a.toml", id="twin")
    path = write_persona("b.toml", id="twin", name="Twin B")
    with pytest.raises(PersonaLoadError, match=r"b\.toml: field 'id': 'twin' is already defined by .*a\."):
        load_personas([path.parent])


def test_missing_extra_dir_is_skipped(tmp_path, library):
    assert len(load_personas([tmp_path / "nope"])) == len(library)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("devils advocate", "devils-advocate"),
        ("Devil\u2019s Advocate", "devils-advocate"),
        ("DEVILS-ADVOCATE", "devils-advocate"),
        ("security expert", "security-expert"),
        ("security", "security-expert"),  # unambiguous prefix
        ("expert", "security-expert"),  # unambiguous word prefix
        ("growth", "growth-strategist"),
        ("SRE", "reliability-engineer"),  # alias
        ("CFO", "financial-officer"),
        ("architect", "software-architect"),  # alias beats the ambiguous word
        ("advocate", None),  # Devil's or Customer? ambiguous
        ("dev", None),  # Devil's Advocate or Senior Developer? ambiguous
        ("se", None),  # too short for a prefix
        ("chef", None),
        ("", None),
    ],
)
def test_get_is_loose_but_never_guesses(library, query, expected):
    found = library.get(query)
    assert (found.id if found else None) == expected


def test_require_raises_with_the_valid_names(library):
    with pytest.raises(UnknownPersonaError) as err:
        library.require("Chief Vibes Officer")
    assert "Chief Vibes Officer" in str(err.value)
    assert "Security Expert" in str(err.value) and "Devil's Advocate" in str(err.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ask the security expert and the devil's advocate", ["Security Expert", "Devil's Advocate"]),
        ("Devil\u2019s Advocate first, then the Senior Developer", ["Devil's Advocate", "Senior Developer"]),
        ("I'd like the SRE and the CFO on this", ["Reliability Engineer", "Financial Officer"]),
        ("спроси эксперта по безопасности и адвоката дьявола", ["Security Expert", "Devil's Advocate"]),
        ("How do we improve security and growth?", []),  # single common words are not names
        ("As a product manager, how do I say no?", []),  # the user describes themselves
        ("Our security expert quit; what now?", []),  # a person, not the persona
        ("security experts disagree, ask the product managers", ["Security Expert", "Product Manager"]),
    ],
)
def test_names_in_text(library, text, expected):
    assert [p.name for p in library.names_in_text(text)] == expected


def test_normalize_name_folds_punctuation_and_case():
    assert normalize_name("  Devil\u2019s   ADVOCATE! ") == "devils advocate"
    assert normalize_name("инженер по надёжности") == "инженер по надежности"
