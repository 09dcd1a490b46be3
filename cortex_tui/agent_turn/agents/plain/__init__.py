"""Any other caller: a script or a tool that pipes a prompt to `cortex-tui --hook`."""
