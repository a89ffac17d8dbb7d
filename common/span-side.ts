// Which side of a request a trace span stands on: the caller's (a client: an application or a gateway
// calling the model, OpenTelemetry GenAI's inference spans) or the server's. One reading for the importers,
// which keep client spans out of the request series where server spans count the same requests, and for the
// model, which joins the two sides of a request (network_client_slowness) and serves from the server's.

/** Attributes that say the side, first present wins: ours, a Jaeger/Zipkin/OpenTracing tag, OTLP's span kind. */
const SIDE_ATTRS = ['request.side', 'span.kind', 'otel.kind'] as const;

/** `client`, `server` (as tags write them, or OTLP's SpanKind 3 and 2), else null. */
export function spanSide(attrs: Record<string, unknown>): 'client' | 'server' | null {
  let raw: unknown;
  for (const k of SIDE_ATTRS) {
    if (attrs[k] !== undefined && attrs[k] !== null && attrs[k] !== '') {
      raw = attrs[k];
      break;
    }
  }
  const s = String(raw ?? '').toLowerCase();
  return s === 'client' || s === '3' ? 'client' : s === 'server' || s === '2' ? 'server' : null;
}
