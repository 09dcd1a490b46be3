"""Recall's channels, in the order they run and are shown (`channels/base.py` says what a
channel is). Adding one is a module here, its line below and its settings."""

from __future__ import annotations

from cortex_tui.recall.channels.base import Channel
from cortex_tui.recall.channels.dense import DenseChannel
from cortex_tui.recall.channels.graph import GraphChannel
from cortex_tui.recall.channels.lexical import LexicalChannel

CHANNELS: tuple[Channel, ...] = (DenseChannel(), LexicalChannel(), GraphChannel())
