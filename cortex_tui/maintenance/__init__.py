"""Keeping a store safe: backups and restores, repair, re-embedding, checks, export."""
