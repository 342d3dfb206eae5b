import { describe, expect, test } from "bun:test";
import iconv from "iconv-lite";
import { agentAttachment, type AgentAttachmentInput } from "../../src/mime/attachment-agent";
import { contentDisposition, servedContentType } from "../../src/mime/served-type";

const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"));
function meta(over: Partial<AgentAttachmentInput> = {}): AgentAttachmentInput {
  return {
    id: "01JAAAAAAAAAAAAAAAAAAAAAAA",
    messageId: "01JBBBBBBBBBBBBBBBBBBBBBBB",
    filename: "notes.txt",
    declaredContentType: "text/plain",
    servedContentType: "text/plain",
    sizeBytes: 5,
    sha256: "0".repeat(64),
    ...over,
  };
}

describe("servedContentType", () => {
  test("active types are served as application/octet-stream", () => {
    for (const t of [
      "text/html",
      "image/svg+xml",
      "application/xhtml+xml",
      "application/javascript",
      "text/javascript",
      "application/xml",
      "text/xml",
      "application/x-shockwave-flash",
      "text/x-unknown",
      "multipart/related",
      "",
      "garbage",
    ]) {
      expect(servedContentType(t)).toBe("application/octet-stream");
    }
  });
  test("safe types are served as declared, parameters and case dropped", () => {
    expect(servedContentType("image/PNG")).toBe("image/png");
    expect(servedContentType("text/plain; charset=utf-8")).toBe("text/plain");
    expect(servedContentType("application/pdf")).toBe("application/pdf");
    expect(servedContentType("text/csv")).toBe("text/csv");
  });
});

describe("contentDisposition", () => {
  test("ASCII fallback and RFC 5987 UTF-8 name", () => {
    expect(contentDisposition("Bericht für Jörg.pdf")).toBe(
      `attachment; filename="Bericht f_r J_rg.pdf"; filename*=UTF-8''Bericht%20f%C3%BCr%20J%C3%B6rg.pdf`,
    );
    expect(contentDisposition("report.csv")).toBe(`attachment; filename="report.csv"; filename*=UTF-8''report.csv`);
  });
  test("quotes, CR/LF, path separators and control characters cannot escape the header", () => {
    for (const evil of [
      'a"; filename="evil.exe',
      "a\r\nSet-Cookie: x=1",
      "../../etc/passwd",
      "..\\..\\windows\\evil.bat",
      "x\u0000y\u007f.txt",
      "'quoted'.txt",
    ]) {
      const v = contentDisposition(evil);
      expect(v).not.toMatch(/[\r\n\u0000\u007f]/);
      expect(v.match(/"/g)?.length).toBe(2);
      const ascii = /filename="([^"]*)"/.exec(v)![1]!;
      expect(ascii).not.toMatch(/[/\\]/);
      const star = /filename\*=UTF-8''(.*)$/.exec(v)![1]!;
      expect(star).toMatch(/^[A-Za-z0-9%\-._~]*$/);
      expect(decodeURIComponent(star)).not.toMatch(/[/\\"\r\n]/);
    }
    expect(contentDisposition("../../etc/passwd")).toContain('filename="passwd"');
  });
  test("empty or dot-only names get a default", () => {
    expect(contentDisposition("")).toContain('filename="attachment"');
    expect(contentDisposition(null)).toContain('filename="attachment"');
    expect(contentDisposition("...")).toContain('filename="attachment"');
  });
});

describe("agentAttachment", () => {
  test("text types give decoded text in the untrusted envelope with a fresh nonce", () => {
    const a = agentAttachment(meta(), enc("hello"));
    const b = agentAttachment(meta(), enc("hello"));
    expect(a).toMatchObject({
      id: "01JAAAAAAAAAAAAAAAAAAAAAAA",
      message_id: "01JBBBBBBBBBBBBBBBBBBBBBBB",
      size_bytes: 5,
      sha256: "0".repeat(64),
      declared_content_type: "text/plain",
      served_content_type: "text/plain",
      text_available: true,
      truncated: false,
      withheld_reason: "",
      untrusted: { provenance: "third-party-email", filename: "notes.txt", text: "hello" },
    });
    expect(a.untrusted.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(a.untrusted.nonce).not.toBe(b.untrusted.nonce);
    expect(Object.keys(a).sort()).toEqual([
      "declared_content_type",
      "id",
      "message_id",
      "served_content_type",
      "sha256",
      "size_bytes",
      "text_available",
      "truncated",
      "untrusted",
      "withheld_reason",
    ]);
  });

  test("csv, calendar and json are decoded too", () => {
    expect(agentAttachment(meta({ declaredContentType: "text/csv", filename: "a.csv" }), enc("a,b\n1,2")).untrusted.text).toBe("a,b\n1,2");
    expect(
      agentAttachment(meta({ declaredContentType: "text/calendar", filename: "invite.ics" }), enc("BEGIN:VCALENDAR")).text_available,
    ).toBe(true);
    expect(agentAttachment(meta({ declaredContentType: "application/json", filename: "d.json" }), enc('{"a":1}')).untrusted.text).toBe(
      '{"a":1}',
    );
  });

  test("generic octet-stream is sniffed by extension; other binary types are withheld", () => {
    expect(
      agentAttachment(meta({ declaredContentType: "application/octet-stream", filename: "export.csv" }), enc("x,y")).untrusted.text,
    ).toBe("x,y");
    for (const [type, name] of [
      ["text/html", "page.html"],
      ["application/pdf", "a.pdf"],
      ["image/png", "a.png"],
      ["application/octet-stream", "blob.bin"],
      ["image/svg+xml", "notes.txt"],
    ]) {
      const r = agentAttachment(meta({ declaredContentType: type!, filename: name! }), enc("<b>secret</b>"));
      expect(r).toMatchObject({ text_available: false, truncated: false, withheld_reason: "binary_type" });
      expect(r.untrusted.text).toBe("");
    }
  });

  test("text types that hold binary are withheld as not decodable", () => {
    const r = agentAttachment(meta(), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]));
    expect(r).toMatchObject({ text_available: false, withheld_reason: "not_text_decodable", untrusted: { text: "" } });
  });

  test("UTF-16 with BOM and legacy 8-bit text decode", () => {
    const utf16 = new Uint8Array([0xff, 0xfe, ...Buffer.from("héllo", "utf16le")]);
    expect(agentAttachment(meta(), utf16).untrusted.text).toBe("héllo");
    expect(agentAttachment(meta(), new Uint8Array(iconv.encode("Grüße €", "windows-1252"))).untrusted.text).toBe("Grüße €");
    expect(agentAttachment(meta(), enc("\ufeffbom")).untrusted.text).toBe("bom");
  });

  test("text is bounded (default 64 KiB characters) with truncated", () => {
    const big = enc("a".repeat(100_000));
    const r = agentAttachment(meta(), big);
    expect(r.untrusted.text.length).toBe(64 * 1024);
    expect(r.truncated).toBe(true);
    const small = agentAttachment(meta(), big, { maxChars: 10 });
    expect(small.untrusted.text).toBe("a".repeat(10));
    const emoji = agentAttachment(meta(), enc("😀😀😀"), { maxChars: 3 });
    expect(emoji.untrusted.text).toBe("😀");
  });
});
