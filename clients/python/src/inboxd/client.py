"""The HTTP API of inboxd (docs/api.md), the parts a test needs: inboxes, the long poll, messages."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, NamedTuple, Optional

DEFAULT_URL = "http://127.0.0.1:8025"
#: The server caps one long poll at 60 s; longer waits are several polls.
MAX_WAIT = 60
#: The smallest ULID: as `after`, every message of the inbox is newer.
ZERO_ID = "0" * 26


class InboxdError(Exception):
    """An error answer of the API: {code, message, details, request_id}."""

    def __init__(self, status: int, code: str, message: str, details: Any = None, request_id: Optional[str] = None):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}
        self.request_id = request_id


class NoMessage(InboxdError, TimeoutError):
    """No (matching) message arrived within the timeout."""


class Link(NamedTuple):
    """A link of a message: its URL and the visible text of its <a> ("" when it only appears in running text)."""

    url: str
    text: str


class Message:
    """A message in the full view. The JSON is in ``.data``; the common fields are attributes."""

    def __init__(self, data: Dict[str, Any]):
        self.data = data

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __repr__(self) -> str:
        return f"Message(id={self.id!r}, subject={self.subject!r})"

    @property
    def id(self) -> str:
        return self.data["id"]

    @property
    def subject(self) -> str:
        return self.data.get("subject", "")

    @property
    def sender(self) -> str:
        return (self.data.get("from") or {}).get("email", "")

    @property
    def text(self) -> Optional[str]:
        return self.data.get("text")

    @property
    def codes(self) -> List[str]:
        """Every verification code found, best first."""
        return list(self.data.get("codes") or [])

    @property
    def code(self) -> Optional[str]:
        """The verification code (the first found), or None."""
        codes = self.codes
        return codes[0] if codes else None

    @property
    def links(self) -> List[Link]:
        """The distinct http(s) links, in order of first appearance."""
        return [Link(x.get("url", ""), x.get("text", "")) for x in self.data.get("links") or []]

    @property
    def urls(self) -> List[str]:
        return [link.url for link in self.links]


class Client:
    """A client bound to one API key (and so one project)."""

    def __init__(self, url: Optional[str] = None, api_key: Optional[str] = None, timeout: float = 30.0):
        self.url = (url or os.environ.get("INBOXD_URL") or DEFAULT_URL).rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("INBOXD_API_KEY")
        self.timeout = timeout

    # -- HTTP -----------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Any = None, query: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None) -> Any:
        url = self.url + path
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        headers = {"accept": "application/json"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["content-type"] = "application/json"
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout or self.timeout) as res:
                raw = res.read()
                return json.loads(raw) if raw else None
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                err = json.loads(raw)
            except ValueError:
                err = {"code": "http_error", "message": raw.decode("utf-8", "replace")[:200]}
            raise InboxdError(e.code, err.get("code", "error"), err.get("message", ""), err.get("details"), err.get("request_id")) from None

    def ready(self) -> bool:
        """True when the server answers /readyz with 200."""
        try:
            self.request("GET", "/readyz", timeout=5)
            return True
        except (InboxdError, OSError):
            return False

    # -- Inboxes ----------------------------------------------------------------------------

    def create_inbox(self, name: Optional[str] = None, ttl_seconds: Optional[int] = None, **fields: Any) -> "Inbox":
        body: Dict[str, Any] = dict(fields)
        if name is not None:
            body["name"] = name[:100]
        if ttl_seconds is not None:
            body["ttl_seconds"] = ttl_seconds
        return Inbox(self, self.request("POST", "/v1/inboxes", body)["data"])

    def inbox(self, inbox_id: str) -> "Inbox":
        return Inbox(self, self.request("GET", f"/v1/inboxes/{inbox_id}")["data"])

    def delete_inbox(self, inbox_id: str) -> None:
        try:
            self.request("DELETE", f"/v1/inboxes/{inbox_id}")
        except InboxdError as e:
            if e.status != 404:  # already gone (expired, or deleted by the test)
                raise

    # -- Messages ---------------------------------------------------------------------------

    def message(self, message_id: str) -> Message:
        return Message(self.request("GET", f"/v1/messages/{message_id}")["data"])

    def messages(self, inbox_id: str, q: Optional[str] = None, limit: int = 50) -> List[Message]:
        """The newest messages first (summary view: no text or links; fetch one with message())."""
        res = self.request("GET", f"/v1/inboxes/{inbox_id}/messages", query={"limit": limit, "q": q})
        return [Message(m) for m in res["data"]]

    def wait_for_message(
        self, inbox_id: str, q: Optional[str] = None, timeout: float = 30.0, after: Optional[str] = None, poll_token: Optional[str] = None
    ) -> "tuple[Message, str]":
        """The first message (matching q, see docs/search.md) newer than the baseline; (message, poll_token).

        Without a baseline the newest message counts. Raises NoMessage when none came within timeout seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            wait = max(0, min(MAX_WAIT, int(deadline - time.monotonic() + 0.999)))
            query = {"wait": wait, "q": q, "after": after, "poll_token": poll_token, "view": "full"}
            try:
                res = self.request("GET", f"/v1/inboxes/{inbox_id}/messages/latest", query=query, timeout=wait + 30)
                return Message(res["data"]), res.get("meta", {}).get("poll_token")
            except InboxdError as e:
                if e.status != 404 or e.code != "not_found" or "poll_token" not in e.details:
                    raise
                if time.monotonic() >= deadline:
                    what = f"matching {q!r} " if q else ""
                    raise NoMessage(404, "timeout", f"no message {what}arrived in inbox {inbox_id} within {timeout:g} s") from None


class Inbox:
    """An inbox; ``wait_for_message`` returns each message once, in arrival order (per query)."""

    def __init__(self, client: Client, data: Dict[str, Any]):
        self.client = client
        self.data = data
        self._token: Optional[str] = None
        # Each query's own position: a filtered wait starts where the unfiltered stream stands, then continues on its own.
        self._query_tokens: Dict[str, Optional[str]] = {}

    def __repr__(self) -> str:
        return f"Inbox(address={self.address!r})"

    @property
    def id(self) -> str:
        return self.data["id"]

    @property
    def address(self) -> str:
        return self.data["address"]

    def wait_for_message(self, q: Optional[str] = None, timeout: float = 30.0) -> Message:
        """Waits for the next message (matching q) after the one this wait (with this q) returned last."""
        start = self._token if q is None else self._query_tokens.get(q, self._token)
        # Before the first answer the baseline is the smallest id: the oldest message counts, not the newest.
        after = None if start else ZERO_ID
        message, token = self.client.wait_for_message(self.id, q=q, timeout=timeout, after=after, poll_token=start)
        if q is None:
            self._token = token
        else:
            self._query_tokens[q] = token
        return message

    def messages(self, q: Optional[str] = None) -> List[Message]:
        return self.client.messages(self.id, q=q)

    def delete(self) -> None:
        self.client.delete_inbox(self.id)
