"""The local engine's parts, each with the state it alone keeps, performing the operations
its protocol declares (`engine/protocol.py`): curation, the overview, upkeep. Each is
handed the engine's core (`engine/core.py`), never the engine."""
