"""The public API lists every public function it defines, and everything it lists exists."""

from __future__ import annotations

import inspect

from pateval import api


def test_api_all_is_complete_and_exact():
    defined = {name for name, value in vars(api).items()
               if inspect.isfunction(value) and value.__module__ == "pateval.api" and not name.startswith("_")}
    assert defined <= set(api.__all__)
    assert all(hasattr(api, name) for name in api.__all__)
    assert len(api.__all__) == len(set(api.__all__))
