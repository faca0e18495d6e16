import type { PiiMatch } from "./entities.js";

/**
 * PEM private key blocks ("-----BEGIN RSA PRIVATE KEY----- ... -----END RSA PRIVATE KEY-----",
 * also EC, DSA, OPENSSH, ENCRYPTED and PGP). Found with indexOf, not a regex, so a block of any
 * size costs one pass. A header without its END line (a truncated paste, or a stream still
 * arriving) is matched up to the end of the base64 body that follows it.
 */

const HEADER = /^-----BEGIN ((?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?)-----/;
const BODY_CHAR = /[A-Za-z0-9+/=\s:,-]/;

export function findPrivateKeyBlocks(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  let at = text.indexOf("-----BEGIN ");
  while (at >= 0) {
    const header = HEADER.exec(text.slice(at, at + 80));
    if (header === null) {
      at = text.indexOf("-----BEGIN ", at + 1);
      continue;
    }
    const footer = `-----END ${header[1] ?? ""}-----`;
    const close = text.indexOf(footer, at + header[0].length);
    let end: number;
    if (close >= 0) {
      end = close + footer.length;
    } else {
      end = at + header[0].length;
      while (end < text.length && BODY_CHAR.test(text[end] ?? "") && !text.startsWith("-----", end))
        end++;
      while (end > at + header[0].length && /\s/.test(text[end - 1] ?? "")) end--;
    }
    matches.push({ entity_type: "SECRET", start: at, end, score: 0.99 });
    at = text.indexOf("-----BEGIN ", end);
  }
  return matches;
}
