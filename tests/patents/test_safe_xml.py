"""Bad and hostile XML: clear errors, nothing expanded, nothing fetched, no hang."""

from __future__ import annotations

import gzip
import http.server
import threading

import pytest

from pateval.errors import InputFormatError
from pateval.patents import iter_patents, read_patent

ENTITY_REFUSAL = (
    "refused, entities are not expanded (protection against entity bombs and external entities)"
)


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def _grant(number, claims=1, lang="EN"):
    claim_xml = "".join(
        f'<claim id="CLM-{i:05d}" num="{i:05d}"><claim-text>{i}. A thing'
        + (f' of <claim-ref idref="CLM-{i - 1:05d}">claim {i - 1}</claim-ref>' if i > 1 else "")
        + ".</claim-text></claim>\n"
        for i in range(1, claims + 1)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE us-patent-grant SYSTEM "us-patent-grant-v45-2014-04-03.dtd" [ ]>\n'
        f'<us-patent-grant lang="{lang}" country="US">\n'
        "<us-bibliographic-data-grant>\n"
        f"<publication-reference><document-id><country>US</country><doc-number>{number:08d}</doc-number>"
        "<kind>B2</kind><date>20150106</date></document-id></publication-reference>\n"
        "</us-bibliographic-data-grant>\n"
        f'<claims id="claims">\n{claim_xml}</claims>\n'
        "</us-patent-grant>\n"
    )


def test_mismatched_tag(tmp_path):
    path = _write(
        tmp_path / "bad.xml",
        '<?xml version="1.0"?>\n<patent-document ucid="EP-1-A1">\n<claims lang="EN">\n'
        '<claim num="1"><claim-text>x</claim-text>\n</claims>\n</patent-document>\n',
    )
    with pytest.raises(InputFormatError) as caught:
        read_patent(path)
    assert str(caught.value) == f"{path}, line 5: XML error: Opening and ending tag mismatch: claim line 4 and claims"


def test_truncated_file(tmp_path):
    full = _grant(1, claims=3)
    path = _write(tmp_path / "cut.xml", full[: full.index("2. A thing") + 5])
    with pytest.raises(InputFormatError) as caught:
        read_patent(path)
    assert str(caught.value) == f"{path}, line 9: XML error: Premature end of data in tag claim-text line 9"


def test_empty_file(tmp_path):
    path = _write(tmp_path / "empty.xml", "")
    with pytest.raises(InputFormatError) as caught:
        read_patent(path)
    assert str(caught.value) == f"{path}: the file is empty (no XML document)"


def test_billion_laughs_is_refused_and_not_expanded(tmp_path):
    levels = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, 10)
    ]
    path = _write(
        tmp_path / "bomb.xml",
        '<?xml version="1.0"?>\n<!DOCTYPE patent-document [\n' + "\n".join(levels) + "\n]>\n"
        '<patent-document ucid="EP-1-A1"><abstract lang="EN"><p>&lol9;</p></abstract></patent-document>\n',
    )
    with pytest.raises(InputFormatError) as caught:
        read_patent(path)
    assert str(caught.value) == (
        f"{path}, line 3: the DOCTYPE declares entities (lol0, lol1, lol2, lol3, lol4, ...); " + ENTITY_REFUSAL
    )


class _CountingHandler(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self):  # noqa: N802 - the name http.server calls
        type(self).requests.append(self.path)
        body = b'<!ENTITY secret "FETCHED-OVER-HTTP">'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture()
def http_server():
    _CountingHandler.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _CountingHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _CountingHandler.requests
    finally:
        server.shutdown()
        server.server_close()


def test_external_entity_is_neither_read_nor_fetched(tmp_path, http_server):
    base, requests = http_server
    secret = _write(tmp_path / "secret.txt", "TOP-SECRET-CONTENT")
    path = _write(
        tmp_path / "xxe.xml",
        '<?xml version="1.0"?>\n'
        f'<!DOCTYPE patent-document [ <!ENTITY xxe SYSTEM "file://{secret}"> '
        f'<!ENTITY remote SYSTEM "{base}/remote.txt"> ]>\n'
        '<patent-document ucid="EP-1-A1"><abstract lang="EN"><p>&xxe; &remote;</p></abstract></patent-document>\n',
    )
    with pytest.raises(InputFormatError) as caught:
        read_patent(path)
    assert str(caught.value) == f"{path}, line 2: the DOCTYPE declares entities (xxe, remote); " + ENTITY_REFUSAL
    assert "TOP-SECRET" not in str(caught.value)
    assert requests == []


def test_parameter_entity_and_external_dtd_are_not_fetched(tmp_path, http_server):
    base, requests = http_server
    path = _write(
        tmp_path / "pe.xml",
        '<?xml version="1.0"?>\n'
        f'<!DOCTYPE patent-document SYSTEM "{base}/patent-document.dtd" '
        f'[ <!ENTITY % pe SYSTEM "{base}/pe.dtd"> %pe; ]>\n'
        '<patent-document ucid="EP-1-A1"><abstract lang="EN"><p>&secret;</p></abstract></patent-document>\n',
    )
    errors = []
    assert list(iter_patents(path, on_error="skip", errors=errors)) == []
    assert len(errors) == 1 and errors[0].path == str(path)
    assert requests == []


def test_public_dtd_of_real_files_is_not_fetched(tmp_path, http_server):
    base, requests = http_server
    path = _write(
        tmp_path / "EP-1-A1.xml",
        '<?xml version="1.0"?><!DOCTYPE patent-document\n'
        f'  PUBLIC "-//MXW//DTD patent-document XML//EN" "{base}/patent-document.dtd">'
        '<patent-document ucid="EP-0000001-A1" lang="EN" date="20000517">'
        '<abstract lang="EN"><p>An abstract &amp; more.</p></abstract></patent-document>\n',
    )
    document = read_patent(path)
    assert document.abstract == {"EN": "An abstract & more."}
    assert requests == []


def test_undeclared_entity_without_dtd_is_an_error(tmp_path):
    path = _write(tmp_path / "u.xml",
                  '<?xml version="1.0"?>\n<patent-document ucid="EP-1-A1">a &nbsp; b</patent-document>\n')
    with pytest.raises(InputFormatError) as caught:
        read_patent(path)
    assert str(caught.value) == f"{path}, line 2: XML error: Entity 'nbsp' not defined"


def test_undeclared_entity_with_unloaded_dtd_becomes_its_character(tmp_path):
    path = _write(
        tmp_path / "u.xml",
        '<?xml version="1.0"?>\n<!DOCTYPE patent-document SYSTEM "patent-document.dtd" [ ]>\n'
        '<patent-document ucid="EP-1-A1"><invention-title lang="EN">x &lsquo;y&rsquo; &unknownname; z</invention-title>'
        "</patent-document>\n",
    )
    # invention-title outside bibliographic-data is not read; put it where it belongs.
    text = path.read_text().replace(
        '<invention-title lang="EN">', '<bibliographic-data><invention-title lang="EN">'
    ).replace("</invention-title>", "</invention-title></bibliographic-data>")
    path.write_text(text)
    assert read_patent(path).title == {"EN": "x \u2018y\u2019 &unknownname; z"}


def test_concatenated_weekly_file_with_a_bad_document_in_the_middle(tmp_path):
    good1, good3 = _grant(1, claims=2), _grant(3, claims=3)
    bad = _grant(2).replace("</claims>", "</claimz>")
    path = _write(tmp_path / "ipg150106.xml", good1 + bad + good3)
    bad_line = good1.count("\n") + bad.count("\n") - 1  # the line of </claimz>
    errors = []
    documents = list(iter_patents(path, on_error="skip", errors=errors))
    assert [d.ucid for d in documents] == ["US-1-B2", "US-3-B2"]
    assert [len(d.claims["EN"]) for d in documents] == [2, 3]
    assert documents[1].claims["EN"][2].depends_on == (2,)
    assert [(e.line, e.reason) for e in errors] == [
        (bad_line, "XML error: Opening and ending tag mismatch: claims line 7 and claimz")
    ]
    with pytest.raises(InputFormatError, match=rf"ipg150106.xml, line {bad_line}: XML error"):
        list(iter_patents(path))


def test_compressed_file_and_many_documents(tmp_path):
    path = tmp_path / "week.xml.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for number in range(1, 301):
            handle.write(_grant(number))
    documents = list(iter_patents(tmp_path))
    assert len(documents) == 300
    assert documents[-1].ucid == "US-300-B2"


def test_missing_path_and_bad_option(tmp_path):
    with pytest.raises(InputFormatError, match="no such file or directory"):
        list(iter_patents(tmp_path / "nope.xml"))
    with pytest.raises(ValueError, match="on_error"):
        list(iter_patents(tmp_path, on_error="ignore"))


def test_unknown_root(tmp_path):
    path = _write(tmp_path / "t.xml", '<?xml version="1.0"?>\n<topic><num>EP-1</num></topic>\n')
    with pytest.raises(InputFormatError) as caught:
        read_patent(path)
    assert str(caught.value) == (
        f"{path}, line 1: not a patent document "
        "(expected patent-document or us-patent-grant or us-patent-application or "
        "patent-application-publication or PATDOC, found 'topic')"
    )


def test_unparsed_image_entities_of_uspto_files_are_allowed(tmp_path):
    grant = _grant(6857047, claims=2).replace(
        "[ ]>",
        '[\n<!ENTITY US06857047-20050222-D00000.TIF SYSTEM "US06857047-20050222-D00000.TIF" NDATA TIF>\n'
        "<!ENTITY US06857047-20050222-D00001.TIF PUBLIC \"-//X//IMG\" 'D00001.TIF' NDATA TIF>\n]>",
    )
    path = _write(tmp_path / "img.xml", grant)
    assert read_patent(path).ucid == "US-6857047-B2"
    # ... but a parsed entity beside them is still refused.
    mixed = grant.replace("]>", '<!ENTITY boom "&#x26;">\n]>')
    path = _write(tmp_path / "mixed.xml", mixed)
    with pytest.raises(InputFormatError) as caught:
        read_patent(path)
    assert str(caught.value) == f"{path}, line 5: the DOCTYPE declares entities (boom); " + ENTITY_REFUSAL
