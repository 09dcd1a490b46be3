"""The store as the app sees it as a whole, before any pane asks it anything."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cortex_tui.overview.models import Vitals


class StoreState(Enum):
    STARTING = "starting"
    """The engine is still opening (the local service starting, a large store loading)."""
    FAILED = "failed"
    """The engine could not be opened: nothing can work, and the reason is shown."""
    EMPTY = "empty"
    """Not one memory yet: the panes stand aside for the first-run guide."""
    READY = "ready"


def state_of(vitals: Vitals | None) -> StoreState:
    """EMPTY only when the store says it holds nothing; a store that cannot say (its
    count failed) is left to the panes, whose own calls name the problem."""
    if vitals is not None and vitals.memories == 0:
        return StoreState.EMPTY
    return StoreState.READY
