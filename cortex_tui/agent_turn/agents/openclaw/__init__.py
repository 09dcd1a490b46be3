"""cortex-tui for OpenClaw: the plugin shipped in `plugin/`, its installer, and the
turns of a session its `agent_end` events have not handed over yet."""
