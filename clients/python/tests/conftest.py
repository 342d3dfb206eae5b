# The plugin's own tests load it from the checkout (pyproject's pythonpath); installed, the pytest11
# entry point loads it instead.
import os
import smtplib
from email.message import EmailMessage

import pytest

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
