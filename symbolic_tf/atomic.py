"""Atomic file writes: write to a temporary file in the target folder, then rename.

A reader never sees a half-written file, and an interrupted run leaves the old file intact.
"""
from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_target", "write_text_atomic", "write_json_atomic", "file_sha256"]


@contextmanager
def atomic_target(path: str | Path):
    """Yield a temporary path next to ``path``; on success rename it onto ``path``.

    The temporary file gets normal permissions (mkstemp would leave 0600); on any error it is
    removed and ``path`` is untouched.

    Parameters
    ----------
    path : str or Path
        The target file (its folder is created if needed).

    Yields
    ------
    Path
        The temporary file to write.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically, flushed and fsync-ed before the rename.

    Parameters
    ----------
    path : str or Path
        The target file.
    text : str
        The contents.

    Returns
    -------
    Path
        ``path``.
    """
    with atomic_target(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    return Path(path)


def write_json_atomic(path: str | Path, data) -> Path:
    """Write ``data`` as indented JSON (UTF-8, keys in their order, a final newline) atomically.

    Parameters
    ----------
    path : str or Path
        The target file.
    data : object
        A JSON-serialisable value.

    Returns
    -------
    Path
        ``path``.
    """
    return write_text_atomic(path, json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n")


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, read in 1 MiB blocks (model weights, data clouds).

    Parameters
    ----------
    path : str or pathlib.Path
        The file.

    Returns
    -------
    str
        The hex digest.
    """
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
