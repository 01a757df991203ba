"""`python -m tests.hardening.offline_child MODE DATA_DIR`: ingest and answer with the network blocked.

MODE embedded: the real embedded llama.cpp provider with the tiny SmolLM2 model.
MODE scale_out: a real `chroma run` and an Ollama-speaking server, both on 127.0.0.1, chosen by
settings alone. Prints one JSON object: the answer, citations, flags, where vectors live, and
every network attempt the guard refused.
"""
from tests.hardening import network_guard

network_guard.install()  # before anything else is imported

import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import urllib.request  # noqa: E402
from http.server import ThreadingHTTPServer  # noqa: E402
from pathlib import Path  # noqa: E402

from core.config import Settings  # noqa: E402
from core.workspace import Workspace  # noqa: E402

MODE, DATA_DIR = sys.argv[1], Path(sys.argv[2])


def start_chroma(folder: Path) -> tuple[subprocess.Popen, int]:
    from tests.servers import free_port

    port = free_port()
    server = subprocess.Popen([str(Path(sys.executable).parent / "chroma"), "run", "--path", str(folder), "--host",
                               "127.0.0.1", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2)
            return server, port
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("chroma server did not start")


chroma = None
if MODE == "embedded":
    from tests.llm.test_embedded_smoke import _smollm_path

    settings = Settings(data_dir=DATA_DIR, llm_provider="embedded", llm_model_path=_smollm_path(),
                        llm_context_tokens=2048, answer_max_tokens=40)
else:
    from tests.llm.test_ollama_provider import FakeOllama

    ollama = ThreadingHTTPServer(("127.0.0.1", 0), FakeOllama)
    threading.Thread(target=ollama.serve_forever, daemon=True).start()
    chroma, port = start_chroma(DATA_DIR.parent / "chroma-server")
    settings = Settings(data_dir=DATA_DIR, chroma_host="127.0.0.1", chroma_port=port,
                        ollama_host=f"http://127.0.0.1:{ollama.server_address[1]}")
try:
    workspace = Workspace(settings)
    source = DATA_DIR.parent / "panels.txt"
    source.write_text("The HX-450 panels weigh 21 kg each and carry a 25-year output warranty.")
    [ingested] = workspace.ingestor.ingest_paths([source])
    response = workspace.ask("How much do the HX-450 panels weigh?")
    print(json.dumps({
        "ingest": ingested.status, "answer": response.answer, "flags": response.safety_flags,
        "citations": [c.filename for c in response.citations], "vectors": workspace.kb.vectors.location,
        "llm": workspace.llm.name, "turn_saved": workspace.kb.catalog.turn(response.trace_id) is not None,
        "blocked": network_guard.ATTEMPTS,
    }))
finally:
    if chroma is not None:
        chroma.terminate()
        chroma.wait(timeout=30)
