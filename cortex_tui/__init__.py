"""cortex-tui: long-term memory for AI coding agents.

The package root imports nothing heavy: hooks and `--help` must start in milliseconds.

It does set one thing before numpy can load: its OpenBLAS to one thread. A hook, a CLI
command or the service multiplies small matrices (a query against a few hundred
candidates); OpenBLAS's extra threads, one a core, spin after each call and cost a
command ~0.1 s of CPU for nothing (`cortex-tui recall`: 0.97 -> 0.86 s CPU). The model
itself runs in ONNX Runtime's own threads. A value already set is kept.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
