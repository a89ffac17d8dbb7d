// Which built renderer file an app:// request names, or null: only our own host, and only paths that
// stay inside the renderer folder however they are encoded.
import { fileUnder } from '../node/bridge/static-path';
import { APP_ORIGIN } from './security';

const APP_HOST = new URL(APP_ORIGIN).host;

export function appUrlToFile(rendererDir: string, requestUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'app:' || url.host !== APP_HOST || url.username || url.password) return null;
  return fileUnder(rendererDir, url.pathname);
}
