"""Widgets and modals the panes share, one concept per module."""
