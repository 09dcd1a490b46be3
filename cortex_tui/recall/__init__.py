"""Recall: candidate channels, fusion, the multi-factor score and "why not?"."""
