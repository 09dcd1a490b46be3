"""Capture: turn conversation text into candidate memories.

With an LLM configured, `llm_extract` asks it; otherwise (the default) `heuristic` finds
durable statements offline. `transcript` reads Claude Code transcripts incrementally, and
`judge` asks an LLM whether a new statement updates or contradicts an existing one.
"""
