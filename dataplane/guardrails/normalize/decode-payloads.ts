/**
 * Finds payloads hidden in encodings (base64, hex, rot13) and returns their decoded text so the
 * detectors can scan it too. All work is capped: at most MAX_PAYLOADS payloads of at most
 * MAX_PAYLOAD_CHARS each, one level of nesting.
 */

export type PayloadEncoding = "base64" | "hex" | "rot13";

export interface DecodedPayload {
  encoding: PayloadEncoding;
  /** The decoded text (not yet folded). */
  text: string;
  /** Span of the encoded payload in the scanned text. */
  start: number;
  end: number;
}

export const MAX_PAYLOADS = 8;
export const MAX_PAYLOAD_CHARS = 8192;

const BASE64 = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const BASE64_URL = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g;
const HEX = /(?<![0-9A-Fa-f])(?:(?:\\x|0x)?[0-9A-Fa-f]{2}[\s:,]?){8,}/g;

/** Share of characters that look like ordinary text: letters, digits, punctuation, spaces. */
function printableRatio(s: string): number {
  if (s.length === 0) return 0;
  let ok = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (
      (c >= 0x20 && c < 0x7f) ||
      c === 0x0a ||
      c === 0x0d ||
      c === 0x09 ||
      (c >= 0xa0 && c !== 0xfffd)
    )
      ok++;
  }
  return ok / s.length;
}

/** Decoded text must read like words: printable and with at least one space or a letter run. */
function looksLikeText(s: string): boolean {
  return s.length >= 4 && printableRatio(s) >= 0.9 && /[a-z]{3}/i.test(s) && /[\s.,:;!?]/.test(s);
}

function decodeBase64(raw: string, urlSafe: boolean): string | undefined {
  const body = raw.slice(0, MAX_PAYLOAD_CHARS);
  if (urlSafe && !/[-_]/.test(body)) return undefined;
  // Identifiers and plain words are not payloads: demand a mix of cases or digits.
  if (!/[A-Z]/.test(body) || !/[a-z]/.test(body)) return undefined;
  const text = Buffer.from(body, urlSafe ? "base64url" : "base64").toString("utf8");
  return looksLikeText(text) ? text : undefined;
}

function decodeHex(raw: string): string | undefined {
  const digits = raw.replace(/\\x|0x|[\s:,]/g, "").slice(0, MAX_PAYLOAD_CHARS);
  if (digits.length % 2 !== 0) return undefined;
  const text = Buffer.from(digits, "hex").toString("utf8");
  return looksLikeText(text) ? text : undefined;
}

export function rot13(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 97 && c <= 122) out += String.fromCharCode(((c - 97 + 13) % 26) + 97);
    else if (c >= 65 && c <= 90) out += String.fromCharCode(((c - 65 + 13) % 26) + 65);
    else out += s[i];
  }
  return out;
}

const COMMON_WORDS =
  /\b(?:the|and|you|your|to|of|is|are|all|what|this|that|ignore|instructions|previous|system|prompt|tell|me|now|der|die|und|ist|du)\b/g;

function commonWordCount(s: string): number {
  return (s.match(COMMON_WORDS) ?? []).length;
}

/**
 * Decide whether the text reads better after rot13: either it names rot13 / a Caesar cipher, or
 * its rot13 has clearly more common words than the text itself (checked on a capped prefix).
 */
function rot13Variant(text: string): string | undefined {
  const prefix = text.slice(0, 1024);
  const named = /\brot-?13\b|\bcaesar\b/i.test(prefix);
  const flipped = rot13(prefix);
  const gain = commonWordCount(flipped.toLowerCase()) - commonWordCount(prefix.toLowerCase());
  if (!named && gain < 3) return undefined;
  return rot13(text.slice(0, MAX_PAYLOAD_CHARS));
}

/** Decoded payloads found in `text` (original casing matters for base64). */
export function decodePayloads(text: string, depth = 0): DecodedPayload[] {
  const found: DecodedPayload[] = [];
  const add = (p: DecodedPayload): void => {
    if (found.length < MAX_PAYLOADS) found.push(p);
  };
  for (const [re, encoding, urlSafe] of [
    [BASE64, "base64", false],
    [BASE64_URL, "base64", true],
    [HEX, "hex", false],
  ] as const) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      if (found.length >= MAX_PAYLOADS) break;
      const start = m.index;
      const end = start + m[0].length;
      if (found.some((p) => p.start <= start && end <= p.end)) continue;
      const decoded = encoding === "hex" ? decodeHex(m[0]) : decodeBase64(m[0], urlSafe);
      if (decoded !== undefined) add({ encoding, text: decoded, start, end });
    }
  }
  const flipped = rot13Variant(text);
  if (flipped !== undefined) add({ encoding: "rot13", text: flipped, start: 0, end: text.length });
  if (depth === 0) {
    for (const p of found.slice()) {
      for (const inner of decodePayloads(p.text, 1)) {
        add({ encoding: inner.encoding, text: inner.text, start: p.start, end: p.end });
      }
    }
  }
  return found;
}
