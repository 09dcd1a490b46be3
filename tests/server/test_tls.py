"""A team server serving HTTPS itself (`serve --tcp --tls-cert --tls-key`): members reach
it with the team's certificate authority (`CORTEX_CA_CERT`), the hooks too; a member
without it is refused the connection in one line, and the Unix socket stays plain."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from cortex_tui.clients import local_service
from cortex_tui.tenants.registry import TenantRegistry
from tests.server.conftest import service_env, start_service, stop_service
from tests.server.team_server import cortex, free_port
from tests.server.tls import make_certificates


def test_members_reach_an_https_server_with_the_teams_authority(tmp_path: Path) -> None:
    authority, cert, key = make_certificates(tmp_path / "pki")
    home, laptop = tmp_path / "server", tmp_path / "laptop"
    ana = TenantRegistry(home).add("ana")[1]
    port = free_port()
    process = start_service(
        home, "--tcp", str(port), "--tenants", "--tls-cert", str(cert), "--tls-key", str(key)
    )
    try:
        url = f"https://127.0.0.1:{port}"
        env = service_env(laptop, CORTEX_URL=url, CORTEX_API_KEY=ana, CORTEX_CA_CERT=str(authority))
        made = cortex(env, "remember", "The billing API listens on port 8443")
        assert made.returncode == 0, made.stderr
        event = {
            "hook_event_name": "UserPromptSubmit",
            "session_id": "s",
            "prompt": "which port does the billing API listen on?",
            "cwd": str(tmp_path),
        }
        hooked = cortex(env, "--hook", "pre", stdin=json.dumps(event))
        assert "port 8443" in hooked.stdout
        # Without the team's authority the certificate is not trusted: one line, no data.
        untrusted = cortex({**env, "CORTEX_CA_CERT": ""}, "list")
        assert untrusted.returncode != 0 and untrusted.stderr.count("\n") == 1
        assert "CERTIFICATE_VERIFY_FAILED" in untrusted.stderr
        assert (
            cortex({**env, "CORTEX_CA_CERT": ""}, "--hook", "pre", stdin=json.dumps(event)).stdout
            == ""
        )
        with pytest.raises(httpx.HTTPError):
            httpx.get(
                f"http://127.0.0.1:{port}/v1/stats", headers={"Authorization": f"Bearer {ana}"}
            )
        assert local_service.status(home) is not None  # the socket still speaks plain HTTP
    finally:
        stop_service(home, process)


def test_a_certificate_that_does_not_load_is_one_line(tmp_path: Path) -> None:
    _, cert, _ = make_certificates(tmp_path / "pki")
    home = tmp_path / "server"
    for args, said in (
        (["--tls-cert", str(cert), "--tls-key", str(cert)], "cannot use"),
        (["--tls-cert", str(cert)], "together"),
    ):
        done = cortex(
            service_env(home),
            "serve",
            "--home",
            str(home),
            "--tcp",
            str(free_port()),
            "--tenants",
            *args,
        )
        assert done.returncode == 1 and said in done.stderr
        assert done.stderr.count("\n") == 1
