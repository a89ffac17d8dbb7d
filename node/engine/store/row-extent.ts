// The time span an incident's rows give, as refreshIncidentSpan (incidents.ts) reads it back with SQL,
// gathered while the rows are written: a new incident's span is then set without reading them again.
// The SQL's MAX(end_ns) over spans, and MAX(COALESCE(free_ns, alloc_ns)) over allocations, have no index
// to seek: a scan of every row (95 ms of a 1 M-entry memory snapshot's 1.4 s import).
//
// Same answer as the SQL, term for term: samples and events by their stored ms; spans and kernels from
// MIN(start_ns) and MAX(end_ns), allocations from MIN(alloc_ns) and MAX(COALESCE(free_ns, alloc_ns)),
// each ns bound divided by 10^6 with the truncation SQLite's integer division (and BigInt's) makes.
// Histogram scrapes are not in it (the SQL reads none). Rows that came another way (an attached file's
// INSERT … SELECT) or an ns the store keeps as a REAL (past 2^63) leave it inexact: the SQL decides.
import type { Ns } from '../importers/types';

const INT64 = 2 ** 63;

export class RowExtent {
  private loMs = Infinity;
  private hiMs = -Infinity;
  private loNs: number | bigint = Infinity;
  private hiNs: number | bigint = -Infinity;
  /** False once a row's time is not known here (see the header). */
  exact = true;

  /** A sample's or event's stored ms. */
  ms(t: number): void {
    if (t < this.loMs) this.loMs = t;
    if (t > this.hiMs) this.hiMs = t;
  }

  /** The ns a row gives the SQL's MIN (lo) and MAX (hi), as bound (null: none). */
  ns(lo: number | bigint | null, hi: number | bigint | null): void {
    if (lo !== null) {
      if (typeof lo === 'number' && !(Math.abs(lo) < INT64)) this.exact = false;
      else if (lo < this.loNs) this.loNs = lo;
    }
    if (hi !== null) {
      if (typeof hi === 'number' && !(Math.abs(hi) < INT64)) this.exact = false;
      else if (hi > this.hiNs) this.hiNs = hi;
    }
  }

  /** Widens this extent by another's (a later source of the same import). */
  merge(o: RowExtent): void {
    if (!o.exact) this.exact = false;
    if (o.loMs < this.loMs) this.loMs = o.loMs;
    if (o.hiMs > this.hiMs) this.hiMs = o.hiMs;
    if (o.loNs !== Infinity) this.ns(o.loNs, null);
    if (o.hiNs !== -Infinity) this.ns(null, o.hiNs);
  }

  /** The span in ms (null: no row has a time); undefined when inexact. */
  span(): { start_ms: number | null; end_ms: number | null } | undefined {
    if (!this.exact) return undefined;
    let lo = this.loMs;
    let hi = this.hiMs;
    if (this.loNs !== Infinity) lo = Math.min(lo, msOf(this.loNs));
    if (this.hiNs !== -Infinity) hi = Math.max(hi, msOf(this.hiNs));
    return { start_ms: lo === Infinity ? null : Math.floor(lo), end_ms: hi === -Infinity ? null : Math.ceil(hi) };
  }
}

/** ns / 10^6 truncated toward zero, as SQLite's integer division gives it. */
const msOf = (ns: Ns): number => Number(BigInt(ns) / 1_000_000n);
