"""A team server's per-tenant limits (`[tenants]` in config): a tenant at its memory quota
is refused a write that would add more (413, one line), and a tenant past its request
rate is told to slow down (429 with Retry-After); neither touches another tenant."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from cortex_tui.errors import CortexError, TooLargeError
from cortex_tui.models import MemoryDraft, Scope
from cortex_tui.tenants.registry import TenantRegistry
from tests.server.team_server import team_server


def test_a_tenant_at_its_quota_cannot_add_memories(tmp_path: Path) -> None:
    with team_server(tmp_path / "server", CORTEX_TENANTS__MEMORIES="2") as server:
        registry = TenantRegistry(server.home)
        alice = server.engine(registry.add("alice", "web")[1])
        bob = server.engine(registry.add("bob", "web")[1])
        first = alice.remember(MemoryDraft(content="The billing API listens on port 8443"))
        alice.remember(MemoryDraft(content="The search cluster runs OpenSearch 2.11"))
        with pytest.raises(TooLargeError, match=r"tenant alice holds 2 memories.*\(2\)"):
            alice.remember(MemoryDraft(content="The ingest queue is Kafka"))
        with pytest.raises(TooLargeError):
            alice.capture("user: Remember that the ingest queue is Kafka.\nassistant: Noted.")
        # Changing or forgetting what it holds is still allowed; then there is room.
        changed = alice.update(first.memory.id, content="The billing API listens on port 9443")
        alice.forget(changed.id)
        alice.remember(MemoryDraft(content="The ingest queue is Kafka"))
        # Another tenant, and the team's shared store, have their own quota.
        bob.remember(MemoryDraft(content="Bob's pager rota starts on Mondays"))
        bob.remember(MemoryDraft(content="The web team ships on Thursdays", scope=Scope.TEAM))
        alice.remember(MemoryDraft(content="The web team's staging is eu-west-1", scope=Scope.TEAM))
        with pytest.raises(TooLargeError, match="the team's shared store holds 2"):
            bob.remember(MemoryDraft(content="The web team uses Renovate", scope=Scope.TEAM))


def test_a_tenant_past_its_rate_is_told_to_slow_down(tmp_path: Path) -> None:
    with team_server(tmp_path / "server", CORTEX_TENANTS__REQUESTS_PER_MINUTE="5") as server:
        registry = TenantRegistry(server.home)
        alice, bob = registry.add("alice")[1], registry.add("bob")[1]
        answers = [server.get("/v1/stats", alice) for _ in range(8)]
        assert [a.status_code for a in answers[:5]] == [200] * 5
        slowed = answers[-1]
        assert slowed.status_code == 429
        assert 1 <= int(slowed.headers["retry-after"]) <= 12
        assert "tenants.requests_per_minute (5)" in slowed.json()["message"]
        assert server.get("/v1/stats", bob).status_code == 200
        with pytest.raises(CortexError, match="requests_per_minute"):
            server.engine(alice).overview.stats()
        assert httpx.get(f"{server.url}/v1/stats").status_code == 401  # no key: no bucket
