// Credentials for a Prometheus-compatible server: a bearer token or `user:password` for basic auth,
// read from an environment variable or a file the user names (a Kubernetes secret mount, a token
// minted by a sidecar). The secret itself is only ever turned into an Authorization header value:
// it is never part of a message, a log line, the provenance or anything the database keeps. Errors
// name the variable or the file, never what is in it.
import { readFile, stat } from 'node:fs/promises';
import type { PullAuth } from '../../../common/contract/types';

export class AuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthError';
  }
}

/** A token or password file is a line, not a document: this refuses e.g. a private key named by mistake. */
const MAX_SECRET_BYTES = 16 * 1024;

/** An Authorization header value, kept out of every JSON rendering and inspection of the object. */
export class Credential {
  readonly #header: string;
  constructor(header: string, readonly kind: 'bearer' | 'basic') {
    this.#header = header;
  }

  header(): string {
    return this.#header;
  }

  toJSON(): string {
    return `[${this.kind} credential]`;
  }

  toString(): string {
    return this.toJSON();
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toJSON();
  }
}

/** Where the secret is, as `describe` prints it in messages: `$NAME` or `file /run/secrets/token`. */
export function describeAuth(a: PullAuth): string {
  return a.env !== undefined ? `$${a.env}` : `file ${a.file}`;
}

async function readSecret(a: PullAuth): Promise<string> {
  if (a.env !== undefined && a.file !== undefined) throw new AuthError(`a ${a.kind} credential comes from a variable or a file, not both`);
  const where = describeAuth(a);
  let raw: string;
  if (a.env !== undefined) {
    const v = process.env[a.env];
    if (v === undefined || v === '') throw new AuthError(`the ${a.kind} credential variable ${where} is not set (or empty)`);
    raw = v;
  } else if (a.file !== undefined) {
    try {
      const st = await stat(a.file);
      if (!st.isFile()) throw new AuthError(`the ${a.kind} credential ${where} is not a file`);
      if (st.size > MAX_SECRET_BYTES) throw new AuthError(`the ${a.kind} credential ${where} is ${st.size} bytes: a token or password file holds one line`);
      raw = await readFile(a.file, 'utf8');
    } catch (e) {
      if (e instanceof AuthError) throw e;
      throw new AuthError(`cannot read the ${a.kind} credential ${where}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  } else {
    throw new AuthError(`a ${a.kind} credential needs an environment variable or a file`);
  }
  // A trailing newline (echo "$TOKEN" > file) is not part of the secret; anything else multi-line is.
  const secret = raw.replace(/\r?\n$/, '');
  if (!secret) throw new AuthError(`the ${a.kind} credential ${where} is empty`);
  // A header value cannot carry control characters; a multi-line file is not a token.
  if (/[\0-\x1f\x7f]/.test(secret)) throw new AuthError(`the ${a.kind} credential ${where} holds more than one line or control characters: it must hold only the ${a.kind === 'basic' ? 'user:password' : 'token'}`);
  return secret;
}

/** Reads the credential once, before the first request; throws an AuthError that names only where it looked. */
export async function loadCredential(a: PullAuth | undefined): Promise<Credential | null> {
  if (!a) return null;
  const secret = await readSecret(a);
  if (a.kind === 'bearer') return new Credential(`Bearer ${secret}`, 'bearer');
  if (!secret.includes(':')) throw new AuthError(`the basic credential ${describeAuth(a)} must hold user:password`);
  return new Credential(`Basic ${Buffer.from(secret, 'utf8').toString('base64')}`, 'basic');
}
