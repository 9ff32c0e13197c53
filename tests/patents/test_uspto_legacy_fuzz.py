"""Mutated files of the older USPTO formats end in records or pateval's own input error,
never another exception (bounded hypothesis runs)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pateval.errors import InputFormatError
from pateval.patents.reader import ReadError, iter_file

DATA = Path(__file__).resolve().parents[1] / "data" / "uspto"
SOURCES = {
    "aps": (DATA / "US03937375.greenbook").read_bytes(),
    "pap": (DATA / "US20010000044A1.xml").read_bytes(),
    "patdoc": (DATA / "USD435854S1.xml").read_bytes(),
}
_SUFFIX = {"aps": ".aps", "pap": ".xml", "patdoc": ".xml"}

_mutation = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0, 1)),
    st.tuples(st.just("delete-line"), st.floats(0, 1)),
    st.tuples(st.just("replace"), st.floats(0, 1), st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("insert"), st.floats(0, 1), st.sampled_from(
        [b"\n", b"PATN\n", b"WKU  \n", b"NUM  x.\n", b"CLMS\n", b"ICL  ZZZZ\n", b"      cont\n", b"\xff\xfe",
         b"<claim id='CLM-x'>", b"</CL>", b"&bogus;", b"<CLREF ID=''/>", b"<B110></B110>", b"\x00"])),
)


def _mutate(data: bytes, mutations) -> bytes:
    for mutation in mutations:
        at = int(mutation[1] * len(data))
        if mutation[0] == "truncate":
            data = data[:at]
        elif mutation[0] == "delete-line":
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            data = data[:start] + (data[end + 1:] if end != -1 else b"")
        elif mutation[0] == "replace":
            data = data[:at] + mutation[2] + data[at + len(mutation[2]):]
        else:
            data = data[:at] + mutation[2] + data[at:]
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(SOURCES)), st.lists(_mutation, min_size=1, max_size=4))
def test_mutated_old_uspto_files_never_raise_a_foreign_exception(tmp_path, kind, mutations):
    path = tmp_path / f"mutated{_SUFFIX[kind]}"
    path.write_bytes(_mutate(SOURCES[kind], mutations))
    try:
        items = list(iter_file(path, on_error="skip"))
    except InputFormatError:
        return
    for item in items:
        assert isinstance(item, ReadError) or item.ucid.startswith("US-")
