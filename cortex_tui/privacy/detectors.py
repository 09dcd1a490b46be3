"""Where the credentials are in a text, and what kind each is.

The patterns of the common credential formats come from Yelp's detect-secrets, which keeps
them current as providers change their formats; its plugin classes are used for their
patterns, on spans of text rather than files, so neither its global settings nor its
file-type rules take part. Three of its plugins are left out on purpose:
- `HexHighEntropyString`: in coding work a quoted run of hex is a commit SHA, a content
  digest or an id far more often than a key (a hex key with a name is still found by
  the assignment rules below);
- `IPPublicDetector`: an address is not a credential;
- `CloudantDetector`: one of its patterns matches any Cloudant URL, credentials or not.

What agent work needs and detect-secrets lacks is added through its plugin interface
(`RegexBasedDetector` subclasses, below): Anthropic keys, OpenAI project and service
keys, GitHub fine-grained tokens, Google API keys, Hugging Face tokens, bearer tokens and
passwords in database URLs. Two rules are written here because a pattern alone cannot
say them: a PEM private key is the whole block, not the header line detect-secrets
finds; and a value assigned to a secret-sounding name (`.env` lines, configs, `api key:
…` in prose) is a secret only when it looks like one, so `MAX_TOKENS=4096` or
`password: required` stay as they are.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from detect_secrets.plugins import keyword
from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString
from detect_secrets.plugins.ibm_cloud_iam import IbmCloudIamDetector
from detect_secrets.plugins.ibm_cos_hmac import IbmCosHmacDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.softlayer import SoftlayerDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector


@dataclass(frozen=True, slots=True)
class Span:
    """Characters `start:end` of a text hold a secret of this kind."""

    start: int
    end: int
    kind: str


class AnthropicKeyDetector(RegexBasedDetector):
    secret_type = "Anthropic API key"
    denylist: ClassVar = [re.compile(r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,}")]


class OpenAIProjectKeyDetector(RegexBasedDetector):
    """Project, service-account and admin keys (detect-secrets knows the legacy form)."""

    secret_type = "OpenAI API key"
    denylist: ClassVar = [
        re.compile(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"),
        re.compile(r"\bsk-[A-Za-z0-9]{32,}\b"),
    ]


class GitHubFineGrainedTokenDetector(RegexBasedDetector):
    secret_type = "GitHub token"
    denylist: ClassVar = [re.compile(r"github_pat_[A-Za-z0-9_]{22,}")]


class GoogleApiKeyDetector(RegexBasedDetector):
    secret_type = "Google API key"
    denylist: ClassVar = [re.compile(r"AIza[0-9A-Za-z_-]{35}")]


class HuggingFaceTokenDetector(RegexBasedDetector):
    secret_type = "Hugging Face token"
    denylist: ClassVar = [re.compile(r"\bhf_[A-Za-z0-9]{30,}")]


class BearerTokenDetector(RegexBasedDetector):
    secret_type = "bearer token"
    denylist: ClassVar = [re.compile(r"\b[Bb]earer\s+([A-Za-z0-9._~+/-]{16,}=*)")]


class DatabaseUrlDetector(RegexBasedDetector):
    """A database URL's password (basic-auth URLs of any other scheme are found by
    `BasicAuthDetector`; this one names the kind, and allows an empty user)."""

    secret_type = "database password"
    denylist: ClassVar = [
        re.compile(
            r"\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|"
            r"sqlserver|cockroachdb|clickhouse)(?:\+\w+)?://[^\s:/@]*:([^\s@/]+)@",
            re.IGNORECASE,
        )
    ]


class UrlPasswordDetector(RegexBasedDetector):
    """A password in any URL, whatever characters it holds (`BasicAuthDetector` stops at
    `!`, `$`, `*` and the like, which real passwords are full of)."""

    secret_type = "password in a URL"
    denylist: ClassVar = [re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]*:([^\s@/]+)@", re.IGNORECASE)]


_PATTERN_DETECTORS: tuple[type[RegexBasedDetector], ...] = (
    # the specific formats first: where two overlap, the first names the kind
    AnthropicKeyDetector,
    OpenAIProjectKeyDetector,
    OpenAIDetector,
    GitHubFineGrainedTokenDetector,
    GitHubTokenDetector,
    GitLabTokenDetector,
    GoogleApiKeyDetector,
    HuggingFaceTokenDetector,
    AWSKeyDetector,
    AzureStorageKeyDetector,
    SlackDetector,
    StripeDetector,
    TwilioKeyDetector,
    SendGridDetector,
    MailchimpDetector,
    NpmDetector,
    PypiTokenDetector,
    DiscordBotTokenDetector,
    TelegramBotTokenDetector,
    SquareOAuthDetector,
    ArtifactoryDetector,
    IbmCloudIamDetector,
    IbmCosHmacDetector,
    SoftlayerDetector,
    DatabaseUrlDetector,
    BasicAuthDetector,
    UrlPasswordDetector,
    BearerTokenDetector,
)

_LEFT_OUT = frozenset({ArtifactoryDetector.denylist[1].pattern})
"""Artifactory's password pattern (`AP` and a hex digit, then 8 letters or digits)
matches class names (`APFSVolumeManager`); its token pattern (`AKC…`) stays."""

_KIND_NAMES = {
    "AWS Access Key": "AWS access key",
    "Azure Storage Account access key": "Azure storage key",
    "Basic Auth Credentials": "password in a URL",
    "Discord Bot Token": "Discord bot token",
    "GitHub Token": "GitHub token",
    "GitLab Token": "GitLab token",
    "JSON Web Token": "JSON web token",
    "Mailchimp Access Key": "Mailchimp key",
    "NPM tokens": "npm token",
    "OpenAI Token": "OpenAI API key",
    "Private Key": "private key",
    "PyPI Token": "PyPI token",
    "SendGrid API Key": "SendGrid key",
    "Slack Token": "Slack token",
    "Square OAuth Secret": "Square OAuth secret",
    "Stripe Access Key": "Stripe key",
    "Telegram Bot Token": "Telegram bot token",
    "Twilio API Key": "Twilio key",
    "Artifactory Credentials": "Artifactory credential",
    "IBM Cloud IAM Key": "IBM Cloud key",
    "IBM COS HMAC Credentials": "IBM COS key",
    "SoftLayer Credentials": "SoftLayer key",
}

_MIN_VALUE = 8
"""A pattern's capture group shorter than this is a prefix it names (`ghp`), not the
value: the whole match is the secret then."""
_EDGES = " \t\"'=:,;`"

_PEM_START = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d"
)
_PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_KEY_BODY_LINE = re.compile(
    r"(?:\r?\n|\\n)[ \t]*(?:[A-Za-z0-9+/=]{16,}|(?:Proc-Type|DEK-Info|Comment): [^\n\\]*)"
)
"""The next line of a key whose end marker is missing (pasted cut short): its base64
run, or a `Proc-Type:`-style header, after a line break (or an escaped one, in JSON).
The block ends where no such line follows."""
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_-]+")

_JWT = re.compile(r"eyJ[A-Za-z0-9_-]+=*\.[A-Za-z0-9_-]+=*(?:\.[A-Za-z0-9_\-+/=]*)?")
"""detect-secrets' token pattern, its signature made greedy (its lazy one stops before
the signature, which would be left behind); its validity check still decides."""
_QUOTED_BASE64 = Base64HighEntropyString().regex
_BASE64_LIMIT = 4.5
_DIGEST_PREFIX = re.compile(r"(?:sha\d+|md5)[-:]", re.IGNORECASE)

_DENYLIST_NAMES = "|".join(keyword.DENYLIST)
_SECRET_NAME = re.compile(
    rf"(?:{_DENYLIST_NAMES}|token|credential|bearer|auth|passphrase|secret|key)", re.IGNORECASE
)
"""A line worth the assignment rules holds one of these words (one search per line)."""
_NAME_GIVEN = re.compile(
    rf"(?:{_DENYLIST_NAMES}|token|credential|bearer|auth|passphrase|secret|key)[\w.-]{{0,32}}"
    r"['\"\]]{0,2}\s*(?::=|=>|==?|!=|:|\()",
    re.IGNORECASE,
)
"""A secret-sounding name given something (`=`, `:`, a call): where a long line's
windows are."""
_KEYWORD_RULES = (
    keyword.CONFIG_DENYLIST_REGEX_TO_GROUP,
    keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
)
_TOKEN_ASSIGNMENT = re.compile(
    r"(?P<name>(?<![\w.-])[\w.-]{0,64}?(?:token|credential|auth|passphrase|api[ _-]?key|"
    r"access[ _-]?key|secret[ _-]?key|private[ _-]?key|key)s?)\b['\"\]]{0,2}\s*"
    r"(?::=|=>|=|:)\s*"
    r"(?P<quote>['\"`]?)(?P<value>[^\s'\"`,;&]+)(?P=quote)",
    re.IGNORECASE,
)
"""A value given to a name detect-secrets' keyword list lacks (`GITHUB_TOKEN=…`,
`"auth": "…"`, `api key: …`)."""
_NAME_BEFORE = re.compile(r"([A-Za-z_][\w.-]*)['\"\]]{0,2}\s*(?::=|=>|==?|!=|:|\()\s*['\"`@]?$")
_LONG_LINE = 1_000
_WINDOW_CHARS = 2_000
_NAME_REACH = 128
"""How far before a value its name is looked for (a window's start before a name)."""
_VALUE_REACH = 512
"""How far after a secret-sounding name a long line's window reaches."""
_UNQUOTED_END = re.compile(r"\s|[;,)](?=\s|$)|[&;](?=[\w.-]+=)")
"""Where an unquoted value ends: a space, a separator before one, or the next
`name=` of a query or a command line (`Tr0ub4dor&3` is one password)."""
_COMPARED = re.compile(r"[=!]==?\s*$")
_UNQUOTED_TRAILING = string.whitespace + "`'\".,:)]}"
"""What ends an unquoted value's sentence or markup, not the value (`password: x`.)."""

_NOT_VALUES = frozenset(
    "true false null none nil yes no on off required optional enabled disabled empty "
    "unset redacted hidden secret password token example changeme placeholder".split()
)
_REFERENCE_START = re.compile(r"\$\{?\w|\{\{|%\(|<\w")
"""A value that names where the secret lives (`${DB_PASSWORD}` in a URL)."""
_REFERENCE = re.compile(
    r"^(?:\$|%|<|\{\{|\[)|\(|\b(?:os\.environ|process\.env|getenv|secrets\.|vars\.)"
)
_DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_]*)+")
"""`self.dbPassword`, `settings.DB_PASSWORD`: a reference to where the value lives."""
_STRONG_NAME = re.compile(
    r"secret|token|bearer|credential|passphrase|api[ _-]?key|apikey|access[ _-]?key|"
    r"private[ _-]?key|client[ _-]?key|signing|encryption|master[ _-]?key",
    re.IGNORECASE,
)
"""A name that says its value is a credential; a bare `key` or `auth` may be anything."""
_SEQUENTIAL = re.compile(r"abcdefgh|ABCDEFGH|01234567|qwertyui", re.IGNORECASE)
"""An alphabet written out (a charset constant) is random-looking and no secret."""
_WORDLIKE = re.compile(r"[a-z_./-]+|[A-Z]+(?:_[A-Z0-9]+)*|[*x.•-]+")
"""Words, identifiers, paths, environment variable names and masks: what a name is
given in prose and configs that is not itself a credential."""


class SecretFinder:
    """Finds the secrets in a text. Built once per process (the patterns compile once);
    `extra` adds a user's own patterns: kind → regular expression."""

    def __init__(self, extra: dict[str, str] | None = None) -> None:
        self._patterns: list[tuple[re.Pattern[str], str]] = [
            (pattern, _KIND_NAMES.get(detector.secret_type, detector.secret_type))
            for detector in (plugin() for plugin in _PATTERN_DETECTORS)
            for pattern in detector.denylist
            if pattern.pattern not in _LEFT_OUT
        ]
        self._patterns.extend(
            (re.compile(pattern), kind) for kind, pattern in (extra or {}).items()
        )

    def find(self, text: str) -> list[Span]:
        """The secrets in `text`, in order, none overlapping another."""
        found = [
            *_private_keys(text),
            *self._by_pattern(text),
            *_json_web_tokens(text),
            *_assignments(text),
            *_quoted_random_strings(text),
        ]
        return _without_overlaps(found)

    def _by_pattern(self, text: str) -> Iterator[Span]:
        for pattern, kind in self._patterns:
            for match in pattern.finditer(text):
                start, end = _value_of(match)
                if end > start and not _REFERENCE_START.match(text, start):
                    yield Span(start, _token_end(text, end), kind)


def _value_of(match: re.Match[str]) -> tuple[int, int]:
    """The characters of a match that hold the secret: its longest capture group when
    that is long enough to be a value, else the whole match without the delimiters some
    patterns include (`(?:\\s|=|:|"|^)AKC…`)."""
    groups = [match.span(i) for i in range(1, (match.re.groups or 0) + 1) if match.group(i)]
    longest = max(groups, key=lambda span: span[1] - span[0], default=None)
    if longest is not None and longest[1] - longest[0] >= _MIN_VALUE:
        return longest
    start, end = match.span()
    text = match.string
    while start < end and text[start] in _EDGES:
        start += 1
    while end > start and text[end - 1] in _EDGES:
        end -= 1
    return start, end


def _token_end(text: str, end: int) -> int:
    """A pattern of fixed length stops inside a longer token of the same kind (Stripe's
    keys grew from 24 characters to 99): the secret runs to the token's end."""
    if end < len(text) and text[end - 1].isalnum() and (tail := _TOKEN_TAIL.match(text, end)):
        return tail.end()
    return end


def _private_keys(text: str) -> Iterator[Span]:
    """Each PEM (or PuTTY) private key, header to end marker; a key cut short runs to
    the last line that looks like part of it."""
    position = 0
    while match := _PEM_START.search(text, position):
        end_marker = _PEM_END.search(text, match.end())
        if end_marker is not None:
            end = end_marker.end()
        else:
            end = match.end()
            while body := _KEY_BODY_LINE.match(text, end):
                end = body.end()
        yield Span(match.start(), end, "private key")
        position = end


def _json_web_tokens(text: str) -> Iterator[Span]:
    for match in _JWT.finditer(text):
        if "." in match.group() and JwtTokenDetector.is_formally_valid(match.group()):
            yield Span(match.start(), match.end(), "JSON web token")


def _quoted_random_strings(text: str) -> Iterator[Span]:
    """Quoted strings random enough to be keys (detect-secrets' base64 entropy rule);
    pure hex and labelled digests (`sha512-…`) are left, see the module docstring."""
    for match in _QUOTED_BASE64.finditer(text):
        value = match.group(2)
        if (
            len(value) >= 20
            and not _is_hex(value)
            and not _SEQUENTIAL.search(value)
            and not _DIGEST_PREFIX.match(value)
            and _entropy(value) > _BASE64_LIMIT
        ):
            yield Span(match.start(2), match.end(2), "random-looking key")


def _assignments(text: str) -> Iterator[Span]:
    """Values given to secret-sounding names, line by line (a keyword rule's value must
    not run into the next line), each kept only when it looks like a credential. A long
    line (minified JSON, a log) is read in windows around its secret-sounding names:
    the keyword rules scan to a line's end from every quote and name, which on a line
    of thousands of characters takes seconds."""
    offset = 0
    for whole in text.split("\n"):
        for start, line in _windows(whole):
            for span in _assigned_spans(line):
                yield Span(offset + start + span.start, offset + start + span.end, span.kind)
        offset += len(whole) + 1


def _windows(line: str) -> Iterator[tuple[int, str]]:
    """(offset, text) pieces of a line worth the assignment rules: the line itself when
    short, else a window around each secret-sounding name given a value there (windows
    that meet are one, at most `_WINDOW_CHARS` long)."""
    if len(line) <= _LONG_LINE:
        if _SECRET_NAME.search(line):
            yield 0, line
        return
    start = end = -1
    for name in _NAME_GIVEN.finditer(line):
        reach = (max(0, name.start() - _NAME_REACH), name.end() + _VALUE_REACH)
        if start >= 0 and reach[0] <= end and reach[1] - start <= _WINDOW_CHARS:
            end = reach[1]
            continue
        if start >= 0:
            yield start, line[start:end]
        start, end = reach
    if start >= 0:
        yield start, line[start:end]


def _assigned_spans(line: str) -> Iterator[Span]:
    # JSON holding code escapes its quotes (`password=\"…\"`): read those as quotes, a
    # space taking the backslash's place so every position stays where it was
    unescaped = line.replace('\\"', ' "').replace("\\'", " '")
    for start, end in _assigned_values(unescaped):
        value = unescaped[start:end]
        name = _name_before(unescaped, start)
        if looks_like_credential(value, name):
            yield Span(start, end, kind_of_name(name))


def _assigned_values(line: str) -> Iterator[tuple[int, int]]:
    """Each value given a secret-sounding name on the line. A keyword rule's unquoted
    value runs to the line's end; cut where the value ends, the search goes on from
    there (`-e DB_PASSWORD=… -e REDIS_PASSWORD=…` holds two)."""
    for rules in _KEYWORD_RULES:
        for pattern, group in rules.items():
            position = 0
            while match := pattern.search(line, position):
                start, end = match.span(group)
                quoted = start > 0 and line[start - 1] in "'\"`"
                if not quoted and (cut := _UNQUOTED_END.search(line, start, end)):
                    end = cut.start()
                trailing = string.whitespace if quoted else _UNQUOTED_TRAILING
                while end > start and line[end - 1] in trailing:
                    end -= 1
                position = max(end, match.start() + 1)
                if _COMPARED.search(line, max(0, start - 4), start) and not quoted:
                    continue  # `password == confirm_password2`: a comparison, not a value
                yield start, end
    for match in _TOKEN_ASSIGNMENT.finditer(line):
        yield match.span("value")


def _name_before(line: str, value_start: int) -> str:
    named = _NAME_BEFORE.search(line[max(0, value_start - _NAME_REACH) : value_start])
    return named.group(1) if named else ""


def looks_like_credential(value: str, name: str) -> bool:
    """Whether a value given to a secret-sounding name is a credential rather than a
    setting, a reference or a word. A password may be short and plain (`hunter2`); a
    key or token is long and random-looking."""
    value = value.strip()
    if len(value) < 4 or value.casefold() in _NOT_VALUES or _REFERENCE.search(value):
        return False
    if _WORDLIKE.fullmatch(value) or _is_number(value) or _DOTTED_NAME.fullmatch(value):
        return False
    classes = _character_classes(value)
    if re.search(r"pass|pwd|contrase", name, re.IGNORECASE):
        return len(value) >= 6 and classes >= 2
    digits = sum(char.isdigit() for char in value)
    mixed_case = bool(re.search(r"[a-z]", value) and re.search(r"[A-Z]", value))
    longest_run = max((len(run) for run in re.findall(r"[A-Za-z0-9]+", value)), default=0)
    if _STRONG_NAME.search(name):
        random_looking = (digits >= 3 or mixed_case) and longest_run >= 10
        return len(value) >= 12 and digits > 0 and random_looking and _entropy(value) >= 3.5
    # a bare `key`, `cache_key`, `auth`: most often an id, a path, a digest or a scheme
    return (longest_run >= 16 and mixed_case and digits >= 3 and not _is_hex(value)) and _entropy(
        value
    ) >= 3.5


def kind_of_name(name: str) -> str:
    """What a value's name says it is, for its placeholder."""
    folded = name.casefold()
    if "aws" in folded:
        return "AWS secret key"
    for words, kind in (
        (("pass", "pwd", "contrase"), "password"),
        (("token", "bearer"), "token"),
        (("credential",), "credential"),
        (("key",), "API key"),
    ):
        if any(word in folded for word in words):
            return kind
    return "secret"


def _character_classes(value: str) -> int:
    return sum(
        bool(re.search(pattern, value)) for pattern in (r"[a-z]", r"[A-Z]", r"\d", r"[^\w]|_")
    )


def _is_number(value: str) -> bool:
    return re.fullmatch(r"[-+]?\d[\d_,.]*[a-zA-Z%]{0,3}", value) is not None


def _is_hex(value: str) -> bool:
    return re.fullmatch(r"[0-9a-fA-F-]+", value) is not None


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _without_overlaps(spans: list[Span]) -> list[Span]:
    """Spans in order; where two overlap, one span covering both, named by the one found
    first (the specific formats are looked for before the general rules)."""
    merged: list[tuple[int, Span]] = []
    for rank, span in sorted(enumerate(spans), key=lambda item: (item[1].start, -item[1].end)):
        if merged and span.start < merged[-1][1].end:
            last_rank, last = merged[-1]
            kind = last.kind if last_rank <= rank else span.kind
            merged[-1] = (min(last_rank, rank), Span(last.start, max(last.end, span.end), kind))
        else:
            merged.append((rank, span))
    return [span for _, span in merged]
