"""What every settings section is: a model that refuses keys it does not know, and
checks a value whenever one is set."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


RelevanceFloor = Annotated[float, Field(gt=0, lt=1)]
"""A relevance the gate asks of a memory (`recall/gate.py`): strictly between 0, which
gives everything, and 1, which gives nothing."""
