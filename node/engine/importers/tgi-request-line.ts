// TGI's router logs one line per finished request, under the span of the handler that served it
// (router/src/server.rs: `generate`, `generate_stream`, `completions`, `chat_completions`, wrapped by
// `compat_generate` on `/`). The timings are span fields recorded just before `tracing::info!("Success")`,
// each a Rust `Duration` printed with `{:?}` and recorded as a string:
//   text:  `generate{parameters=GenerateParameters { … } total_time="667.179861ms" validation_time="11.640733ms"
//          queue_time="129.535µs" inference_time="655.410281ms" time_per_token="13.65438ms" seed="None"}:
//          text_generation_router::server: router/src/server.rs:NNN: Success`
//          (tracing-subscriber's default format: `span{fields}:span{fields}: target: file:line: message`)
//   JSON (`--json-output`, events flattened): `{"timestamp":…,"level":"INFO","message":"Success",
//          "target":"text_generation_router::server",…,"span":{"total_time":"…",…,"name":"generate"},"spans":[…]}`
// The `Output: …` debug line that precedes `Success` carries the same fields, so only `Success` counts.
// A failed request logs one ERROR line inside its request span (router/src/infer: validation, overload,
// generation, incomplete generation, template errors; the error text is InferError's Display), e.g.
//   `ERROR chat_completions:generate:generate_stream:schedule:infer:send_error: text_generation_router::infer::v3::scheduler: …: Request failed during generation: Server error: …`
// HTTP status of an error: the mapping of `impl From<InferError> for (StatusCode, …)` in server.rs.
import type { RequestFacts } from './span-attributes';
import type { LatencyFacts } from './request-series';

/** Handler spans of one HTTP request (TGI router/src/server.rs `#[instrument]` names). */
const REQUEST_SPANS = new Set(['generate', 'generate_stream', 'compat_generate', 'completions', 'chat_completions']);

/** Span field → fact, seconds. */
const DURATION_FIELDS: [string, keyof LatencyFacts][] = [
  ['total_time', 'request.e2e_s'],
  ['validation_time', 'request.validation_s'],
  ['queue_time', 'request.queue_s'],
  ['inference_time', 'request.inference_s'],
  ['time_per_token', 'request.tpot_s'],
];

/** InferError's Display prefix → error_type (InferError::error_type) and HTTP status (server.rs). */
const ERRORS: [string, string, number][] = [
  ['Request failed during generation', 'generation', 424],
  ['Model is overloaded', 'overloaded', 429],
  ['Input validation error', 'validation', 422],
  ['Incomplete generation', 'incomplete_generation', 500],
  ['Template error', 'template_error', 422],
  ['Missing template vatiable', 'missing_template_variable', 422],
  ['Tool error', 'tool_error', 422],
];

export interface TgiSpan {
  name: string;
  fields: Record<string, string>;
}

export interface TgiRequest {
  /** The request span's name (the handler). */
  span: string;
  facts: LatencyFacts;
  /** Duration fields that are not Rust durations: `field "value"`. */
  bad: string[];
  /** InferError::error_type of a failed request, null when the text is not one TGI's router writes. */
  errorType: string | null;
}

/** Rust's `Duration` Debug form (`1.5s`, `12.3ms`, `456µs`, `789ns`) in seconds; null when it is not one. */
export function parseRustDuration(s: string): number | null {
  const m = /^(\d+)(?:\.(\d+))?(s|ms|µs|μs|us|ns)$/.exec(s);
  if (!m) return null;
  const frac = m[2] ?? '';
  const exp = m[3] === 's' ? 0 : m[3] === 'ms' ? -3 : m[3] === 'ns' ? -9 : -6;
  // Shift the decimal point in the text, so 12.3ms is the double nearest 0.0123, not 12.3 / 1000.
  return Number(`${m[1]}${frac}e${exp - frac.length}`);
}

/**
 * The span chain of a text line's body (`a{…}:b: target: …`, after time and level), or null when the
 * line has none. Braces and Debug strings (`"…"` with `\` escapes) nest; `::` belongs to paths.
 */
export function textSpans(body: string): { spans: TgiSpan[]; rest: string } | null {
  const segments: string[] = [];
  let depth = 0;
  let inStr = false;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ':' && depth === 0) {
      if (body[i + 1] === ':') {
        i++;
        continue;
      }
      segments.push(body.slice(start, i));
      if (body[i + 1] === ' ') {
        // The segment before the first `: ` is the target when the line has no spans.
        if (segments.length === 1 && (segments[0].includes('::') || segments[0].startsWith('text_generation'))) return null;
        const spans = segments.map(spanOf);
        return spans.every((s) => s !== null) ? { spans: spans as TgiSpan[], rest: body.slice(i + 2) } : null;
      }
      start = i + 1;
    }
  }
  return null;
}

const FIELD = /(?:^|[\s{])(total_time|validation_time|queue_time|inference_time|time_per_token)=("(?:[^"\\]|\\.)*"|[^\s}]+)/g;

function spanOf(seg: string): TgiSpan | null {
  // Names may hold spaces: TGI 0.9-1.x put every request inside an `HTTP request{otel.name=… trace_id=…}`
  // span (axum-tracing-opentelemetry) before the handler's.
  const m = /^([\w-]+(?: [\w-]+)*)(\{[\s\S]*\})?$/.exec(seg);
  if (!m) return null;
  const fields: Record<string, string> = {};
  // A field of ours cannot hide in a Debug string: there every `"` is escaped, so `name="` never occurs.
  if (m[2]) for (const f of m[2].matchAll(FIELD)) fields[f[1]] = f[2].startsWith('"') ? f[2].slice(1, -1) : f[2];
  return { name: m[1], fields };
}

/** A TGI text line (body after time and level) as a finished or failed request, else null. */
export function tgiTextRequest(level: string | null, body: string): TgiRequest | null {
  if (!body.includes('text_generation_')) return null;
  const isError = level === 'ERROR';
  if (!isError && !body.endsWith(': Success')) return null;
  const chain = textSpans(body);
  if (!chain) return null;
  const m = /^text_generation_[\w]*(?:::\w+)*: (?:[^\s:]+:\d+: )?([\s\S]*)$/.exec(chain.rest);
  return m ? requestOf(isError, m[1], chain.spans) : null;
}

/** A TGI `--json-output` object as a finished or failed request, else null. */
export function tgiJsonRequest(o: Record<string, unknown>): TgiRequest | null {
  const message = messageOf(o);
  const isError = String(o.level).toUpperCase() === 'ERROR';
  if (message === null || (!isError && message !== 'Success')) return null;
  const spans: TgiSpan[] = [];
  for (const s of [...(Array.isArray(o.spans) ? o.spans : []), o.span]) {
    if (!s || typeof s !== 'object' || typeof (s as { name?: unknown }).name !== 'string') continue;
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(s)) if (k !== 'name' && v !== null && v !== undefined) fields[k] = typeof v === 'string' ? v : JSON.stringify(v);
    spans.push({ name: (s as { name: string }).name, fields });
  }
  return requestOf(isError, message, spans);
}

/** The event text of a TGI JSON object: `message`, else `fields.message` (the launcher does not flatten). */
export function messageOf(o: Record<string, unknown>): string | null {
  const f = o.fields && typeof o.fields === 'object' ? (o.fields as Record<string, unknown>).message : undefined;
  const m = typeof o.message === 'string' ? o.message : typeof f === 'string' ? f : null;
  return m === null ? null : m.replace(/\n+$/, '');
}

function requestOf(isError: boolean, message: string, spans: TgiSpan[]): TgiRequest | null {
  if (isError) {
    const span = spans.find((s) => REQUEST_SPANS.has(s.name));
    if (!span) return null;
    const known = ERRORS.find(([prefix]) => message.startsWith(prefix));
    const facts: RequestFacts = { 'request.e2e_s': NaN, 'request.status': 'error', 'request.error': message };
    if (known) facts['http.status'] = known[2];
    return { span: span.name, facts, bad: [], errorType: known?.[1] ?? null };
  }
  const span = spans.find((s) => s.fields.total_time !== undefined);
  if (!span) return null;
  const facts: LatencyFacts = { 'request.e2e_s': NaN, 'request.status': 'ok' };
  const bad: string[] = [];
  for (const [field, key] of DURATION_FIELDS) {
    const raw = span.fields[field];
    if (raw === undefined) continue;
    const v = parseRustDuration(raw);
    if (v === null) bad.push(`${field} ${JSON.stringify(raw)}`);
    else (facts as unknown as Record<string, number>)[key] = v;
  }
  return { span: span.name, facts, bad, errorType: null };
}
