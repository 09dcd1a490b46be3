"""The privacy step on text: every secret of the corpus, in every way it is written, comes
out as its placeholder; technical text that holds none comes out as it went in."""

from __future__ import annotations

import pytest

from cortex_tui.config import PrivacyConfig
from cortex_tui.privacy.redactor import Redactor
from tests.privacy.corpus import BENIGN, CONTEXTS, SECRETS, Secret
from tests.privacy.leaks import fragments

REDACTOR = Redactor(PrivacyConfig())


@pytest.mark.parametrize("context", sorted(CONTEXTS))
@pytest.mark.parametrize("secret", SECRETS, ids=lambda s: f"{s.family}:{s.value[:12]}")
def test_every_secret_becomes_its_placeholder(secret: Secret, context: str) -> None:
    text = CONTEXTS[context](secret)
    redacted = REDACTOR.redact(text)
    assert not [part for part in fragments(secret.value) if part in redacted.text]
    assert f"[secret: {secret.kind}]" in redacted.text
    assert secret.kind in redacted.kinds
    assert secret.value not in redacted.describe()


@pytest.mark.parametrize("text", BENIGN)
def test_technical_text_without_a_secret_is_left_as_it_is(text: str) -> None:
    assert REDACTOR.redact(text).text == text


def test_what_is_around_a_secret_stays() -> None:
    said = "Use this for staging from now on: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPx"
    said += "RfiCYzK3d9QpLx2 and deploy on Fridays."
    assert REDACTOR.clean(said) == (
        "Use this for staging from now on: AWS_SECRET_ACCESS_KEY=[secret: AWS secret key] "
        "and deploy on Fridays."
    )


def test_a_private_key_is_removed_whole_even_cut_short() -> None:
    for secret in (s for s in SECRETS if s.kind == "private key"):
        text = f"my key:\n{secret.said}\n\nThe deploy uses it."
        redacted = REDACTOR.clean(text)
        assert redacted == "my key:\n[secret: private key]\n\nThe deploy uses it."


def test_redacting_twice_changes_nothing_more() -> None:
    for secret in SECRETS:
        once = REDACTOR.clean(CONTEXTS["prose"](secret))
        assert REDACTOR.redact(once).text == once
        assert not REDACTOR.redact(once).changed


def test_private_spans_are_left_out_whole_whatever_detection_says() -> None:
    off = Redactor(PrivacyConfig(detect_secrets=False))
    text = "Deploys go through Argo CD <private>and my home address is 12 Elm St</private> now."
    for redactor in (REDACTOR, off):
        redacted = redactor.redact(text)
        assert redacted.text == "Deploys go through Argo CD now."
        assert redacted.private_spans == 1
    unclosed = "Keep the runbook short. <PRIVATE> the on-call phone is 555-0100\nand more"
    assert REDACTOR.clean(unclosed) == "Keep the runbook short."
    paragraphs = f"{unclosed}\n\nDeploys go out on Tuesdays."
    assert REDACTOR.clean(paragraphs) == "Keep the runbook short.\n\nDeploys go out on Tuesdays."
    spanning = "Staging notes <private>\n## Creds\n\nalice / Winter-1999\n</private> end."
    assert REDACTOR.clean(spanning) == "Staging notes end."
    for mention in ("Mark a span with `<private>` to keep it out.", 'if "<private>" in text:'):
        assert REDACTOR.clean(mention) == mention


def test_detection_switched_off_keeps_secrets_as_said() -> None:
    off = Redactor(PrivacyConfig(detect_secrets=False))
    said = SECRETS[0].said
    assert off.clean(said) == said


def test_allowed_strings_and_extra_patterns() -> None:
    fake = "ghp_R8mQ2vXk9LtY4wZp7NcB3sHd6FjA1uE5gK0o"
    config = PrivacyConfig(allowed=[fake], patterns={"Acme deploy key": r"acme_dk_([0-9a-f]{24})"})
    redactor = Redactor(config)
    assert redactor.clean(f"the fixture token is {fake}") == f"the fixture token is {fake}"
    assert redactor.clean("key acme_dk_0123456789abcdef01234567 here") == (
        "key acme_dk_[secret: Acme deploy key] here"
    )


def test_a_pattern_that_is_not_a_regular_expression_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"privacy.patterns.bad: not a regular expression"):
        PrivacyConfig(patterns={"bad": "([unclosed"})
