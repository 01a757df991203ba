"""The upload page's progress bar and its result agree on how many chunks a file gave."""


def test_embedding_progress_counts_the_chunks_the_result_reports(make_workspace, write_text):
    ws = make_workspace()
    events = []
    [result] = ws.ingestor.ingest_paths([write_text("notes.txt", "The pump is serviced every spring.\n")],
                                        progress=events.append)
    embedding = [e for e in events if e.step == "embedding"]
    assert embedding and {e.total for e in embedding} == {result.chunks}
    assert max(e.done for e in embedding) == result.chunks
