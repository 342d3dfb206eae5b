import threading

import pytest

from inboxd import Client, InboxdError, NoMessage

seen = {}


def test_inbox_fixture_gives_a_fresh_inbox(inbox):
    assert "@" in inbox.address
    assert inbox.messages() == []
    seen["first"] = inbox.id


def test_each_test_gets_its_own_inbox_and_the_last_one_was_deleted(inbox, inboxd_client):
    assert inbox.id != seen["first"]
    with pytest.raises(InboxdError) as e:
        inboxd_client.inbox(seen["first"])
    assert e.value.status == 404


def test_wait_for_message_code_and_links(inbox, send):
    send(
        inbox.address,
        "Your sign-in code",
        "Your code is 482913. Or open https://app.example.com/verify?t=abc",
        html='<p>Your code is <b>482913</b>.</p><p><a href="https://app.example.com/verify?t=abc">Verify my e-mail</a></p>',
    )
    m = inbox.wait_for_message(timeout=10)
    assert m.subject == "Your sign-in code"
    assert m.code == "482913"
    assert m.links[0].url == "https://app.example.com/verify?t=abc"
    assert m.links[0].text == "Verify my e-mail"
    assert m.urls == ["https://app.example.com/verify?t=abc"]


def test_wait_for_message_returns_each_message_once_in_order(inbox, send):
    send(inbox.address, "one", "first")
    send(inbox.address, "two", "second")
    assert inbox.wait_for_message(timeout=10).subject == "one"
    assert inbox.wait_for_message(timeout=10).subject == "two"
    with pytest.raises(NoMessage):
        inbox.wait_for_message(timeout=1)


def test_wait_for_message_with_a_query_waits_for_a_match(inbox, send):
    def later():
        send(inbox.address, "newsletter", "not this one")
        send(inbox.address, "Reset your password", "Reset link: https://app.example.com/reset/xyz")

    t = threading.Timer(0.5, later)
    t.start()
    try:
        m = inbox.wait_for_message(q="subject:reset", timeout=10)
    finally:
        t.join()
    assert m.subject == "Reset your password"
    assert m.urls == ["https://app.example.com/reset/xyz"]


def test_a_filtered_wait_returns_each_match_once_in_order(inbox, send):
    send(inbox.address, "reset 1", "first")
    send(inbox.address, "newsletter", "not this one")
    send(inbox.address, "reset 2", "second")
    assert inbox.wait_for_message(q="subject:reset", timeout=10).subject == "reset 1"
    assert inbox.wait_for_message(q="subject:reset", timeout=10).subject == "reset 2"
    with pytest.raises(NoMessage):
        inbox.wait_for_message(q="subject:reset", timeout=1)
    # The unfiltered stream keeps its own place.
    assert inbox.wait_for_message(timeout=10).subject == "reset 1"


def test_a_wrong_key_is_an_error_with_the_envelope(inboxd_client):
    bad = Client(url=inboxd_client.url, api_key="isk_live_not_a_real_key_000000000000")
    with pytest.raises(InboxdError) as e:
        bad.create_inbox()
    assert e.value.status == 401
    assert e.value.request_id
