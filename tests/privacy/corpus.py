"""Secrets in the formats people paste into agent sessions, written for these tests (none
is a live credential), and technical text that must come through untouched.

Each secret is said the way it is said in real work (`said`): a bare token, a URL with a
password in it, a `.env` line, an assignment in code. `value` is the part that must
exist nowhere afterwards; `kind` the placeholder it must become.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Secret:
    kind: str
    value: str
    said: str
    family: str
    """What the closing note counts detection by (the issue's list of kinds)."""


def _secret(family: str, kind: str, value: str, said: str = "{value}") -> Secret:
    return Secret(kind, value, said.format(value=value), family)


PEM_RSA = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
    "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo\n"
    "-----END RSA PRIVATE KEY-----"
)
PEM_OPENSSH = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACDk3Gzq3mRLCVrXhbsUr0rGw5zqW6k3r8y5d2x7ZQ1pRwAAAJg7mF0pO5hd\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
PEM_EC_CUT_SHORT = (
    "-----BEGIN EC PRIVATE KEY-----\n"
    "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oj7Vv2O9uqBkoAoGCCqGSM49\n"
    "AwEHoUQDQgAEKSx2nD3Z9W3b0wX7oJm2n5y2ZpYfPjgWqzWu6tC7M1sZQKxg9nYt"
)
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiJkZXBsb3ktYm90IiwiaWF0IjoxNzAwMDAwMDAwfQ."
    "Sfl2KxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)

SECRETS: tuple[Secret, ...] = (
    _secret("AWS", "AWS access key", "AKIAZ3MSJV4WWNKWW5FQ", "the deploy user is {value}"),
    _secret(
        "AWS",
        "AWS secret key",
        "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",
        "AWS_SECRET_ACCESS_KEY={value}",
    ),
    _secret("GitHub", "GitHub token", "ghp_R8mQ2vXk9LtY4wZp7NcB3sHd6FjA1uE5gK0o"),
    _secret(
        "GitHub",
        "GitHub token",
        "github_pat_11AZK3QYA0Xv8mB2nC4dE6_fG8hJ0kL2mN4pQ6rS8tU0vW2xY4zA6bC8dE0fG2hJ4kL6mN8pQ0rS2t",
    ),
    _secret("GitLab", "GitLab token", "glpat-Zk3vQ9xLm2Rt7YwP4nBc"),
    _secret("Slack", "Slack token", "xoxb-2481632640-1357913579246-Qw8eR7tY6uI5oP4aS3dF2gH1"),
    _secret(
        "Slack",
        "Slack token",
        "https://hooks.slack.com/services/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",
    ),
    _secret("Stripe", "Stripe key", "sk_live_51HqZ3kL9mN2pQ4rS6tU8vW0x"),
    _secret("Twilio", "Twilio key", "SK3f9a1c7e5b2d8f4a6c0e9b1d3f5a7c9e"),
    _secret("private key", "private key", PEM_RSA),
    _secret("private key", "private key", PEM_OPENSSH),
    _secret("private key", "private key", PEM_EC_CUT_SHORT),
    _secret("JWT", "JSON web token", JWT, "the session cookie was {value}"),
    _secret(
        "basic-auth URL",
        "password in a URL",
        "Tq7!vW3zQp",
        "clone from https://deploy:{value}@git.internal.example/app.git",
    ),
    _secret("keyword assignment", "password", "hunter2-Staging", "password={value}"),
    _secret(
        "keyword assignment",
        "password",
        "An0ther!pw",
        "docker run -e POSTGRES_PASSWORD=S3cr3t!x -e REDIS_PASSWORD={value} redis",
    ),
    _secret("keyword assignment", "password", "Tr0ub4dor&3", "mysql --password={value} app"),
    _secret(
        "keyword assignment",
        "password",
        "Xk9#mQ2vL7p",
        'conn = connect(host="db", user="app", password="{value}")',
    ),
    _secret("keyword assignment", "secret", "f4Kq9Zx2Lm7Rt3Wv8Np1", 'client_secret: "{value}"'),
    _secret(
        "high-entropy string",
        "random-looking key",
        "Z9xK2mQ7vL4pR8tW1nB6cD3fG5hJ0kA",
        'headers = {{"X-Signing": "{value}"}}',
    ),
    _secret(
        "OpenAI",
        "OpenAI API key",
        "sk-proj-Qm8Zx2Lk9Rt4Wv7Np1Bc3Df6Gh0Jk5Lm8Nq2Rs4Tu7Vw9Xy1Za3Bc6De8Fg0Hi2Jk",
    ),
    _secret("OpenAI", "OpenAI API key", "sk-Zx8Qm2Lk9Rt4Wv7Np1Bc3Df6Gh0Jk5Lm8Nq2Rs4Tu7Vw9XyA"),
    _secret(
        "Anthropic",
        "Anthropic API key",
        "sk-ant-api03-Qm8Zx2Lk9Rt4Wv7Np1Bc3Df6Gh0Jk5Lm8Nq2Rs4Tu7Vw9Xy1Za3Bc6De8Fg0Hi2Jk4Lm6"
        "Nq8Rs0Tu2Vw4Xy6Za8Bc0De2-Fg4Hi6AA",
    ),
    _secret(
        "database URL",
        "database password",
        "pG7#r2Lx9Q",
        "DATABASE_URL=postgresql://app:{value}@db.internal:5432/orders",
    ),
    _secret(
        "database URL",
        "database password",
        "m0ngoPass99",
        "mongodb+srv://reporting:{value}@cluster0.x7k2p.mongodb.net/analytics",
    ),
    _secret("database URL", "database password", "r3d1sAuth77", "redis://:{value}@cache:6379/0"),
    _secret(".env line", "token", "d8Fk2Lq9Zx4Rt7Wv1Np3Bc6", "SENTRY_AUTH_TOKEN={value}"),
    _secret(".env line", "password", "Qv7#Lm2Zx9", "export DB_PASSWORD='{value}'"),
    _secret(".env line", "secret", "7f3b9c1e5a2d8f4b6c0e9a1d3f5b7c9e", "SESSION_SECRET={value}"),
    _secret("Google", "Google API key", "AIzaSyD3kL9mQ2vX7pR4tW8nB1cF6hJ0zK5yA2s"),
    _secret("Hugging Face", "Hugging Face token", "hf_Qm8Zx2Lk9Rt4Wv7Np1Bc3Df6Gh0Jk5Lm8Nq"),
    _secret(
        "npm",
        "npm token",
        "npm_Zx8Qm2Lk9Rt4Wv7Np1Bc3Df6Gh0Jk5Lm8Nq2",
        "//registry.npmjs.org/:_authToken={value}",
    ),
    _secret(
        "SendGrid",
        "SendGrid key",
        "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",
    ),
    _secret(
        "bearer token",
        "bearer token",
        "Zx8Qm2Lk9Rt4Wv7Np1Bc3Df6Gh0",
        'curl -H "Authorization: Bearer {value}" https://api.internal.example/v1/jobs',
    ),
)


def in_prose(secret: Secret) -> str:
    return f"Use this for the staging deploys from now on: {secret.said} (keep it to this repo)."


def in_code(secret: Secret) -> str:
    return f"Here is the setup I used:\n\n```\n{secret.said}\n```\n\nIt worked on the first try."


def in_json(secret: Secret) -> str:
    return json.dumps({"step": "configure", "value": secret.said, "ok": True})


def in_env_file(secret: Secret) -> str:
    return f"# staging\nLOG_LEVEL=info\n{secret.said}\nRATE_LIMIT_PER_MIN=300\n"


CONTEXTS = {"prose": in_prose, "code": in_code, "json": in_json, "env": in_env_file}


def transcript_lines(secrets: tuple[Secret, ...] = SECRETS) -> str:
    """A Claude Code transcript whose prompts carry every secret, each on a line of its own
    inside a message of several lines (as a paste arrives), with a reply after each."""
    lines = []
    for index, secret in enumerate(secrets):
        prompt = f"From now on use this for the staging deploys:\n{secret.said}\nthanks"
        reply = f"Understood, I will use it for staging (note {index})."
        for role, text in (("user", prompt), ("assistant", reply)):
            content = text if role == "user" else [{"type": "text", "text": text}]
            lines.append(json.dumps({"type": role, "message": {"role": role, "content": content}}))
    return "\n".join(lines) + "\n"


BENIGN: tuple[str, ...] = (
    "Fixed in commit e83c5163316f89bfbde7d9ab23ca2e25604af290; see the PR for details.",
    'The lockfile pins "resolved": "e83c5163316f89bfbde7d9ab23ca2e25604af290" for the fork.',
    "Request ids look like 3f2a9c1e-7b4d-4e8f-9a1b-2c3d4e5f6a7b in the access log.",
    "Memory 44105ab3-c066-4210-a4f1-cffe185ad412 superseded 7d3f2a91 yesterday.",
    "The artifact digest is sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0"
    "f00a08.",
    '"integrity": "sha512-3Fp1W2yLQcm3Zq0Jk8VbXkqk2N5oQ7wzx4sV6c9R1aT0uY8pE2iL5nM3bK7jH4gF6dS9aQ1'
    'wE2rT3yU=="',
    "Docs live at https://docs.example.com/guides/deploy?section=staging#rollback.",
    "Pin numpy==1.26.4 and textual>=8.2,<9; Python 3.11.9 on CI.",
    "RATE_LIMIT_PER_MIN=300 and MAX_TOKENS=4096 in the service config.",
    "token_budget: 400 tokens per hook; TOKEN_TTL=3600s for the cache.",
    "The API key lives in Vault, never in the repository.",
    "Rotate the GitHub token every 90 days; the password policy needs 12 characters.",
    "password: required, secret: optional (the form's field rules).",
    "The docs show `password: required` and `api_key: <your key>` as examples.",
    "Set AWS_REGION=eu-west-1 and AWS_PROFILE=staging before running terraform plan.",
    "export API_KEY=$STAGING_API_KEY  # read from the environment, never inline",
    'API_KEY = os.environ["API_KEY"]',
    "password = getpass.getpass()",
    "client_secret is read from secrets.CLIENT_SECRET in the workflow.",
    "cache_key: v2-user-profile; sort key: created_at",
    "primary_key: user_id, partition_key: tenant_id",
    "Use `git rebase -i HEAD~3` then `git push --force-with-lease origin feature/auth`.",
    "The migration 20240315_add_auth_tokens.sql adds a tokens table.",
    "docker run -p 8080:80 -e LOG_LEVEL=debug ghcr.io/acme/api:1.4.2",
    "SELECT id, created_at FROM sessions WHERE user_id = $1 LIMIT 50;",
    "The JWT is validated against the JWKS at https://auth.example.com/.well-known/jwks.json.",
    "Base64 of 'hello' is aGVsbG8= — used in the fixture.",
    "The Postgres URL is postgres://db.internal:5432/orders (auth comes from IAM).",
    "Connect with psql -h db.internal -U app orders; the password is in 1Password.",
    "f'{user}:{password}@{host}' builds the DSN from settings.",
    "def check_password(password: str) -> bool: return bcrypt.checkpw(...)",
    "auth: oauth2 for the gateway, auth_mode=pkce for the CLI.",
    "Twilio account SID goes in TWILIO_ACCOUNT_SID; the auth token in the vault.",
    "The private key path is ~/.ssh/id_ed25519 (never commit it).",
    "-----BEGIN CERTIFICATE----- blocks are public; only private keys must stay out.",
    "Coverage went from 81.2% to 84.7% after the refactor (1,204 tests).",
    "The build hash 9c4f1a2 and tag v2.3.0-rc.1 shipped on 2026-03-14.",
    "Use UUIDv7 ids: 018f3e4a-9c2b-7d1e-8f3a-6b5c4d3e2f1a sorts by time.",
    "The Redis key pattern is session:{user_id}:{device_id} with a 30 minute TTL.",
    "secret_name: db-password-prod (the Kubernetes secret's name, not its value)",
    "Keep the `.env.example` with API_KEY=changeme as a template.",
    "In tests, the fake key is key-for-tests and the password is placeholder.",
    "Bearer tokens expire after 15 minutes; refresh with /oauth/token.",
    "The vector index is HNSW with m=16, ef_construct=100; quantisation int8.",
    "apiVersion: apps/v1, kind: Deployment, replicas: 3, image: acme/api:2.1",
    "Hash the password with argon2id (m=65536, t=3, p=4) before storing it.",
    "password=self.dbPassword; password=settings.DB_PASSWORD",
    "conn = connect(host, password=cfg.dbPass)",
    "if password == confirm_password2: save()",
    "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app",
    "cache_key: node-modules-v3-linux-x64; key: item-1234-abc",
    'cache_key = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
    "Use the APFSVolumeManager and APC3DeviceRegistry classes.",
    "The auth: OAuth2PKCEFlow handles the login.",
    'ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"',
)
