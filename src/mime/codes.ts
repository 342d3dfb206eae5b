// Verification codes in a message: number and alphanumeric tokens that stand near a word that
// means "code" (in several languages), minus the numbers mail is full of (years, prices, phone
// numbers, dates, times, order numbers, zip codes). The rules are in docs/parsing.md and the
// tuning corpus in test/fixtures/mail/codes fixes them; change both together. The held-out corpus
// (test/fixtures/mail/codes-holdout) is never tuned on: bun bench/codes.ts prints both figures.
import { htmlToText } from "./html-text";

/** Characters of each part (subject, text, HTML-derived text) that are scanned. */
const MAX_SCAN_CHARS = 64_000;
const MAX_CODES = 5;
const MAX_CANDIDATES = 1000;

// "code"-words: a candidate close to one of these is probably a code.
// Separate expressions, each run only when the lower-cased text contains one of its stems (null:
// when it contains CJK/Hangul): one big case-insensitive Unicode alternation is several times slower.
// And each runs only over the windows around candidates where a keyword can count (keywordWindows).
// A match whose `prefix` group is set is a compound ("Freigabecode", "inlogcode", "engångskod"): it
// counts unless the prefix names another kind of code (CODE_PREFIX_DENY: "Rabattcode", "postcode").
const STRONG_KEYWORDS: Array<[string[] | null, RegExp]> = (
  [
    [["code", "kode"], String.raw`(?<!\p{L})(?<prefix>\p{L}{0,30}?)-?(?:code|kode)(?:s|n|en|e|'s)?(?!\p{L})`],
    [["kod"], String.raw`(?<!\p{L})(?<prefix>\p{L}{0,30}?)kod(?:en|u|unuz|unu|un|um|e|em|y|zie|ów)?(?!\p{L})`],
    [
      ["cod", "otp", "pin", "2fa", "mfa", "token", "clave", "şifre", "sifre", "transaktionsnummer"],
      String.raw`(?<!\p{L})(?:codice|codici|código|codigo|códigos|codigos|otp|pin|pins|2fa|mfa|token|clave|şifre\p{L}*|sifre\p{L}*|transaktionsnummer)(?!\p{L})`,
    ],
    [
      ["one", "einmal", "mot de passe", "contraseña", "senha", "password", "eenmalig", "hasło", "haslo", "kullanımlık", "temporary"],
      String.raw`(?<!\p{L})(?:one[- ]time[- ](?:pass(?:word|code)?|pin|key)|temporary (?:password|passcode|pin)|einmal-?passwort|mot de passe (?:à usage unique|temporaire|unique)|contraseña (?:de un solo uso|temporal)|senha (?:de uso único|temporária|temporaria|de acesso)|password (?:monouso|temporanea|usa e getta)|eenmalig wachtwoord|(?:hasło|haslo) jednorazowe|jednorazowe (?:hasło|haslo)|tek kullanımlık (?:şifre|parola)\p{L}*)(?!\p{L})`,
    ],
    [["код", "одноразов"], String.raw`(?<!\p{L})(?:код\p{L}{0,3}|одноразов\p{L}* парол\p{L}*|пин-код\p{L}{0,2})(?!\p{L})`],
    [
      null,
      String.raw`(?:認証コード|確認コード|認証番号|確認番号|承認番号|ワンタイムパスワード|セキュリティコード|パスコード|暗証番号|認証キー|コード|验证码|驗證碼|验证代码|驗證代碼|校验码|校驗碼|动态码|動態碼|动态密码|動態密碼|动态口令|一次性密码|一次性密碼|确认码|確認碼|安全码|安全碼|激活码|啟用碼|授权码|授權碼|认证码|認證碼|登录码|登入碼|인증\s?번호|인증\s?코드|확인\s?코드|보안\s?코드)`,
    ],
  ] as Array<[string[] | null, string]>
).map(([stems, source]) => [stems, new RegExp(source, "giu")]);

// TAN and its German banking forms (pushTAN, smsTAN, mTAN …): case-sensitive, so "tan" (a colour) is not one.
const TAN_KEYWORD = /(?<!\p{L})(?:push|Push|sms|SMS|mobile|Mobile|chip|Chip|photo|Photo|app|App|m|i|e)?-?TANs?(?!\p{L})/gu;

/** Prefixes of "…code"/"…kod" compounds that name another kind of code (lower case, no trailing hyphen). */
const CODE_PREFIX_DENY = new Set(
  (
    "promo rabatt rabat gutschein aktions aktion bar qr quell source fehler error länder lander country land post zip " +
    "dress farb color colour status sort swift iso sprach language tax steuer de en un trans op byte uni geo short " +
    "morse time hash area kortings korting actie cadeau kado gift voucher coupon discount referral invite tracking " +
    "sendungs artikel produkt product item html css vorwahl antwort response exit return kupon indirim posta hata " +
    "alan streepjes strich pocztowy zip-post airport iata"
  ).split(" "),
);

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
  "acceso",
  "acesso",
  "bevestig",
  "weryfikac",
  "doğrulama",
  "giriş",
  "подтвержд",
  "проверк",
  "вход",
  "парол",
  "password",
  "passwort",
  "wachtwoord",
  "senha",
  "hasło",
  "activ",
  "aktiv",
  "autori",
];
const WEAK_KEYWORD = new RegExp(
  [
    String.raw`(?<!\p{L})(?:verif(?:y|ication|ied)|confirm(?:ation)?|authenticat(?:e|ion)|two[- ]factor|log[- ]?in|sign[- ]?in|bestätig(?:en|ung)|verifizier(?:en|ung)|anmeld(?:en|ung)|vérifi(?:er|cation)|confirm(?:er|ación|ação|ar|are|a)|connexion|verificaci[oó]n|verifica(?:ção|cao|re)?|conferma|accesso|acceso|acesso|verificatie|bevestig(?:en|ing)?|inloggen|weryfikac\p{L}*|logowani\p{L}*|doğrulama|giriş|подтвержд\p{L}*|проверк\p{L}*|вход\p{L}*|парол\p{L}*|password|passwort|wachtwoord|senha|hasło|activat(?:e|ion)|aktivier(?:en|ung)|activ(?:er|ation|ar|ación|ação|are)|autori[sz]\p{L}*)(?!\p{L})`,
    "(?:認証|確認|验证|驗證|登录|登錄|登入|ログイン|パスワード|密码|密碼|인증)",
  ].join("|"),
  "giu",
);

// "code" used for something that is not a verification code.
const NOT_A_CODE_BEFORE =
  /(?:promo(?:tional)?|discount|coupon|voucher|gift|referral|invite|zip|postal|posta|post|area|country|dial(?:ling|ing)?|tracking|error|status|source|qr|bar|dress|tax|sort|swift|bic|product|item|colou?r|rabatt|gutschein|aktions|fehler|código de|iso|language|indirim|İndirim|kupon|hata|alan|booking|airport|flight|gift card|promosyon)[\s-]*$/i;
const NOT_A_CODE_AFTER =
  /^\s*(?:promo|postal|de (?:réduction|parrainage|promo|descuento|desconto|error|erro|barras|regalo|rastreio|rastreamento)|promocional|promozionale|sconto|di sconto|postale|fiscale|di errore|a barre|d'erreur|cadeau|of conduct|pocztow\p{L}*|rabatow\p{L}*|promocyjn\p{L}*|zniżkow\p{L}*|kreskow\p{L}*|błędu|źródłow\p{L}*|ошибки|скидки|почтов\p{L}*|do cupom)/iu;

// Words after which a number identifies something else (an order, a phone line, an address). A
// German or Dutch "…nummer" compound counts too, except the TAN's own ("Transaktionsnummer").
const OTHER_NUMBER_BEFORE =
  /(?:order|invoice|receipt|ticket|tracking|shipment|parcel|reference|ref|account|acct|customer|member|booking|reservation|case|transaction|sku|item|art|bestellung|bestellnummer|rechnung|auftrag|kundennummer|sendung|commande|facture|pedido|factura|ordine|fattura|bestelling|заказ\p{L}*|注文|订单|訂單|phone|tel|telefon|téléphone|teléfono|telefone|fax|call|mobile|handy|hotline|whatsapp|zip|postal|postcode|plz|cep|cap|apt|suite|unit|room|flight|gate|seat|version|v|build|model|invoice no|card|ending(?: in)?|endet auf|karte|carte|tarjeta|cartão|carta|iban|bic|swift|meeting|(?<!\p{L})(?:number|no|numéro|número|numero|numer|nr|номер\p{L}*|sipariş|indeks|индекс|localizador|pnr)|(?<!transaktions|tan-|tan)nummer|予約番号|注文番号|会員番号|電話番号|郵便番号|問い合わせ番号|伝票番号|追跡番号|单号|會議號|会议号|账号|帳號|卡号|卡號|邮编|郵遞區號|电话|電話)\b[^\n\d]{0,12}$/iu;

// A currency right before a number (same line), or an amount word before it ("Total:\n 4500").
const CURRENCY_BEFORE =
  /(?:(?:[$€£¥₹₽₩₺¢]|usd|eur|gbp|chf|jpy|cad|aud|r\$|rs\.?|kr|zł|tl)[ \t]*|(?:total|price|preis|prix|precio|amount|betrag|balance|sum|cost|kwota|tutar|сумма|importe|importo|montant|valor|bedrag|金额|金額|合計|料金)\s*:?\s*)$/i;
const UNIT_AFTER =
  /^\s?(?:[$€£¥₹₽₩₺%‰°]|usd|eur|gbp|chf|jpy|kr|zł|tl\b|円|元|руб\p{L}*|yen|dollars?|euros?|points?|pts|miles|meters?|km|kg|mb|gb|kb|tb|ms|px|mah|hz|w\b|am\b|pm\b|uhr|h\b|hrs|min(?:utes?)?\b|sec|seconds|days?|tage|jours|días|users|people|members|steps|calories|kcal|reviews|views|followers|sq|attempts|activities)/iu;

// Marketing copy: a "code" here is a coupon, not a verification code.
const PROMO_CONTEXT =
  /(?<!\p{L})(?:promo(?:tion(?:al)?)?|discount|coupon|voucher|checkout|\d+ ?% (?:off|rabatt|de réduction|de descuento|di sconto|korting)|sale|rabatt?\p{L}*|gutschein\p{L}*|réduction|remise|descuento|desconto|cupom|cupón|sconto|korting\p{L}*|kupon\p{L}*|[iİ]ndirim\p{L}*|промокод\p{L}*|скидк\p{L}*|优惠\p{L}*|優惠\p{L}*|折扣|クーポン|割引)(?!\p{L})/iu;

type Kind = "digits" | "split" | "alnum" | "dashed" | "letters";
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
// A run of 2 to 8 digit groups: "123 456", "12-34-56", "4813 5520", and digits one per table cell or
// box ("4\n8\n2\n9\n1\n3" once the HTML is text). judgeRun decides what the run is. A longer run
// matches nowhere (the look-behind keeps a match from starting inside one): bounded, so a body of
// "1 2 3 4 …" is never one huge match.
const SEP = String.raw`(?:[ \t]{1,2}|[ \t]?[-–][ \t]?|[ \t]*\n[ \t\n]{0,8})`;
const RUN = new RegExp(
  String.raw`(?<![${LETTER}\p{N}_#+])(?<!\d${SEP})\d{1,4}(?:${SEP}\d{1,4}){1,7}(?![${LETTER}\p{N}_])(?!${SEP}\d)`,
  "gu",
);
const DIGITS = new RegExp(String.raw`(?<![${LETTER}\p{N}_#@])\d{4,8}(?![${LETTER}\p{N}_@])`, "gu");
const ALNUM = /(?<![\p{L}\p{N}_#@/.'’-])(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{4,8}(?![\p{L}\p{N}_@/'’-]|\.\w)/gu;
// "G-123456", "ABC-123", "XJ4-9PL", "HX7K-2PQM"; and the letters-only device codes of the OAuth device
// flow ("WDJB-MJHT"), which need more evidence (see scoreSegment).
const DASHED = /(?<![\p{L}\p{N}_#@/.-])(?:[A-Z]{1,4}-\d{3,8}|[A-Z0-9]{3,5}-[A-Z0-9]{3,5})(?![\p{L}\p{N}_@/-]|\.\w)/gu;

// The engine runs expressions with lookbehind in its interpreter: ALNUM and DASHED over a 10 KB
// body of capital letters cost most of a millisecond. Both can only match a whole run of
// [A-Z0-9-] of 4 to 13 characters with a capital and a digit or a dash in it, so they are tried
// only at such runs, found by an expression the engine compiles (same answers, a fraction of the time).
// A run is what /[A-Z0-9][A-Z0-9-]*/g matches, and only runs of 4 to 13 characters holding a digit
// or a dash count. So runs are found from their digits and dashes (a class search the engine skips
// through quickly) and measured by at most 14 characters each way: extending a regex match one
// character at a time through smtp-source's body of long capital runs cost 30 µs.
const SEED = /[0-9-]/g;
const ALNUM_AT = new RegExp(ALNUM.source, "uy");
const DASHED_AT = new RegExp(DASHED.source, "uy");
const isRunChar = (c: number) => (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45;
const MAX_RUN = 13;

/**
 * Start offsets of the runs where ALNUM or DASHED may match: runs of /[A-Z0-9][A-Z0-9-]*\/ of 4 to
 * 13 characters with a capital and a digit or a dash. Linear: each character is walked over at most
 * once backwards and once forwards. Exported for its equivalence test.
 */
export function upperRuns(s: string): number[] {
  const out: number[] = [];
  const n = s.length;
  let floor = 0; // everything before it is judged
  let floorInLong = false; // s[floor - 1] belongs to a run already known to be too long
  SEED.lastIndex = 0;
  // test(), not exec(): no match object per seed (a third of the cost).
  while (SEED.test(s)) {
    const p = SEED.lastIndex - 1;
    // Back to where the [A-Z0-9-] sequence starts (only capitals lie between floor and p).
    let a = p;
    while (a > floor && isRunChar(s.charCodeAt(a - 1))) a--;
    const tooLong = a === floor && floorInLong;
    // Leading dashes are not part of a run.
    let r = a;
    while (r < n && s.charCodeAt(r) === 45) r++;
    let b = r;
    while (b < n && b - r <= MAX_RUN && isRunChar(s.charCodeAt(b))) b++;
    const ended = b >= n || !isRunChar(s.charCodeAt(b));
    const len = b - r;
    if (!tooLong && ended && len >= 4 && len <= MAX_RUN) {
      const run = s.slice(r, b);
      if (/[A-Z]/.test(run) && (/\d/.test(run) || run.includes("-"))) out.push(r);
    }
    floor = b;
    floorInLong = !ended;
    SEED.lastIndex = b;
  }
  return out;
}

// Every RUN match holds two digits with a separator between them. Looking for that first (no
// look-behind, so compiled) skips RUN, which the engine interprets, over most bodies.
const RUN_PAIR = new RegExp(String.raw`\d${SEP}\d`);

/** RUN's matches in s. Exported for its equivalence test. */
export function digitRuns(s: string): RegExpExecArray[] {
  return RUN_PAIR.test(s) ? [...s.matchAll(RUN)] : [];
}

function matchAt(re: RegExp, s: string, at: number): string | null {
  re.lastIndex = at;
  return re.exec(s)?.[0] ?? null;
}

type Run = { code: string } | { claim: true } | null;

/**
 * What a run of digit groups is: a code ({code}: the digits joined), something else whose pieces
 * must not be read as codes ({claim}: a phone number, an IBAN, a date, a price with spaces), or
 * nothing to say (null: numbers on separate lines, each judged alone).
 * A code is one kind of separator throughout, groups of equal length, and either single digits
 * (4 to 8: boxes, cells, letter-spaced text) or groups of 2 to 4 digits making 6 to 8 ("123 456",
 * "12-34-56", "4813 5520"). Dates "12-03-25" are not codes.
 */
function judgeRun(run: string): Run {
  const groups = run.split(/\D+/);
  const seps = run.match(/\D+/g)!;
  const type = (sep: string) => (sep.includes("\n") ? "line" : /[-–]/.test(sep) ? "dash" : "space");
  const first = type(seps[0]!);
  const len = groups[0]!.length;
  const digits = groups.length * len;
  const uniform = seps.every((x) => type(x) === first) && groups.every((g) => g.length === len);
  const ok = uniform && (len === 1 ? digits >= 4 && digits <= 8 : first !== "line" && digits >= 6 && digits <= 8);
  if (ok && !(len === 2 && groups.length === 3 && Number(groups[0]) <= 31 && Number(groups[1]) <= 12 && first === "dash")) {
    return { code: groups.join("") };
  }
  return run.includes("\n") ? null : { claim: true };
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
function matchIn(s: string, re: RegExp, windows: Array<[number, number]>): Array<{ index: number; text: string; prefix?: string }> {
  const out: Array<{ index: number; text: string; prefix?: string }> = [];
  for (const [from, to] of windows) {
    const ctx = from > 0 ? 1 : 0;
    for (const m of s.slice(from - ctx, to).matchAll(re)) {
      if (ctx && m.index === 0) continue;
      out.push({ index: from - ctx + m.index!, text: m[0], prefix: m.groups?.prefix });
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

const KEYWORD_BEFORE = 200;
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
  if (lower === null || lower.includes("tan")) strong.push(...matchIn(s, TAN_KEYWORD, windows));
  for (const m of strong) {
    if (m.prefix && CODE_PREFIX_DENY.has(m.prefix.toLowerCase().replace(/-$/, ""))) continue;
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
  const free = (start: number, end: number) => {
    for (let i = start; i < end; i++) if (taken[i]) return false;
    return true;
  };
  const add = (value: string, start: number, end: number, kind: Kind) => {
    if (!free(start, end)) return;
    taken.fill(1, start, end);
    out.push({ value, start, end, kind });
  };
  const runs = upperRuns(s);
  for (const at of runs) {
    const m = matchAt(DASHED_AT, s, at);
    if (!m) continue;
    const hasDigit = /\d/.test(m);
    if (/[A-Z]/.test(m) && hasDigit) add(m, at, at + m.length, "dashed");
    else if (!hasDigit && /^[A-Z]{4}-[A-Z]{4}$/.test(m)) add(m, at, at + m.length, "letters");
  }
  for (const m of digitRuns(s)) {
    const start = m.index!;
    const end = start + m[0].length;
    const run = judgeRun(m[0]);
    if (run && "code" in run) add(run.code, start, end, "split");
    else if (run && free(start, end)) taken.fill(1, start, end);
  }
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

/** YYYYMMDD: "20250312". */
function isDate(value: string): boolean {
  return /^(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$/.test(value);
}

/** 1900 to 2039: birth, copyright and expiry years. ("2048" is more likely a code.) */
function isYear(value: string): boolean {
  return /^(?:19\d\d|20[0-3]\d)$/.test(value);
}

interface Scored {
  value: string;
  score: number;
  order: number;
}

/** Whether s is all ASCII: its UTF-8 length is its length exactly then (a native count, where a
 * regex scan of a 10 KB body cost 15 µs). */
const isAscii = (s: string) => Buffer.byteLength(s, "utf8") === s.length;

/** The text as scanned: NFKC (full-width digits and colons become ASCII), URLs, addresses and colours blanked. */
function normalise(raw: string): string {
  // CJK punctuation gets a space first: NFKC turns "482016，5分钟" into "482016,5" (a decimal).
  // Pure ASCII is its own NFKC form, and most mail is: skip both passes then.
  const head = raw.slice(0, MAX_SCAN_CHARS);
  return blankNoise(!isAscii(head) ? head.replace(/[，。、；：]/g, "$& ").normalize("NFKC") : head);
}

/** A table row as text ("Order #\n 112-4829133") reads as one line for the identifier words. */
const flatCells = (s: string) => s.replace(/[ \t]*\n[ \t]*(?=\S|$)/g, " ");

/** At most three short lower-case words (and punctuation) between a keyword and a code: "code di sicurezza". */
function fewWords(gap: string): boolean {
  if (/[.!?。]\s|\n/.test(gap)) return false;
  const words = gap.replace(/[\s:：=\-–—>*"'“”‘’«»()[\]「」【】、,]+/g, " ").trim();
  return words === "" || /^\p{Ll}{1,14}(?: \p{Ll}{1,14}){0,2}$/u.test(words);
}

interface SegmentOpts {
  inSubject: boolean;
  /** The subject holds a strong keyword ("Your verification code"): a number alone on its line in the body counts. */
  subjectStrong: boolean;
}

function scoreSegment(raw: string, segment: number, opts: SegmentOpts, into: Scored[]): void {
  const s = normalise(raw);
  const candidates = findCandidates(s).slice(0, MAX_CANDIDATES);
  if (candidates.length === 0) return;
  const keywords = findKeywords(s, keywordWindows(s, candidates));
  if (keywords.length === 0 && !opts.subjectStrong) return;
  for (const c of candidates) {
    const numeric = c.kind === "digits" || c.kind === "split";
    if (numeric && looksLikeOtherNumber(s, c)) continue;
    const alone = aloneOnLine(s, c.start, c.end);
    let best = -Infinity;
    let immediate = false;
    let nearStrong = false; // a strong keyword right before (or after) it, with at most a few small words between
    let strongAbove = false; // a strong keyword above a code that stands on its own line (a code block)
    // Only keywords within the largest window can matter (keywords are sorted by start).
    let lo = 0;
    let hi = keywords.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keywords[mid]!.start < c.start - KEYWORD_BEFORE) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < keywords.length && keywords[i]!.start <= c.end + KEYWORD_AFTER; i++) {
      const k = keywords[i]!;
      if (k.end <= c.start) {
        const gapText = s.slice(k.end, c.start);
        const gap = gapText.length;
        // A code block (the number alone on its line) may sit further below its keyword.
        if (gap > (k.strong ? (alone ? KEYWORD_BEFORE : 80) : 40)) continue;
        // An order/phone/address word between the keyword and the number claims the number.
        if (OTHER_NUMBER_BEFORE.test(flatCells(gapText))) continue;
        if ((gapText.match(/\n/g)?.length ?? 0) > (alone ? 8 : 3)) continue;
        // Far below its keyword only across words: numbers in between mean a table of other facts.
        if (gap > 80 && /\d/.test(gapText)) continue;
        // Across a line break the number must start its line ("Your code:\n\n  482913"),
        // not sit inside a later line such as an address.
        if (gapText.includes("\n") && !/(?:^|\n)[\s[(\-–—>*:"'“«【「]{0,4}$/.test(gapText)) continue;
        const imm = isImmediate(gapText);
        let score = (k.strong ? 100 : 55) - (gap <= 40 ? gap : 40 + (gap - 40) / 4);
        if (/[.!?。]\s/.test(gapText)) score -= 30;
        if (imm) score += 40;
        if (k.strong && gap <= 40 && (imm || fewWords(gapText))) nearStrong = true;
        if (k.strong && alone) strongAbove = true;
        if (score > best) {
          best = score;
          immediate = imm;
        }
      } else if (k.start >= c.end) {
        const gapText = s.slice(c.end, k.start);
        const gap = gapText.length;
        if (gap > (k.strong ? 40 : 20) || gapText.includes("\n") || /[.!?。]\s/.test(gapText)) continue;
        // "583920 is your code", "482016 は認証コードです": a copula right after the number.
        const copula =
          /^\s*(?:is|ist|est|es|é|è|är|er|jest|to|это|は|是|为|為|—|-|:)(?:\s|$)/iu.test(gapText) || /^\s*[はが是为為]/u.test(gapText);
        const score = (k.strong ? 90 : 45) - gap * 1.5 + (copula ? 20 : 0);
        if (k.strong && gap <= 32) nearStrong = true;
        if (score > best) {
          best = score;
          immediate = copula && k.strong;
        }
      }
    }
    // No keyword near it, but the subject says this mail carries a code and the number stands alone.
    if (best === -Infinity && opts.subjectStrong && alone && !opts.inSubject) {
      best = 40;
      strongAbove = true;
    }
    if (best === -Infinity) continue;
    const before = flatCells(s.slice(Math.max(0, c.start - 40), c.start));
    if (!immediate && OTHER_NUMBER_BEFORE.test(before)) continue;
    if ((isYear(c.value) || isDate(c.value)) && !immediate) continue;
    if (PROMO_CONTEXT.test(s.slice(Math.max(0, c.start - 60), c.end + 60))) continue;
    let score = best;
    if (alone) score += 20;
    if (opts.inSubject) score += 15;
    if (c.value.replace(/\D/g, "").length === 6) score += 10;
    if (c.kind === "digits" && c.value.length === 4) score -= 10;
    if (!numeric) {
      // Letter-and-digit tokens need a real "code" word right before them, or a line of their own
      // under one; letters-only device codes ("WDJB-MJHT") the same, and nothing but punctuation between.
      if (!(nearStrong || (alone && strongAbove))) continue;
      if (c.kind === "letters" && !alone && !(immediate && /^[ \t]*(?:$|\n|[.,;!)])/.test(s.slice(c.end, c.end + 8)))) continue;
      score -= 5;
    }
    if (score < 30) continue;
    into.push({ value: c.value, score, order: segment * 1_000_000 + c.start });
  }
}

/** Whether the subject holds a strong keyword ("Your verification code", "Ihre TAN", "認証コード"). */
function hasStrongKeyword(subject: string): boolean {
  const s = normalise(subject);
  return s.length > 0 && findKeywords(s, [[0, s.length]]).some((k) => k.strong);
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
  return /^(?:|is|ist|lautet|est|est le|es|é|è|är|er|jest|to|это|是|为|為|は|が|を|이|는|:)$/u.test(rest);
}

/**
 * Verification codes in subject, text and HTML, most likely first, deduplicated. The HTML is
 * only read when the subject and text yield nothing (it usually repeats the text part).
 */
export function extractCodes(subject: string, text: string | null, html: string | null): string[] {
  const found: Scored[] = [];
  const subjectStrong = hasStrongKeyword(subject ?? "");
  scoreSegment(subject ?? "", 0, { inSubject: true, subjectStrong }, found);
  if (text) scoreSegment(text, 1, { inSubject: false, subjectStrong }, found);
  if (html && (!text || found.length === 0)) scoreSegment(htmlToText(html), 2, { inSubject: false, subjectStrong }, found);
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
