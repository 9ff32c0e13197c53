"""Writing output files whole or not at all.

Every writer in pateval goes through :func:`atomic_output`: the content is written to a
temporary file beside the target and renamed over it only when writing finished, so an
error (or Ctrl-C) never leaves a partial output file behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ..errors import PatevalError

__all__ = ["atomic_output", "atomic_directory"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _make_parent(target: Path) -> None:
    """Create the folder ``target`` goes in; a file standing where a folder must be is the
    user's error, said in one line (not an OSError naming only the file in the way)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocking = next((p for p in [target.parent, *target.parent.parents] if p.exists() and not p.is_dir()),
                        target.parent)
        raise PatevalError(f"{target}: cannot write there, {blocking} is a file, not a directory") from None


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str], mode: str = "w", *, encoding: str | None = "utf-8",
                  private: bool = False) -> Iterator[IO]:
    """Open ``path`` for writing so that it appears only once the ``with`` block succeeds.

    Parameters
    ----------
    path : path-like
        The file to create or replace.
    mode : {"w", "wb"}
        Text or binary.
    encoding : str, optional
        Text encoding (ignored for binary mode).
    private : bool
        Readable and writable by its owner only (0600: secrets), not the umask's permissions.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_output writes with mode 'w' or 'wb', not {mode!r}")
    target = Path(path)
    _make_parent(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, mode, encoding=None if mode == "wb" else encoding,
                       newline=None if mode == "wb" else "") as handle:
            yield handle
        if not private:
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file normal permissions
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_directory(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Build a directory under a temporary name and move it into place when done.

    The target must not exist yet (a store or index directory is never merged into).
    """
    import shutil

    target = Path(path)
    if target.exists():
        raise FileExistsError(f"{target} exists already; choose a new output directory")
    _make_parent(target)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent))
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
