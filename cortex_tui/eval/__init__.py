"""Golden-query evaluation of recall (`cortex-tui eval`)."""
