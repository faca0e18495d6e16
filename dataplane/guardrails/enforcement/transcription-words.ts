/**
 * The `words[]` of a verbose_json transcription (`{ word, start, end }`), guarded as one text: the
 * words joined by spaces, so a value spoken as several words ("+44 20 7946 0958", "Jane Doe") is
 * found whole. A redacted value becomes one word (the placeholder, with what the first and last
 * word had around it) spanning the time of the words it covered; the others are dropped.
 */
export interface PlaceholderUse {
  placeholder: string;
  start: number;
  end: number;
}

type Word = Record<string, unknown> & { word: string };

export interface JoinedWords {
  text: string;
  /** Offset of each word in `text`. */
  offsets: number[];
}

export function transcriptionWords(body: Record<string, unknown>): Word[] | undefined {
  if (!Array.isArray(body.words)) return undefined;
  const words = body.words as unknown[];
  const ok = words.every(
    (w) => typeof w === "object" && w !== null && typeof (w as Word).word === "string",
  );
  return ok && words.length > 0 ? (words as Word[]) : undefined;
}

export function joinWords(words: readonly Word[]): JoinedWords {
  const offsets: number[] = [];
  let at = 0;
  for (const w of words) {
    offsets.push(at);
    at += w.word.length + 1;
  }
  return { text: words.map((w) => w.word).join(" "), offsets };
}

/** The words with each placeholder use (offsets in the joined text, sorted) applied. */
export function redactWords(
  words: readonly Word[],
  joined: JoinedWords,
  uses: readonly PlaceholderUse[],
): Word[] {
  const { text, offsets } = joined;
  const wordAt = (offset: number): number => {
    let i = 0;
    while (i + 1 < offsets.length && (offsets[i + 1] as number) <= offset) i++;
    return i;
  };
  // Groups of consecutive words touched by uses (a group may hold several uses).
  const groups: { first: number; last: number; uses: PlaceholderUse[] }[] = [];
  for (const use of [...uses].sort((a, b) => a.start - b.start)) {
    const first = wordAt(use.start);
    const last = wordAt(Math.max(use.start, use.end - 1));
    const open = groups.at(-1);
    if (open !== undefined && first <= open.last) {
      open.last = Math.max(open.last, last);
      open.uses.push(use);
    } else groups.push({ first, last, uses: [use] });
  }
  const out: Word[] = [];
  let next = 0;
  for (const g of groups) {
    out.push(...words.slice(next, g.first));
    const from = offsets[g.first] as number;
    const to = (offsets[g.last] as number) + (words[g.last] as Word).word.length;
    let replaced = "";
    let at = from;
    for (const use of g.uses) {
      replaced += text.slice(at, use.start) + use.placeholder;
      at = use.end;
    }
    replaced += text.slice(at, to);
    const merged: Word = { ...(words[g.first] as Word), word: replaced };
    const lastWord = words[g.last] as Word;
    if ("end" in lastWord) merged.end = lastWord.end;
    out.push(merged);
    next = g.last + 1;
  }
  out.push(...words.slice(next));
  return out;
}
