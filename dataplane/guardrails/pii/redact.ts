import type { PiiEntity, PiiMatch } from "./entities.js";

/**
 * Redaction with reversible pseudonymisation. Each value becomes a placeholder "[ENTITY_N]"; the
 * same value gets the same placeholder everywhere within one request when the same map is passed
 * for every text of that request (messages, tool arguments...). The map keeps placeholder ->
 * original so the gateway can, if the policy says so, put the originals back into the model's
 * answer. The map holds sensitive values: it lives in memory for one request only and is never
 * logged, stored or put into evidence.
 */

export interface PlaceholderMap {
  readonly originalByPlaceholder: Map<string, string>;
  readonly placeholderByValue: Map<string, string>;
  readonly countByEntity: Map<PiiEntity, number>;
}

export interface Replacement {
  entity_type: PiiEntity;
  /** Span in the original text. */
  start: number;
  end: number;
  placeholder: string;
}

export interface RedactionResult {
  text: string;
  /** One per match, in text order; spans refer to the original text. No values. */
  replacements: Replacement[];
  map: PlaceholderMap;
}

export function createPlaceholderMap(): PlaceholderMap {
  return {
    originalByPlaceholder: new Map(),
    placeholderByValue: new Map(),
    countByEntity: new Map(),
  };
}

/** The placeholder for `value` of `entity`, allocating "[ENTITY_N]" on first sight. */
export function placeholderFor(map: PlaceholderMap, entity: PiiEntity, value: string): string {
  const key = `${entity}\u0000${value}`;
  const known = map.placeholderByValue.get(key);
  if (known !== undefined) return known;
  const n = (map.countByEntity.get(entity) ?? 0) + 1;
  map.countByEntity.set(entity, n);
  const placeholder = `[${entity}_${n}]`;
  map.placeholderByValue.set(key, placeholder);
  map.originalByPlaceholder.set(placeholder, value);
  return placeholder;
}

/**
 * Replaces each match (non-overlapping, as detectPii returns them) with its placeholder.
 * Pass the request's map to keep numbering consistent across several texts.
 */
export function redactPii(
  text: string,
  matches: readonly PiiMatch[],
  map: PlaceholderMap = createPlaceholderMap(),
): RedactionResult {
  const ordered = [...matches].sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  const replacements: Replacement[] = [];
  let at = 0;
  for (const match of ordered) {
    if (match.start < at || match.end > text.length || match.end <= match.start) continue;
    const placeholder = placeholderFor(map, match.entity_type, text.slice(match.start, match.end));
    parts.push(text.slice(at, match.start), placeholder);
    replacements.push({
      entity_type: match.entity_type,
      start: match.start,
      end: match.end,
      placeholder,
    });
    at = match.end;
  }
  parts.push(text.slice(at));
  return { text: parts.join(""), replacements, map };
}

const PLACEHOLDER = /\[([A-Z][A-Z_]*_\d{1,6})\]/g;

/** Where the map's placeholders occur in `text` (for restoring in a stream, chunk by chunk). */
export function findPlaceholders(
  text: string,
  map: PlaceholderMap,
): Array<{ start: number; end: number; original: string }> {
  const found: Array<{ start: number; end: number; original: string }> = [];
  if (map.originalByPlaceholder.size === 0) return found;
  for (const m of text.matchAll(PLACEHOLDER)) {
    const original = map.originalByPlaceholder.get(m[0]);
    if (original !== undefined)
      found.push({ start: m.index, end: m.index + m[0].length, original });
  }
  return found;
}

/** Puts the originals back for every placeholder of `map` found in `text`; others stay as they are. */
export function restorePlaceholders(text: string, map: PlaceholderMap): string {
  if (map.originalByPlaceholder.size === 0) return text;
  return text.replace(
    PLACEHOLDER,
    (placeholder) => map.originalByPlaceholder.get(placeholder) ?? placeholder,
  );
}

/** The longest placeholder the map can produce: a stream restorer's window must be at least this. */
export function longestPlaceholder(map: PlaceholderMap): number {
  let longest = 0;
  for (const placeholder of map.originalByPlaceholder.keys())
    longest = Math.max(longest, placeholder.length);
  return longest;
}
