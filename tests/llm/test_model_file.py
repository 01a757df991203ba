"""The default model file is assembled from its parts once and refused if its hash is wrong."""
import hashlib

import pytest

from core.llm import model_file
from core.llm.model_file import ModelFileError, assemble_model


@pytest.fixture
def fake_parts(tmp_path, monkeypatch):
    parts = []
    for i in range(3):
        part = tmp_path / f"part{i}.bin"
        part.write_bytes(bytes([i]) * 1000)
        parts.append(part)
    content = b"".join(p.read_bytes() for p in parts)
    monkeypatch.setattr(model_file, "part_paths", lambda: parts)
    monkeypatch.setattr(model_file, "MODEL_BYTES", len(content))
    return hashlib.sha256(content).hexdigest()


def test_parts_are_concatenated_in_order_and_verified(fake_parts, tmp_path, monkeypatch):
    monkeypatch.setattr(model_file, "MODEL_SHA256", fake_parts)
    path = assemble_model(tmp_path / "cache")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == fake_parts
    assert path.read_bytes()[:1000] == b"\x00" * 1000


def test_a_wrong_hash_is_refused_and_nothing_is_left_behind(fake_parts, tmp_path, monkeypatch):
    monkeypatch.setattr(model_file, "MODEL_SHA256", "0" * 64)
    with pytest.raises(ModelFileError, match="does not match"):
        assemble_model(tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_verified_file_is_reused_and_a_tampered_one_rebuilt(fake_parts, tmp_path, monkeypatch):
    monkeypatch.setattr(model_file, "MODEL_SHA256", fake_parts)
    path = assemble_model(tmp_path / "cache")
    first_mtime = path.stat().st_mtime_ns
    assert assemble_model(tmp_path / "cache").stat().st_mtime_ns == first_mtime
    path.write_bytes(b"\xff" * 3000)  # same size, different bytes, new mtime
    rebuilt = assemble_model(tmp_path / "cache")
    assert hashlib.sha256(rebuilt.read_bytes()).hexdigest() == fake_parts


def test_the_installed_parts_are_the_published_model():
    """The pinned packages are all present: 22 parts whose sizes add up to the release."""
    paths = model_file.part_paths()
    assert len(paths) == model_file.PART_COUNT
    assert sum(p.stat().st_size for p in paths) == model_file.MODEL_BYTES
