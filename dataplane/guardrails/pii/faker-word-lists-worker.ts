import { parentPort } from "node:worker_threads";
import { allLocales } from "@faker-js/faker";
import type { FakerWordLists } from "./faker-word-lists.js";

/**
 * Runs in a throwaway thread (faker-word-lists.ts): imports every @faker-js/faker locale, copies
 * out the few lists the guardrails read, posts them and exits, so the locales' 16 MiB of objects
 * and their module sources die with this thread instead of staying in the gateway's heap.
 */
const port = parentPort;
if (!port) throw new Error("faker-word-lists-worker must run as a worker thread");

/** Every string in a (nested) faker definition, depth first, in definition order. */
function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, into);
  else if (value !== null && typeof value === "object")
    for (const item of Object.values(value)) strings(item, into);
  return into;
}

const firstNames: string[] = [];
const lastNames: string[] = [];
for (const locale of Object.values(allLocales)) {
  const person: unknown = locale.person;
  if (person === null || typeof person !== "object") continue;
  const { first_name, middle_name, last_name } = person as Record<string, unknown>;
  strings(first_name, firstNames);
  strings(middle_name, firstNames);
  strings(last_name, lastNames);
}

const englishWords: string[] = [];
const words = allLocales.en?.word as Record<string, unknown> | undefined;
for (const list of Object.values(words ?? {}))
  if (Array.isArray(list))
    for (const word of list) if (typeof word === "string") englishWords.push(word);

const lists: FakerWordLists = {
  firstNames,
  lastNames,
  englishFirstNames: strings(
    (allLocales.en?.person as { first_name?: unknown } | undefined)?.first_name,
  ),
  englishWords,
};
port.postMessage(lists);
