# The plugin's own tests load it from the checkout (pyproject's pythonpath). Installed (pip install
# ./clients/python), the pytest11 entry point has loaded it already under its entry-point name, and
# naming it here as well would register it twice: pytest stops with "Plugin already registered".
import os
import smtplib
from email.message import EmailMessage

import pytest

from importlib.metadata import entry_points

if not any(ep.value == "inboxd.pytest_plugin" for ep in entry_points(group="pytest11")):
    pytest_plugins = ["inboxd.pytest_plugin"]


@pytest.fixture
def send():
    """Sends a message over SMTP to INBOXD_SMTP (host:port, default 127.0.0.1:1025)."""
    host, _, port = os.environ.get("INBOXD_SMTP", "127.0.0.1:1025").rpartition(":")

    def _send(to: str, subject: str, text: str, html: str = None) -> None:
        m = EmailMessage()
        m["From"] = "app@example.com"
        m["To"] = to
        m["Subject"] = subject
        m.set_content(text)
        if html:
            m.add_alternative(html, subtype="html")
        with smtplib.SMTP(host, int(port), timeout=10) as s:
            s.send_message(m)

    return _send
