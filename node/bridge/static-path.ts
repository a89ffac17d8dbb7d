// Which file under a served folder a URL path names, or null. The path is decoded once; NUL bytes,
// backslashes (separators on Windows) and `..` segments, encoded or not, are refused before the join,
// and the joined result must still lie inside the folder.
import { extname, isAbsolute, join, normalize, relative } from 'node:path';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
};

/** The Content-Type a built renderer file is served with (nosniff makes it binding). */
export function mimeType(file: string): string {
  return MIME[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

export function fileUnder(root: string, pathname: string): string | null {
  let rel: string;
  try {
    rel = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (rel === '' || rel === '/') rel = '/index.html';
  if (rel.includes('\0') || rel.includes('\\') || rel.split('/').includes('..')) return null;
  const file = normalize(join(root, rel));
  const inside = relative(root, file);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return null;
  return file;
}
