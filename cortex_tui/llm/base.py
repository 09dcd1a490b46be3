"""The `LLMClient` protocol and the retry and concurrency rules every backend shares.

The engine needs two things from a language model: a system prompt and a user message in,
text out; or the same in and a JSON object of a given schema out (the write-path judge:
each backend has its own way of holding a model to a schema, so the protocol asks for the
object, not for text to parse). Keeping that surface this small lets capture,
contradiction checks and re-ranking run against Claude, an OpenAI-compatible gateway,
Ollama or a test double alike. This module imports only the standard library, so
choosing "no LLM" costs nothing.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from cortex_tui.errors import CortexError

_T = TypeVar("_T")

Sleep = Callable[[float], None]

BACKOFF_SECONDS = 0.5
MAX_RETRY_AFTER_SECONDS = 30.0


class LLMError(CortexError):
    """The LLM could not answer (unreachable, rejected the key, refused, timed out).

    Callers treat it as "no LLM this time" and fall back to the offline heuristics.
    """


@dataclass(frozen=True, slots=True)
class JsonTool:
    """A structured answer the model must give: its name, what it is for, and the JSON
    schema of the object (Anthropic's tool input, OpenAI's and Ollama's response format)."""

    name: str
    description: str
    schema: Mapping[str, Any]


@runtime_checkable
class LLMClient(Protocol):
    @property
    def name(self) -> str:
        """Provider and model, e.g. `anthropic:claude-haiku-5-5`, for logs and `stats`."""
        ...

    def complete(self, system: str, user: str, max_tokens: int, timeout: float) -> str:
        """The model's text answer; raises `LLMError` once retries are exhausted."""
        ...

    def complete_json(
        self, system: str, user: str, tool: JsonTool, max_tokens: int, timeout: float
    ) -> dict[str, Any]:
        """The model's answer as the object `tool` describes; raises `LLMError` for a
        refusal or an answer that is not a JSON object. Checking the object's fields
        against the schema is the caller's job (not every backend enforces it)."""
        ...


class RetryableLLMError(Exception):
    """A failure worth another attempt (429, 5xx, timeout, connection); internal only.

    Its message is the user-facing reason, reused in the final `LLMError`.
    """

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


_semaphores: dict[int, threading.BoundedSemaphore] = {}
_semaphores_lock = threading.Lock()


def process_semaphore(limit: int) -> threading.BoundedSemaphore:
    """The process-wide slot pool for `limit` concurrent requests.

    Every client built from the same `llm.max_concurrency` shares one pool, so a service
    capturing many turns at once never opens more requests than the provider allows.
    """
    if limit < 1:
        raise ValueError(f"max_concurrency must be at least 1, got {limit}")
    with _semaphores_lock:
        return _semaphores.setdefault(limit, threading.BoundedSemaphore(limit))


def call_with_retries(
    attempt: Callable[[], _T],
    *,
    retries: int,
    semaphore: threading.BoundedSemaphore,
    sleep: Sleep,
    backoff: float = BACKOFF_SECONDS,
) -> _T:
    """Run `attempt` until it succeeds, retrying `RetryableLLMError` with backoff.

    Waits `backoff · 2^n` seconds (or the server's Retry-After, capped) between tries. A
    concurrency slot is held only while a request is in flight, never while sleeping.
    """
    tries = 0
    while True:
        try:
            with semaphore:
                return attempt()
        except RetryableLLMError as exc:
            if tries >= retries:
                raise LLMError(f"{exc} (tried {tries + 1} times)") from None
            delay = backoff * 2**tries
            if exc.retry_after is not None:
                delay = min(max(exc.retry_after, 0.0), MAX_RETRY_AFTER_SECONDS)
            sleep(delay)
            tries += 1


@dataclass(frozen=True, slots=True)
class Retries:
    """How a client calls its provider: each call retried up to `count` times on a
    transient failure, in `semaphore`'s slots (shared by every client with the same
    `llm.max_concurrency`), sleeping with `sleep` (instant in tests)."""

    count: int
    semaphore: threading.BoundedSemaphore
    sleep: Sleep

    @classmethod
    def of(cls, retries: int, max_concurrency: int, sleep: Sleep) -> Retries:
        return cls(retries, process_semaphore(max_concurrency), sleep)

    def run(self, attempt: Callable[[], _T]) -> _T:
        """`attempt` through `call_with_retries` under these limits."""
        return call_with_retries(
            attempt, retries=self.count, semaphore=self.semaphore, sleep=self.sleep
        )


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header given in seconds; None for absent or a date."""
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def chat_messages(system: str, user: str) -> list[dict[str, str]]:
    """Chat-API messages; an empty system prompt is left out rather than sent blank."""
    messages = [{"role": "system", "content": system}] if system.strip() else []
    messages.append({"role": "user", "content": user})
    return messages


def json_object(text: str, who: str) -> dict[str, Any]:
    """The JSON object a model wrote as text; `LLMError` naming `who` when it is not one."""
    try:
        parsed = json.loads(text)
    except ValueError:
        raise LLMError(f"{who} answered with malformed JSON: {text.strip()[:80]!r}") from None
    if not isinstance(parsed, dict):
        raise LLMError(f"{who} answered with JSON that is not an object: {text.strip()[:80]!r}")
    return parsed


def within_budget(seconds: float, ask: Callable[[], _T]) -> tuple[_T | None, str]:
    """`ask()`'s answer if it comes within `seconds`, else None and why not.

    The call runs in a thread of its own: a provider that hangs past its own timeout
    (retries, a stuck connection) cannot hold the caller (a recall's re-rank, a write's
    judge), which goes on with what it had."""
    answer: list[_T] = []
    failure: list[str] = []

    def call() -> None:
        try:
            answer.append(ask())
        except Exception as exc:  # any failure leaves the caller's own answer
            failure.append(str(exc) or type(exc).__name__)

    worker = threading.Thread(target=call, name="cortex-llm-call", daemon=True)
    worker.start()
    worker.join(seconds)
    if answer:
        return answer[0], ""
    if failure:
        return None, failure[0]
    return None, f"no answer within {seconds:g} s"
