"""Testcontainers for Python (docs/recipes/testcontainers.md): inboxd in a throwaway container, ready
when GET /readyz answers 200, and the pytest plugin's client pointed at it.

Needs `testcontainers` (4.x) and this repository's client (`pip install ./clients/python`).
"""

import time
import urllib.request
import uuid

import pytest
from testcontainers.core.container import DockerContainer

from inboxd import Client


def wait_ready(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"inboxd at {url} not ready within {timeout:g} s")
        time.sleep(0.25)


@pytest.fixture(scope="session")
def inboxd_client():
    """Overrides the plugin's fixture: the `inbox` fixture then uses this container."""
    key = "isk_live_" + uuid.uuid4().hex
    with DockerContainer("inboxd:latest").with_env("INBOXD_BOOTSTRAP_KEY", key).with_exposed_ports(8025, 1025) as c:
        url = f"http://{c.get_container_host_ip()}:{c.get_exposed_port(8025)}"
        wait_ready(url)
        client = Client(url=url, api_key=key)
        client.smtp = (c.get_container_host_ip(), int(c.get_exposed_port(1025)))
        yield client
