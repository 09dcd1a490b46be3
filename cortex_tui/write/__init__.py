"""The write path every new memory takes, and the indexes written beside it."""
