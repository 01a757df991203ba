"""The one settings object: defaults, DOCUCHAT_* variables over them, and a word no component knows
refused at start with the choices."""
import pytest

from core.agents.agent_mode.agent import AUTO
from core.agents.reasoner import READER_FORMS, STYLE_INSTRUCTIONS
from core.agents.responder import AGENT, PIPELINE
from core.cli import main
from core.config import CHOICES, PROFILE_NAMES, Settings, SettingsError, load_settings
from core.profiles import known_names


def test_an_environment_variable_overrides_a_default(monkeypatch):
    monkeypatch.setenv("DOCUCHAT_ANSWER_STYLE", "bullet")
    monkeypatch.setenv("DOCUCHAT_TOP_K", "7")
    settings = load_settings()
    assert settings.answer_style == "bullet" and settings.top_k == 7


def test_a_mistyped_choice_is_refused_with_the_choices(monkeypatch):
    with pytest.raises(SettingsError, match=r"DOCUCHAT_LLM_PROVIDER='olama' is not one of the choices: "
                                            r"auto, embedded, ollama, scripted\."):
        Settings(llm_provider="olama")
    with pytest.raises(SettingsError, match="DOCUCHAT_READER_FORM"):
        Settings().replace(reader_form="Quote")  # a changed copy is checked too
    monkeypatch.setenv("DOCUCHAT_ANSWER_MODE", "agents")
    with pytest.raises(SettingsError, match="pipeline, agent, auto"):
        load_settings()


def test_the_cli_says_which_setting_is_wrong_instead_of_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DOCUCHAT_CHUNKING_STRATEGY", "pages")
    assert main(["--data-dir", str(tmp_path / "kb"), "docs"]) == 2
    assert "DOCUCHAT_CHUNKING_STRATEGY='pages' is not one of the choices: page, document." in capsys.readouterr().err


def test_the_choices_are_the_ones_the_components_know():
    assert CHOICES["reader_form"] == READER_FORMS
    assert set(CHOICES["answer_style"]) == set(STYLE_INSTRUCTIONS)
    assert set(CHOICES["answer_mode"]) == {PIPELINE, AGENT, AUTO}
    for name, allowed in CHOICES.items():
        assert getattr(Settings(), name) in allowed  # every default is a choice


def test_domain_profiles_are_named_from_the_ones_the_app_has_or_switched_off(monkeypatch):
    assert PROFILE_NAMES == known_names()
    with pytest.raises(SettingsError, match=r"DOCUCHAT_DOCUMENT_PROFILES names 'sec', not one of the profiles: sec_filing"):
        Settings(document_profiles=("sec",))
    monkeypatch.setenv("DOCUCHAT_DOCUMENT_PROFILES", "")
    assert load_settings().document_profiles == ()  # the core's rules alone
