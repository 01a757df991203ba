"""No network at run time unless a remote host is configured; the scale-out path runs on settings alone.

Each run happens in a child process whose sockets refuse every non-loopback address (and, as
root, inside a network namespace with only loopback): it must ingest and answer, and the guard
must have refused nothing, i.e. nothing even tried.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hardening.network_guard import isolated_command

ROOT = Path(__file__).resolve().parents[2]


def _run(mode: str, tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "DOCUCHAT_", "TRANSFORMERS_"))}
    env["PYTHONPATH"] = str(ROOT)  # and no HF_HUB_OFFLINE: nothing may depend on being told
    command, namespaced = isolated_command([sys.executable, "-m", "tests.hardening.offline_child", mode,
                                            str(tmp_path / "data")])
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["namespaced"] = namespaced
    return result


def test_ingest_and_answer_with_the_real_embedded_model_and_no_network(tmp_path):
    result = _run("embedded", tmp_path)
    assert result["blocked"] == [], result
    assert result["ingest"] == "indexed" and result["llm"] == "embedded"
    assert "llm_error" not in result["flags"] and result["answer"].strip()
    assert result["citations"] == ["panels.txt"] and result["turn_saved"]
    assert result["namespaced"] or os.geteuid() != 0


def test_scale_out_chroma_server_and_ollama_server_chosen_by_settings_over_loopback(tmp_path):
    result = _run("scale_out", tmp_path)
    assert result["blocked"] == [], result
    assert result["vectors"].startswith("http://127.0.0.1:") and result["llm"] == "ollama"
    assert result["answer"] == "Panels weigh 21 kg. [Source 1]" and result["citations"] == ["panels.txt"]
    assert not (tmp_path / "data" / "chroma").exists()  # the vectors are on the server


def test_the_guard_refuses_a_non_loopback_address_and_records_it():
    # 192.0.2.1 is a documentation address: even without the guard nothing would answer there.
    code = ("from tests.hardening import network_guard as g; g.install(); import socket\n"
            "for attempt in [lambda: socket.socket().connect(('192.0.2.1', 80)),\n"
            "                lambda: socket.create_connection(('example.com', 443), timeout=1)]:\n"
            "    try: attempt()\n"
            "    except OSError: pass\n"
            "print(g.ATTEMPTS)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "['connect 192.0.2.1:80', 'lookup example.com']"


@pytest.mark.parametrize("source", ["scripts/run.sh", ".streamlit/config.toml"])
def test_streamlit_binds_to_loopback_by_default(source):
    text = (ROOT / source).read_text()
    if source.endswith(".toml"):
        import tomllib

        assert tomllib.loads(text)["server"]["address"] == "127.0.0.1"
    else:
        assert '--server.address "${DOCUCHAT_ADDRESS:-127.0.0.1}"' in text
