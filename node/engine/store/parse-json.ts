// JSON columns (attrs_json, frames_json, labels_json) read back: a damaged cell reads as the fallback.

export const parse = <T>(json: string | null | undefined, fallback: T): T => {
  if (!json) return fallback;
  try {
    return JSON.parse(json) as T;
  } catch {
    return fallback;
  }
};
