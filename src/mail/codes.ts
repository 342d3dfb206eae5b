// Verification codes in a message: number and alphanumeric tokens that stand near a word that
// means "code" (in several languages), minus the numbers mail is full of (years, prices, phone
// numbers, dates, times, order numbers, zip codes). The rules are in docs/parsing.md and the
// corpus in test/fixtures/mail/codes fixes them; change both together.
import { decodeHTML } from "entities";

const MAX_SCAN_CHARS = 100_000;
const MAX_CODES = 5;
const MAX_CANDIDATES = 1000;

// "code"-words: a candidate close to one of these is probably a code.
// Separate expressions, each run only when the lower-cased text contains one of its stems (null:
// when it contains CJK/Hangul): one big case-insensitive Unicode alternation is several times slower.
const STRONG_KEYWORDS: Array<[string[] | null, RegExp]> = (
  [
    // Compounds in Germanic languages ("Bestätigungscode", "verificatiecode", "engangskode").
    [["code", "kode", "kod"], String.raw`(?<!\p{L})(?:bestätigungs|sicherheits|verifizierungs|verifikations|anmelde|einmal|zugangs|login|aktivierungs|freischalt|verificatie|bevestigings|beveiligings|inlog|toegangs|pass|auth|engangs|engångs|bekræftelses|sikkerheds|verifiserings|verifierings|säkerhets|aktiverings|bekreftelses)-?(?:code|kode|kod)(?:s|en|e)?(?!\p{L})`],
    [["cod", "kod", "otp", "pin", "tan", "2fa", "mfa", "códig"], String.raw`(?<!\p{L})(?:codes?|code's|kode|koden|kod|koden|kodu|kodunuz|kodem|codice|código|codigo|códigos|otp|pin|tan|mtan|2fa|mfa)(?!\p{L})`],
    [["one", "einmal", "mot de passe", "contraseña", "senha", "password", "eenmalig"], String.raw`(?<!\p{L})(?:one[- ]time[- ](?:pass(?:word|code)?|pin)|einmal-?passwort|mot de passe (?:à usage unique|temporaire)|contraseña (?:de un solo uso|temporal)|senha (?:de uso único|temporária)|password (?:monouso|temporanea)|eenmalig wachtwoord)(?!\p{L})`],
    [["код", "одноразов"], String.raw`(?<!\p{L})(?:код\p{L}{0,3}|одноразов\p{L}* парол\p{L}*|пин-код\p{L}{0,2})(?!\p{L})`],
    [null, String.raw`(?:認証コード|確認コード|認証番号|確認番号|ワンタイムパスワード|セキュリティコード|パスコード|暗証番号|コード|验证码|驗證碼|校验码|校驗碼|动态码|動態碼|动态密码|确认码|確認碼|安全码|인증\s?번호|인증\s?코드|확인\s?코드|보안\s?코드)`],
  ] as Array<[string[] | null, string]>
).map(([stems, source]) => [stems, new RegExp(source, "giu")]);

// Context words: weaker evidence, only digit codes and only at a shorter distance.
const WEAK_STEMS = [
  "verif", "confirm", "authent", "factor", "log", "sign", "bestätig", "verifizier", "anmeld", "vérifi", "connexion",
  "conferma", "accesso", "bevestig", "weryfikac", "doğrulama", "подтвержд", "проверк", "вход",
];
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/u;
const WEAK_KEYWORD = new RegExp(
  [
    String.raw`(?<!\p{L})(?:verif(?:y|ication|ied)|confirm(?:ation)?|authenticat(?:e|ion)|two[- ]factor|log[- ]?in|sign[- ]?in|bestätig(?:en|ung)|verifizier(?:en|ung)|anmeld(?:en|ung)|vérifi(?:er|cation)|confirm(?:er|ación|ação|ar|are|a)|connexion|verificaci[oó]n|verifica(?:ção|cao|re)?|conferma|accesso|verificatie|bevestig(?:en|ing)?|inloggen|weryfikac\p{L}*|doğrulama|подтвержд\p{L}*|проверк\p{L}*|вход\p{L}*)(?!\p{L})`,
    String.raw`(?:認証|確認|验证|驗證|登录|登錄|인증)`,
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

const CURRENCY_BEFORE = /(?:[$€£¥₹₽₩₺¢]|usd|eur|gbp|chf|jpy|cad|aud|r\$|rs\.?|kr|zł|total|price|preis|prix|precio|amount|betrag|balance|sum|cost)\s*:?\s*$/i;
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
const ALNUM = /(?<![\p{L}\p{N}_#@\/.'’-])(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{4,8}(?![\p{L}\p{N}_@\/'’-]|\.\w)/gu;
const DASHED = /(?<![\p{L}\p{N}_#@\/.-])(?:[A-Z]{1,4}-\d{3,8}|[A-Z0-9]{3,4}-[A-Z0-9]{3,4})(?![\p{L}\p{N}_@\/-]|\.\w)/gu;

/** Replaces URLs, e-mail addresses and hex colours by spaces (same length, positions kept). */
function blankNoise(s: string): string {
  const blank = (m: string) => " ".repeat(m.length);
  return s
    .replace(/\b(?:https?|ftp):\/\/[^\s<>"]+|\bwww\.[^\s<>"]+/gi, blank)
    .replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, blank)
    .replace(/#[0-9a-f]{3,8}\b/gi, blank);
}

/** Text of an HTML body for code search: no head/style/script, blocks become line breaks. */
export function htmlToPlain(html: string): string {
  const s = html
    .slice(0, MAX_SCAN_CHARS * 4)
    .replace(/<(head|style|script|title)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(?:br|\/p|\/div|\/tr|\/h\d|\/li|\/td|\/table|hr|p|div|tr|table)\b[^>]*>/gi, "\n")
    .replace(/<[^>]*>/g, " ");
  return decodeHTML(s)
    .replace(/[ \t\u00a0]+/g, " ")
    .replace(/\n\s*\n\s*/g, "\n\n");
}

function findKeywords(s: string): Keyword[] {
  const out: Keyword[] = [];
  const lower = s.toLowerCase();
  const cjk = CJK.test(s);
  const wanted = (stems: string[] | null) => (stems === null ? cjk : stems.some((st) => lower.includes(st)));
  const strong = STRONG_KEYWORDS.filter(([stems]) => wanted(stems)).flatMap(([, re]) => [...s.matchAll(re)]);
  for (const m of strong) {
    const start = m.index!;
    const end = start + m[0].length;
    const before = s.slice(Math.max(0, start - 24), start);
    const after = s.slice(end, end + 24);
    if (/code|kode|kod|codice|código|codigo/i.test(m[0]) && (NOT_A_CODE_BEFORE.test(before) || NOT_A_CODE_AFTER.test(after))) continue;
    out.push({ start, end, strong: true });
  }
  if (cjk || wanted(WEAK_STEMS)) {
    for (const m of s.matchAll(WEAK_KEYWORD)) out.push({ start: m.index!, end: m.index! + m[0].length, strong: false });
  }
  return out.sort((a, b) => a.start - b.start);
}

function findCandidates(s: string): Candidate[] {
  const out: Candidate[] = [];
  // Earlier (more specific) shapes claim their characters; later shapes skip claimed ranges.
  const taken = new Uint8Array(s.length);
  const add = (value: string, start: number, end: number, kind: Kind) => {
    for (let i = start; i < end; i++) if (taken[i]) return;
    taken.fill(1, start, end);
    out.push({ value, start, end, kind });
  };
  for (const m of s.matchAll(DASHED)) {
    if (/[A-Z]/.test(m[0]) && /\d/.test(m[0])) add(m[0], m.index!, m.index! + m[0].length, "dashed");
  }
  for (const m of s.matchAll(SPLIT)) add(m[1]! + m[2]!, m.index!, m.index! + m[0].length, "split");
  for (const m of s.matchAll(DIGITS)) add(m[0], m.index!, m.index! + m[0].length, "digits");
  for (const m of s.matchAll(ALNUM)) add(m[0], m.index!, m.index! + m[0].length, "alnum");
  return out;
}

/** Rejects numbers that are plainly something else, judged by their immediate surroundings. */
function looksLikeOtherNumber(s: string, c: Candidate): boolean {
  const before = s.slice(Math.max(0, c.start - 40), c.start);
  const after = s.slice(c.end, c.end + 24);
  // Part of a longer number, date, time, phone number or amount: "2024-01-15", "10:30",
  // "+1 555 123 4567", "1,299.00", "12/05".
  if (/\d[.,:\/\-–]$|\d[ \t]?[\/\-–][ \t]?$|\d[ \t]$|[+(]\s*$/.test(before)) return true;
  if (/^(?:[.,:\/\-–]\d|[ \t]?[\/\-–][ \t]?\d|[ \t]\d|\s*\))/.test(after)) return true;
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

function scoreSegment(raw: string, segment: number, inSubject: boolean, into: Scored[]): void {
  // CJK punctuation gets a space first: NFKC turns "482016，5分钟" into "482016,5" (a decimal).
  const s = blankNoise(raw.slice(0, MAX_SCAN_CHARS).replace(/[，。、；：]/g, "$& ").normalize("NFKC"));
  const keywords = findKeywords(s);
  if (keywords.length === 0) return;
  for (const c of findCandidates(s).slice(0, MAX_CANDIDATES)) {
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
        if (gapText.includes("\n") && !/(?:^|\n)[\s\[(\-–—>*:"'“«【「]{0,4}$/.test(gapText)) continue;
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
        const copula = /^\s*(?:is|ist|est|es|é|è|är|er|jest|это|は|是|为|為|—|-|:)(?:\s|$)/iu.test(gapText) || /^\s*[はが是为為]/u.test(gapText);
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
    const lineStart = s.lastIndexOf("\n", c.start - 1) + 1;
    const lineEnd = s.indexOf("\n", c.end);
    const line = s.slice(lineStart, lineEnd === -1 ? s.length : lineEnd).trim();
    const alone = line === s.slice(c.start, c.end);
    let score = best;
    if (alone) score += 20;
    if (inSubject) score += 15;
    if (c.value.replace(/\D/g, "").length === 6) score += 10;
    if (c.kind === "digits" && c.value.length === 4) score -= 10;
    if (c.kind === "alnum" || c.kind === "dashed") {
      // Letter-and-digit tokens need a real "code" word right before them, or a line of their own.
      const strongNear = keywords.some((k) => k.strong && ((k.end <= c.start && c.start - k.end <= 40) || (k.start >= c.end && k.start - c.end <= 32)));
      if (!strongNear || (!immediate && !alone && best < 75)) continue;
      score -= 5;
    }
    if (score < 30) continue;
    into.push({ value: c.value, score, order: segment * 1_000_000 + c.start });
  }
}

/** Nothing but punctuation and a copula ("is", "ist", "est", "是", "は" …) between keyword and code. */
function isImmediate(gap: string): boolean {
  const rest = gap
    .replace(/[\s:：=\-–—>*"'“”‘’«»()\[\]「」【】、,]+/g, " ")
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
  if (html && (!text || found.length === 0)) scoreSegment(htmlToPlain(html), 2, false, found);
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
