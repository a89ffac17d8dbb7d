// One request model over span attributes from OpenTelemetry GenAI conventions, vLLM's own spans and
// `llm.*` attributes. Facts are added to a span's attrs under normalised keys, alongside the originals:
//
//   request.model          gen_ai.request.model | gen_ai.response.model | llm.model
//   request.id             gen_ai.request.id
//   request.prompt_tokens  gen_ai.usage.input_tokens | gen_ai.usage.prompt_tokens | llm.input_tokens
//   request.output_tokens  gen_ai.usage.output_tokens | gen_ai.usage.completion_tokens | llm.output_tokens
//   request.queue_s        gen_ai.latency.time_in_queue
//   request.ttft_s         gen_ai.latency.time_to_first_token
//   request.first_token_s  gen_ai.response.time_to_first_chunk | gen_ai.response.time_to_first_token, else a
//                          first-token span event's time after the span's start (an LLM client's own
//                          instrumentation: `first_token`, `first_chunk`, …): the caller's view, kept apart
//                          from the server's TTFT and out of the series (it includes the network)
//   request.prefill_s      gen_ai.latency.time_in_model_prefill
//   request.decode_s       gen_ai.latency.time_in_model_decode
//   request.e2e_s          gen_ai.latency.e2e, else the span's duration
//   request.finish_reasons gen_ai.response.finish_reasons
//   request.status         'error' when the span status is error, an `error` tag is true, or HTTP ≥ 500; else 'ok'
//   request.error          the status message, error.type or exception.message
//   http.status            http.response.status_code | http.status_code
//
// A span is a request span when it carries any of the gen_ai.* / llm.* facts above. Request spans also
// feed series (labels {from: 'spans'}), per 10 s window ending at the request's end: histograms lat.e2e,
// lat.ttft, lat.queue (kind 'histogram', cumulative over buckets and time as Prometheus writes them, vLLM's
// bucket bounds, with lat.<x>.count / lat.<x>.sum counters) and counters req.finished, req.errors.

export interface SpanOutcome {
  start_ns: bigint;
  end_ns: bigint;
  /** The span's own status said error (OTLP status code 2). */
  statusError?: boolean;
  /** When the span's first-token event (FIRST_TOKEN_EVENT) happened, where it has one. */
  firstTokenNs?: bigint | null;
  statusMessage?: string | null;
}

const first = (a: Record<string, unknown>, keys: string[]): unknown => {
  for (const k of keys) if (a[k] !== undefined && a[k] !== null) return a[k];
  return undefined;
};

const numOf = (v: unknown): number | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  if (typeof v === 'bigint') return Number(v);
  return undefined;
};

const FACT_KEYS = [
  'gen_ai.request.model', 'gen_ai.response.model', 'llm.model', 'gen_ai.request.id',
  'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.input_tokens',
  'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.output_tokens',
  'gen_ai.latency.time_in_queue', 'gen_ai.latency.time_to_first_token', 'gen_ai.latency.e2e',
  'gen_ai.response.time_to_first_chunk', 'gen_ai.response.time_to_first_token',
  'gen_ai.latency.time_in_model_prefill', 'gen_ai.latency.time_in_model_decode', 'gen_ai.response.finish_reasons',
];

export interface RequestFacts {
  'request.model'?: string;
  'request.id'?: string;
  'request.prompt_tokens'?: number;
  'request.output_tokens'?: number;
  'request.queue_s'?: number;
  'request.ttft_s'?: number;
  'request.first_token_s'?: number;
  'request.prefill_s'?: number;
  'request.decode_s'?: number;
  'request.e2e_s': number;
  'request.finish_reasons'?: unknown;
  'request.status': 'ok' | 'error';
  'request.error'?: string;
  'http.status'?: number;
}

/** The request facts of a span, or null when it is not a request span. */
export function requestFacts(attrs: Record<string, unknown>, span: SpanOutcome): RequestFacts | null {
  if (!FACT_KEYS.some((k) => attrs[k] !== undefined)) return null;
  const httpStatus = numOf(first(attrs, ['http.response.status_code', 'http.status_code']));
  const errorTag = attrs.error === true || attrs.error === 'true';
  const isError = !!span.statusError || errorTag || (httpStatus !== undefined && httpStatus >= 500);
  const e2e = numOf(attrs['gen_ai.latency.e2e']) ?? Number(span.end_ns - span.start_ns) / 1e9;
  const facts: RequestFacts = { 'request.e2e_s': e2e, 'request.status': isError ? 'error' : 'ok' };
  const model = first(attrs, ['gen_ai.request.model', 'gen_ai.response.model', 'llm.model']);
  if (model !== undefined) facts['request.model'] = String(model);
  if (attrs['gen_ai.request.id'] !== undefined) facts['request.id'] = String(attrs['gen_ai.request.id']);
  const set = (key: keyof RequestFacts, v: number | undefined) => {
    if (v !== undefined) (facts as unknown as Record<string, unknown>)[key] = v;
  };
  set('request.prompt_tokens', numOf(first(attrs, ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.input_tokens'])));
  set('request.output_tokens', numOf(first(attrs, ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.output_tokens'])));
  set('request.queue_s', numOf(attrs['gen_ai.latency.time_in_queue']));
  const ttftEvent = span.firstTokenNs != null && span.firstTokenNs >= span.start_ns && span.firstTokenNs <= span.end_ns ? Number(span.firstTokenNs - span.start_ns) / 1e9 : undefined;
  set('request.ttft_s', numOf(attrs['gen_ai.latency.time_to_first_token']));
  set('request.first_token_s', numOf(first(attrs, ['gen_ai.response.time_to_first_chunk', 'gen_ai.response.time_to_first_token'])) ?? ttftEvent);
  set('request.prefill_s', numOf(attrs['gen_ai.latency.time_in_model_prefill']));
  set('request.decode_s', numOf(attrs['gen_ai.latency.time_in_model_decode']));
  set('http.status', httpStatus);
  if (attrs['gen_ai.response.finish_reasons'] !== undefined) facts['request.finish_reasons'] = attrs['gen_ai.response.finish_reasons'];
  if (isError) {
    const msg = span.statusMessage || first(attrs, ['error.type', 'exception.message', 'error.message']);
    if (msg !== undefined && msg !== null && msg !== '') facts['request.error'] = String(msg);
  }
  return facts;
}

/**
 * A span event that marks the first token (or chunk) a streaming call received. No convention names one (the
 * GenAI conventions carry it as `gen_ai.response.time_to_first_chunk`), but hand instrumentation of LLM clients
 * commonly adds one: `first_token`, `first_token_received`, `gen_ai.first_token`, `first_chunk`.
 */
export const FIRST_TOKEN_EVENT = /^(?:gen_ai[._])?first[._ -]?(?:token|chunk)(?:[._ -]?(?:received|sent|emitted))?$/i;

/**
 * The resource attributes (OTLP) or process tags (Jaeger) that say which process, host or pod a span came
 * from: kept on each span (the span's own attributes win), so a slow span is traced to its replica. The
 * rest (SDK versions, command lines) is left out: it would be repeated on every span. Jaeger clients name
 * the host `hostname`.
 */
export const RESOURCE_IDENTITY = ['service.namespace', 'service.instance.id', 'service.version', 'host.name', 'k8s.cluster.name', 'k8s.namespace.name', 'k8s.deployment.name', 'k8s.pod.name', 'k8s.container.name', 'k8s.node.name', 'container.id'] as const;

export function identityOf(resource: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of RESOURCE_IDENTITY) if (resource[k] !== undefined && resource[k] !== null) out[k] = resource[k];
  if (out['host.name'] === undefined && typeof resource.hostname === 'string') out['host.name'] = resource.hostname;
  return out;
}
