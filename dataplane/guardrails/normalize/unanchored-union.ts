/**
 * Patterns without anchors (see word-anchors.ts): whether any of them can match a text at all.
 */
import { leadingCharacters } from "./regex-source.js";

/**
 * Patterns without anchors are scanned for everywhere; one regex of all of them (their union)
 * tells in one scan whether any can match a text at all (most texts: none).
 */
const UNANCHORED: RegExp[] = [];
let unanchoredUnion: UnanchoredUnion | undefined | null;

/**
 * The union, and when every unanchored pattern's matches can only start at offset 0 or at one of a
 * few characters (delimiters: "<", "[", a line break, a full stop...), those characters as a
 * class: then the union is tried (sticky) only there, which costs about half a scan with it.
 */
interface UnanchoredUnion {
  union: RegExp;
  sticky: RegExp;
  leading: RegExp | undefined;
}

function unionOfUnanchored(): UnanchoredUnion | undefined {
  if (unanchoredUnion !== undefined) return unanchoredUnion ?? undefined;
  unanchoredUnion = null;
  if (UNANCHORED.length === 0) return undefined;
  const sources = UNANCHORED.map((r) => r.source);
  const flags = new Set(UNANCHORED.map((r) => r.flags.replace(/[gy]/g, "")));
  // Back-references would point at other alternatives' groups; then no shortcut.
  if (flags.size !== 1 || sources.some((s) => /\\[1-9k]/.test(s))) return undefined;
  const flag = [...flags][0]!;
  const source = sources.map((s) => `(?:${s})`).join("|");
  const leadingSets = UNANCHORED.map(leadingCharacters);
  const chars = new Set(leadingSets.flatMap((set) => (set === undefined ? [] : [...set])));
  const known = chars.size > 0 && leadingSets.every((set) => set !== undefined);
  const escaped = [...chars].map((ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`).join("");
  unanchoredUnion = {
    union: new RegExp(source, flag),
    sticky: new RegExp(source, `${flag}y`),
    leading: known ? new RegExp(`[${escaped}]`, "gu") : undefined,
  };
  return unanchoredUnion;
}

/** The patterns without anchors compiled so far (for tests). */
export function unanchoredPatterns(): readonly RegExp[] {
  return UNANCHORED;
}

/** Whether any pattern without anchors matches somewhere in `text` (as `union.test(text)`). */
function unanchoredCanMatch(u: UnanchoredUnion, text: string): boolean {
  const { sticky, leading } = u;
  if (leading === undefined) return u.union.test(text);
  sticky.lastIndex = 0;
  if (sticky.test(text)) return true;
  leading.lastIndex = 0;
  for (let m = leading.exec(text); m !== null; m = leading.exec(text)) {
    sticky.lastIndex = m.index;
    if (sticky.test(text)) return true;
  }
  return false;
}

/** Adds a pattern without anchors. */
export function addUnanchored(regex: RegExp): void {
  UNANCHORED.push(regex);
  unanchoredUnion = undefined;
}

/** Whether a pattern without anchors may match `text` (true when that cannot be told quickly). */
export function unanchoredMayMatch(text: string): boolean {
  const union = unionOfUnanchored();
  return union === undefined || unanchoredCanMatch(union, text);
}
