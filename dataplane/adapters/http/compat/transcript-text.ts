/**
 * The words of a transcription answered as text, srt or vtt, guarded like a JSON answer's `text`:
 * only the cue lines are scanned (not the cue numbers, timestamps or the WEBVTT header, whose
 * digits are not PII), then put back in place.
 */
const NOT_WORDS = /^(?:\d+\s*|WEBVTT.*|NOTE(?:\s.*)?|.*-->.*|\s*)$/;

export async function guardTranscriptText(
  raw: string,
  transform: (body: Record<string, unknown>) => Promise<Record<string, unknown>>,
): Promise<string> {
  const lines = raw.split("\n");
  const cues = lines.map((line, i) => ({ line, i })).filter(({ line }) => !NOT_WORDS.test(line));
  if (cues.length === 0) return raw;
  const out = await transform({ text: cues.map((c) => c.line).join("\n") });
  const guarded = typeof out.text === "string" ? out.text.split("\n") : [];
  if (guarded.length !== cues.length) return typeof out.text === "string" ? out.text : raw;
  cues.forEach((cue, k) => (lines[cue.i] = guarded[k] ?? ""));
  return lines.join("\n");
}
