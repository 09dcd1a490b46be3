"""The Textual app: the only package that imports textual, loaded after argument parsing."""
