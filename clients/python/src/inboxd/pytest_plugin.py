"""pytest plugin: an ``inbox`` fixture that gives each test its own inbox and deletes it afterwards.

Safe under parallel workers (pytest-xdist): every test creates its own inbox through the API, so no two
tests share an address whatever process they run in. Configure with INBOXD_URL and INBOXD_API_KEY
(or --inboxd-url / --inboxd-api-key).
"""

from __future__ import annotations

import os
from typing import Iterator

import pytest

from .client import Client, Inbox


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("inboxd")
    group.addoption("--inboxd-url", default=None, help="base URL of inboxd (default: $INBOXD_URL or http://127.0.0.1:8025)")
    group.addoption("--inboxd-api-key", default=None, help="API key (default: $INBOXD_API_KEY; prefer the variable: a flag shows in ps)")


@pytest.fixture(scope="session")
def inboxd_client(pytestconfig: pytest.Config) -> Client:
    """One client per worker process; fails the test run clearly when inboxd is unreachable."""
    client = Client(
        url=pytestconfig.getoption("inboxd_url") or os.environ.get("INBOXD_URL"),
        api_key=pytestconfig.getoption("inboxd_api_key") or os.environ.get("INBOXD_API_KEY"),
    )
    if not client.ready():
        pytest.fail(f"inboxd is not ready at {client.url} (GET /readyz); set INBOXD_URL and INBOXD_API_KEY", pytrace=False)
    return client


@pytest.fixture
def inbox(inboxd_client: Client, request: pytest.FixtureRequest) -> Iterator[Inbox]:
    """A fresh inbox for this test, named after it, deleted when the test ends (passed or not)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    name = f"{worker} {request.node.nodeid}".strip()[-100:]
    box = inboxd_client.create_inbox(name=name)
    try:
        yield box
    finally:
        box.delete()
