"""One adapter per agent (`adapter.py` says what each answers), and the registry the
turn's flow asks: an event is the first adapter's that recognises it, else plain text.

Also the set-up every agent shares: MCP client configuration (`mcp_clients.py`) and the
skill that teaches an agent to use cortex-tui (`skill/`).
"""

from __future__ import annotations

from cortex_tui.agent_turn.agents.claude_code.adapter import CLAUDE_CODE
from cortex_tui.agent_turn.agents.openclaw.adapter import OPENCLAW
from cortex_tui.agent_turn.agents.plain.adapter import PLAIN

ADAPTERS = (CLAUDE_CODE, OPENCLAW)
"""The agents whose events are recognised by their fields, asked in this order."""
EVERY_ADAPTER = (*ADAPTERS, PLAIN)

__all__ = ["ADAPTERS", "EVERY_ADAPTER", "PLAIN"]
