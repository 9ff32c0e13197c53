"""CLEF-IP citation sources, categories, rel-passage blocks, claim-ref and odd ids."""

from __future__ import annotations

import pytest

from pateval.errors import InputFormatError
from pateval.patents import read_patent

DOCUMENT = """<?xml version="1.0" encoding="UTF-8"?>
<patent-document ucid="EP-1234567-B1" country="EP" doc-number="1234567" kind="B1" lang="DE" date="20050309">
<bibliographic-data><technical-data>
<citations><patent-citations>
<patcit ucid="US-5000001-A">
  <document-id><country>US</country><doc-number>5000001</doc-number><kind>A</kind></document-id>
  <sources><source name="SEA" category="X"/><source name="EXA"/></sources>
  <rel-passage><passage>column 3, line 5 - line 20</passage><category>Y</category>
    <rel-claims>1-3,7</rel-claims></rel-passage>
  <rel-passage><passage>figure 2</passage><category>X</category><rel-claims>9</rel-claims></rel-passage>
</patcit>
<patcit ucid="DE-19912345-A1">
  <document-id><country>DE</country><doc-number>19912345</doc-number><kind>A1</kind></document-id>
  <sources><source name="APP"/><source name="OPP" category="P,A"/><source name="115"/></sources>
</patcit>
<patcit><document-id><country>EP</country><doc-number>0971326</doc-number></document-id></patcit>
<patcit><text>a citation given only as text</text></patcit>
</patent-citations></citations>
</technical-data></bibliographic-data>
<claims lang="DE">
<claim id="c-de-01-0001" num="0001"><claim-text>Vorrichtung mit einem Teil.</claim-text></claim>
<claim id="c-de-01-0002" num="0002">
<claim-text>Vorrichtung nach <claim-ref idref="c-de-01-0001">Anspruch 1</claim-ref>.</claim-text>
</claim>
<claim id="c-de-01-0003" num="0003">
<claim-text>Verwendung der Vorrichtung gemäß <claim-ref idref="c-de-01-0002">dem vorigen</claim-ref>.</claim-text>
</claim>
</claims>
</patent-document>
"""


def test_sources_categories_and_rel_passages(tmp_path):
    path = tmp_path / "EP-1234567-B1.xml"
    path.write_text(DOCUMENT, encoding="utf-8")
    doc = read_patent(path)
    rows = [(c.cited_ucid, c.source, c.categories, c.relevant_claims, c.passages) for c in doc.citations]
    assert rows == [
        ("US-5000001-A", "search", "XY", (1, 2, 3, 7, 9), ("column 3, line 5 - line 20", "figure 2")),
        ("US-5000001-A", "examiner", "", (), ()),
        ("DE-19912345-A1", "applicant", "", (), ()),
        ("DE-19912345-A1", "opposition", "PA", (), ()),
        ("DE-19912345-A1", "other", "", (), ()),
        ("EP-0971326", "other", "", (), ()),
    ]
    assert doc.citations[0].is_highly_relevant
    assert doc.citations[-1].cited_kind is None
    # claim-ref resolves through the claim ids even where the text names no number.
    assert {c.number: c.depends_on for c in doc.claims["DE"]} == {1: (), 2: (1,), 3: (2,)}


def test_bad_relevant_claims_list_names_file_and_line(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text(DOCUMENT.replace("<rel-claims>9</rel-claims>", "<rel-claims>9 and 10</rel-claims>"),
                    encoding="utf-8")
    with pytest.raises(InputFormatError) as caught:
        read_patent(path)
    assert str(caught.value) == (
        f"{path}, line 10: bad relevant-claims list (expected N or N-M items separated by commas, found '9 and 10')"
    )


def test_document_without_id(tmp_path):
    path = tmp_path / "noid.xml"
    path.write_text('<?xml version="1.0"?>\n<patent-document lang="EN"/>\n', encoding="utf-8")
    with pytest.raises(InputFormatError) as caught:
        read_patent(path)
    assert str(caught.value) == (f"{path}, line 1: patent-document without an id "
                                 "(expected @ucid or @country and @doc-number)")
