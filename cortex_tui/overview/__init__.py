"""The store seen whole: a 2-D map of its vectors, its vocabulary, its days, its vitals.

Pure computations over what the engine reads (`overview/reader.py` reads and caches);
the TUI's Map, Words, Timeline and Health panes draw their answers.
"""
