"""The entity graph: its in-memory view for the recall graph channel."""
