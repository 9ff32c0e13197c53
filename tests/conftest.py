"""Shared test fixtures: the real public data samples the tests read (tests/data, see its README)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

# Tests assert behaviour, never wall-clock time: no hypothesis deadline anywhere (a loaded CI
# machine is slow; timings belong in benchmarks/).
settings.register_profile("pateval", deadline=None)
settings.load_profile("pateval")

TEST_DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def test_data() -> Path:
    """``tests/data``: small real CLEF-IP, USPTO, TREC, NTCIR and TREC DD samples, with their sources."""
    return TEST_DATA
