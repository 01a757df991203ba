import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.apptest import ROOT, RUN_TIMEOUT


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Expose each phase's report on the test item, so fixtures can react to a failure."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("DOCUCHAT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DOCUCHAT_LLM_PROVIDER", "scripted")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_TIMEOUT)
    at.run()
    assert not at.exception
    return at
