// What a user types into the log search, as the full-text index understands it. Case never matters;
// words an on-call engineer searches by name find the lines that say it in other words ("OOM" finds
// "CUDA out of memory" and OutOfMemoryError, "crash" finds EngineDeadError); anything already written in
// FTS syntax passes through. The index's syntax errors come back as a sentence that says what to type.

/** Words and the phrases the logs use for them (lower case). */
const SYNONYMS: Record<string, string[]> = {
  oom: ['"oom"*', '"out of memory"', '"outofmemoryerror"*', '"oomkilled"*', '"oom-kill"*'],
  crash: ['"crash"*', '"enginedeaderror"*', '"died unexpectedly"', '"fatal signal"', '"segmentation fault"'],
  xid: ['"xid"*'],
  nccl: ['"nccl"*', '"watchdog"*'],
  timeout: ['"timeout"*', '"timed out"'],
  preemption: ['"preempt"*'],
  preempted: ['"preempt"*'],
};

/** FTS5 syntax the user wrote on purpose: quotes, a prefix star, grouping or an operator. */
const FTS_SYNTAX = /["*()]|\b(AND|OR|NOT|NEAR)\b/;

export function toSearchQuery(input: string): string {
  const s = input.trim();
  if (!s || FTS_SYNTAX.test(s)) return s;
  return s
    .split(/\s+/)
    .map((w) => {
      const alts = SYNONYMS[w.toLowerCase()];
      // Colons and other punctuation would read as FTS syntax: a bare word is always a quoted prefix.
      return alts ? `(${alts.join(' OR ')})` : `"${w.replace(/"/g, '""')}"*`;
    })
    .join(' ');
}

/** The engine's "not a valid query" as a sentence for the search box's owner. */
export function searchErrorText(message: string): string | null {
  if (!/not a valid query|fts5|syntax error|no such column|unterminated/i.test(message)) return null;
  const near = /near "([^"]*)"/.exec(message)?.[1];
  const column = /no such column: (\S+)/.exec(message)?.[1];
  const what = column
    ? `“${column}:” reads as a column name`
    : /unterminated string/i.test(message)
      ? 'a quote is not closed'
      : near !== undefined
        ? `the search does not parse near “${near}”`
        : 'the search does not parse';
  return `Can't search that: ${what}. Type words (any case), "exact phrases" in double quotes, prefix* with a star, and AND / OR / NOT between terms.`;
}
