"""The durable spool: what an agent's turn, a memory to remember or a notes file left to
store waits in until it is captured (`durable.py`), and what its lines hold
(`entries.py`). Standard library only: the hook process writes it when no service
answers."""
