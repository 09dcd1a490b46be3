"""The Health pane: is memory being kept, and what to do when it is not.

The local service (running or not, its uptime and captures), the store's size, the
spool (depth, the age of its oldest entry), the last capture, the hooks over the last
day (runs, p50 / p95, failures, from the hook log), the embedder and the LLM. Every
concern comes with the action that fixes it. Refreshed every few seconds while shown
(not in stable mode, where screenshots need one fixed frame).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from cortex_tui.clients import local_service
from cortex_tui.engine.protocol import Engine
from cortex_tui.maintenance.vitals import service_concerns
from cortex_tui.overview.models import Concern, HookFigures, Vitals
from cortex_tui.tui.formatting import ago
from cortex_tui.tui.panes.base import Answered, Pane, titled

REFRESH_SECONDS = 5.0
LABEL = 14


@dataclass(frozen=True)
class HealthView:
    vitals: Vitals
    service: dict[str, Any] | None
    now: datetime

    @property
    def concerns(self) -> list[Concern]:
        return [*service_concerns(self.service), *self.vitals.concerns]


def _row(label: str, *value: Content | str | tuple[str, str]) -> Content:
    return Content.assemble((label.ljust(LABEL), "$text-muted"), *value)


def _mark(ok: bool) -> tuple[str, str]:
    return ("✓ ", "bold $success") if ok else ("✗ ", "bold $error")


def _duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours < 48 else f"{hours // 24} days"


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def service_row(service: dict[str, Any] | None, stable: bool) -> Content:
    if service is None:
        return _row("Service", _mark(False), "not running")
    details = "" if stable else f" · pid {service['pid']} · up {_duration(service['uptime_s'])}"
    return _row(
        "Service", _mark(True), "running", details, f" · {service['captured']:,} turns captured"
    )


def hook_row(figures: HookFigures) -> Content:
    label = f"{figures.kind.capitalize()} hook"
    if not figures.runs:
        return _row(label, ("no runs in the last day", "$text-muted"))
    timing = (
        f" · p50 {figures.p50_ms:.0f} ms · p95 {figures.p95_ms:.0f} ms"
        if figures.p50_ms is not None and figures.p95_ms is not None
        else ""
    )
    return _row(
        label,
        _mark(not figures.failures),
        f"{figures.runs:,} runs in the last day{timing} · ",
        (f"{figures.failures} failed", "bold $error" if figures.failures else ""),
    )


def vitals_content(view: HealthView, stable: bool) -> Content:
    vitals = view.vitals
    spool = f"{vitals.spool_pending:,} waiting"
    if vitals.spool_oldest_s is not None:
        spool += f", the oldest for {_duration(vitals.spool_oldest_s)}"
    if vitals.spool_quarantined:
        spool += f", {vitals.spool_quarantined} lines quarantined"
    last = (
        f"{vitals.last_capture:%Y-%m-%d %H:%M} ({ago(vitals.last_capture, view.now)})"
        if vitals.last_capture
        else "none yet: install the hooks with `cortex-tui hook install`"
    )
    # The path and the disk blocks differ between machines and runs.
    store = "" if stable else f"{vitals.store} · {_megabytes(vitals.store_bytes)} · "
    llm = vitals.llm if vitals.llm != "none" else "none (offline: rules extract and judge)"
    rows = [
        service_row(view.service, stable),
        _row("Store", f"{store}{vitals.memories:,} memories"),
        _row("Spool", _mark(vitals.spool_ok), spool),
        _row("Last capture", last),
        *(hook_row(figures) for figures in vitals.hooks),
        _row("Embedder", vitals.embedder),
        _row("LLM", llm),
    ]
    return Content("\n").join(rows)


def concerns_content(concerns: list[Concern]) -> Content:
    if not concerns:
        return Content.assemble(_mark(True), "nothing needs you")
    lines = []
    for concern in concerns:
        lines.append(Content.assemble(_mark(False), (concern.found, "bold")))
        lines.append(Content.assemble(("  → ", "$accent"), concern.fix))
    return Content("\n").join(lines)


class HealthLoaded(Answered[HealthView]):
    """The store's vitals and the service's state."""


class HealthPane(Pane):
    """Service, store, spool, capture and hooks at a glance, each concern with its fix."""

    pane_id = "health"
    title = "Health"
    key = "0"
    purpose = "Health shows whether memory is being kept, and what to do when it is not."
    useful_when_empty = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "reload", "Refresh", id="health.reload"),
    ]

    DEFAULT_CSS = """
    HealthPane #health-body { padding: 0 1; }
    HealthPane #health-vitals, HealthPane #health-concerns {
        height: auto; border: round $panel-lighten-2; padding: 0 1;
    }
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self._timer: Timer | None = None
        self.view: HealthView | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="health-body"):
            yield titled(Static("Checking…", id="health-vitals"), "Vitals")
            yield titled(Static(id="health-concerns"), "Concerns")

    def on_mount(self) -> None:
        if not self.stable:
            self._timer = self.set_interval(REFRESH_SECONDS, self._tick)

    def _tick(self) -> None:
        if self.is_on_screen:
            self.reload()

    def reload(self) -> None:
        engine, home = self.engine, getattr(self.app, "home", None)

        def call() -> HealthView:
            service = local_service.status(home) if isinstance(home, Path) else None
            return HealthView(engine.upkeep.vitals(), service, engine.now())

        self.call_engine(call, HealthLoaded, name="health")

    @on(HealthLoaded)
    def _health_loaded(self, message: HealthLoaded) -> None:
        self.show(message.result)

    def show(self, view: HealthView) -> None:
        self.view = view
        self.query_one("#health-vitals", Static).update(vitals_content(view, self.stable))
        concerns = view.concerns
        box = self.query_one("#health-concerns", Static)
        box.border_title = f"Concerns ({len(concerns)})" if concerns else "Concerns"
        box.update(concerns_content(concerns))

    def action_reload(self) -> None:
        self.reload()
