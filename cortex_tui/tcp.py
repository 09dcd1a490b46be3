"""Listening on TCP, for the service (`serve --tcp`) and the MCP server (`mcp --http`).

Both bind loopback unless told otherwise, bind before serving (so a taken port is one
clear line, not a server that dies later), and let in only requests that carry the API
key as a bearer token.
"""

from __future__ import annotations

import hmac
import socket

from cortex_tui.errors import InvalidInputError

LOOPBACK = "127.0.0.1"


def listen(spec: str, option: str) -> socket.socket:
    """A listening socket for `[HOST:]PORT`; `option` names the flag in the error."""
    host, _, port_text = spec.rpartition(":")
    try:
        port = int(port_text)
    except ValueError:
        raise InvalidInputError(
            f"{option} {spec!r} is not [HOST:]PORT, e.g. {option} 8765"
        ) from None
    try:
        return socket.create_server((host or LOOPBACK, port), backlog=128)
    except OSError as exc:
        raise InvalidInputError(
            f"cannot listen on {host or LOOPBACK}:{port}: {exc.strerror}; pick another port"
        ) from None


def bearer_token(authorization: str) -> str:
    """The key an `Authorization: Bearer KEY` header carries ("" for anything else)."""
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def bearer_matches(authorization: str, api_key: str) -> bool:
    """Whether an `Authorization` header carries the key (compared in constant time)."""
    return hmac.compare_digest(authorization.encode(), f"Bearer {api_key}".encode())
