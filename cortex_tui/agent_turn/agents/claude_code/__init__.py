"""cortex-tui for Claude Code: its hooks' events and output (`adapter.py`), its
transcripts (`transcript.py`), and the hooks added to its settings file
(`hook_settings.py`)."""
