"""The skill that teaches an agent to use cortex-tui on its own initiative (`SKILL.md`),
and where each agent reads it from."""
