// Verification codes in a message: number and alphanumeric tokens that stand near a word that
// means "code" (in several languages), minus the numbers mail is full of (years, prices, phone
// numbers, dates, times, order numbers, zip codes). The rules are in docs/parsing.md and the
// corpus in test/fixtures/mail/codes fixes them; change both together.
import { htmlToText } from "./html-text";

/** Characters of each part (subject, text, HTML-derived text) that are scanned. */
const MAX_SCAN_CHARS = 64_000;
const MAX_CODES = 5;
const MAX_CANDIDATES = 1000;

// "code"-words: a candidate close to one of these is probably a code.
// Separate expressions, each run only when the lower-cased text contains one of its stems (null:
// when it contains CJK/Hangul): one big case-insensitive Unicode alternation is several times slower.
// And each runs only over the windows around candidates where a keyword can count (keywordWindows).
const STRONG_KEYWORDS: Array<[string[] | null, RegExp]> = (
  [
    // Compounds in Germanic languages ("Bestätigungscode", "verificatiecode", "engangskode").
    [
      ["code", "kode", "kod"],
      String.raw`(?<!\p{L})(?:bestätigungs|sicherheits|verifizierungs|verifikations|anmelde|einmal|zugangs|login|aktivierungs|freischalt|verificatie|bevestigings|beveiligings|inlog|toegangs|pass|auth|engangs|engångs|bekræftelses|sikkerheds|verifiserings|verifierings|säkerhets|aktiverings|bekreftelses)-?(?:code|kode|kod)(?:s|en|e)?(?!\p{L})`,
    ],
    [
      ["cod", "kod", "otp", "pin", "tan", "2fa", "mfa", "códig"],
      String.raw`(?<!\p{L})(?:codes?|code's|kode|koden|kod|koden|kodu|kodunuz|kodem|codice|código|codigo|códigos|otp|pin|tan|mtan|2fa|mfa)(?!\p{L})`,
    ],
    [
      ["one", "einmal", "mot de passe", "contraseña", "senha", "password", "eenmalig"],
      String.raw`(?<!\p{L})(?:one[- ]time[- ](?:pass(?:word|code)?|pin)|einmal-?passwort|mot de passe (?:à usage unique|temporaire)|contraseña (?:de un solo uso|temporal)|senha (?:de uso único|temporária)|password (?:monouso|temporanea)|eenmalig wachtwoord)(?!\p{L})`,
    ],
    [["код", "одноразов"], String.raw`(?<!\p{L})(?:код\p{L}{0,3}|одноразов\p{L}* парол\p{L}*|пин-код\p{L}{0,2})(?!\p{L})`],
    [
      null,
      String.raw`(?:認証コード|確認コード|認証番号|確認番号|ワンタイムパスワード|セキュリティコード|パスコード|暗証番号|コード|验证码|驗證碼|校验码|校驗碼|动态码|動態碼|动态密码|确认码|確認碼|安全码|인증\s?번호|인증\s?코드|확인\s?코드|보안\s?코드)`,
    ],
  ] as Array<[string[] | null, string]>
).map(([stems, source]) => [stems, new RegExp(source, "giu")]);

// Context words: weaker evidence, only digit codes and only at a shorter distance.
const WEAK_STEMS = [
  "verif",
  "confirm",
  "authent",
  "factor",
  "log",
  "sign",
  "bestätig",
  "verifizier",
  "anmeld",
  "vérifi",
  "connexion",
  "conferma",
  "accesso",
  "bevestig",
  "weryfikac",
  "doğrulama",
  "подтвержд",
  "проверк",
  "вход",
];
const WEAK_KEYWORD = new RegExp(
  [
    String.raw`(?<!\p{L})(?:verif(?:y|ication|ied)|confirm(?:ation)?|authenticat(?:e|ion)|two[- ]factor|log[- ]?in|sign[- ]?in|bestätig(?:en|ung)|verifizier(?:en|ung)|anmeld(?:en|ung)|vérifi(?:er|cation)|confirm(?:er|ación|ação|ar|are|a)|connexion|verificaci[oó]n|verifica(?:ção|cao|re)?|conferma|accesso|verificatie|bevestig(?:en|ing)?|inloggen|weryfikac\p{L}*|doğrulama|подтвержд\p{L}*|проверк\p{L}*|вход\p{L}*)(?!\p{L})`,
    "(?:認証|確認|验证|驗證|登录|登錄|인증)",
  ].join("|"),
  "giu",
);

// "code" used for something that is not a verification code.
const NOT_A_CODE_BEFORE =
  /(?:promo(?:tional)?|discount|coupon|voucher|gift|referral|invite|zip|postal|post|area|country|dial(?:ling|ing)?|tracking|error|status|source|qr|bar|dress|tax|sort|swift|bic|product|item|colou?r|rabatt|gutschein|aktions|fehler|código de|iso|language)[\s-]*$/i;
const NOT_A_CODE_AFTER =
  /^\s*(?:promo|postal|de (?:réduction|parrainage|promo)|promocional|de descuento|postal|sconto|di sconto|postale|de desconto|promocional)/i;

// Words after which a number identifies something else (an order, a phone line, an address).
const OTHER_NUMBER_BEFORE =
  /(?:order|invoice|receipt|ticket|tracking|shipment|parcel|reference|ref|account|acct|customer|member|booking|reservation|case|transaction|sku|item|art|bestellung|bestellnummer|rechnung|auftrag|kundennummer|sendung|commande|facture|pedido|factura|ordine|fattura|bestelling|заказ\p{L}*|注文|订单|訂單|phone|tel|telefon|téléphone|teléfono|telefone|fax|call|mobile|handy|hotline|whatsapp|zip|postal|plz|apt|suite|unit|room|flight|gate|seat|version|v|build|model|invoice no|card|ending(?: in)?|endet auf|karte|carte|tarjeta|cartão|carta|iban|bic|swift)\b[^\n\d]{0,12}$/iu;

const CURRENCY_BEFORE =
  /(?:[$€£¥₹₽₩₺¢]|usd|eur|gbp|chf|jpy|cad|aud|r\$|rs\.?|kr|zł|total|price|preis|prix|precio|amount|betrag|balance|sum|cost)\s*:?\s*$/i;
const UNIT_AFTER =
  /^\s?(?:[$€£¥₹₽₩%‰°]|usd|eur|gbp|chf|jpy|kr|zł|円|元|руб\p{L}*|yen|dollars?|euros?|points?|pts|miles|meters?|km|kg|mb|gb|kb|tb|ms|px|mah|hz|w\b|am\b|pm\b|uhr|h\b|hrs|min(?:utes?)?\b|sec|seconds|days?|tage|jours|días|users|people|members|steps|calories|kcal|reviews|views|followers|sq)/iu;

// Marketing copy: a "code" here is a coupon, not a verification code.
const PROMO_CONTEXT =
  /(?<!\p{L})(?:promo(?:tion(?:al)?)?|discount|coupon|voucher|checkout|\d+ ?% (?:off|rabatt|de réduction|de descuento|di sconto|korting)|sale|rabatt|gutschein\p{L}*|réduction|descuento|sconto|korting|промокод\p{L}*|скидк\p{L}*|优惠券|折扣|クーポン|割引)(?!\p{L})/iu;

type Kind = "digits" | "split" | "alnum" | "dashed";
interface Keyword {
  start: number;
  end: number;
  strong: boolean;
}
interface Candidate {
  value: string;
  start: number;
  end: number;
  kind: Kind;
}

const LETTER = String.raw`\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}`;
const SPLIT = new RegExp(String.raw`(?<![${LETTER}\p{N}_#+])(\d{3})[ \-](\d{3})(?![${LETTER}\p{N}_])`, "gu");
const DIGITS = new RegExp(String.raw`(?<![${LETTER}\p{N}_#@])\d{4,8}(?![${LETTER}\p{N}_@])`, "gu");
const ALNUM = /(?<![\p{L}\p{N}_#@/.'’-])(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{4,8}(?![\p{L}\p{N}_@/'’-]|\.\w)/gu;
const DASHED = /(?<![\p{L}\p{N}_#@/.-])(?:[A-Z]{1,4}-\d{3,8}|[A-Z0-9]{3,4}-[A-Z0-9]{3,4})(?![\p{L}\p{N}_@/-]|\.\w)/gu;
// The engine runs expressions with lookbehind in its interpreter: ALNUM and DASHED over a 10 KB
// body of capital letters cost most of a millisecond. Both can only match a whole run of
// [A-Z0-9-] of 4 to 13 characters with a digit and a capital in it, so they are tried only at
// such runs, found by an expression the engine compiles (same answers, a fraction of the time).
const UPPER_RUN = /[A-Z0-9][A-Z0-9-]*/g;
const ALNUM_AT = new RegExp(ALNUM.source, "uy");
const DASHED_AT = new RegExp(DASHED.source, "uy");

/** Start offsets of the runs where ALNUM or DASHED may match. */
function upperRuns(s: string): number[] {
  const out: number[] = [];
  for (const m of s.matchAll(UPPER_RUN)) {
    const run = m[0];
    if (run.length >= 4 && run.length <= 13 && /\d/.test(run) && /[A-Z]/.test(run)) out.push(m.index!);
  }
  return out;
}

function matchAt(re: RegExp, s: string, at: number): string | null {
  re.lastIndex = at;
  return re.exec(s)?.[0] ?? null;
}

/** Replaces URLs, e-mail addresses and hex colours by spaces (same length, positions kept). */
function blankNoise(s: string): string {
  const blank = (m: string) => " ".repeat(m.length);
  return blankEmails(blankUrls(s)).replace(/#[0-9a-f]{3,8}\b/gi, blank);
}

const isWordChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const URL_END = /[\s<>"]/g;

/**
 * Blanks what /\b(?:https?|ftp):\/\/[^\s<>"]+|\bwww\.[^\s<>"]+/gi would match, found from each "://"
 * and "www." instead of trying the alternation at every character of the body.
 */
function blankUrls(s: string): string {
  const starts: Array<[number, number]> = []; // [start, where the [^\s<>"]+ run begins]
  for (let q = s.indexOf("://"); q !== -1; q = s.indexOf("://", q + 1)) {
    const scheme =
      q >= 5 && s.slice(q - 5, q).toLowerCase() === "https"
        ? 5
        : q >= 4 && s.slice(q - 4, q).toLowerCase() === "http"
          ? 4
          : q >= 3 && s.slice(q - 3, q).toLowerCase() === "ftp"
            ? 3
            : 0;
    if (scheme) starts.push([q - scheme, q + 3]);
  }
  const www = /www\./gi;
  for (let m = www.exec(s); m; m = www.exec(s)) {
    starts.push([m.index, m.index + 4]);
    www.lastIndex = m.index + 1;
  }
  if (starts.length === 0) return s;
  starts.sort((a, b) => a[0] - b[0]);
  let out = "";
  let copied = 0;
  for (const [start, run] of starts) {
    if (start < copied) continue;
    if (start > 0 && isWordChar(s.charCodeAt(start - 1))) continue; // \b before a word character
    URL_END.lastIndex = run;
    const end = URL_END.exec(s)?.index ?? s.length;
    if (end === run) continue; // [^\s<>"]+ needs one character
    out += s.slice(copied, start) + " ".repeat(end - start);
    copied = end;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

const isLocalPart = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 43 || c === 45;
const isDomainPart = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;

/**
 * Blanks what /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g would match, in one pass from each "@". (That
 * expression, run as a regex, retries from every character of a long word: quadratic on a body
 * that is one long line.)
 */
function blankEmails(s: string): string {
  let out = "";
  let copied = 0;
  let floor = 0; // a match cannot start inside the previous one
  for (let at = s.indexOf("@"); at !== -1; at = s.indexOf("@", at + 1)) {
    if (at < floor) continue;
    let start = at;
    while (start > floor && isLocalPart(s.charCodeAt(start - 1))) start--;
    if (start === at) continue;
    let e = at + 1;
    while (e < s.length && isDomainPart(s.charCodeAt(e))) e++;
    if (e === at + 1) continue;
    let end = -1;
    while (s.charCodeAt(e) === 46 /* . */) {
      let f = e + 1;
      while (f < s.length && isDomainPart(s.charCodeAt(f))) f++;
      if (f === e + 1) break;
      end = e = f;
    }
    if (end < 0) continue;
    out += s.slice(copied, start) + " ".repeat(end - start);
    copied = floor = end;
    at = end - 1;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/**
 * Matches of `re` (global; a leading (?<!\p{L}) and a trailing (?!\p{L}) are its only look-arounds)
 * starting inside the given windows of s (sorted, disjoint). One character before each window is
 * read for the look-behind (a match starting on it belongs to no window); a window ends at the end
 * of a word, so a match is never cut short.
 */
function matchIn(s: string, re: RegExp, windows: Array<[number, number]>): Array<{ index: number; text: string }> {
  const out: Array<{ index: number; text: string }> = [];
  for (const [from, to] of windows) {
    const ctx = from > 0 ? 1 : 0;
    for (const m of s.slice(from - ctx, to).matchAll(re)) {
      if (ctx && m.index === 0) continue;
      out.push({ index: from - ctx + m.index!, text: m[0] });
    }
  }
  return out;
}

const LETTER_CHAR = /\p{L}/u;

/**
 * Where keywords can matter: scoring only looks at keywords starting from KEYWORD_BEFORE
 * characters before a candidate to KEYWORD_AFTER after it, and a keyword match is at most
 * KEYWORD_LENGTH characters long (then the rest of a word). Merged, so each character of the
 * text is read at most once per expression; a body without candidates is never searched for
 * keywords at all.
 */
function keywordWindows(s: string, candidates: Candidate[]): Array<[number, number]> {
  const spans = candidates
    .map((c): [number, number] => {
      let end = Math.min(s.length, c.end + KEYWORD_AFTER + KEYWORD_LENGTH);
      while (end < s.length && LETTER_CHAR.test(s[end]!)) end++;
      return [Math.max(0, c.start - KEYWORD_BEFORE), Math.min(s.length, end + 1)];
    })
    .sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const sp of spans) {
    const last = out[out.length - 1];
    if (last && sp[0] <= last[1]) last[1] = Math.max(last[1], sp[1]);
    else out.push(sp);
  }
  return out;
}

const KEYWORD_BEFORE = 160;
const KEYWORD_AFTER = 40;
const KEYWORD_LENGTH = 64;

function findKeywords(s: string, windows: Array<[number, number]>): Keyword[] {
  const out: Keyword[] = [];
  // Over large windows the stems first skip expressions that cannot match (a native scan per
  // stem); small windows are cheaper to search outright.
  const size = windows.reduce((n, [a, b]) => n + b - a, 0);
  const lower = size > 4096 ? s.toLowerCase() : null;
  const cjk = CJK.test(size > 4096 ? s : windows.map(([a, b]) => s.slice(a, b)).join(""));
  const wanted = (stems: string[] | null) => (stems === null ? cjk : lower === null || stems.some((st) => lower.includes(st)));
  const strong = STRONG_KEYWORDS.filter(([stems]) => wanted(stems)).flatMap(([, re]) => matchIn(s, re, windows));
  for (const m of strong) {
    const start = m.index;
    const end = start + m.text.length;
    const before = s.slice(Math.max(0, start - 24), start);
    const after = s.slice(end, end + 24);
    if (/code|kode|kod|codice|código|codigo/i.test(m.text) && (NOT_A_CODE_BEFORE.test(before) || NOT_A_CODE_AFTER.test(after))) continue;
    out.push({ start, end, strong: true });
  }
  if (cjk || wanted(WEAK_STEMS)) {
    for (const m of matchIn(s, WEAK_KEYWORD, windows)) out.push({ start: m.index, end: m.index + m.text.length, strong: false });
  }
  return out.sort((a, b) => a.start - b.start);
}

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/u;

function findCandidates(s: string): Candidate[] {
  const out: Candidate[] = [];
  // Earlier (more specific) shapes claim their characters; later shapes skip claimed ranges.
  const taken = new Uint8Array(s.length);
  const add = (value: string, start: number, end: number, kind: Kind) => {
    for (let i = start; i < end; i++) if (taken[i]) return;
    taken.fill(1, start, end);
    out.push({ value, start, end, kind });
  };
  const runs = upperRuns(s);
  for (const at of runs) {
    const m = matchAt(DASHED_AT, s, at);
    if (m && /[A-Z]/.test(m) && /\d/.test(m)) add(m, at, at + m.length, "dashed");
  }
  for (const m of s.matchAll(SPLIT)) add(m[1]! + m[2]!, m.index!, m.index! + m[0].length, "split");
  for (const m of s.matchAll(DIGITS)) add(m[0], m.index!, m.index! + m[0].length, "digits");
  for (const at of runs) {
    const m = matchAt(ALNUM_AT, s, at);
    if (m) add(m, at, at + m.length, "alnum");
  }
  return out;
}

/** Rejects numbers that are plainly something else, judged by their immediate surroundings. */
function looksLikeOtherNumber(s: string, c: Candidate): boolean {
  const before = s.slice(Math.max(0, c.start - 40), c.start);
  const after = s.slice(c.end, c.end + 24);
  // Part of a longer number, date, time, phone number or amount: "2024-01-15", "10:30",
  // "+1 555 123 4567", "1,299.00", "12/05".
  if (/\d[.,:/\-–]$|\d[ \t]?[/\-–][ \t]?$|\d[ \t]$|[+(]\s*$/.test(before)) return true;
  if (/^(?:[.,:/\-–]\d|[ \t]?[/\-–][ \t]?\d|[ \t]\d|\s*\))/.test(after)) return true;
  if (/(?:#|№|\bno\.?|\bnr\.?|\bn[°º]|©|\(c\))\s*$/i.test(before)) return true;
  if (CURRENCY_BEFORE.test(before) || UNIT_AFTER.test(after)) return true;
  return false;
}

function isYear(value: string): boolean {
  return /^(?:19|20)\d\d$/.test(value);
}

interface Scored {
  value: string;
  score: number;
  order: number;
}

const NON_ASCII = /[^\x00-\x7f]/;

function scoreSegment(raw: string, segment: number, inSubject: boolean, into: Scored[]): void {
  // CJK punctuation gets a space first: NFKC turns "482016，5分钟" into "482016,5" (a decimal).
  // Pure ASCII is its own NFKC form, and most mail is: skip both passes then.
  const head = raw.slice(0, MAX_SCAN_CHARS);
  const s = blankNoise(NON_ASCII.test(head) ? head.replace(/[，。、；：]/g, "$& ").normalize("NFKC") : head);
  const candidates = findCandidates(s).slice(0, MAX_CANDIDATES);
  if (candidates.length === 0) return;
  const keywords = findKeywords(s, keywordWindows(s, candidates));
  if (keywords.length === 0) return;
  for (const c of candidates) {
    if (c.kind === "digits" || c.kind === "split") {
      if (looksLikeOtherNumber(s, c)) continue;
    }
    let best = -Infinity;
    let immediate = false;
    // Only keywords within the largest window can matter (keywords are sorted by start).
    let lo = 0;
    let hi = keywords.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keywords[mid]!.start < c.start - 160) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < keywords.length && keywords[i]!.start <= c.end + 40; i++) {
      const k = keywords[i]!;
      if (k.end <= c.start) {
        const gapText = s.slice(k.end, c.start);
        const gap = gapText.length;
        if (gap > (k.strong ? 80 : 40)) continue;
        // An order/phone/address word between the keyword and the number claims the number.
        if (OTHER_NUMBER_BEFORE.test(gapText)) continue;
        if ((gapText.match(/\n/g)?.length ?? 0) > 3) continue;
        // Across a line break the number must start its line ("Your code:\n\n  482913"),
        // not sit inside a later line such as an address.
        if (gapText.includes("\n") && !/(?:^|\n)[\s[(\-–—>*:"'“«【「]{0,4}$/.test(gapText)) continue;
        const imm = isImmediate(gapText);
        let score = (k.strong ? 100 : 55) - gap;
        if (/[.!?。]\s/.test(gapText)) score -= 30;
        if (imm) score += 40;
        if (score > best) {
          best = score;
          immediate = imm;
        }
      } else if (k.start >= c.end) {
        const gapText = s.slice(c.end, k.start);
        const gap = gapText.length;
        if (gap > (k.strong ? 40 : 20) || gapText.includes("\n")) continue;
        // "583920 is your code", "482016 は認証コードです": a copula right after the number.
        const copula =
          /^\s*(?:is|ist|est|es|é|è|är|er|jest|это|は|是|为|為|—|-|:)(?:\s|$)/iu.test(gapText) || /^\s*[はが是为為]/u.test(gapText);
        const score = (k.strong ? 90 : 45) - gap * 1.5 + (copula ? 20 : 0);
        if (score > best) {
          best = score;
          immediate = copula && k.strong;
        }
      }
    }
    if (best === -Infinity) continue;
    const before = s.slice(Math.max(0, c.start - 40), c.start);
    if (!immediate && OTHER_NUMBER_BEFORE.test(before)) continue;
    if (isYear(c.value) && !immediate) continue;
    if (PROMO_CONTEXT.test(s.slice(Math.max(0, c.start - 60), c.end + 60))) continue;
    const alone = aloneOnLine(s, c.start, c.end);
    let score = best;
    if (alone) score += 20;
    if (inSubject) score += 15;
    if (c.value.replace(/\D/g, "").length === 6) score += 10;
    if (c.kind === "digits" && c.value.length === 4) score -= 10;
    if (c.kind === "alnum" || c.kind === "dashed") {
      // Letter-and-digit tokens need a real "code" word right before them, or a line of their own.
      const strongNear = keywords.some(
        (k) => k.strong && ((k.end <= c.start && c.start - k.end <= 40) || (k.start >= c.end && k.start - c.end <= 32)),
      );
      if (!strongNear || (!immediate && !alone && best < 75)) continue;
      score -= 5;
    }
    if (score < 30) continue;
    into.push({ value: c.value, score, order: segment * 1_000_000 + c.start });
  }
}

/** Only white space between the candidate and the ends of its line (read outward, not the whole line). */
function aloneOnLine(s: string, start: number, end: number): boolean {
  for (let i = start - 1; i >= 0 && s[i] !== "\n"; i--) if (!/\s/.test(s[i]!)) return false;
  for (let i = end; i < s.length && s[i] !== "\n"; i++) if (!/\s/.test(s[i]!)) return false;
  return true;
}

/** Nothing but punctuation and a copula ("is", "ist", "est", "是", "は" …) between keyword and code. */
function isImmediate(gap: string): boolean {
  const rest = gap
    .replace(/[\s:：=\-–—>*"'“”‘’«»()[\]「」【】、,]+/g, " ")
    .trim()
    .toLowerCase();
  return /^(?:|is|ist|lautet|est|es|é|è|är|er|jest|это|是|为|為|は|が|を|이|는|:)$/u.test(rest);
}

/**
 * Verification codes in subject, text and HTML, most likely first, deduplicated. The HTML is
 * only read when the subject and text yield nothing (it usually repeats the text part).
 */
export function extractCodes(subject: string, text: string | null, html: string | null): string[] {
  const found: Scored[] = [];
  scoreSegment(subject ?? "", 0, true, found);
  if (text) scoreSegment(text, 1, false, found);
  if (html && (!text || found.length === 0)) scoreSegment(htmlToText(html), 2, false, found);
  found.sort((a, b) => b.score - a.score || a.order - b.order);
  const out: string[] = [];
  const digitsFound = new Set(found.filter((f) => /^\d+$/.test(f.value)).map((f) => f.value));
  for (const f of found) {
    // "G-583920" and "583920" in one message are one code; keep the part a user types.
    const prefixed = /^[A-Z]{1,4}-(\d+)$/.exec(f.value);
    if (prefixed && digitsFound.has(prefixed[1]!)) continue;
    if (!out.includes(f.value)) out.push(f.value);
    if (out.length >= MAX_CODES) break;
  }
  return out;
}
