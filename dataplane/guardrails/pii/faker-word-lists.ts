import { Worker } from "node:worker_threads";

/**
 * The word lists the guardrails take from @faker-js/faker, as they are in faker's locale data
 * (strings in definition order, not lower-cased or filtered: name-lexicon.ts and common-words.ts
 * do that).
 *
 * Faker has no way to import one list: reading them means importing every locale, about 16 MiB of
 * objects plus their module sources that an ES module import keeps for the life of the process. So
 * they are read once at start in a throwaway worker thread (faker-word-lists-worker.ts) that exits
 * afterwards; only the copied strings stay here (docs/benchmarks.md, "Issue 13, second pass:
 * memory").
 */
export interface FakerWordLists {
  /** First and middle names of every locale. */
  firstNames: string[];
  /** Last names of every locale. */
  lastNames: string[];
  /** The English locale's first names. */
  englishFirstNames: string[];
  /** The English locale's word lists (adjectives, adverbs, nouns, verbs, ...). */
  englishWords: string[];
}

function workerUrl(): URL {
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return new URL(`./faker-word-lists-worker${ext}`, import.meta.url);
}

function readInWorker(): Promise<FakerWordLists> {
  return new Promise((resolve, reject) => {
    // No --import tsx in the thread (execArgv): Node strips the worker's types itself, and faker
    // is plain JavaScript; loading tsx there would cost more than faker.
    const worker = new Worker(workerUrl(), { execArgv: [] });
    let lists: FakerWordLists | undefined;
    worker.once("message", (message: FakerWordLists) => (lists = message));
    worker.once("error", reject);
    worker.once("exit", (code) =>
      lists === undefined
        ? reject(new Error(`faker word lists: the worker exited (code ${code}) with no lists`))
        : resolve(lists),
    );
  });
}

export const fakerWordLists: FakerWordLists = await readInWorker();
