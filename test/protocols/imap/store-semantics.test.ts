// IMAP store semantics that Dovecot's imaptest checks (issue 21, second round): \Recent handed to
// exactly one session, SEARCH text keys as substrings wherever they start (with and without the
// full-text index, its vocabulary's trigram index and that index's one-time fill after an
// upgrade), SENT* by the Date header's own day, ENVELOPE groups, subscriptions that outlive their
// mailbox, MULTIAPPEND. Raw client for the exact bytes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInboxd, type Instance } from "../../support/harness";
import { newBox, RawImap } from "../../support/imap";
import { withDatabaseFile } from "../../support/sqlite-file";
import { sqliteOnly } from "../../support/test-database";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const session = async (box: Awaited<ReturnType<typeof newBox>>) => {
  const r = await RawImap.open(inst.ports.imap!);
  await r.login(box);
  return r;
};

/** APPEND with a synchronising literal (LITERAL+ form), returning the tagged reply. */
async function append(r: RawImap, tag: string, mailbox: string, message: string, flags = ""): Promise<string> {
  r.write(`${tag} APPEND ${mailbox} ${flags ? `(${flags}) ` : ""}{${Buffer.byteLength(message)}+}\r\n${message}\r\n`);
  return r.until(`${tag} `);
}

const msg = (headers: string[], body = "body") => [...headers, "", body, ""].join("\r\n");

/** The 2,100-message mailbox of the vocabulary tests. */
let bigBox: Awaited<ReturnType<typeof newBox>>;
const UMLAUT = "* SEARCH 8 508 1008 1508 2008";
const PLAIN = "* SEARCH 10 510 1010 1510 2010";
const BOTH = "* SEARCH 8 10 508 510 1008 1010 1508 1510 2008 2010";
const BIG_ANSWERS = [BOTH, BOTH, UMLAUT, UMLAUT, PLAIN, 2 + 2100 - 10, 2 + 2100 - 10, "* SEARCH"];

/** The searches over the big mailbox: 5 fragments of 3+ characters, one of 2, two with anchored words. */
async function bigSearches(r: RawImap): Promise<Array<string | number>> {
  const search = async (tag: string, q: string) => (await r.cmd(tag, `SEARCH ${q}`)).split("\r\n")[0]!;
  return [
    await search("q1", "BODY erverificatio"),
    await search("q2", "TEXT ERVERIFICATION"),
    // With a separator the index phrase path.
    await search("q3", 'BODY "verification token"'),
    // Folded for the term lookup ("uberver"), exact for the answer: only the bodies with the Ü.
    await search("q4", `CHARSET UTF-8 BODY {${Buffer.byteLength("Überver")}+}\r\nÜberver`),
    await search("q5", "BODY uberver"),
    (await search("q6", "BODY ille")).split(" ").length,
    (await search("q7", "BODY ll")).split(" ").length,
    await search("q8", "BODY nowhere-to-be-found"),
  ];
}

/** inboxd_imap_search_term_lookups_total by way, from /metrics. */
async function termLookups(): Promise<{ trigram: number; walk: number }> {
  const text = await (await fetch(`${inst.url}/metrics`)).text();
  const n = (via: string) =>
    Number(text.match(new RegExp(`^inboxd_imap_search_term_lookups_total\\{via="${via}"\\} (\\d+)`, "m"))?.[1] ?? 0);
  return { trigram: n("trigram"), walk: n("walk") };
}

describe("\\Recent", () => {
  test("recent in the first session that selects after arrival only; EXAMINE and STATUS look without taking", async () => {
    const box = await newBox(inst);
    const a = await session(box);
    expect(await a.cmd("c1", "CREATE Box")).toContain("c1 OK");
    expect(await append(a, "a1", "Box", msg(["Subject: one"]))).toContain("a1 OK [APPENDUID");
    expect(await append(a, "a2", "Box", msg(["Subject: two"]), "\\Seen")).toContain("a2 OK [APPENDUID");

    expect(await a.cmd("s1", "STATUS Box (MESSAGES RECENT)")).toContain("(MESSAGES 2 RECENT 2)");
    const ex = await a.cmd("e1", "EXAMINE Box");
    expect(ex).toContain("* 2 RECENT");
    expect(await a.cmd("e2", "FETCH 1:2 FLAGS")).toBe(
      "* 1 FETCH (FLAGS (\\Recent))\r\n* 2 FETCH (FLAGS (\\Recent \\Seen))\r\ne2 OK FETCH completed\r\n",
    );
    expect(await a.cmd("e3", "CLOSE")).toContain("e3 OK");
    // EXAMINE took nothing: the SELECT after it gets both.
    expect(await a.cmd("s2", "STATUS Box (RECENT)")).toContain("(RECENT 2)");
    expect(await a.cmd("s3", "SELECT Box")).toContain("* 2 RECENT");
    expect(await a.cmd("s4", "SEARCH RECENT")).toContain("* SEARCH 1 2\r\n");
    expect(await a.cmd("s5", "SEARCH NEW")).toContain("* SEARCH 1\r\n");
    expect(await a.cmd("s6", "SEARCH OLD")).toContain("* SEARCH\r\n");

    // Another session selecting now finds nothing recent, and STATUS says so.
    const b = await session(box);
    expect(await b.cmd("t1", "STATUS Box (RECENT)")).toContain("(RECENT 0)");
    const sel = await b.cmd("t2", "SELECT Box");
    expect(sel).toContain("* 0 RECENT");
    expect(await b.cmd("t3", "SEARCH RECENT")).toContain("* SEARCH\r\n");
    expect(await b.cmd("t4", "FETCH 1 FLAGS")).toContain("* 1 FETCH (FLAGS ())");
    // Mail arriving while both have it selected is recent in the one that notices it first.
    const c = await session(box);
    expect(await append(c, "u1", "Box", msg(["Subject: three"]))).toContain("u1 OK");
    const noop = await a.cmd("s7", "NOOP");
    expect(noop).toContain("* 3 EXISTS\r\n* 3 RECENT\r\n");
    expect(await a.cmd("s8", "FETCH 3 FLAGS")).toContain("* 3 FETCH (FLAGS (\\Recent))");
    const noopB = await b.cmd("t6", "NOOP");
    expect(noopB).toContain("* 3 EXISTS\r\n* 0 RECENT\r\n");
    expect(await b.cmd("t7", "SEARCH NEW")).toContain("* SEARCH\r\n");
    // The appending session itself, with the mailbox selected, sees its APPEND's EXISTS first.
    const own = await append(b, "t8", "Box", msg(["Subject: four"]));
    expect(own).toContain("* 4 EXISTS\r\n* 1 RECENT\r\n");
    expect(await a.cmd("s9", "NOOP")).toContain("* 4 EXISTS\r\n* 3 RECENT\r\n");
    // Session a keeps its \Recent until it leaves; then nobody has them.
    expect(await a.cmd("s10", "SELECT Box")).toContain("* 0 RECENT");
    a.close();
    c.close();
    b.close();
  });

  test("COPY into a mailbox: the copies are recent for the session that selects it next", async () => {
    const box = await newBox(inst);
    const r = await session(box);
    await r.cmd("c1", "CREATE Src");
    await r.cmd("c2", "CREATE Dst");
    await append(r, "a1", "Src", msg(["Subject: x"]));
    await append(r, "a2", "Src", msg(["Subject: y"]));
    await r.cmd("s1", "SELECT Src");
    expect(await r.cmd("s2", "COPY 1:2 Dst")).toContain("s2 OK [COPYUID");
    expect(await r.cmd("s3", "STATUS Dst (MESSAGES RECENT)")).toContain("(MESSAGES 2 RECENT 2)");
    expect(await r.cmd("s4", "SELECT Dst")).toContain("* 2 RECENT");
    r.close();
  });
});

describe("SEARCH text keys are substrings", () => {
  test("values that start inside a word, addresses, groups, headers, TEXT over headers", async () => {
    const box = await newBox(inst);
    const r = await session(box);
    await r.cmd("c1", "CREATE S");
    const mails = [
      msg(
        ["From: RealFrom <user-from@domain.org>", "To: groupname: groupuser1@domain.org, g2@d.org;", "Subject: hello beautiful world"],
        "Your verification code is 481516",
      ),
      msg(["From: user-from1@domain.org, user-from2@domain.org", "X-Extra: hello beautiful header", "Subject: other"], "asdfghjkl zxcvbnm"),
      msg(["From: plain@example.com", "X-Header: qwertyuiop", "Subject: third"], "nothing here"),
    ];
    for (const [i, m] of mails.entries()) expect(await append(r, `a${i}`, "S", m)).toContain("OK [APPENDUID");
    await r.cmd("s0", "SELECT S");
    const search = async (tag: string, q: string) => (await r.cmd(tag, `SEARCH ${q}`)).split("\r\n")[0];
    // No anchored word: the batched scan.
    expect(await search("q1", "BODY erification")).toBe("* SEARCH 1");
    expect(await search("q2", "BODY sdfghjk")).toBe("* SEARCH 2");
    expect(await search("q3", "FROM ealfro")).toBe("* SEARCH 1");
    expect(await search("q4", "TO groupname")).toBe("* SEARCH 1");
    expect(await search("q5", "FROM user-from2")).toBe("* SEARCH 2");
    expect(await search("q6", 'HEADER X-Extra "eautiful head"')).toBe("* SEARCH 2");
    expect(await search("q7", "TEXT wertyuio")).toBe("* SEARCH 3");
    // Anchored words go through the index, then the exact substring test.
    expect(await search("q8", 'SUBJECT "eautiful worl"')).toBe("* SEARCH 1");
    expect(await search("q9", 'BODY "ification code"')).toBe("* SEARCH 1");
    expect(await search("q10", 'BODY "ification xcode"')).toBe("* SEARCH");
    expect(await search("q11", "TEXT qwertyuiop")).toBe("* SEARCH 3");
    expect(await search("q12", 'TEXT "code is 4815"')).toBe("* SEARCH 1");
    expect(await search("q13", 'FROM "ser-fro"')).toBe("* SEARCH 1 2");
    expect(await search("q14", 'HEADER Subject ""')).toBe("* SEARCH 1 2 3");
    expect(await search("q15", 'NOT HEADER X-Extra ""')).toBe("* SEARCH 1 3");
    r.close();
  });

  test("a mailbox above 2,000 messages: mid-word values are found through the index, same answers as the scan", async () => {
    bigBox = await newBox(inst);
    const r = await session(bigBox);
    await r.cmd("c1", "CREATE Big");
    // 2,100 messages in MULTIAPPENDs of 300; every 500th carries the rare word, with and without
    // its diacritic (the index folds both to one term; the substring test tells them apart).
    for (let start = 0; start < 2100; start += 300) {
      const parts: string[] = [];
      for (let i = start; i < start + 300; i++) {
        const body = i % 500 === 7 ? `the Überverification token ${i}` : i % 500 === 9 ? `plain uberverification ${i}` : `filler text ${i}`;
        const m = msg([`Subject: n${i}`], body);
        parts.push(`{${Buffer.byteLength(m)}+}\r\n${m}`);
      }
      r.write(`m${start} APPEND Big ${parts.join(" ")}\r\n`);
      expect(await r.until(`m${start} `, 60_000)).toContain(`m${start} OK [APPENDUID`);
    }
    await r.cmd("s0", "SELECT Big");
    expect(await bigSearches(r)).toEqual(BIG_ANSWERS);
    r.close();
  }, 120_000);

  sqliteOnly("the FTS5 vocabulary and its trigram index live in SQLite's search database")(
    "the big mailbox's fragments of 3+ characters take the vocabulary's trigram index, a 2-character one walks it",
    async () => {
      const r = await session(bigBox);
      await r.cmd("s0", "SELECT Big");
      const before = await termLookups();
      expect(await bigSearches(r)).toEqual(BIG_ANSWERS);
      // Every fragment of 3+ characters took the trigram index (one MATCH); "ll" walked the vocabulary.
      const after = await termLookups();
      expect({ trigram: after.trigram - before.trigram, walk: after.walk - before.walk }).toEqual({ trigram: 5, walk: 1 });
      r.close();
    },
  );

  sqliteOnly("drops tables of SQLite's search database (inboxd-search.db) to replay an upgrade")(
    "an index from before the term table: filled once by the worker, the walk answers meanwhile, then the trigram index",
    async () => {
      await inst.stop();
      // Restarted whatever happens: the later tests of this file share the instance.
      try {
        withDatabaseFile(
          inst.dataDir,
          (db) =>
            db.exec("DROP TRIGGER index_terms_added; DROP TABLE index_terms_trigram; DROP TABLE index_terms; DROP TABLE index_terms_fill"),
          { file: "inboxd-search.db" },
        );
      } finally {
        inst = await inst.restart();
      }
      const r = await session(bigBox);
      await r.cmd("s0", "SELECT Big");
      // Whichever way each round took, the answers are the same; the fill ends within the deadline.
      const deadline = Date.now() + 60_000;
      for (let before = await termLookups(); ; ) {
        expect(await bigSearches(r)).toEqual(BIG_ANSWERS);
        const after = await termLookups();
        if (after.trigram - before.trigram === 5) break;
        expect(Date.now()).toBeLessThan(deadline);
        before = after;
        await Bun.sleep(100);
      }
      const missing = withDatabaseFile(
        inst.dataDir,
        (db) =>
          db.query("SELECT COUNT(*) AS n FROM messages_fts_terms WHERE term NOT IN (SELECT term FROM index_terms)").get() as { n: number },
        { file: "inboxd-search.db", readonly: true },
      );
      expect(missing.n).toBe(0);
      r.close();
    },
    120_000,
  );

  test("SENTON/SENTBEFORE/SENTSINCE use the day written in the Date header, whatever its zone", async () => {
    const box = await newBox(inst);
    const r = await session(box);
    await r.cmd("c1", "CREATE D");
    const dates = [
      "Sat, 24 Mar 2007 23:00:00 +0200",
      "Sun, 25 Mar 2007 00:00:00 +0200",
      "Sun, 25 Mar 2007 23:00:00 +0300",
      "Mon, 26 Mar 2007 00:00:00 +0300",
    ];
    for (const [i, d] of dates.entries()) await append(r, `a${i}`, "D", msg([`Date: ${d}`, `Subject: d${i}`]));
    await r.cmd("s0", "SELECT D");
    const search = async (tag: string, q: string) => (await r.cmd(tag, `SEARCH ${q}`)).split("\r\n")[0];
    expect(await search("q1", "SENTON 25-Mar-2007")).toBe("* SEARCH 2 3");
    expect(await search("q2", "SENTBEFORE 25-Mar-2007")).toBe("* SEARCH 1");
    expect(await search("q3", "SENTSINCE 26-Mar-2007")).toBe("* SEARCH 4");
    expect(await search("q4", "NOT SENTON 25-Mar-2007")).toBe("* SEARCH 1 4");
    r.close();
  });
});

describe("ENVELOPE, subscriptions, MULTIAPPEND", () => {
  test("ENVELOPE: a group member that is only a comment is no address; source routes fill adl", async () => {
    const box = await newBox(inst);
    const r = await session(box);
    await r.cmd("c1", "CREATE E");
    await append(
      r,
      "a1",
      "E",
      msg(["From: <@route:user@domain>", "To: group:;, group2: (foo) ;", "Date: Thu, 15 Feb 2007 01:02:03 +0200"]),
    );
    await r.cmd("s0", "SELECT E");
    const env = await r.cmd("f1", "FETCH 1 ENVELOPE");
    expect(env).toContain('((NIL "@route" "user" "domain"))');
    expect(env).toContain('((NIL NIL "group" NIL)(NIL NIL NIL NIL)(NIL NIL "group2" NIL)(NIL NIL NIL NIL))');
    r.close();
  });

  test("a subscription outlives its mailbox: \\NonExistent in LIST (SUBSCRIBED), back on CREATE, gone on UNSUBSCRIBE", async () => {
    const box = await newBox(inst);
    const r = await session(box);
    await r.cmd("c1", "CREATE top/gone");
    await r.cmd("c2", "CREATE top/kept");
    await r.cmd("c3", "SUBSCRIBE top/gone");
    expect(await r.cmd("d1", "DELETE top/gone")).toContain("d1 OK");
    expect(await r.cmd("l1", 'LIST (SUBSCRIBED) "" "top/*"')).toBe(
      '* LIST (\\NonExistent \\Subscribed) "/" "top/gone"\r\nl1 OK LIST completed\r\n',
    );
    expect(await r.cmd("l2", 'LSUB "" "top/*"')).toBe('* LSUB (\\Noselect) "/" "top/gone"\r\nl2 OK LSUB completed\r\n');
    // Plain LIST lists mailboxes only; top has no child named gone any more.
    expect(await r.cmd("l3", 'LIST "" "top/*"')).toBe('* LIST (\\HasNoChildren) "/" "top/kept"\r\nl3 OK LIST completed\r\n');
    // CREATE again: the mailbox is subscribed.
    await r.cmd("c4", "CREATE top/gone");
    expect(await r.cmd("l4", 'LIST (SUBSCRIBED) "" "top/*"')).toBe(
      '* LIST (\\HasNoChildren \\Subscribed) "/" "top/gone"\r\nl4 OK LIST completed\r\n',
    );
    await r.cmd("d2", "DELETE top/gone");
    expect(await r.cmd("u1", "UNSUBSCRIBE top/gone")).toContain("u1 OK");
    expect(await r.cmd("l5", 'LIST (SUBSCRIBED) "" "top/*"')).toBe("l5 OK LIST completed\r\n");
    r.close();
  });

  test("MULTIAPPEND: several messages in one command, APPENDUID with a UID set; a bad one stores none", async () => {
    const box = await newBox(inst);
    const r = await session(box);
    expect(await r.cmd("c0", "CAPABILITY")).toContain(" MULTIAPPEND");
    await r.cmd("c1", "CREATE M");
    const m1 = msg(["Subject: mail1"], "body1");
    const m2 = msg(["Subject: mail2"], "body2");
    r.write(`a1 APPEND M (\\Seen) {${Buffer.byteLength(m1)}+}\r\n${m1} (\\Flagged) {${Buffer.byteLength(m2)}+}\r\n${m2}\r\n`);
    const ok = await r.until("a1 ");
    const set = /a1 OK \[APPENDUID \d+ (\d+):(\d+)\]/.exec(ok);
    expect(set).not.toBeNull();
    expect(Number(set![2]) - Number(set![1])).toBe(1);
    await r.cmd("s0", "SELECT M");
    const f = await r.cmd("f1", "FETCH 1:* (FLAGS BODY.PEEK[HEADER.FIELDS (SUBJECT)])");
    expect(f).toContain("* 1 FETCH (FLAGS (\\Recent \\Seen)");
    expect(f).toContain("* 2 FETCH (FLAGS (\\Recent \\Flagged)");
    expect(f).toContain("Subject: mail2");
    // The second message is empty: nothing of the command is stored.
    r.write(`a2 APPEND M {${Buffer.byteLength(m1)}+}\r\n${m1} {0+}\r\n\r\n`);
    expect(await r.until("a2 ")).toContain("a2 NO");
    expect(await r.cmd("s1", "STATUS M (MESSAGES)")).toContain("(MESSAGES 2)");
    // A missing literal after the flags is a syntax error, not a half-done append.
    r.write(`a3 APPEND M {${Buffer.byteLength(m1)}+}\r\n${m1} (\\Seen)\r\n`);
    expect(await r.until("a3 ")).toContain("a3 BAD");
    expect(await r.cmd("s2", "STATUS M (MESSAGES)")).toContain("(MESSAGES 2)");
    r.close();
  });
});
