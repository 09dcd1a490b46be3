"""Curation of memories by a person: conflict groups and the undo journal behind every action."""
