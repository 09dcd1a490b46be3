"""`cortex-tui mcp`: the engine as Model Context Protocol tools, for any MCP client.

A surface beside `cli/`, `hooks/` and `server/`: it reaches the engine as they do (the
local service when it runs or can be started, the calling process otherwise), and its
tools are derived from the engine's operation declarations (`engine/protocol.py`).
"""
