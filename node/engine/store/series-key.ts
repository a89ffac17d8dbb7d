// How a series is told apart within a source: its name and its labels in key order, as stored in
// series.labels_json. Shared by the writer and the worker-side recording sink so both find the same
// series for the same definition.

/** Labels as JSON with sorted keys (the stored form). */
export function canonicalLabelsJson(labels: Record<string, string> | undefined): string {
  if (!labels) return '{}';
  const keys = Object.keys(labels).sort();
  const out: Record<string, string> = {};
  for (const k of keys) out[k] = labels[k];
  return JSON.stringify(out);
}

/** The key from labels already in their stored form. */
export const seriesKeyOf = (name: string, labelsJson: string): string => `${name}\u0000${labelsJson}`;

export function seriesKey(name: string, labels: Record<string, string> | undefined): string {
  return seriesKeyOf(name, canonicalLabelsJson(labels));
}
