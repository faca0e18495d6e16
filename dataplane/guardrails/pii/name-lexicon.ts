import { fakerWordLists } from "./faker-word-lists.js";

/**
 * First and last names of every locale @faker-js/faker ships (about 24,000 first and 19,000 last
 * names, from public name-frequency lists), lower-cased. Built once at import.
 */

function collect(names: readonly string[]): Set<string> {
  const into = new Set<string>();
  for (const name of names)
    if (name.length > 1 && !name.includes("{")) into.add(name.toLowerCase());
  return into;
}

const FIRST = collect(fakerWordLists.firstNames);
const LAST = collect(fakerWordLists.lastNames);

export function isFirstName(word: string): boolean {
  return FIRST.has(word.toLowerCase());
}

export function isLastName(word: string): boolean {
  return LAST.has(word.toLowerCase());
}
