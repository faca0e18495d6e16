import type { PiiDetector, PiiMatch } from "./entities.js";

/** Regexes used per match, compiled once (a literal in a function is a new object per call). */
const LEADING_NOT_LOCAL = /[.'`{|}~]/;
const TRAILING_NOT_DOMAIN = /[.-]/;

/**
 * Email addresses. Linear: for each "@" the local part is expanded leftwards (at most 64 chars) and
 * the domain rightwards (at most 253 chars), then validated; no regex backtracking involved.
 */

const LOCAL_CHAR = /[A-Za-z0-9._%+\-'!#$&*=?^`{|}~]/;
const DOMAIN_CHAR = /[A-Za-z0-9.-]/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const TLD = /^[A-Za-z]{2,24}$/;

function validDomain(domain: string): boolean {
  const labels = domain.split(".");
  if (labels.length < 2) return false;
  if (!TLD.test(labels[labels.length - 1] ?? "")) return false;
  return labels.every((label) => LABEL.test(label));
}

export function findEmails(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  let at = text.indexOf("@");
  let lastEnd = 0;
  while (at >= 0) {
    let start = at;
    while (start > Math.max(lastEnd, at - 64) && LOCAL_CHAR.test(text[start - 1] ?? "")) start--;
    // The local part may not start with a dot (or with quote-like characters taken from prose).
    while (start < at && LEADING_NOT_LOCAL.test(text[start] ?? "")) start++;
    let end = at + 1;
    const limit = Math.min(text.length, at + 254);
    while (end < limit && DOMAIN_CHAR.test(text[end] ?? "")) end++;
    // A sentence may end right after the address.
    while (end > at + 1 && TRAILING_NOT_DOMAIN.test(text[end - 1] ?? "")) end--;
    const local = text.slice(start, at);
    const domain = text.slice(at + 1, end);
    if (local.length > 0 && !local.endsWith(".") && !local.includes("..") && validDomain(domain)) {
      matches.push({ entity_type: "EMAIL_ADDRESS", start, end, score: 0.95 });
      lastEnd = end;
    }
    at = text.indexOf("@", at + 1);
  }
  return matches;
}

export const emailDetector: PiiDetector = { entities: ["EMAIL_ADDRESS"], find: findEmails };
