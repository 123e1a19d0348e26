"""Atomic file writes: write to a temporary file in the target folder, then rename.

A reader never sees a half-written file, and an interrupted run leaves the old file intact.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

__all__ = ["write_text_atomic", "write_json_atomic"]


def write_text_atomic(path: str | Path, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file normal permissions
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def write_json_atomic(path: str | Path, data) -> Path:
    return write_text_atomic(path, json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n")
