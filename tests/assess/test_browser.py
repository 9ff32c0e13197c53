"""The Figure 2 workflow in a real browser (Debian's Chromium driven by Playwright):
log in, open a topic source, follow the indication's suggestion, select by click, range,
section and keyboard, save, reload, walk the citations, reject a candidate, export, and
compare the exported qrels with the expected lines. Screenshots are written to the test's
directory (and, with PATEVAL_SCREENSHOTS=DIR, copied there)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from .conftest import CHROMIUM, CHROMIUM_ARGS, a_suggested_citation

if not Path(CHROMIUM).exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/install-browser)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")


@pytest.fixture
def browser():
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


def _shot(page, tmp_path, name):
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=False)
    keep = os.environ.get("PATEVAL_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / name)
    assert path.stat().st_size > 10_000  # a rendered page, not a blank one
    return path


def _log_in(page, base, name, password):
    page.goto(f"{base}/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


def _status_matches(page, pattern):
    # The page's CSP forbids eval, so no wait_for_function: Playwright's expect polls.
    sync_api.expect(page.locator("#status")).to_have_text(re.compile(pattern))


def _topic_id(page, base, patent_key, qid):
    topics = page.request.get(f"{base}/api/sources/{patent_key}").json()["topics"]
    return next(t["id"] for t in topics if t["qid"] == qid)


def _selected(page):
    return sorted(page.eval_on_selector_all(".passage.selected", "els => els.map(e => e.dataset.xpath)"))


def test_figure2_workflow_end_to_end(browser, server, workspace, corpus, database, tmp_path):
    from pateval.assess.commands import export
    from pateval.assess.db import check_consistency

    patent_key, qid, citation = a_suggested_citation(corpus)
    source = corpus.source(patent_key)
    page = browser.new_page(viewport={"width": 1200, "height": 820})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    _log_in(page, server.base, "alice", workspace["accounts"]["alice"])
    assert page.locator("table.sources tbody tr").count() == len(corpus.patent_keys)
    _shot(page, tmp_path, "assess-sources.png")

    # Open the source from the list, then the topic and the citation with paragraphs.
    page.click(f"a[href='/source/{patent_key}']")
    assert page.inner_text("#topic-ucid") == source.ucid
    page.select_option("#topic-select", value=str(_topic_id(page, server.base, patent_key, qid)))
    page.wait_for_load_state()
    # The topic's claims can be read on the page (the assessor judges against them).
    topic_claims = next(claims for q, claims in source.suggested_topics if q == qid)
    page.click(".claims-text summary")
    assert page.locator(".topic-claims li").count() == len(topic_claims)
    while page.inner_text("#cited-ucid") != citation.cited_ucid:
        page.click("#next")
        page.wait_for_load_state()
    assert citation.indication.split("*")[1].strip() in page.inner_text("#indication")
    # The suggestion is pre-selected and is exactly what the generator marked.
    assert _selected(page) == sorted(citation.report_xpaths)
    assert page.inner_text("#status").startswith("suggestions from the passage indication pre-selected")

    description = page.eval_on_selector_all(".passage[data-section=description]",
                                            "els => els.map(e => e.dataset.xpath)")
    unselected = [x for x in description if x not in citation.report_xpaths]
    # Click one more paragraph; shift-click a range of three; the keyboard toggles one more.
    page.click("#clear")
    page.click("#apply-suggestion")
    page.click(f".passage[data-xpath='{unselected[0]}']")
    start, end = description.index(unselected[1]), description.index(unselected[1]) + 2
    page.click(f".passage[data-xpath='{description[start]}']")
    page.click(f".passage[data-xpath='{description[end]}']", modifiers=["Shift"])
    expected = set(citation.report_xpaths) | {unselected[0]} | set(description[start:end + 1])
    assert set(_selected(page)) == expected
    page.keyboard.press("j")
    page.keyboard.press(" ")  # the passage after the range
    expected ^= {description[end + 1]}
    assert set(_selected(page)) == expected
    # Section buttons: all the claims, then none again.
    claims = page.eval_on_selector_all(".passage[data-section=claims]", "els => els.map(e => e.dataset.xpath)")
    page.click("button[data-section=claims]")
    assert set(claims) <= set(_selected(page))
    page.click("button[data-section=claims]")
    assert set(_selected(page)) == expected
    # Headings are shown but cannot be selected.
    heading = page.locator(".passage.heading").first
    heading.click()
    assert "selected" not in heading.get_attribute("class")
    assert page.inner_text("#status") == "unsaved changes"

    page.click("#save")
    _status_matches(page, r"^saved version 1")
    page.locator("header").scroll_into_view_if_needed()
    _shot(page, tmp_path, "assess.png")
    page.reload()
    assert set(_selected(page)) == expected
    assert page.inner_text("#status") == "saved version 1 by alice"

    # A second tab saved meanwhile: this page is told it is stale and keeps its selection.
    other = browser.new_page()
    other.context.add_cookies(page.context.cookies())
    other.goto(page.url)
    other.click("#clear")
    other.click("#save")
    _status_matches(other, r"^saved version 2")
    page.click(f".passage[data-xpath='{unselected[0]}']")
    page.click("#save")
    sync_api.expect(page.locator("#status")).to_have_class("stale")
    assert "another page saved this selection first (version 2, yours 1)" in page.inner_text("#status")
    page.reload()
    assert _selected(page) == []  # the other tab's save stands
    page.click("#undo")
    _status_matches(page, r"^undone")
    assert set(_selected(page)) == expected
    page_url = page.url

    # Save & Next stores the selection and opens the next citation of the topic.
    has_next = page.locator("#next").count() > 0
    if has_next:
        page.click(f".passage[data-xpath='{unselected[0]}']")
        page.click("#save-next")
        page.wait_for_url(lambda url: "citation=" in url and url != page_url)
        assert page.inner_text("#cited-ucid") != citation.cited_ucid
        expected ^= {unselected[0]}

    # Reject another candidate with one of the seed's reasons.
    other_key = next(k for k in corpus.patent_keys if k != patent_key)
    page.goto(f"{server.base}/source/{other_key}")
    page.click(".decision summary")
    page.check("input[name=status][value=rejected]")
    page.select_option("#reject-reason", "figures-only")
    page.click("#decide")
    page.wait_for_load_state()
    assert page.inner_text("#decision-status") == "rejected"
    assert errors == []

    summary = export(url=database["url"], out=tmp_path / "export", policy="final")
    lines = (tmp_path / "export" / "qrels_PSG.txt").read_text().splitlines()
    assert lines == [f"{qid} {citation.cited_ucid} {x}" for x in sorted(expected)]
    category = citation.category
    assert (tmp_path / "export" / "qrels_PSG_docs.txt").read_text() == \
        f"{qid} 0 {citation.cited_ucid} {2 if category in ('X', 'Y') else 1}\n"
    assert summary["rejected_sources"] == [other_key]
    assert summary["rejections"] == {other_key: {"reason": "figures-only", "note": None}}
    assert check_consistency(database["engine"]) == []


def test_agreement_page_and_adjudication_in_the_browser(browser, server, workspace, corpus, database, tmp_path):
    from pateval.assess import service
    from pateval.assess.agreement import cohen_kappa
    from pateval.assess.commands import export

    engine = database["engine"]
    patent_key, qid, citation = a_suggested_citation(corpus)
    service.ensure_topics(engine, corpus, patent_key)
    topic_id = next(t["id"] for t in service.topics_of(engine, patent_key) if t["qid"] == qid)
    units = sorted(corpus.document(citation.cited_ucid).selectable)
    marked = sorted(citation.report_xpaths)
    extra = next(x for x in units if x not in marked)
    for name, xpaths in (("alice", marked), ("bob", [*marked, extra])):
        actor = service.authenticate(engine, name, workspace["accounts"][name])
        service.save_selection(engine, corpus, topic_id=topic_id, cited_ucid=citation.cited_ucid, owner=name,
                               xpaths=xpaths, base_version=0, actor=actor)
    page = browser.new_page(viewport={"width": 1200, "height": 700})
    _log_in(page, server.base, "alice", workspace["accounts"]["alice"])
    page.click("text=Agreement")
    kappa = cohen_kappa([x in marked for x in units], [x in marked or x == extra for x in units])
    row = page.locator("table.agreement tr", has_text=qid).first
    assert f"{kappa:.3f}" in row.inner_text()
    _shot(page, tmp_path, "assess-agreement.png")
    page.click("text=adjudicate")
    assert page.inner_text("#cited-ucid") == citation.cited_ucid
    assert page.inner_text("#status").startswith("adjudicating")
    # Both assessors' marks are shown on the passages; bob's extra one only his.
    badges = page.locator(f".passage[data-xpath='{extra}'] .other").all_inner_texts()
    assert badges == ["bob"]
    page.click("#apply-suggestion")
    page.click("#save")
    _status_matches(page, r"^saved version 1")
    summary = export(url=database["url"], out=tmp_path / "out", policy="final")
    assert summary["unresolved"] == []
    assert (tmp_path / "out" / "qrels_PSG.txt").read_text().splitlines() == \
        [f"{qid} {citation.cited_ucid} {x}" for x in marked]

    # bob cannot open the adjudication.
    bob = browser.new_page()
    _log_in(bob, server.base, "bob", workspace["accounts"]["bob"])
    response = bob.goto(f"{server.base}/source/{patent_key}?topic={topic_id}&owner=%40adjudicated")
    assert response.status == 403 and "only an administrator adjudicates" in bob.inner_text("main")


def _box(page, selector):
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box


def test_assessor_screen_layout_keys_and_buttons(browser, server, workspace, corpus, database, tmp_path):
    """The citation and its indication stay in view above the passages; j/k keep the
    focused passage below them; disabled buttons look disabled; a long claims field is
    shown whole; the counter counts the topic's citations (issue 23, items 2-6)."""
    from pateval.assess import service

    engine = database["engine"]
    alice = service.authenticate(engine, "alice", workspace["accounts"]["alice"])
    patent_key, _qid, citation = a_suggested_citation(corpus)
    source = corpus.source(patent_key)
    every_claim = ",".join(str(n) for n, _t, _d in source.claims)
    service.ensure_topics(engine, corpus, patent_key)
    topic_id = service.add_topic(engine, corpus, patent_key, "sp-all", every_claim, alice)
    walk = [c for c in corpus.citations(patent_key) if set(c.relevant_claims)]
    page = browser.new_page(viewport={"width": 1200, "height": 820})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    _log_in(page, server.base, "alice", workspace["accounts"]["alice"])
    page.goto(f"{server.base}/source/{patent_key}?topic={topic_id}&citation={citation.position}")
    _shot(page, tmp_path, "assess-screen-top.png")
    # Scroll into the document and walk it with the keyboard: 12 down, then 5 up.
    page.mouse.wheel(0, 1500)
    for _ in range(12):
        page.keyboard.press("j")
    for _ in range(5):
        page.keyboard.press("k")
    _shot(page, tmp_path, "assess-screen-keys.png")

    # Every k leaves the focused passage in full view below the toolbar.
    assert page.evaluate("window.scrollY") > 500
    for _ in range(4):
        page.keyboard.press("k")
        focused, toolbar = _box(page, ".passage.focus"), _box(page, ".middle")
        assert focused["y"] >= toolbar["y"] + toolbar["height"], "the focused passage is under the toolbar"
        assert focused["y"] + focused["height"] <= 820
    # The sticky block (citation, indication, toolbar) is in view after scrolling.
    sticky = _box(page, "#sticky")
    assert sticky["y"] == 0
    for inside in ("#citation", "#indication", "#save"):
        box = _box(page, inside)
        assert box["y"] >= 0 and box["y"] + box["height"] <= sticky["height"] + 1, inside
    claims_field = page.locator("#topic-claims")
    assert claims_field.input_value() == every_claim
    assert claims_field.evaluate("e => e.scrollWidth <= e.clientWidth"), "the claims field cuts its value off"
    # The counter counts the citations Prev / Next walk through.
    index = next(i for i, c in enumerate(walk) if c.position == citation.position)
    assert page.inner_text("#citation-counter") == f"Citation {index + 1} of {len(walk)}"

    # Disabled buttons look disabled: Undo now (nothing saved) and Save where there is nothing to select.
    styles = "e => { const s = getComputedStyle(e); return [s.cursor, s.backgroundColor, s.color]; }"
    undo = page.locator("#undo")
    assert undo.is_disabled()
    enabled = page.locator("#clear").evaluate(styles)
    disabled = undo.evaluate(styles)
    assert disabled[0] == "not-allowed" and disabled[1:] != enabled[1:]
    save_enabled = page.locator("#save").evaluate(styles)
    outside = next(c for c in corpus.citations(patent_key) if not c.in_corpus)
    page.goto(f"{server.base}/source/{patent_key}?topic={topic_id}&citation={outside.position}")
    assert page.locator("#save").is_disabled()
    save_disabled = page.locator("#save").evaluate(styles)
    assert save_disabled[0] == "not-allowed"
    assert save_disabled[1] != save_enabled[1] and save_disabled[2] != save_enabled[2]
    _shot(page, tmp_path, "assess-screen-disabled.png")
    assert errors == []


def test_undo_history_and_save_conflict_in_the_browser(browser, server, workspace, corpus, database, tmp_path):
    """Undo goes back save by save; the loser of a save conflict sees the other page's
    selection beside theirs and keeps either (issue 23, items 7 and 10)."""
    patent_key, qid, citation = a_suggested_citation(corpus)
    page = browser.new_page(viewport={"width": 1200, "height": 820})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    _log_in(page, server.base, "alice", workspace["accounts"]["alice"])
    topic_id = _topic_id(page, server.base, patent_key, qid)
    url = f"{server.base}/source/{patent_key}?topic={topic_id}&citation={citation.position}"
    page.goto(url)
    units = page.eval_on_selector_all(".passage:not(.heading)", "els => els.map(e => e.dataset.xpath)")
    states = []
    page.click("#clear")
    for n in (1, 2, 3):
        page.click(f".passage[data-xpath='{units[n]}']")
        page.click("#save")
        _status_matches(page, rf"^saved version {n} ")
        states.append(_selected(page))
    assert page.inner_text("#undo") == "Undo (3)"
    for expected, steps in ((states[1], 2), (states[0], 1), ([], 0)):
        page.click("#undo")
        _status_matches(page, rf"^undone: now version {6 - steps} ")
        assert _selected(page) == sorted(expected)
        assert page.inner_text("#undo") == f"Undo ({steps})"
    assert page.locator("#undo").is_disabled()
    page.reload()
    assert page.inner_text("#undo") == "Undo (0)"

    # Another tab of alice saves first; this one is told, and sees both selections.
    other = browser.new_page(viewport={"width": 1200, "height": 820})
    other.context.add_cookies(page.context.cookies())
    other.goto(url)
    theirs = sorted(units[4:6])
    for xpath in theirs:
        other.click(f".passage[data-xpath='{xpath}']")
    other.click("#save")
    _status_matches(other, r"^saved version 7 ")
    mine = sorted(units[1:3])
    for xpath in mine:
        page.click(f".passage[data-xpath='{xpath}']")
    page.click("#save")
    sync_api.expect(page.locator("#conflict")).to_be_visible()
    assert "not saved: another page saved this selection first" in page.inner_text("#status")
    what = page.inner_text("#conflict-what")
    assert what.startswith("alice saved version 7 at ") and what.endswith("while you worked on version 6.")
    assert page.inner_text("#conflict-mine").startswith("2 passages; only yours: ")
    assert page.inner_text("#conflict-theirs").startswith("2 passages; only theirs: ")
    assert _selected(page) == mine  # nothing typed is lost
    assert sorted(page.eval_on_selector_all(".passage.theirs", "els => els.map(e => e.dataset.xpath)")) == theirs
    _shot(page, tmp_path, "assess-conflict.png")
    page.click("#take-theirs")
    assert _selected(page) == theirs and page.locator("#conflict").is_hidden()
    assert page.locator(".passage.theirs").count() == 0

    # Once more, and this time keep mine: saved over the other tab's version.
    other.click(f".passage[data-xpath='{units[7]}']")
    other.click("#save")
    _status_matches(other, r"^saved version 8 ")
    page.click(f".passage[data-xpath='{units[1]}']")
    page.click("#save")
    sync_api.expect(page.locator("#conflict")).to_be_visible()
    page.click("#keep-mine")
    _status_matches(page, r"^saved version 9 ")
    assert page.locator("#conflict").is_hidden()
    page.reload()
    assert _selected(page) == sorted([*theirs, units[1]])
    assert errors == []


def test_topic_forms_in_the_browser(browser, server, workspace, corpus, database, tmp_path):
    """A refused form keeps what was typed; deleting a topic asks first, and its id can
    then be given to a new topic that starts unjudged (issue 23, items 8 and 9)."""
    patent_key, qid, citation = a_suggested_citation(corpus)
    page = browser.new_page(viewport={"width": 1200, "height": 820})
    _log_in(page, server.base, "alice", workspace["accounts"]["alice"])
    page.goto(f"{server.base}/source/{patent_key}")
    page.fill("#new-qid", "sp-mine")
    page.fill("#new-claims", "1,9999")
    page.click("form[action$='/topics'] button[type=submit]")
    assert "has no claim 9999" in page.inner_text("#error-add-topic")
    assert (page.input_value("#new-qid"), page.input_value("#new-claims")) == ("sp-mine", "1,9999")
    _shot(page, tmp_path, "assess-form-error.png")
    claims = ",".join(str(n) for n in citation.relevant_claims)
    page.fill("#new-claims", claims)
    page.click("form[action$='/topics'] button[type=submit]")
    page.wait_for_url(re.compile(r"topic=\d+$"))
    first_id = _topic_id(page, server.base, patent_key, "sp-mine")
    page.goto(f"{server.base}/source/{patent_key}?topic={first_id}&citation={citation.position}")
    page.click("#apply-suggestion")
    page.click("#save")
    _status_matches(page, r"^saved version 1 ")

    page.click("#delete-topic")
    assert page.inner_text("h1") == "Delete topic sp-mine?"
    assert "alice 1" in page.inner_text("#delete-judgements")
    _shot(page, tmp_path, "assess-delete.png")
    page.click("#cancel-delete")  # cancelling keeps it
    assert _topic_id(page, server.base, patent_key, "sp-mine") == first_id
    page.click("#delete-topic")
    page.click("#confirm-delete")
    page.wait_for_url(f"{server.base}/source/{patent_key}")
    assert "sp-mine" not in page.inner_text("#topic-select")

    page.fill("#new-qid", "sp-mine")
    page.fill("#new-claims", claims)
    page.click("form[action$='/topics'] button[type=submit]")
    page.wait_for_url(re.compile(r"topic=\d+$"))
    second_id = _topic_id(page, server.base, patent_key, "sp-mine")
    assert second_id != first_id
    page.goto(f"{server.base}/source/{patent_key}?topic={second_id}&citation={citation.position}")
    assert page.inner_text("#status").startswith("suggestions from the passage indication pre-selected")
