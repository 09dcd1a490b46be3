"""The write path's judge: what a new statement is next to each stored neighbour.

`statement.py` reads a statement's structure (`slots.py`: what it says of what), the rules
in `contradiction.py` (and `rename.py`, `correction.py`) give each pair a verdict, and
`decision.py` settles it with the embeddings, asking a second opinion on close calls
only (`ambiguity.py`): a pair model of the user's own (`pair_model.py`), then an LLM
(`llm_judge.py`).
"""
