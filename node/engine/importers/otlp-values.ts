// OTLP's attribute values (AnyValue) and times as plain JSON, shared by its traces and metrics readers.
import { unitsToNs } from './ns-time';
import { isObj, type Json } from './json-object';

export { isObj, type Json };

/** An OTLP AnyValue as plain JSON. */
export function anyValue(v: unknown): unknown {
  if (!isObj(v)) return v;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) {
    const n = Number(v.intValue);
    return Number.isSafeInteger(n) ? n : String(v.intValue);
  }
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('bytesValue' in v) return v.bytesValue;
  if (isObj(v.arrayValue)) return (Array.isArray(v.arrayValue.values) ? v.arrayValue.values : []).map(anyValue);
  if (isObj(v.kvlistValue)) return attributes(v.kvlistValue.values);
  return null;
}

/**
 * Attributes as plain JSON: OTLP's list of `{key, value: AnyValue}`; OTLP ≤ 0.8's `labels` (`{key, value}` with a
 * plain string); or a plain object, as the SDKs' console exporters print them.
 */
export function attributes(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (isObj(list)) return { ...list };
  if (!Array.isArray(list)) return out;
  for (const kv of list) if (isObj(kv) && typeof kv.key === 'string') out[kv.key] = anyValue(kv.value);
  return out;
}


/**
 * A time in Unix ns as OTLP/JSON writers give it: decimal digits, a number, or (opentelemetry-js's
 * otlp-transformer before 0.45) a Long as `{low, high}` 32-bit halves. Null when none or out of range.
 */
export function otlpNanos(v: unknown): bigint | null {
  if (isObj(v) && typeof v.low === 'number' && typeof v.high === 'number') return unitsToNs(String((BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0)), 1n);
  return unitsToNs(v, 1n);
}

/** A trace/span id as lower-case hex: OTLP/JSON writes hex, protobuf's JSON mapping base64. */
export function hexId(id: unknown, bytes: number): string | null {
  if (typeof id !== 'string' || id === '') return null;
  if (id.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(id)) return id.toLowerCase();
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(id)) {
    const b = Buffer.from(id.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (b.length === bytes) return b.toString('hex');
  }
  return /^[0-9a-fA-F]+$/.test(id) ? id.toLowerCase() : id;
}
