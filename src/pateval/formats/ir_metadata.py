"""Writing an ir_metadata block: how a run was made, at the top of the run file.

The ir_metadata convention (Breuer et al., SIGIR 2022, ir-metadata.org) annotates a TREC
run with YAML between ``# ir_metadata.start`` and ``# ir_metadata.end``, every line a ``#``
comment so that trec_eval and other readers skip it. Its sections follow the PONTE schema
(platform, implementation, method, data, ...); pateval's baselines fill ``tag``,
``method`` (indexing and retrieval), ``platform``, ``implementation`` and ``data``.

The YAML is written here without a YAML library: keys are plain, strings are JSON-quoted
(a JSON string is a YAML string), numbers and booleans plain, so any YAML reader reads it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

__all__ = ["START", "END", "ir_metadata_lines", "yaml_lines"]

START = "# ir_metadata.start"
END = "# ir_metadata.end"


def _scalar(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else json.dumps(str(value))
    return json.dumps(str(value), ensure_ascii=False)


def yaml_lines(value, indent: int = 0) -> list[str]:
    """A mapping of mappings, lists and scalars as block-style YAML lines.

    Examples
    --------
    >>> yaml_lines({"method": {"retrieval": [{"name": "bm25", "k1": 1.2}]}, "automatic": True})
    ['method:', '  retrieval:', '    - name: "bm25"', '      k1: 1.2', 'automatic: true']
    """
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(item, Mapping) and item or isinstance(item, Sequence) and not isinstance(item, str) and item:
                lines.append(f"{pad}{key}:")
                lines.extend(yaml_lines(item, indent + 2))
            elif isinstance(item, Mapping):
                lines.append(f"{pad}{key}: {{}}")
            elif isinstance(item, Sequence) and not isinstance(item, str):
                lines.append(f"{pad}{key}: []")
            else:
                lines.append(f"{pad}{key}: {_scalar(item)}")
        return lines
    for item in value:
        if isinstance(item, (Mapping, list, tuple)) and item:
            inner = yaml_lines(item, indent + 2)
            lines.append(f"{pad}- {inner[0].lstrip()}")
            lines.extend(inner[1:])
        else:
            lines.append(f"{pad}- {_scalar(item)}")
    return lines


def ir_metadata_lines(metadata: Mapping) -> list[str]:
    """The ``#`` lines of an ir_metadata block, start and end markers included."""
    body = [f"# {line}" for line in yaml_lines(metadata)]
    if any("\n" in line or "\r" in line for line in body):
        raise ValueError("ir_metadata values must not hold line breaks")
    return [START, *body, END]
