"""inboxd: a client for the inboxd HTTP API and a pytest plugin (fixture ``inbox``).

Standard library only. Configure with INBOXD_URL (default http://127.0.0.1:8025) and INBOXD_API_KEY.
"""

from .client import Client, Inbox, InboxdError, Link, Message, NoMessage

__all__ = ["Client", "Inbox", "InboxdError", "Link", "Message", "NoMessage"]
__version__ = "0.1.0"
