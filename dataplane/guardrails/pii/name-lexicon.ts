import { allLocales } from "@faker-js/faker";

/**
 * First and last names of every locale @faker-js/faker ships (about 24,000 first and 19,000 last
 * names, from public name-frequency lists), lower-cased. Built once at import.
 */

function collect(value: unknown, into: Set<string>): void {
  if (typeof value === "string") {
    if (value.length > 1 && !value.includes("{")) into.add(value.toLowerCase());
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, into);
  } else if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) collect(item, into);
  }
}

const FIRST = new Set<string>();
const LAST = new Set<string>();
for (const locale of Object.values(allLocales)) {
  const person: unknown = locale.person;
  if (person === null || typeof person !== "object") continue;
  collect((person as { first_name?: unknown }).first_name, FIRST);
  collect((person as { middle_name?: unknown }).middle_name, FIRST);
  collect((person as { last_name?: unknown }).last_name, LAST);
}

export function isFirstName(word: string): boolean {
  return FIRST.has(word.toLowerCase());
}

export function isLastName(word: string): boolean {
  return LAST.has(word.toLowerCase());
}
