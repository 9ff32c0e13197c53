"""A pool judged in a real browser (Debian's Chromium driven by Playwright): the administrator
imports a pool with ``pateval assess pool``; two assessors grade a topic's queue (keys and
clicks, passages where the corpus has the document's text, Save & Next through the queue);
the administrator adjudicates their disagreements; the export's qrels are read by ``pateval
evaluate``. Screenshots are written to the test's directory (and, with
PATEVAL_SCREENSHOTS=DIR, copied there)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from .test_browser import _log_in, _selected, _shot, _status_matches, browser, sync_api  # noqa: F401 (fixture)
from .test_pools import _demo_pool


def _judge(page, grade: int, passages: int = 0) -> None:
    """Grade the page's document by its key, select its first ``passages`` passages, save."""
    page.keyboard.press(str(grade))
    for element in page.locator(".passage:not(.heading)").all()[:passages]:
        element.click()
    page.click("#save")
    _status_matches(page, rf"^saved version \d+ \(grade {grade}, {passages} passages\)")


def test_two_assessors_grade_a_pool_topic_and_an_administrator_adjudicates(browser, server, workspace, corpus,  # noqa: F811
                                                                           database, tmp_path):
    import pateval
    from pateval.assess import service
    from pateval.assess.commands import export
    from pateval.assess.db import check_consistency

    engine = database["engine"]
    service.add_assessor(engine, "carol", "another quite long pass")
    path, docs = _demo_pool(corpus, tmp_path)
    done = subprocess.run([sys.executable, "-m", "pateval.cli", "assess", "pool", "--db", database["url"], "--pool",
                           str(path), "--name", "demo"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    queue = docs + ["XX-T-401-0", "XX-T-401-1"]
    # bob's and carol's grades of T-401's queue (8 documents; the last two have no text).
    plans = {"bob": [2, 1, 0, 0, 1, 0, 0, 1], "carol": [2, 0, 0, 1, 1, 0, 0, 1]}
    errors: list[str] = []
    for name, password in (("bob", workspace["accounts"]["bob"]), ("carol", "another quite long pass")):
        context = browser.new_context(viewport={"width": 1200, "height": 820})
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        _log_in(page, server.base, name, password)
        assert page.locator("table.pools tbody tr").count() == 2
        if name == "bob":
            _shot(page, tmp_path, "pool-index.png")
        page.click("a.pool-topic[data-qid='T-401']")
        page.wait_for_load_state()
        for i, grade in enumerate(plans[name]):
            assert page.inner_text("#cited-ucid") == queue[i]
            assert page.inner_text("#citation-counter") == f"Document {i + 1} of 8"
            if queue[i].startswith("XX-"):
                assert "grade the document; there is no passage to select" in page.inner_text("#passages")
            if name == "bob" and i == 0:
                # Saving without a grade is refused on the page; a passage with grade 0 by the server.
                page.locator(".passage:not(.heading)").first.click()
                page.click("#save")
                _status_matches(page, r"^not saved: choose a grade first")
                page.keyboard.press("0")
                page.click("#save")
                _status_matches(page, r"^not saved \(400\): a document graded 0 \(not relevant\) has no relevant "
                                      r"passage")
                page.locator(".passage:not(.heading)").first.click()  # (unselected again)
                assert _selected(page) == []
            _judge(page, grade, passages=1 if grade == 2 else 0)
            # the count and the queue show the grade as saved, before the next page is loaded
            assert page.inner_text("#pool-progress") == f"judged {i + 1} / 8"
            assert page.text_content("#queue li.current span.grade") == str(grade)
            if name == "bob" and i in (0, 6):
                page.locator("header").scroll_into_view_if_needed()
                _shot(page, tmp_path, f"pool-judged-{i + 1}.png")
            page.click("#next")
            page.wait_for_load_state()
        assert "Every document of this queue is judged." in page.inner_text("#queue-done")
        assert page.inner_text("#pool-progress") == "judged 8 / 8"
        context.close()
    # The administrator adjudicates the two disagreements (documents 2 and 4), from the index.
    context = browser.new_context(viewport={"width": 1200, "height": 820})
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    _log_in(page, server.base, "alice", workspace["accounts"]["alice"])
    page.locator("table.pools tr", has_text="T-401").locator("text=adjudicate").click()
    page.wait_for_load_state()
    assert page.inner_text("#pool-progress") == "2 disputed, judged 0 / 8"
    assert page.inner_text("#cited-ucid") == queue[1]
    assert page.inner_text("#other-grades").split() == ["bob:", "grade", "1", "carol:", "grade", "0"]
    assert page.locator("#queue li.disputed").count() == 2
    _shot(page, tmp_path, "pool-adjudicate.png")
    _judge(page, 1)
    page.click("#next")
    page.wait_for_load_state()
    assert page.inner_text("#cited-ucid") == queue[3]
    _judge(page, 0)
    page.click("#next")
    page.wait_for_load_state()
    assert "No disagreement is left to adjudicate." in page.inner_text("#queue-done")
    # The Agreement page counts the graded documents.
    page.click("text=Agreement")
    row = page.locator("table.agreement tr", has_text="T-401").first
    assert row.count() == 1
    context.close()
    assert errors == []

    summary = export(url=database["url"], out=tmp_path / "export", policy="final")
    assert summary["pool_unresolved"] == [] and summary["pool_judgements"] == 8
    written = (tmp_path / "export" / "qrels_pool.txt").read_text().splitlines()
    final = [2, 1, 0, 0, 1, 0, 0, 1]
    assert written == [f"T-401 0 {d} {g}" for d, g in zip(queue, final, strict=True)]
    passages = (tmp_path / "export" / "qrels_pool_PSG.txt").read_text().splitlines()
    assert len(passages) == 1 and passages[0].startswith(f"T-401 {queue[0]} /")
    run = tmp_path / "run.txt"
    run.write_text("".join(f"T-401 Q0 {d} {i} {10 - i} sys\n" for i, d in enumerate(reversed(queue), 1)))
    frame = pateval.evaluate(str(tmp_path / "export" / "qrels_pool.txt"), [str(run)], ["P@4", "num_rel", "nDCG"])
    values = {m: v for t, m, v in zip(frame["topic"], frame["measure"], frame["value"], strict=True) if t == "T-401"}
    assert values["P@4"] == 0.5 and values["NumRel"] == 4.0
    assert 0 < values["nDCG"] < 1, values
    assert check_consistency(engine) == []


@pytest.mark.parametrize("order", ["mtf"])
def test_an_adaptive_queue_moves_in_the_browser(order, browser, server, workspace, corpus, database,  # noqa: F811
                                                tmp_path):
    """With move-to-front, a non-relevant document moves its run down: the page's next document
    is the one the strategy chooses from the judgements, and the queue says how far its order
    is settled."""
    from pateval.assess import pools, service

    path, docs = _demo_pool(corpus, tmp_path)
    pools.import_pool(database["engine"], path, order=order)
    page = browser.new_page(viewport={"width": 1200, "height": 820})
    _log_in(page, server.base, "bob", workspace["accounts"]["bob"])
    topic_id = service.topic_ids(database["engine"])["T-401"][0]
    page.goto(f"{server.base}/pool/{topic_id}")
    assert page.inner_text("#cited-ucid") == docs[0]
    assert re.search(r"the order after document 1 depends on the judgements", page.inner_text("section.top"))
    # docs[0] came from runA (places 1, 3, 5, 7), the first run the pool names; relevant, runA
    # keeps the front and gives its next document, docs[2] (the pool's order would give docs[1]).
    _judge(page, 1)
    page.click("#next")
    page.wait_for_load_state()
    assert page.inner_text("#cited-ucid") == docs[2]
    # Not relevant: runA moves behind runB, whose first document not judged is docs[1].
    _judge(page, 0)
    page.click("#next")
    page.wait_for_load_state()
    assert page.inner_text("#cited-ucid") == docs[1]
    assert pools.queue(database["engine"], service.topic(database["engine"], topic_id), "bob")["next"] == docs[1]
    _shot(page, tmp_path, "pool-mtf.png")
