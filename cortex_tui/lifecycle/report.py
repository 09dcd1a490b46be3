"""What a lifecycle run did (or, in a dry run, would do): the ids each phase touched.

The report carries ids rather than memories so it stays small on the wire and in
`--json` output; `cortex-tui get ID` shows any of them in full.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, computed_field

from cortex_tui.models import UtcDatetime


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Merge(_Model):
    """One consolidation: `merged_ids` were folded into (superseded by) `survivor_id`."""

    survivor_id: str
    merged_ids: list[str]


class Resolution(_Model):
    """One auto-resolved conflict group: the losers are superseded by the winner."""

    group_id: str
    winner_id: str
    loser_ids: list[str]


class LifecycleReport(_Model):
    """Per phase, the memories affected; `journal_ids` are the undo entries written
    (none in a dry run), so `undo --count len(journal_ids)` reverses the whole run."""

    # `counts` is derived and serialised; reading a report back (the service's client)
    # ignores it instead of rejecting it as an unknown field.
    model_config = ConfigDict(extra="ignore")

    now: UtcDatetime
    dry_run: bool
    expired: list[str] = Field(default_factory=list)
    decayed: list[str] = Field(default_factory=list)
    merges: list[Merge] = Field(default_factory=list)
    resolutions: list[Resolution] = Field(default_factory=list)
    journal_ids: list[str] = Field(default_factory=list)
    archive_removed: int = Field(
        default=0,
        description="archived messages removed, past `archive.keep_days` or beyond "
        "`archive.max_messages` (none are journalled: the backup taken first keeps them)",
    )
    backup: str | None = None
    """The backup taken before the run changed anything (None: none was taken)."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def counts(self) -> dict[str, int]:
        """How many memories each phase retired (consolidation: folded members)."""
        return {
            "ttl_expired": len(self.expired),
            "session_decayed": len(self.decayed),
            "consolidated": sum(len(m.merged_ids) for m in self.merges),
            "conflicts_resolved": len(self.resolutions),
            "archive_removed": self.archive_removed,
        }

    @property
    def changed(self) -> bool:
        return any(self.counts.values())
