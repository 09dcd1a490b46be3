"""The turn archive: every captured turn kept as it was said, so nothing said is lost.

Capture keeps what its rules judge durable, a memory at a time; the rest of a turn — a
detail the person gave in passing, the agent's answer — was gone. The archive keeps each
message of every captured turn (after the privacy step, code and pasted logs left out as
capture leaves them out) in a collection of its own beside the memories, memory-shaped so
the store searches it with the same channels (`Store.archive`). An archived message is
never a memory: it is never judged, superseded or reinforced, and never changes one.

- `messages.py`: a turn's text → its messages, sentence by sentence.
- `writer.py`: messages → archived records with their vectors, once per turn.
- `quotes.py`: the archive as a recall channel: the sentences that bear on a query,
  quoted with their date into the prompt's block after the memories.
"""
