"""The shared retry loop: backoff, Retry-After, and the final error."""

from __future__ import annotations

import threading

import pytest

from cortex_tui.llm.base import (
    LLMError,
    RetryableLLMError,
    call_with_retries,
    parse_retry_after,
)


def test_backoff_doubles_and_retry_after_is_capped() -> None:
    sleeps: list[float] = []
    failures = [
        RetryableLLMError("busy"),
        RetryableLLMError("busy", retry_after=120.0),
        RetryableLLMError("busy"),
    ]

    def attempt() -> str:
        if failures:
            raise failures.pop(0)
        return "done"

    result = call_with_retries(
        attempt, retries=3, semaphore=threading.BoundedSemaphore(1), sleep=sleeps.append
    )
    assert result == "done"
    assert sleeps == [0.5, 30.0, 2.0]


def test_exhausted_retries_raise_the_last_reason() -> None:
    def attempt() -> str:
        raise RetryableLLMError("gateway answered HTTP 503")

    with pytest.raises(LLMError, match=r"^gateway answered HTTP 503 \(tried 1 times\)$"):
        call_with_retries(
            attempt, retries=0, semaphore=threading.BoundedSemaphore(1), sleep=lambda _: None
        )


def test_final_errors_pass_through_without_retry() -> None:
    calls = 0

    def attempt() -> str:
        nonlocal calls
        calls += 1
        raise LLMError("bad key")

    with pytest.raises(LLMError, match="bad key"):
        call_with_retries(
            attempt, retries=5, semaphore=threading.BoundedSemaphore(1), sleep=lambda _: None
        )
    assert calls == 1


@pytest.mark.parametrize(
    ("header", "seconds"),
    [("3", 3.0), ("0.5", 0.5), (None, None), ("Wed, 21 Oct 2026 07:28:00 GMT", None)],
)
def test_parse_retry_after(header: str | None, seconds: float | None) -> None:
    assert parse_retry_after(header) == seconds
