/**
 * The matches of a global regex, exactly as `text.matchAll(regex)` gives them, without the copy of
 * the regex that matchAll makes on every call (for the detectors' large patterns, copying cost
 * more than scanning a short text). The regex's lastIndex is reset, so it must not be shared with
 * code that relies on it.
 */
export function regexMatches(regex: RegExp, text: string): RegExpExecArray[] {
  if (!regex.global) throw new TypeError("regexMatches needs a global regex");
  const found: RegExpExecArray[] = [];
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
    found.push(m);
    // An empty match would be found again at the same place: step over one character.
    if (m[0].length === 0) regex.lastIndex = nextIndex(text, regex.lastIndex, regex.unicode);
  }
  return found;
}

function nextIndex(text: string, at: number, unicode: boolean): number {
  if (!unicode || at + 1 >= text.length) return at + 1;
  const c = text.charCodeAt(at);
  const d = text.charCodeAt(at + 1);
  return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? at + 2 : at + 1;
}
