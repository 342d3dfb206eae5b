// A realistic corpus of received test mail, for storage measurements (bench/storage-size.ts).
// What a test inbox receives: transactional mail from ESPs. Each message carries the headers a
// delivered message has (Received chain, DKIM and ARC signatures, Authentication-Results,
// List-Unsubscribe, ESP ids), and its body comes from the real-looking sign-in / verification
// mails of test/fixtures/mail/codes (subject, text, HTML). Mix: 70 % multipart/alternative with an
// HTML template (inline styles and tables, as ESP templates are; 6–25 KB), 30 % plain text (1–3 KB).
// Every message differs (ids, dates, signatures, codes), so no two share a blob.
import { type CodeFixture, codeFixtures, rng } from "../test/support/seeded";

const FIXTURES: CodeFixture[] = codeFixtures().filter((f) => f.subject && (f.text || f.html));

const SENDERS = ["no-reply@accounts.example.com", "security@mail.example.org", "hello@notifications.example.io", "support@example.net"];

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const b64 = (r: () => number, n: number): string => Array.from({ length: n }, () => B64[Math.floor(r() * 64)]).join("");
const hex = (r: () => number, n: number): string => Array.from({ length: n }, () => "0123456789abcdef"[Math.floor(r() * 16)]).join("");
const fold = (s: string): string => s.match(/.{1,76}/g)!.join("\r\n\t");

/** Quoted-printable, soft-broken at 76 columns (what ESPs send for HTML). */
function qp(s: string): string {
  const bytes = new TextEncoder().encode(s.replace(/\r?\n/g, "\n"));
  let out = "";
  let line = "";
  for (const b of bytes) {
    let piece: string;
    if (b === 10) {
      out += line + "\r\n";
      line = "";
      continue;
    }
    if ((b >= 33 && b <= 126 && b !== 61) || b === 32) piece = String.fromCharCode(b);
    else piece = "=" + b.toString(16).toUpperCase().padStart(2, "0");
    if (line.length + piece.length > 75) {
      out += line + "=\r\n";
      line = "";
    }
    line += piece;
  }
  return out + line;
}

function headers(r: () => number, i: number, to: string, from: string, subject: string, date: Date): string {
  const domain = from.split("@")[1]!;
  const ip = `198.51.100.${1 + Math.floor(r() * 250)}`;
  const d = date.toUTCString().replace("GMT", "+0000");
  const id = `${hex(r, 16)}.${i}`;
  return [
    `Received: from mta-${Math.floor(r() * 90)}.${domain} (mta.${domain} [${ip}])\r\n\tby mx.test.local with ESMTPS id ${b64(r, 12)}\r\n\tfor <${to}>; ${d}`,
    `Received: from app-${Math.floor(r() * 40)}.internal (unknown [10.0.${Math.floor(r() * 250)}.${Math.floor(r() * 250)}])\r\n\tby mta.${domain} (Postfix) with ESMTP id ${hex(r, 10).toUpperCase()}\r\n\tfor <${to}>; ${d}`,
    `ARC-Seal: i=1; a=rsa-sha256; t=${Math.floor(date.getTime() / 1000)}; cv=none; d=${domain}; s=arc-2024;\r\n\tb=${fold(b64(r, 344))}`,
    `ARC-Authentication-Results: i=1; mx.test.local; dkim=pass header.d=${domain}; spf=pass smtp.mailfrom=${domain}`,
    `Authentication-Results: mx.test.local;\r\n\tdkim=pass header.i=@${domain} header.s=s1 header.b=${b64(r, 8)};\r\n\tspf=pass (test.local: domain of bounces@${domain} designates ${ip} as permitted sender) smtp.mailfrom=bounces@${domain};\r\n\tdmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=${domain}`,
    `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=${domain}; s=s1; t=${Math.floor(date.getTime() / 1000)};\r\n\th=from:to:subject:date:message-id:mime-version:content-type:list-unsubscribe;\r\n\tbh=${b64(r, 43)}=;\r\n\tb=${fold(b64(r, 344))}`,
    `From: Example Accounts <${from}>`,
    `To: <${to}>`,
    `Subject: ${subject}`,
    `Date: ${d}`,
    `Message-ID: <${id}@${domain}>`,
    `List-Unsubscribe: <https://${domain}/unsubscribe/${b64(r, 40)}>, <mailto:unsubscribe-${hex(r, 24)}@${domain}>`,
    `List-Unsubscribe-Post: List-Unsubscribe=One-Click`,
    `Feedback-ID: ${Math.floor(r() * 1e6)}:transactional:${domain}`,
    `X-Entity-Ref-ID: ${hex(r, 32)}`,
    `MIME-Version: 1.0`,
  ].join("\r\n");
}

/** An ESP-style HTML template around the fixture's content, padded with a realistic footer. */
function template(r: () => number, f: CodeFixture, domain: string, target: number): string {
  const content = f.html ?? `<p>${(f.text ?? "").replace(/\n/g, "<br>")}</p>`;
  const link = `https://${domain}/t/${b64(r, 48)}`;
  let html =
    `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n` +
    `<html xmlns="http://www.w3.org/1999/xhtml"><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta name="viewport" content="width=device-width, initial-scale=1.0">\n` +
    `<title>${f.subject}</title><style type="text/css">body{margin:0;padding:0;-webkit-text-size-adjust:100%;-ms-text-size-adjust:100%}table,td{border-collapse:collapse;mso-table-lspace:0pt;mso-table-rspace:0pt}img{border:0;height:auto;line-height:100%;outline:none;text-decoration:none}@media only screen and (max-width:480px){.container{width:100%!important}.pad{padding:16px!important}}</style></head>\n` +
    `<body style="margin:0;padding:0;background-color:#f4f5f7;"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#f4f5f7;"><tr><td align="center" style="padding:24px 12px;">\n` +
    `<table role="presentation" class="container" width="600" cellpadding="0" cellspacing="0" border="0" style="width:600px;background-color:#ffffff;border-radius:8px;">\n` +
    `<tr><td class="pad" style="padding:32px 40px 8px 40px;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;"><img src="https://${domain}/static/logo-${hex(r, 8)}.png" width="120" alt="Example" style="display:block;"></td></tr>\n` +
    `<tr><td class="pad" style="padding:8px 40px 24px 40px;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:24px;color:#1f2937;">${content}</td></tr>\n` +
    `<tr><td class="pad" style="padding:0 40px 32px 40px;"><a href="${link}" style="display:inline-block;background-color:#2563eb;color:#ffffff;font-family:Arial,sans-serif;font-size:16px;font-weight:bold;text-decoration:none;padding:12px 24px;border-radius:6px;">Continue</a></td></tr>\n`;
  const footer = [
    "You are receiving this email because an account was created or a sign-in was attempted with this address.",
    "If this was not you, you can safely ignore this email; someone may have typed your address by mistake.",
    "For help, visit our support centre or reply to this message and our team will get back to you.",
    "Example Inc., 500 Market Street, Suite 400, San Francisco, CA 94105, United States.",
    "Privacy policy · Terms of service · Manage notification preferences · Unsubscribe from these emails.",
  ];
  while (html.length < target) {
    const line = footer[Math.floor(r() * footer.length)]!;
    html += `<tr><td style="padding:4px 40px;font-family:Arial,sans-serif;font-size:12px;line-height:18px;color:#6b7280;">${line} <a href="https://${domain}/l/${b64(r, 32)}" style="color:#6b7280;">${hex(r, 6)}</a></td></tr>\n`;
  }
  return html + `</table></td></tr></table><img src="https://${domain}/o/${b64(r, 40)}.gif" width="1" height="1" alt=""></body></html>\n`;
}

/** Message `i` of the corpus for the recipient `to` (the same i always gives the same shape). */
export function corpusMessage(i: number, to: string): string {
  const r = rng(i * 2654435761 + 7);
  const f = FIXTURES[i % FIXTURES.length]!;
  const from = SENDERS[i % SENDERS.length]!;
  const domain = from.split("@")[1]!;
  const date = new Date(Date.UTC(2026, 2, 2, 10, 0, 0) + i * 7919);
  const head = headers(r, i, to, from, f.subject, date);
  const text = (f.text ?? "Open the HTML part of this message.").replace(/\r?\n/g, "\r\n");
  if (r() < 0.3) {
    let body = text + "\r\n\r\n";
    const target = 1000 + Math.floor(r() * 2000);
    while (body.length < target) body += `Reference ${hex(r, 12)}. If you did not request this, ignore this email.\r\n`;
    return `${head}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n${body}`;
  }
  const boundary = `----=_Part_${hex(r, 24)}`;
  const html = template(r, f, domain, 5000 + Math.floor(r() * 19000));
  return (
    `${head}\r\nContent-Type: multipart/alternative; boundary="${boundary}"\r\n\r\n` +
    `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n${qp(text)}\r\n` +
    `--${boundary}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n${qp(html)}\r\n` +
    `--${boundary}--\r\n`
  );
}
