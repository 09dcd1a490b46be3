"""`LocalCuration`: conflicts settled by hand, a forgotten memory brought back, and undo.

Every member a surface sees passes the read guard; what a step writes anew (a merged
statement, a restored version) passes the privacy step first.
"""

from __future__ import annotations

from cortex_tui.curation import journal
from cortex_tui.curation.groups import ConflictGroup, Curator
from cortex_tui.engine.core import EngineCore
from cortex_tui.engine.limits import check_content
from cortex_tui.errors import InvalidInputError
from cortex_tui.models import Memory
from cortex_tui.privacy.records import redact_memory
from cortex_tui.store.base import JournalEntry


class LocalCuration:
    def __init__(self, core: EngineCore) -> None:
        self._core = core
        self.curator = Curator(core.store, core.clock, core.write)

    def conflicts(self) -> list[ConflictGroup]:
        shown = self._core.shown
        return [
            group.model_copy(update={"members": [shown(m) for m in group.members]})
            for group in self.curator.conflicts()
        ]

    def resolve(self, group_id: str, keep_id: str) -> Memory:
        return self._core.shown(self.curator.resolve(group_id, keep_id))

    def merge(self, group_id: str, content: str) -> Memory:
        core = self._core
        check_content(content, core.settings.limits)
        content = core.safe_content(content)
        return self.curator.merge(
            group_id, content, core.document_vector(content), author=core.writer
        )

    def dismiss(self, group_id: str) -> list[Memory]:
        return [self._core.shown(m) for m in self.curator.dismiss(group_id)]

    def restore(self, memory_id: str) -> Memory:
        core = self._core
        old = core.stored(memory_id)
        current = core.chain(old.id)[-1]
        if not current.is_current:
            raise InvalidInputError(
                f"the newest version of {old.short_id}'s chain is not current "
                f"({current.status.value}); restore needs a current version to supersede"
            )
        # the version made current again is written anew: through the privacy step
        safe = redact_memory(core.privacy, old, core.clock())
        return self.curator.restore(safe, current, core.document_vector(safe.content))

    def undo(self, count: int = 1) -> list[JournalEntry]:
        return journal.undo(self._core.store, self._core.clock(), count, graph=self._core.graph)
