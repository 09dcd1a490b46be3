"""Agent hooks: `cortex-tui --hook pre|post` for Claude Code, OpenClaw and plain text.

Nothing here may break the agent: every path exits 0 and prints nothing on failure.
Modules import only the standard library at the top; the engine is imported when used.
"""
