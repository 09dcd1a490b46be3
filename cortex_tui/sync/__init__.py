"""File sync: notes files and transcripts kept in step with memory (`cortex-tui sync`,
`cortex-tui watch`). A pass reads what changed (`run.py`) into the durable spool; the
spool's drainer applies it (`agent_turn/file_changes.py`); `deliver.py` gets it
stored, `watch.py` runs passes as files are saved."""
