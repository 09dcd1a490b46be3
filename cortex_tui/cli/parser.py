"""The argument parser. Building it imports nothing heavy, so `--help` stays instant."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from cortex_tui.cli import (
    agent_commands,
    backup_commands,
    capture_commands,
    curation_commands,
    docs_commands,
    entity_commands,
    given_commands,
    hook_commands,
    maintenance_commands,
    mcp_commands,
    model_commands,
    session_commands,
    sync_commands,
    tenant_commands,
)
from cortex_tui.cli.args import OneLineParser, Subparsers, csv_list
from cortex_tui.models import MemoryStatus, MemoryType, Scope

if TYPE_CHECKING:
    from cortex_tui.cli.context import CommandContext


class CommandGroup(Protocol):
    """A module of commands: it adds its parsers, and names the handler of each."""

    HANDLERS: dict[str, Callable[[CommandContext], int]]

    def register(self, sub: Subparsers, common: OneLineParser) -> None: ...


COMMAND_GROUPS: tuple[CommandGroup, ...] = (
    curation_commands,
    entity_commands,
    capture_commands,
    maintenance_commands,
    backup_commands,
    hook_commands,
    mcp_commands,
    agent_commands,
    model_commands,
    sync_commands,
    tenant_commands,
    given_commands,
    session_commands,
    docs_commands,
)
"""In the order `--help` lists them, after the memory and store commands."""

TYPES = [t.value for t in MemoryType]
SCOPES = [s.value for s in Scope]
STATUSES = [s.value for s in MemoryStatus]


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="cortex-tui",
        description="Long-term memory for AI coding agents: recall, capture, curate.",
    )
    parser.add_argument("--home", help="store and config folder (default: $CORTEX_HOME)")
    common = OneLineParser(add_help=False)
    common.add_argument("--json", action="store_true", help="machine-readable output")
    common.add_argument(
        "--no-daemon",
        action="store_true",
        help="open the store in this process instead of using the local service",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    _memory_commands(sub, common)
    _store_commands(sub, common)
    for group in COMMAND_GROUPS:
        group.register(sub, common)
    return parser


def _memory_commands(sub: Subparsers, common: OneLineParser) -> None:
    p = sub.add_parser("remember", parents=[common], help="store a memory")
    p.add_argument("content", help="the text to remember ('-' reads stdin)")
    p.add_argument("--type", choices=TYPES, help="default: classified from the text")
    p.add_argument("--scope", choices=SCOPES)
    p.add_argument("--project")
    p.add_argument("--tags", type=csv_list, default=[], help="comma-separated")
    p.add_argument("--confidence", type=float)
    p.add_argument("--session")
    p.add_argument("--ttl-hours", type=float)

    p = sub.add_parser("recall", parents=[common], help="ranked memories for a query")
    _recall_options(p)
    p.add_argument(
        "--min-relevance",
        nargs="?",
        const=GATE_FLOOR,
        metavar="FLOOR",
        help="only memories that bear on the query, as an agent's prompt gets them: none "
        "unless the best reaches FLOOR (0-1; alone: the hooks' floor, recall.gate_floor)",
    )
    p.add_argument("--explain", action="store_true", help="per-signal score breakdown")
    p.add_argument("--context", action="store_true", help="print only the context block")
    p.add_argument(
        "--no-access-update", action="store_true", help="do not count this recall as an access"
    )

    p = sub.add_parser(
        "explain",
        parents=[common],
        help="why not? where a memory ranks for a query and what holds it back",
    )
    p.add_argument("query")
    p.add_argument("memory_id")
    _recall_filters(p)

    p = sub.add_parser("search", parents=[common], help="memories whose content has every word")
    p.add_argument("text")
    _list_filters(p)

    p = sub.add_parser(
        "get",
        aliases=["show"],
        parents=[common],
        help="one memory with every field, and the turn it was taken from",
    )
    p.add_argument("memory_id")

    p = sub.add_parser("history", parents=[common], help="the version chain of a memory")
    p.add_argument("memory_id")

    p = sub.add_parser("list", parents=[common], help="browse memories")
    _list_filters(p)

    p = sub.add_parser(
        "update", parents=[common], help="write a new version superseding the old one"
    )
    p.add_argument("memory_id")
    p.add_argument("--content")
    p.add_argument("--type", choices=TYPES)
    p.add_argument("--scope", choices=SCOPES)
    p.add_argument("--tags", type=csv_list)
    p.add_argument("--project")
    p.add_argument("--confidence", type=float)

    p = sub.add_parser("forget", parents=[common], help="soft-delete a memory")
    p.add_argument("memory_id")

    p = sub.add_parser(
        "purge", parents=[common], help="permanently remove forgotten and archived memories"
    )
    p.add_argument("--yes", action="store_true", help="confirm; nothing is removed without it")


def _store_commands(sub: Subparsers, common: OneLineParser) -> None:
    sub.add_parser("stats", parents=[common], help="counts by type, scope, project")
    p = sub.add_parser("health", parents=[common], help="check the store and the embedder")
    p.add_argument(
        "--deep",
        action="store_true",
        help="also read back every memory and check the spool, permissions and newest backup",
    )

    p = sub.add_parser("export", parents=[common], help="write every memory, entity, relation")
    p.add_argument("--output", "-o", help="file to write (default: stdout)")

    p = sub.add_parser("import", parents=[common], help="read an export (JSONL)")
    p.add_argument("file", help="JSONL file ('-' reads stdin)")
    p.add_argument(
        "--skip-invalid", action="store_true", help="import the valid lines and report the others"
    )

    p = sub.add_parser(
        "reembed",
        parents=[common],
        help="re-embed the store with another embedder, or rebuild its index with the same one",
    )
    p.add_argument(
        "--to",
        required=True,
        metavar="MODEL",
        help="an ONNX model by name (see `cortex-tui model list`), or onnx, ollama, hashing "
        "(the kind, with its configured model)",
    )

    p = sub.add_parser(
        "eval",
        parents=[common],
        help="evaluate recall (golden queries, LoCoMo, LongMemEval), the write path's "
        "judgement (pairs) and capture (real sessions replayed through the hooks)",
    )
    p.add_argument("paths", nargs="+", help="dataset files (.json / .jsonl) or folders")
    p.add_argument(
        "--k",
        type=csv_list,
        help="cut-offs, e.g. 5,10 (default: the dataset's — LoCoMo 5,10,25,50 — else each "
        "query's k)",
    )
    p.add_argument(
        "--embedder",
        choices=["onnx", "hashing"],
        help="embedder for the eval stores (default: configured)",
    )
    p.add_argument(
        "--only",
        type=csv_list,
        metavar="NAMES",
        help="run only these datasets, e.g. conv-26,conv-30 (LoCoMo: conversations; "
        "LongMemEval: question ids; a sessions corpus: session ids, or its part: dev, "
        "held-out); a file given here stands for the names it lists, one a line",
    )
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="change a recall or embedder setting for the run, e.g. recall.lexical_weight=0.3"
        " (repeatable)",
    )
    p.add_argument(
        "--variant",
        action="append",
        metavar="NAME:KEY=VALUE,...",
        help="also rank the same stores with these recall settings, e.g. "
        "dense:recall.fusion=dense (repeatable; one row per variant)",
    )
    p.add_argument(
        "--by-category",
        action="store_true",
        help="per-category figures for every variant (always shown for a single run)",
    )
    p.add_argument(
        "--llm-replay",
        type=csv_list,
        metavar="MODES",
        help="pairs datasets: also judge close calls with an LLM whose answers are replayed "
        "over a mock transport: oracle (each answer the pair's label: the ceiling), "
        "contrary (each answer wrong: the floor); e.g. oracle,contrary",
    )
    p.add_argument(
        "--transcripts",
        metavar="DIR",
        help="sessions corpora: the folder holding the transcripts a corpus does not ship "
        "(ID.jsonl; its README says where each comes from)",
    )
    p.add_argument(
        "--no-vector-cache",
        action="store_true",
        help="embed every memory afresh (by default memory vectors are kept in the "
        "home's cache/ between runs, keyed by model and text)",
    )
    p.add_argument(
        "--through-capture",
        action="store_true",
        help="LongMemEval: play each conversation through the capture path exchange by "
        "exchange (memories and the turn archive, as a user's hooks keep it) instead of "
        "storing every turn raw; evidence is found through what capture kept of it",
    )
    p.add_argument(
        "--link-entities",
        action="store_true",
        help="link each memory to the entities capture would find in it (LoCoMo's turns "
        "are stored raw, without any)",
    )

    p = sub.add_parser("demo", parents=[common], help="demo data")
    p.add_argument("action", choices=["load"])

    p = sub.add_parser("bench", parents=[common], help="measure latency and throughput")
    p.add_argument("--sizes", type=csv_list, default=["1000", "10000", "100000"])
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--embedder", choices=["onnx", "hashing"], default="onnx")
    p.add_argument(
        "--hook-runs",
        type=int,
        default=20,
        help="hook runs and MCP tool calls through a real service (0: skip)",
    )
    p.add_argument(
        "--archive-turns",
        type=int,
        default=0,
        help="turns in the turn archive of the store the hooks run on (two messages each)",
    )
    p.add_argument(
        "--cold-runs",
        type=int,
        default=10,
        help="cold starts timed: the service spawned to its first answer, and a pre hook "
        "with no service running, quiet and beside busy cores (0: skip)",
    )
    p.add_argument(
        "--import-count", type=int, default=2000, help="memories the import row takes in"
    )
    p.add_argument(
        "--remember-count",
        type=int,
        default=300,
        help="memories the remember row writes one at a time, through the write path",
    )
    p.add_argument(
        "--sync-lines",
        type=int,
        default=10_000,
        help="lines of the notes file `sync` takes in through the service (0: skip)",
    )
    p.add_argument(
        "--sync-saves",
        type=int,
        default=20,
        help="saves timed from the file to recallable while `watch` runs (0: skip)",
    )
    p.add_argument(
        "--load-sessions",
        type=int,
        default=8,
        help="agent sessions hooking into one service at once (0: skip the load run)",
    )
    p.add_argument("--load-turns", type=int, default=25, help="turns each of those sessions takes")
    p.add_argument(
        "--views",
        type=csv_list,
        default=["10000", "100000"],
        help="store sizes to time the TUI's Map, Words, Days and Health panes on ('': skip)",
    )
    p.add_argument(
        "--first-frame-runs",
        type=int,
        default=5,
        help="starts of the TUI timed to its first frame, demo and empty store (0: skip)",
    )
    p.add_argument(
        "--privacy",
        nargs="*",
        metavar="PATH",
        help="also run the privacy step over texts with no secret: the demo store, and "
        "each LoCoMo file's turns or folder's notes given (what it changes, how fast)",
    )
    p.add_argument(
        "--load-think-ms",
        type=int,
        default=0,
        help="milliseconds a session waits after each prompt, as its model answers "
        "(0: back to back)",
    )


def _recall_filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--project")
    p.add_argument("--type", dest="types", action="append", choices=TYPES)
    p.add_argument("--tags", type=csv_list)
    p.add_argument("--limit", type=int)
    p.add_argument("--include-history", action="store_true")
    p.add_argument("--as-of", help="ISO time: what was true then")
    p.add_argument("--profile", help="weight profile from config [profiles.NAME]")
    p.add_argument("--fusion", choices=["weighted", "rrf", "dense"])


GATE_FLOOR = "gate"
"""`--min-relevance` alone: the floor the hooks gate prompts at."""


def _recall_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("query")
    _recall_filters(p)
    p.add_argument("--budget", type=int, help="token budget of the context block")


def _list_filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--project")
    p.add_argument("--type", dest="types", action="append", choices=TYPES)
    p.add_argument("--scope", dest="scopes", action="append", choices=SCOPES)
    p.add_argument("--tags", type=csv_list)
    p.add_argument("--status", dest="statuses", action="append", choices=STATUSES)
    p.add_argument("--all-versions", action="store_true", help="include superseded versions")
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--offset", help="the next-page offset printed by the previous page")
