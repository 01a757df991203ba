"""End to end in a real browser: upload a PDF and a spreadsheet, ask, read the cited answer,
open its trace, and download the CSV. Screenshots of every page go to $DOCUCHAT_SCREENSHOTS
(default test-artifacts/screenshots) so a person can check that nothing is blank or broken."""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bench.leaks import leaked
from samples import make_samples
from tests.servers import free_port, running

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = Path(os.environ.get("DOCUCHAT_SCREENSHOTS", ROOT / "test-artifacts" / "screenshots"))


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    port = free_port()
    # The scripted model writes at a reader's pace, so an answer arrives word by word as the model's does.
    env = {**os.environ, "DOCUCHAT_DATA_DIR": str(data), "DOCUCHAT_LLM_PROVIDER": "scripted",
           "DOCUCHAT_SCRIPTED_WORDS_PER_SECOND": "8", "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
               "--server.port", str(port), "--server.headless", "true"]
    url = f"http://127.0.0.1:{port}"
    with running(command, url + "/_stcore/health", "streamlit", cwd=ROOT, env=env):
        yield url


@pytest.fixture(scope="module")
def page(app_url):
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("Debian chromium is missing: scripts/test.sh installs it (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        page.set_default_timeout(120_000)
        yield page
        browser.close()


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(800)  # let the last deltas paint
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.fixture(autouse=True)
def shot_on_failure(request, page):
    yield
    report = getattr(request.node, "rep_call", None)
    if report is None or report.failed:
        _shot(page, f"FAILED-{request.node.name}")


def _open(page, app_url: str, path: str = "") -> None:
    page.goto(f"{app_url}/{path}")
    page.get_by_role("heading", level=1).first.wait_for()


def _upload(page, app_url: str, path: Path) -> None:
    """Add one file on the Upload page and wait until it is indexed."""
    _open(page, app_url, "Upload")
    page.locator("input[type=file]").set_input_files([str(path)])
    page.get_by_text(path.stem).first.wait_for()
    page.get_by_role("button", name="Add to knowledge base").click()
    page.get_by_text("Indexed 1 of 1 file(s)").wait_for()


def _settled(page) -> None:
    """Wait until the app's script has finished running (the attribute Streamlit's own browser tests
    read): elements drawn by a run still in progress are replaced when it ends, losing their state."""
    page.locator("[data-testid=stApp][data-test-connection-state=CONNECTED]").wait_for()
    page.locator("[data-testid=stApp][data-test-script-state=notRunning]").wait_for()


def _answered(page, question: str) -> None:
    """Wait until the chat has settled after answering `question`: the page reruns once the answer is
    saved (the sidebar then lists the exchange) and redraws the answer, so a chip clicked before that
    rerun ends is replaced and opens nothing (seen on a slower machine). The running icon alone was not
    enough: it shows only after a delay, so a check made early in the rerun found none."""
    page.locator("[data-testid=stSidebar]").get_by_text(question).first.wait_for()
    _settled(page)


def _main_text(page) -> str:
    """What the page's main area shows a user in words: folded sections' contents are not rendered, so not
    read, and an icon's ligature name ("account_tree") is drawn as its glyph, so left out."""
    _settled(page)
    shown = page.evaluate("""() => {
        const main = document.querySelector('[data-testid=stMainBlockContainer]');
        if (!main) return null;
        const icons = [...main.querySelectorAll('[data-testid=stIconMaterial]')].map(icon => icon.innerText);
        return {text: main.innerText, icons: icons};
    }""")
    assert shown and shown["text"], "the page's main area is missing or empty"
    text = shown["text"]
    for name in set(shown["icons"]):
        text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", " ", text)
    return text


def _no_python_values(page) -> None:
    """No `None`, `True` or `False` where a person reads: a blank cell is blank, a check passed says so."""
    shown = re.findall(r"\b(?:None|True|False)\b", _main_text(page))
    assert not shown, f"Python values on the page: {shown}"


def _click_until_open(page, chip) -> None:
    """Click a citation chip until its source section is open: twice at most, the second time only
    after the app has settled, since a redraw in between (CI's slower machine, twice) leaves a new,
    closed section behind the followed link. A chip that opens nothing fails both times."""
    opened = "document.querySelector(\"[id^=src-][id$='-1']\").closest('details').open"
    for attempt in range(2):
        _settled(page)
        chip.click()
        try:
            page.wait_for_function(opened, timeout=30_000)
            return
        except PlaywrightTimeout:
            if attempt:
                raise


def test_a_first_visit_straight_to_a_page_lists_every_page_by_its_title(page, app_url):
    """A shared link to /Chat opened in a new tab: the navigation is the app's, with Home first (the
    pages once sat in Streamlit's pages/ folder, which listed the home script as "app" on such a visit)."""
    fresh = page.context.browser.new_page(viewport={"width": 1400, "height": 900})
    fresh.set_default_timeout(120_000)  # the first visit starts the app's imports: slow on a loaded machine
    try:
        _open(fresh, app_url, "Chat")
        links = fresh.locator("[data-testid=stSidebarNav] a")
        links.nth(5).wait_for()
        titles = [text.split("\n")[-1].strip() for text in links.all_inner_texts()]
        assert titles == ["Home", "Upload", "Chat", "Agent Trace", "Structured Results", "Evaluate"]
        assert fresh.get_by_role("heading", level=1).first.inner_text() == "Chat with your documents"
    finally:
        fresh.close()


def test_upload_ask_trace_and_export(page, app_url, tmp_path):
    samples = make_samples(tmp_path / "samples")
    pdf = next(p for p in samples if p.name == "Panel_Spec_Sheets.pdf")
    xlsx = next(p for p in samples if p.suffix == ".xlsx")

    _open(page, app_url)
    page.get_by_text("The knowledge base is empty").wait_for()
    _shot(page, "1-home-empty")

    _open(page, app_url, "Upload")
    page.locator("input[type=file]").set_input_files([str(pdf), str(xlsx)])
    page.get_by_text("Panel_S").first.wait_for()  # the uploader shortens long names
    page.get_by_role("button", name="Add to knowledge base").click()
    page.get_by_text("Indexed 2 of 2 file(s)").wait_for()
    page.get_by_text("3 page(s)").first.wait_for()
    _shot(page, "2-upload")

    _open(page, app_url, "Chat")
    box = page.get_by_placeholder("Ask a question about your documents")
    box.fill("What are the dimensions of the HX-450 panel?")
    box.press("Enter")
    _answered(page, "What are the dimensions of the HX-450 panel?")
    page.get_by_text("View trace").first.wait_for()
    assert page.get_by_text("[Source 1]").count() == 0  # compact chips, not the model's markers
    page.get_by_text(re.compile(r"^(high|medium|low) confidence$")).first.wait_for()  # the badge
    # The cited source names its file and its page (PDF) or sheet and rows (spreadsheet).
    source = page.get_by_text(re.compile(r"\[1\] (Panel_Spec_Sheets\.pdf · p\. \d|Product_Specs_by_Maker\.xlsx · sheet)"))
    source.wait_for()
    details = page.locator("details", has=page.locator("[id^=src-][id$='-1']"))
    assert details.get_attribute("open") is None  # the source starts closed
    _click_until_open(page, page.locator("a[href^='#src-']", has_text="[1]").first)  # the chip in the answer
    # The evidence view: the cited page drawn, the quoted words highlighted (or the sheet's rows, marked).
    opened = page.locator("details[open]", has=page.locator("[id^=src-][id$='-1']"))
    opened.locator("img, [data-testid=stDataFrame]").first.wait_for()
    opened.get_by_text(re.compile(r"^(Page \d+ of Panel_Spec_Sheets\.pdf, the quoted words highlighted|Rows .* highlighted)")).wait_for()
    _shot(page, "3-chat")
    page.set_viewport_size({"width": 500, "height": 1400})
    opened.scroll_into_view_if_needed()
    _shot(page, "3-chat-evidence-500")
    page.set_viewport_size({"width": 1400, "height": 1000})

    page.get_by_text("View trace").first.click()
    page.get_by_role("heading", name="Timeline").wait_for()
    page.get_by_role("heading", name="Retrieved candidates").wait_for()
    page.locator("canvas, svg.marks").first.wait_for()  # the timeline chart rendered
    _shot(page, "4-trace")
    _no_python_values(page)
    page.set_viewport_size({"width": 500, "height": 1400})
    _shot(page, "4-trace-500")
    page.set_viewport_size({"width": 1400, "height": 1000})

    # A question about records: answered from every stored fact, with the table inline.
    _open(page, app_url, "Chat")
    box = page.get_by_placeholder("Ask a question about your documents")
    box.fill("List all panels with a width of at most 1.2 m")  # read whole by the rule fast path: no model
    box.press("Enter")
    _answered(page, "List all panels with a width of at most 1.2 m")
    summary = page.get_by_text(re.compile(r"^\d+ matching records")).first
    summary.wait_for()
    download = page.get_by_role("button", name=re.compile(r"Download all \d+ rows as CSV"))
    download.wait_for()
    # A panel in the datasheet and in the spreadsheet is one record of two rows: the count says so.
    records, rows = re.match(r"(\d+) matching records(?: in (\d+) rows)?", summary.inner_text()).groups()
    assert re.search(r"\d+", download.inner_text()).group(0) == (rows or records)
    _shot(page, "5-chat-structured")
    assert leaked(_main_text(page)) == {}  # the text answer and the records answer, their sources and tables

    _open(page, app_url, "Structured_Results")
    page.get_by_role("button", name="Download CSV").first.wait_for()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download CSV").first.click()
    # Named after the question and the day, not after an internal id.
    assert re.fullmatch(r"list-all-panels-with-a-width-\d{4}-\d{2}-\d{2}\.csv", download.value.suggested_filename)
    csv_text = Path(download.value.path()).read_text(encoding="utf-8-sig")
    header = csv_text.splitlines()[0]
    assert "filename" in header and "sheet" in header and "row" in header  # provenance columns
    assert "SP-M 0.38" in csv_text  # 1.048 m wide, from the sheet labelled "W [m]"
    _shot(page, "6-structured-results")

    _open(page, app_url)
    page.get_by_text("Table rows and fields").wait_for()
    _shot(page, "7-home")
    assert leaked(_main_text(page)) == {}  # no data-folder path, no internal name


def test_an_answer_appears_word_by_word_and_a_question_the_documents_cannot_answer_is_refused(page, app_url, tmp_path):
    """The answer's words show while the model writes them (under the quote form too, whose JSON the page
    never shows), before the answer is finished; a question the documents do not answer gets a refusal a
    person would write, at low confidence, with the closest passages folded as not evidence and no [N]."""
    note = tmp_path / "ferry_timetable.txt"
    note.write_text("The island ferry leaves the harbour at seven in the morning on weekdays, calls at the north "
                    "pier and the lighthouse jetty on the way out, and reaches the island about fifty minutes "
                    "later, weather permitting, with the last sailing back at six in the evening.\n\n"
                    "Cycles travel free; dogs must stay on a lead on the car deck.\n", encoding="utf-8")
    _upload(page, app_url, note)
    _open(page, app_url, "Chat")
    box = page.get_by_placeholder("Ask a question about your documents")
    sidebar = page.locator("[data-testid=stSidebar]")
    for width, question in ((1400, "When does the island ferry leave the harbour on weekdays?"),
                            (500, "When does the ferry reach the island?")):
        page.set_viewport_size({"width": width, "height": 1400})
        box.fill(question)
        box.press("Enter")
        writing = page.get_by_text(re.compile(r"^The island ferry\b.* ▌$"))  # the words so far, a cursor after them
        writing.first.wait_for()
        assert "{" not in writing.first.inner_text()  # the answer's words, not the quote form's JSON
        assert sidebar.get_by_text(question).count() == 0  # still being written: not yet saved
        page.get_by_text("Writing the answer").first.wait_for()  # the status names the step running
        _shot(page, f"10-chat-words-as-written-{width}")
        _answered(page, question)
        assert page.get_by_text(re.compile(r"▌$")).count() == 0  # the finished answer replaces them

    refused = "How much does a season ticket for the car park cost?"
    for width in (1400, 500):
        page.set_viewport_size({"width": width, "height": 1400})
        if width == 1400:
            box.fill(refused)
            box.press("Enter")
            _answered(page, refused)
        answer = page.locator("[data-testid=stChatMessage]").last
        answer.get_by_text("I couldn't find this in your documents.").wait_for()
        answer.get_by_text("low confidence", exact=True).wait_for()
        answer.get_by_text(re.compile(r"^Closest passages found \(\d+\), not evidence")).wait_for()
        assert answer.locator("a[href^='#src-']").count() == 0  # no [N] on a passage that states nothing asked
        _shot(page, f"11-chat-refusal-{width}")
    page.set_viewport_size({"width": 1400, "height": 1000})


PAGES = [("", "missing sample documents"), ("Upload", "Re-index"), ("Chat", "Try one of these"), ("Agent_Trace", "Raw trace"),
         ("Structured_Results", "Download CSV"), ("Evaluate", "No evaluation runs yet")]


@pytest.mark.parametrize("width", [1400, 500])
def test_every_page_renders_at_laptop_and_phone_width(page, app_url, width):
    """Runs after the flow above (same server, same documents): each page, at each width, saved for a
    person to look at; nothing may raise, and the Home page's links must not be cut off."""
    page.set_viewport_size({"width": width, "height": 1800})  # Streamlit scrolls inside the page: see it all
    for path, marker in PAGES:
        _open(page, app_url, path)
        page.get_by_text(marker).first.wait_for()  # an element near the end of the page: it has drawn
        assert page.locator("[data-testid=stException]").count() == 0
        if path != "Agent_Trace":  # the trace shows the query and the prompt, under plain labels, by design
            assert leaked(_main_text(page)) == {}, path
        _shot(page, f"page-{path or 'Home'}-{width}")
    _open(page, app_url)
    links = page.locator("[data-testid=stPageLink] a")
    links.nth(4).wait_for()
    for link in links.all():
        truncated = link.evaluate("a => [...a.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1)")
        assert not truncated, f"cut off: {link.inner_text()}"
    page.set_viewport_size({"width": 1400, "height": 1000})


def test_personal_data_in_an_answer_is_shown_or_hidden_as_the_user_chooses(page, app_url, tmp_path):
    """The user's own support number is the answer; with "Hide personal data in answers" on (a shared
    screen) it reads "[phone number hidden]", and the answer says what was hidden and how to see it."""
    note = tmp_path / "helpdesk.txt"
    note.write_text("The help desk answers on 020 7946 0958 from nine to five.\n\nOut of hours, write a ticket.\n",
                    encoding="utf-8")
    _upload(page, app_url, note)

    _open(page, app_url, "Chat")
    question = "How do I reach the help desk by phone?"
    box = page.get_by_placeholder("Ask a question about your documents")
    box.fill(question)
    box.press("Enter")
    _answered(page, question)
    page.get_by_text("020 7946 0958").first.wait_for()  # off by default: the document's own number

    sidebar = page.locator("[data-testid=stSidebar]")
    sidebar.get_by_text("Hide personal data in answers").click()
    _settled(page)
    hidden_question = "How can I call the help desk?"
    box.fill(hidden_question)
    box.press("Enter")
    _answered(page, hidden_question)
    page.get_by_text("[phone number hidden]").first.wait_for()
    page.get_by_text(re.compile(r"Phone number hidden in this answer")).first.wait_for()
    for width in (1400, 500):
        page.set_viewport_size({"width": width, "height": 1400})
        _shot(page, f"8-chat-personal-data-hidden-{width}")
    page.set_viewport_size({"width": 1400, "height": 1000})
    sidebar.get_by_text("Hide personal data in answers").click()  # leave the setting as found
    _settled(page)


def test_an_evaluation_run_shows_its_scores_and_each_answer(page, app_url, tmp_path):
    """Runs last (the page-by-page test expects no run yet): a question file about a note the test uploads is
    run on Evaluate; the scores and the per-question table appear, saved at both widths for a person to look at."""
    note = tmp_path / "opening_hours.txt"
    note.write_text("The workshop opens at 8 am on weekdays.\n\nOn Saturdays it opens at 10 am and closes at 2 pm.\n",
                    encoding="utf-8")
    questions = tmp_path / "hours_questions.csv"
    questions.write_text("question,expected_answer,expected_file\n"
                         "When does the workshop open on weekdays?,8 am,opening_hours.txt\n"
                         "When does the workshop close on Saturdays?,2 pm,opening_hours.txt\n", encoding="utf-8")
    _upload(page, app_url, note)

    _open(page, app_url, "Evaluate")
    page.locator("input[type=file]").set_input_files([str(questions)])
    page.get_by_text("2 questions to run").wait_for()
    page.get_by_role("button", name="Run 2 questions").click()
    page.get_by_text("Per question").wait_for()
    page.get_by_text("Answers right").first.wait_for()
    _settled(page)
    assert page.locator("[data-testid=stException]").count() == 0
    for width in (1400, 500):
        page.set_viewport_size({"width": width, "height": 1800})
        _shot(page, f"9-evaluate-run-{width}")
    page.set_viewport_size({"width": 1400, "height": 1000})
