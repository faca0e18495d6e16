/**
 * Place and language words from the runtime's own ICU data (no list shipped): English names of
 * every region code ("France", "Czechia", "United States"), of two-letter language codes
 * ("German", "Czech") and the city of every IANA time zone ("Paris", "Sao Paulo"). Lower-cased,
 * whole names and each of their words. Used to keep places from being read as person names.
 */

function build(): { names: Set<string>; words: Set<string> } {
  const names = new Set<string>();
  const letters = Array.from({ length: 26 }, (_, i) => String.fromCharCode(65 + i));
  const add = (name: string | undefined, code?: string): void => {
    if (name === undefined || name === code) return;
    names.add(name.toLowerCase());
  };
  const regions = new Intl.DisplayNames(["en"], { type: "region" });
  const languages = new Intl.DisplayNames(["en"], { type: "language", fallback: "code" });
  for (const a of letters) {
    for (const b of letters) {
      const code = a + b;
      try {
        add(regions.of(code), code);
        add(languages.of(code.toLowerCase()), code.toLowerCase());
      } catch {
        // not a valid code for this runtime
      }
    }
  }
  for (const zone of Intl.supportedValuesOf("timeZone"))
    add(zone.split("/").at(-1)?.replace(/_/g, " "));
  const words = new Set<string>();
  for (const name of names)
    for (const word of name.split(/[\s&,.()-]+/)) if (word.length > 3) words.add(word);
  return { names, words };
}

const { names: PLACE_NAMES, words: PLACE_WORDS } = build();

/** "France", "united states", "Sao Paulo" (a whole known place or language name). */
export function isPlaceName(name: string): boolean {
  return PLACE_NAMES.has(name.toLowerCase());
}

/** A word of a known place name ("Republic", "Czech", "Islands"); words of 3 letters or less excluded. */
export function isPlaceWord(word: string): boolean {
  return PLACE_WORDS.has(word.toLowerCase());
}
