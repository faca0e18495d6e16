/** Flags of `evident scan`: thresholds in [0, 1]. Returns the options, or an error message. */
import type { ScanOptions } from "./scan-text.js";

const FLAGS: Record<string, keyof Pick<ScanOptions, "injectionThreshold" | "safetyThreshold">> = {
  "--injection-threshold": "injectionThreshold",
  "--safety-threshold": "safetyThreshold",
};

export function parseScanFlags(args: string[]): ScanOptions | string {
  const options: ScanOptions = {};
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split("=", 2) as [string, string | undefined];
    const key = FLAGS[flag];
    if (key === undefined) return `unknown option: ${flag}`;
    const value = inline ?? args[++i];
    const n = Number(value);
    if (value === undefined || value === "" || !Number.isFinite(n) || n < 0 || n > 1)
      return `${flag} needs a number in [0, 1]`;
    options[key] = n;
  }
  return options;
}
