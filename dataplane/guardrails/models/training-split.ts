/**
 * The fixed split of the development sets: rows whose id hashes into bucket 0 of 5 are held out
 * from training the committed models, so the eval can report numbers on rows the models never saw.
 */

export const SPLIT_BUCKETS = 5;

export function splitBucket(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SPLIT_BUCKETS;
}

export function isHeldOut(id: string): boolean {
  return splitBucket(id) === 0;
}
