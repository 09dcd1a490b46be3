"""The command-line surface. Never imports textual."""
