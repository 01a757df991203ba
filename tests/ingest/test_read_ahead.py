"""A batch reads its next file while the current one is embedded; writes stay in the batch's order."""
from __future__ import annotations

import threading
import time

import core.ingest.pipeline as pipeline


class SlowEmbedder:
    """The real embedder, with a pause, and a record of when each file's chunks were embedded."""

    def __init__(self, inner, log):
        self.inner, self.log = inner, log
        self.model_name, self.dim, self.count_tokens = inner.model_name, inner.dim, inner.count_tokens

    def embed(self, texts):
        self.log.append(("embed", texts[0][:40], time.perf_counter()))
        time.sleep(0.5)
        return self.inner.embed(texts)


def test_the_next_file_is_read_while_this_one_is_embedded(make_workspace, write_text, embedder, monkeypatch):
    log = []
    real_load = pipeline.load_isolated

    def recorded_load(path, settings, filename, doc_id, timeout):
        log.append(("read", filename, threading.current_thread().name, time.perf_counter()))
        return real_load(path, settings, filename, doc_id, timeout)

    monkeypatch.setattr(pipeline, "load_isolated", recorded_load)
    ws = make_workspace()
    ws.kb.embedder = SlowEmbedder(embedder, log)
    names = ["a.txt", "b.txt", "c.txt"]
    files = [write_text(name, f"File {name}: the pump at site {i} is serviced every spring.\n")
             for i, name in enumerate(names)]

    results = ws.ingestor.ingest_paths(files)

    assert [r.filename for r in results] == names and all(r.ok for r in results)
    reads = {entry[1]: entry for entry in log if entry[0] == "read"}
    assert sorted(reads) == names  # each file read once
    assert reads["b.txt"][2].startswith("read-ahead") and reads["c.txt"][2].startswith("read-ahead")
    first_embedding_ended = [e[2] for e in log if e[0] == "embed"][1]  # file a's chunks, then its summary
    assert reads["b.txt"][3] < first_embedding_ended
    assert [d.filename for d in sorted(ws.kb.documents(), key=lambda d: d.created_at)] == names


def test_a_file_changed_after_it_was_read_ahead_is_read_again(make_workspace, write_text, monkeypatch):
    first = write_text("first.txt", "The first file.\n")
    second = write_text("second.txt", "The old text of the second file.\n")
    real_ingest_one = pipeline.Ingestor._ingest_one

    def change_second_after_first(self, path, filename, index, count, progress, read=None):
        if filename == "second.txt":
            read.result()  # the read ahead is done; now the user saves a new version
            second.write_text("The new text of the second file, saved while the first was indexed.\n")
        return real_ingest_one(self, path, filename, index, count, progress, read)

    monkeypatch.setattr(pipeline.Ingestor, "_ingest_one", change_second_after_first)
    ws = make_workspace()
    ws.ingestor.ingest_paths([first, second])

    hit = ws.retriever.search("saved while the first was indexed", top_k=1).hits[0]
    assert hit.filename == "second.txt" and "new text" in hit.text


def test_a_path_relative_to_the_callers_folder_is_read(make_workspace, write_text, monkeypatch):
    # the reader runs in a child process whose folder is the project's, not the caller's
    path = write_text("relative.txt", "The boiler at the depot is serviced every autumn.\n")
    monkeypatch.chdir(path.parent)
    ws = make_workspace()

    [result] = ws.ingestor.ingest_paths([type(path)(path.name)])

    assert result.ok, result.message
