"""Capture: a turn's text → candidate statements worth keeping.

With an LLM configured, `llm_extract` asks it; otherwise (the default) `heuristic` finds
durable statements offline (`worth`, `units`, `annotate`, `quantities`). Judging a
candidate against what is stored is the write path's (`write/judge/`); reading an
agent's transcript is its adapter's (`agent_turn/agents/`).
"""
