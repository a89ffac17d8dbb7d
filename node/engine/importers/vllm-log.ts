// Serving-engine logs (vLLM V0/V1, SGLang, TGI text or JSON, PyTorch/torchrun), streamed line by line by one
// parser; each dialect has its format id ('vllm-log', 'sglang-log', 'tgi-log', 'torch-log'), detected by
// which dialect's lines the head holds most of.
//
// Line prefixes understood, in the order they nest:
//   `2026-05-12T08:01:39.331095044Z `     docker logs -t (RFC 3339 with zone: absolute time)
//   `2025-07-08 17:24:00 - vllm.engine.metrics - INFO - ` / `2025-07-08 17:24:11,526 name 458 INFO  `
//                                          Python's own logging around the engine (local time, a year)
//   `[2024-07-08 15:17:34] ` / `[2024-11-12 05:53:23 TP0] `   docker/SGLang (local time, has a year)
//   `[04:40:55 TP0] `                      SGLang with a time of day only (date from the bundle, warned)
//   `(APIServer pid=3646) `, `(EngineCore_0 pid=1) `, `(VllmWorker rank=1 pid=194255) `, Ray actors'
//     `(SGLangEngine pid=41820) ` (also before a bracket prefix; `, ip=…` allowed)
//   `[80746] [rank0]:`                      torchrun's rank (the number before it is dropped)
//   `[E1025 07:00:43.721857 ProcessGroupNCCL.cpp:632] ` PyTorch C++ (c10): level I/W/E/F, month-day without
//     a leading zero, own time (year-less), file; `[E ProcessGroupNCCL.cpp:458] ` (no time); PyTorch ≥ 2.2's
//     Python logs the same without the bracket, with a pid: `E0325 20:57:27.620000 2606 …/api.py:869] `
//   `INFO 05-19 10:13:11 [loggers.py:271] ` (new) / `INFO 05-09 00:49:33 scheduler.py:1057] ` (old)
//   `  INFO text_generation_router::server: …` (TGI after its RFC 3339 time; spans before the target:
//     `  INFO generate{parameters=… total_time="…"}: text_generation_router::server: …`)
//   `{"timestamp":…,"level":…,"message"|"fields":{"message"},"target":"text_generation_…",…}` (TGI
//     --json-output: one JSON object a line, taken for its time, level, message, file and spans)
// ANSI colour codes (TGI colours its text logs unless LOG_COLORIZE=1) are dropped first.
// Time of a line: the RFC 3339 prefix; else vLLM's "MM-DD HH:MM:SS" (year from a bracket prefix on the
// same line, else log-time.ts rules: options, mtime, warned guess; zone from options, default UTC);
// else the bracket prefix (local); else the time of the line before (continuations, bare prints).
//
// Samples (labels: engine "0" for "Engine 000:", tp "TP0" for SGLang, metric "vllm-log:<field>"):
//   tokens.prompt_rate, tokens.generation_rate (tokens/s gauges: "Avg prompt/generation throughput",
//     SGLang "input throughput (token/s)" / "gen throughput (token/s)"); req.running, req.waiting ("Waiting",
//     V0 "Pending", SGLang #running-req/#queue-req), req.swapped (V0); kv.usage, kv.cpu_usage (fraction,
//     from %; SGLang "token usage" / "full token usage" is already a fraction), kv.swa_usage (SGLang "swa
//     token usage"); kv.used_tokens (SGLang #token / #full token), kv.swa_used_tokens (#swa token);
//     kv.prefix_queries, kv.prefix_hits (SGLang prefill lines' #new-token + #cached-token and #cached-token,
//     summed into counters); spec.accept_len, spec.acceptance_rate (SGLang "accept len" / "accept rate");
//     SGLang batch lines in both forms, `Decode batch. …` (older) and `Decode batch, …`. Stats lines that
//     share a whole second are spread across it (the store keeps one value a millisecond), a file without
//     times puts them one second apart: both warned (StatsSpreader). kv.prefix_hit_rate,
//     kv.cpu_prefix_hit_rate (fraction: the log's windowed rate, not counters); spec.accept_len,
//     spec.acceptance_rate; kv.preemptions (counter: V0 warnings' total_cumulative_preemption_cnt as is;
//     V1 stats "Preemptions: N" counts per interval, summed into a running total, metric
//     "vllm-log:Preemptions (summed)"); http.requests (counter, label status "2xx"…) and req.errors
//     (counter of 5xx) from uvicorn access lines, written once per timestamp.
//   TGI request lines (tgi-request-line.ts: `Success` under the handler span, and ERROR lines inside one)
//     feed request-series.ts per 10 s window, labels {metric "vllm-log:<field>"}: histograms lat.e2e
//     (total_time), lat.queue (queue_time), lat.validation (validation_time), lat.inference
//     (inference_time), lat.itl (time_per_token: the request's mean, as TGI's own metric is), with
//     .count/.sum; counters req.finished (Success and ERROR lines) and req.errors (ERROR lines). A duration
//     that is not a Rust `Duration` print is warned about (its line) and left out of its series.
// Events (kind — severity — attrs):
//   oom — error — exception, tried_bytes, gpu, capacity_bytes, free_bytes, process_bytes, other_processes,
//     other_processes_bytes, allocated_bytes, reserved_unallocated_bytes, reserved_bytes (oom-text.ts; null when
//     not printed)
//   preemption — warning — mode ('RECOMPUTE'|'SWAP'|'RETRACT'), cumulative (V0 count), retracted (SGLang);
//     upstream's V0 warning and other wordings ("… was preempted …", "Preempting request …"; not "resumed")
//   traceback — error — exception (type), message (its last line), frames (count); text = whole traceback
//     (`[rank0]: Traceback …` too: another rank's line ends it); C++ traces (`Exception raised from …`,
//     `frame #N: …` lines) are tracebacks with language 'c++', raised_from
//   Two stats lines glued without their newline are split where the second's prefix starts.
//   nccl_timeout — critical — op, seq, timeout_ms, ran_ms, rank (torchrun's global one), pg_rank (the message's, where
//     it differs); or a watchdog that saw the work stop: watchdog ('stuck' | 'heartbeat' | 'scheduler'), timeout_ms;
//   nccl_error — error — error ('remote' | 'internal' | 'system' | 'cuda' | 'usage' | 'network' | 'timeout', an
//     echo of a timeout already read) where the text says
//   version — info — engine, version, model, v1 (vLLM: boolean; others null) — from start banners:
//     vLLM `vLLM API server version X`, `Initializing a (V1 )LLM engine (vX) with config: model='…'`;
//     SGLang `server_args=ServerArgs(model_path='…', …)` (printed once at launch; SGLang logs no version), and its
//     model runner's `Load weight begin. avail mem=…` (a start, no event of its own);
//     TGI launcher `text_generation_launcher: Args { model_id: "…", … }` (≤ 1.x: one line; ≥ 2.0: `Args {`
//     and one indented line per field up to `}`, all one event; JSON: the same text in the message).
//     TGI logs no version of its own (`--env` prints only commit sha and docker label): version null.
//   engine_start — info — version;  engine_restart — warning — version, starts (nth start in the file):
//     a start banner after serving activity (stats, requests, errors) since the previous start
//   engine_stop — info — (text): a graceful shutdown (vLLM `Shutting down FastAPI HTTP server.`, uvicorn `Shutting
//     down`, TGI `Terminating webserver`), one per shutdown (its lines within 10 s are one)
//   engine_crash — critical — (text): EngineDeadError, "died unexpectedly", "Got fatal signal…"; exception
//     for C++ `terminate called after throwing an instance of '…'`
//   http_error — error — status, method, path (access lines with 5xx)
//   log — by level — level, process, pid, rank, file: every other non-empty line (searchable); TGI JSON
//     lines add target and span (span names, root first); TGI request lines add span (the handler) and
//     their facts: request.e2e_s/queue_s/validation_s/inference_s/tpot_s, request.status, and for errors
//     request.error, http.status, error_type (InferError's); a request line with CUDA OOM text is an oom event
// Every event carries `process`/`pid`/`rank` when the line had a process prefix.
// Malformed: a line with NUL or undecodable bytes; the file fails when those are the majority
// (garbage-guard.ts).
import type { Severity } from '../../../common/contract/types';
import { SIG } from '../../../common/names';
import { applyScale } from '../signals/canonical';
import { GarbageGuard } from './garbage-guard';
import { MAX_VALUE_DEPTH, jsonTooDeep } from './json-error-offset';
import { headLines, lineBatches } from './line-reader';
import { LogClock, isoOf, parseIsoZoned } from './log-time';
import { isOomLine, OOM_CONTINUATION, oomIsCut, parseOom } from './oom-text';
import { RequestSeries } from './request-series';
import { StatusCounts } from './status-counts';
import { messageOf, tgiJsonRequest, tgiTextRequest, type TgiRequest } from './tgi-request-line';
import type { EntryInput, ImportContext, Importer, Sink } from './types';

const RFC3339_PREFIX = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d))\s+/;
/**
 * The engine run under another program's Python logging (Xinference, a user's own script): the standard
 * `%(asctime)s - %(name)s - %(levelname)s - %(message)s`, `asctime name pid LEVEL  message`, or
 * `asctime LEVEL pid [file.py:N] message` (SGLang's scheduler under a trainer's logging). Local time with a
 * year; groups: date and time 1–7, logger (or file) 8, 10 or 13, level 9, 11 or 12.
 */
const PY_LOGGING = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:,(\d+))? (?:- ([\w.]+) - (DEBUG|INFO|WARNING|ERROR|CRITICAL) - |([\w.]+) \d+ (DEBUG|INFO|WARNING|ERROR|CRITICAL) +|(DEBUG|INFO|WARNING|ERROR|CRITICAL) \d+ \[([\w.-]+:\d+)\] )/;
/**
 * loguru's default format (TGI's Python server: `2025-07-21 16:05:35.987 | INFO     | module:function:76 - …`):
 * local time with its year, level, where; groups 1–7 the time, 8 the level, 9 the place.
 */
const LOGURU = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))? \| (TRACE|DEBUG|INFO|SUCCESS|WARNING|ERROR|CRITICAL) +\| ([^\s|]+:\d+) - /;
const BRACKET_PREFIX = /^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(?: ([A-Z]+\d+[^\]]*))?\]\s*/;
/** One space after it: what follows is the line as printed, a traceback frame's indentation included. */
const PROCESS_PREFIX = /^\(([A-Za-z_][\w-]*)(?: rank=(\d+))? pid=(\d+)(?:, ip=[\d.:a-fA-F]+)?\) /;
/** SGLang with a time of day only: `[04:40:55 TP0] `, `[04:40:55] `. */
const BRACKET_TIME = /^\[(\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(?: ([A-Z]+\d+[^\]]*))?\]\s*/;
/** SGLang 0.1–0.2's worker prefix: `[gpu=0] `, `[gpu_id=0] `. */
const SGLANG_GPU = /^\[gpu(?:_id)?=(\d+)\] /;
/** torchrun's per-rank prefix (`[rank0]:`), behind an optional `[80746] ` a paste or launcher put there. */
const RANK_PREFIX = /^(?:\[\d+\] )?\[rank(\d+)\]: ?/;
/** PyTorch's C++ (c10) log prefix: `[E1025 07:00:43.721857 ProcessGroupNCCL.cpp:632] `, month without a
 * leading zero (`E321` = 03-21), up to ns; older `[E ProcessGroupNCCL.cpp:458] ` carries no time. */
const C10_PREFIX = /^\[([IWEF])(?:(\d{1,2})(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?: \d+)? )?\s*([\w.-]+):(\d+)\]\s?/;
const C10_LEVEL: Record<string, string> = { I: 'INFO', W: 'WARNING', E: 'ERROR', F: 'CRITICAL' };
/**
 * PyTorch ≥ 2.2's Python logs (torch.distributed.elastic, torchrun) in the same glog shape without the
 * bracket: `E0325 20:57:27.620000 2606 site-packages/torch/…/api.py:869] …`; groups as C10_PREFIX's.
 */
const GLOG_PREFIX = /^([IWEF])(\d{1,2})(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))? +\d+ ([\w./-]+):(\d+)\]\s?/;
/** Where a second line begins inside one (two stats lines glued without their newline). */
const GLUED = /(?:\([A-Za-z_][\w-]*(?: rank=\d+)? pid=\d+\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[^\]]*\] (?:Decode|Prefill) batch/;
const VLLM_PREFIX = /^(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) (\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))? (?:\[([^\]:]+):(\d+)\]|([^\s:]+\.py):(\d+)\]?) ?/;
const LEVEL_WORD = /^\s*(TRACE|DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)(?::\s+|\s+)/;
/** A uvicorn access line (`INFO:     10.0.0.7:5123 - "POST /v1/chat/completions HTTP/1.1" 200`): method, path, status. */
const ACCESS = /^(?:INFO:\s+)?\S+:\d+ - "(\w+) (\S+) HTTP\/[\d.]+" (\d{3})/;
/** The most text after an access line's status that is only its reason phrase (` Network Authentication Required`). */
const ACCESS_TAIL_MAX = 32;
/** How uvicorn's own lines begin, its access lines among them. */
const UVICORN_INFO = /^INFO:\s/;

/**
 * ACCESS's match of a line (method, path and status at 1, 2 and 3), or null. Its fixed ` - "` is searched for
 * first, as most lines lack it; where a line has it, the backtracking `\S+:\d+` runs over its first word only
 * (the address, in an access line).
 */
function accessLine(s: string): RegExpExecArray | null {
  return s.length < 2000 && s.includes(' - "') ? ACCESS.exec(s) : null;
}
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** The kubelet's CRI log line (/var/log/pods/…): `<RFC 3339> stdout|stderr F|P <line>`. */
const CRI_LINE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)) (?:stdout|stderr) [FP] /;
/**
 * journald / syslog around a service's line (`journalctl -u vllm`): `Aug 19 18:34:10 host vllm[8707]: `,
 * or short-iso's `2025-08-19T18:34:10+0000 host vllm[8707]: ` (its time kept: it has a year and a zone).
 */
const SYSLOG_LINE = /^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d))) [\w.-]+ [\w.@/-]+\[\d+\]: /;

/**
 * A container runtime's wrapping of a line, undone into `docker logs -t`'s form (`<RFC 3339> <line>`, which
 * prefix() reads): Docker's json-file driver (`{"log":"…\n","stream":"stdout","time":"…"}`) and the CRI
 * format Kubernetes nodes keep. Any other line comes back as it is.
 */
/** `docker compose logs`: the service (`sglang`, `vllm-1`, `app_1`), padding, `| `, the line. */
const COMPOSE_LINE = /^[A-Za-z0-9][\w.-]{0,62} +\| /;
/**
 * stern (and `kubectl logs` in a loop over pods): `<pod> <container> <line>` in front of an engine's own line —
 * only where what follows is one (a process prefix, a level and date, a bracketed date), as two words are no prefix.
 */
const STERN_LINE = /^[a-z0-9][a-z0-9.-]{0,252} [a-z0-9][a-z0-9-]{0,62} (?=\([A-Za-z_][\w-]*(?: rank=\d+)? pid=\d+|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d |\[\d{4}-\d\d-\d\d )/;
/** `kubectl logs --prefix`: `[pod/<name>/<container>] `. */
const KUBECTL_PREFIX = /^\[pod\/[^\s\]]+\/[^\s\]]+\] /;
/** A CI or collector's RFC 3339 time in brackets (Buildkite's `[2025-05-22T05:33:18Z] `): the time, unbracketed. */
const BRACKET_RFC3339 = /^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d))\] /;
/** A collector's bracketed local time in front of SGLang's own (`[2025-03-11 16:44:27] [2025-03-11 01:44:27 TP0] …`). */
const BRACKET_BEFORE_BRACKET = /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?\] (?=\[(?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d)/;

/** Leading indentation and a `| ` gutter before a pasted log line. */
const INDENT_GUTTER = /^[ \t]*(?:\| ?)?[ \t]*/;

export function unwrapContainerLine(line: string): string {
  const c0 = line.charCodeAt(0);
  // A log pasted indented or behind a `| ` gutter (a code block in a list, k9s or a compose service's column
  // cut away): the line behind it where that is one a log of ours starts with. Indented lines that are not
  // (a traceback's frames, TGI's Args block) keep their indentation.
  if (c0 === 32 || c0 === 9 || c0 === 124 /* | */) {
    const m = INDENT_GUTTER.exec(line);
    if (m && m[0].length < line.length) {
      const inner = line.slice(m[0].length);
      const rest = unwrapContainerLine(inner);
      if (rest !== inner || DETECT_LINE.some(([, re]) => re.test(rest))) return rest;
    }
    return line;
  }
  if (c0 === 91 /* [ */) {
    const m = BRACKET_RFC3339.exec(line) ?? KUBECTL_PREFIX.exec(line) ?? BRACKET_BEFORE_BRACKET.exec(line);
    if (m) return m[1] !== undefined ? `${m[1]} ${line.slice(m[0].length)}` : unwrapContainerLine(line.slice(m[0].length));
    return line;
  }
  // Lower case first: a service or pod name (an engine's own lines start with a level, a date, `(` or `[`).
  if (c0 >= 97 && c0 <= 122) {
    const m = COMPOSE_LINE.exec(line) ?? STERN_LINE.exec(line);
    if (m) return unwrapContainerLine(line.slice(m[0].length));
  }
  // A syslog month (`Aug 19 …`): capital, two lower-case letters, a space — checked by hand first, as most
  // lines start with a capital (INFO, WARNING) and a regex call a line was 4% of a log's parse.
  const c1 = line.charCodeAt(1);
  const c2 = line.charCodeAt(2);
  if (c0 >= 65 && c0 <= 90 && c1 >= 97 && c1 <= 122 && c2 >= 97 && c2 <= 122 && line.charCodeAt(3) === 32) {
    const m = SYSLOG_LINE.exec(line);
    // The classic form's time has no year: the engine's own line behind it has its time.
    if (m) return line.slice(m[0].length);
  }
  if (c0 === 123 /* { */ && line.startsWith('{"log":')) {
    try {
      const o = JSON.parse(line) as { log?: unknown; time?: unknown };
      if (typeof o.log === 'string' && typeof o.time === 'string' && RFC3339_PREFIX.test(`${o.time} `)) return `${o.time} ${o.log.replace(/\r?\n$/, '')}`;
    } catch {
      // not Docker's: read as it is
    }
    return line;
  }
  if (c0 >= 48 && c0 <= 57) {
    const m = CRI_LINE.exec(line) ?? SYSLOG_LINE.exec(line);
    if (m) return `${m[1]} ${line.slice(m[0].length)}`;
  }
  return line;
}
const SEVERITY: Record<string, Severity> = {
  TRACE: 'debug',
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warning',
  WARN: 'warning',
  ERROR: 'error',
  CRITICAL: 'critical',
  FATAL: 'critical',
};

interface Field {
  re: RegExp;
  name: string;
  unit: string;
  scale: number;
  metric: string;
}

const f = (re: RegExp, name: string, unit: string, metric: string, scale = 1): Field => ({ re, name, unit, scale, metric });

const VLLM_STATS: Field[] = [
  f(/Avg prompt throughput: ([\d.]+)/, 'tokens.prompt_rate', 'tokens/s', 'Avg prompt throughput'),
  f(/Avg generation throughput: ([\d.]+)/, 'tokens.generation_rate', 'tokens/s', 'Avg generation throughput'),
  f(/Running: (\d+) reqs/, 'req.running', 'count', 'Running'),
  f(/Swapped: (\d+) reqs/, 'req.swapped', 'count', 'Swapped'),
  f(/(?:Waiting|Pending): (\d+) reqs/, 'req.waiting', 'count', 'Waiting'),
  f(/GPU KV cache usage: ([\d.]+)%/, 'kv.usage', 'fraction', 'GPU KV cache usage', 0.01),
  f(/CPU KV cache usage: ([\d.]+)%/, 'kv.cpu_usage', 'fraction', 'CPU KV cache usage', 0.01),
  f(/Prefix cache hit rate: ([\d.]+)%/, 'kv.prefix_hit_rate', 'fraction', 'Prefix cache hit rate', 0.01),
];
const V0_PREFIX_HIT: Field[] = [
  f(/Prefix cache hit rate: GPU: ([\d.]+)%/, 'kv.prefix_hit_rate', 'fraction', 'Prefix cache hit rate GPU', 0.01),
  f(/CPU: ([\d.]+)%/, 'kv.cpu_prefix_hit_rate', 'fraction', 'Prefix cache hit rate CPU', 0.01),
];
const SPEC: Field[] = [
  f(/Mean acceptance length: ([\d.]+)/, 'spec.accept_len', 'tokens', 'Mean acceptance length'),
  f(/Avg Draft acceptance rate: ([\d.]+)%/, 'spec.acceptance_rate', 'fraction', 'Avg Draft acceptance rate', 0.01),
  f(/(?<!Avg )Draft acceptance rate: ([\d.]+)(?![\d.%])/, 'spec.acceptance_rate', 'fraction', 'Draft acceptance rate'),
  // vLLM 0.8–0.9's V1 `SpecDecoding metrics: Draft acceptance rate: 69.2%, …` (a percentage).
  f(/(?<!Avg )Draft acceptance rate: ([\d.]+)%/, 'spec.acceptance_rate', 'fraction', 'Draft acceptance rate', 0.01),
];
const SGLANG_BATCH: Field[] = [
  f(/#running-req: (\d+)/, 'req.running', 'count', '#running-req'),
  f(/#queue-req: (\d+)/, 'req.waiting', 'count', '#queue-req'),
  // "token usage", or with a hybrid (sliding-window) model "full token usage" beside "swa token usage".
  f(/(?:^|[,.] )(?:full |gpu )?token usage: ([\d.]+)/, 'kv.usage', 'fraction', 'token usage'),
  f(/swa token usage: ([\d.]+)/, SIG.kvSwaUsage, 'fraction', 'swa token usage'),
  f(/#(?:full |gpu-)?token: (\d+)/, 'kv.used_tokens', 'tokens', '#token'),
  f(/#swa token: (\d+)/, SIG.kvSwaUsedTokens, 'tokens', '#swa token'),
  f(/gen throughput \(token\/s\): ([\d.]+)/, 'tokens.generation_rate', 'tokens/s', 'gen throughput'),
  f(/input throughput \(token\/s\): ([\d.]+)/, 'tokens.prompt_rate', 'tokens/s', 'input throughput'),
  f(/cache hit rate: ([\d.]+)%/, 'kv.prefix_hit_rate', 'fraction', 'cache hit rate', 0.01),
  f(/accept len: ([\d.]+)/, 'spec.accept_len', 'tokens', 'accept len'),
  f(/accept rate: ([\d.]+)/, 'spec.acceptance_rate', 'fraction', 'accept rate'),
];
/** SGLang's batch lines: `Decode batch. #running-req…` (older) and `Decode batch, #running-req…` (current). */
const SGLANG_STATS = /^(?:Decode|Prefill) batch[.,] /;
const SGLANG_PREFILL_TOKENS = /#new-token: (\d+), #cached-token: (\d+)/;
/** A decode batch line's `cuda graph: True|False`: whether that step replayed a captured graph. */
const SGLANG_CUDA_GRAPH = /^Decode batch[.,] .*\bcuda graph: (True|False)\b/;
/**
 * SGLang's batch lines end with the scheduler's own clock (`timestamp: 2025-07-18T15:32:54.159394`) beside the
 * prefix's whole second: the line's time to the ms where it is the same second of the same clock (the prefix's
 * zone and date are kept), instead of spread evenly across the second.
 */
const SGLANG_TIMESTAMP = /timestamp: \d{4}-\d\d-\d\dT\d\d:\d\d:(\d\d)\.(\d{1,9})\s*,?\s*$/;
function finerTime(p: Prefix): Prefix {
  const m = SGLANG_TIMESTAMP.exec(p.body);
  // The prefix is read in its zone: compare its second of the minute, which no zone moves.
  if (!m || Math.floor(p.ts / 1000) % 60 !== Number(m[1])) return p;
  return { ...p, ts: p.ts - (p.ts % 1000) + Number((m[2] + '00').slice(0, 3)), coarse: false };
}

/** A decode batch line reporting no tokens generated over its interval. */
const SGLANG_NO_TOKENS = /gen throughput \(token\/s\): 0(?:\.0*)?(?:,|\s|$)/;
/** Stats lines held per series group while they share one whole second (see StatsSpreader). */
const MAX_SAME_SECOND = 1000;
const V0_PREEMPT = /preempted by PreemptionMode\.(\w+) mode[\s\S]*?total_(?:cumulative_preemption_cnt|num_cumulative_preemption)=(\d+)/;
/**
 * A preemption in other words than upstream vLLM's V0 warning (forks, V1 patches, older releases):
 * "… is/was/has been preempted …", "Preempting request …", "preempt(ed) … (due to|because of) … KV cache".
 * "Preempted request … has been resumed" is a resumption, not one.
 */
const PREEMPT_OTHER = /\b(?:is|was|were|are|been|got|being) preempted\b|^Preempt(?:ing|ed) (?:request|seq(?:uence)?(?: group)?|req)\b(?![^.]*\bresumed\b)/i;
const PREEMPT_WORD = /\bpreempt(?:ed|ing)?\b/i;
const PREEMPT_CAUSE = /\b(?:KV cache|kv cache|blocks?)\b/i;

/**
 * PREEMPT_OTHER, or "preempt(ed|ing) … KV cache / block(s)" within one sentence. That last part was a
 * `\bpreempt…\b[^.]*\b(?:…)` branch, scanned to the sentence's end from every "preempt" (a line
 * repeating the word took 12 s at 256 KiB): here each sentence is read once, from its first "preempt"
 * (any later one's rest lies inside that one's).
 */
function preemptedOther(body: string): boolean {
  if (PREEMPT_OTHER.test(body)) return true;
  for (let from = 0; from < body.length; ) {
    const dot = body.indexOf('.', from);
    const end = dot < 0 ? body.length : dot;
    const sentence = body.slice(from, end);
    const m = PREEMPT_WORD.exec(sentence);
    if (m && PREEMPT_CAUSE.test(sentence.slice(m.index + m[0].length))) return true;
    from = end + 1;
  }
  return false;
}
const PREEMPT_COUNT = /total_(?:cumulative_preemption_cnt|num_cumulative_preemption)=(\d+)/;
const PREEMPT_MODE = /PreemptionMode\.(\w+)|\b(recompute|swap)\b/i;
/** A C++ stack trace (c10::Error, the NCCL watchdog's): `Exception raised from … (most recent call first):`, `frame #3: …`. */
const CPP_TRACE_START = /^(?:Exception raised from .* \(most recent call first\):|frame #\d+: )/;
const CPP_FRAME = /^frame #\d+: /;
const CPP_THROW = /^terminate called after throwing an instance of '([^']+)'/;
const SGLANG_RETRACT = /Retract requests\. #retracted_reqs: (\d+)/;
const NCCL_TIMEOUT = /Watchdog caught collective operation timeout|NCCL (?:watchdog )?timeout|ncclTimeout|timed out in (?:call to )?(?:NCCL|collective)/i;
/**
 * A watchdog that saw the work itself stop, not one collective time out: PyTorch's collective watchdog stuck
 * (`ProcessGroupNCCL's watchdog got stuck for 480 seconds`), its heartbeat monitor, SGLang's scheduler
 * watchdog (`Watchdog timeout (self.watchdog_timeout=300)`, which kills the server after a forward step hung).
 */
const WATCHDOG_HANG = /watchdog got stuck for (\d+) seconds|Heartbeat monitor timed out|(?:Scheduler )?[Ww]atchdog timeout \(self\.watchdog_timeout=(\d+)/;
const NCCL_ERROR = /NCCL error|nccl(?:Internal|System|UnhandledCuda|InvalidUsage|Remote)Error/;
/**
 * NCCL's network failing under a collective: an IB completion with an error status, a failed verbs call, an OFI
 * request in error. Not its start-up probing (`NET/IB : No device found`), nor a peer's socket closing or
 * resetting, which every rank prints as a job is torn down.
 */
const NCCL_NET_FAILURE = /Got completion from peer .*(?:error|status=)|Call to ibv_\w+ failed|NET\/OFI Request .* completed with error/;
/** What failed, as NCCL says it. */
const NCCL_ERROR_KIND: [RegExp, string][] = [
  [/ncclRemoteError|remote process exited or there was a network error/, 'remote'],
  [/ncclInternalError|internal error/, 'internal'],
  [/ncclSystemError|unhandled system error/, 'system'],
  [/ncclUnhandledCudaError|unhandled cuda error/, 'cuda'],
  [/ncclInvalidUsage|invalid usage/, 'usage'],
];
const NCCL_WARN = /(?:^|\s)NCCL WARN /;

/**
 * NCCL_ERROR, or "ProcessGroupNCCL" with "error" or "abort" after it. That was `ProcessGroupNCCL.*(?:error|abort)`,
 * which backtracks from every mention to the line's end: 1 MiB of "ProcessGroupNCCL " took 80–170 s.
 * The first mention's rest holds every later one's, so it alone is searched.
 */
function ncclError(body: string): boolean {
  if (NCCL_ERROR.test(body)) return true;
  const i = body.indexOf('ProcessGroupNCCL');
  return i >= 0 && /error|abort/.test(body.slice(i + 'ProcessGroupNCCL'.length));
}
// (SGLang prints "Received sigquit from a child proces." — its own spelling.)
/** TGI's launcher on a shard that did not come up (the line is also a CRASH). */
const FAILED_START = /Shard \d+ failed to start/;
/** Lines of one failed start: the launcher prints it before and after the shard's error output. */
const FAILED_START_SAME_MS = 10_000;
const CRASH = /EngineDeadError|died unexpectedly|Got fatal signal from worker processes|EngineCore encountered a fatal error|Engine core initialization failed|Background loop has errored already|ChildFailedError|Shard \d+ crashed|Shard \d+ failed to start|Shard complete standard error output|\bhit an exception\b|Received sigquit from a child proces|^Fatal Python error: |A worker died or was killed while executing/;

/** A line that announces the traceback after it on the same line (`Scheduler hit an exception: Traceback (most recent call last):`). */
function announcesTraceback(body: string): boolean {
  const i = body.indexOf('Traceback (most recent call last)');
  return i > 0 && body.length - i <= 'Traceback (most recent call last):'.length + 2;
}

/**
 * A server stopping on request: vLLM's API server (`Shutting down FastAPI HTTP server.`), uvicorn under vLLM and
 * SGLang (`Shutting down`, the whole message), TGI's launcher (`Terminating webserver`). Printed on SIGTERM or
 * Ctrl-C, and after a crash as the server winds down.
 */
const STOP = /^(?:Shutting down FastAPI HTTP server\.?|Shutting down|(?:text_generation_launcher: )?Terminating webserver)\s*$/;
/** One shutdown prints several stop lines (vLLM's, then uvicorn's): those within this of the first are one stop. */
const STOP_SAME_MS = 10_000;

interface Banner {
  engine: string;
  version: string | null;
  model: string | null;
  v1: boolean | null;
}
/** Start banners on one line; `banner` null: the line marks a start but says nothing more (a log event). */
const BANNERS: { re: RegExp; banner: (m: RegExpExecArray) => Banner | null }[] = [
  { re: /vLLM API server version ([\w.+-]+)/, banner: (m) => ({ engine: 'vllm', version: m[1], model: null, v1: null }) },
  // Newer vLLM's block-letter logo at the API server's start (0.15 prints it), its version beside the logo.
  { re: /^[\s█▄▀]*[█▄▀][\s█▄▀]*\sversion ([\w.+-]+)\s*$/, banner: (m) => ({ engine: 'vllm', version: m[1], model: null, v1: null }) },
  {
    re: /Initializing an? (V1 )?LLM engine \(v([\w.+-]+)\) with config: model='?([^',\s]+)/,
    banner: (m) => ({ engine: 'vllm', version: m[2], model: m[3], v1: m[1] !== undefined }),
  },
  { re: /Starting vLLM API server/, banner: () => null },
  { re: /(?:^|\s)server_args=ServerArgs\(model_path=(?:'([^']*)'|"([^"]*)")/, banner: (m) => ({ engine: 'sglang', version: null, model: m[1] ?? m[2], v1: null }) },
  // SGLang's model runner at every start (each TP rank: the ranks of one start come with no activity between
  // them, so they are one start). A container restarted in place logs it again where server_args may be cut
  // off (a crash loop's `kubectl logs --previous` pieces, a log shipper that keeps the scheduler's lines).
  { re: /(?:^|\s)Load weight begin\. avail mem=/, banner: () => null },
];
/** TGI's launcher prints its arguments with `{:#?}` (≥ 2.0: over many lines) or `{:?}` (≤ 1.x). */
const TGI_ARGS = /^Args \{\s*(?:model_id: "((?:[^"\\]|\\.)*)")?/;
const TGI_ARGS_MODEL = /^\s+model_id: "((?:[^"\\]|\\.)*)"/;
/** Series labels of TGI request lines: the log's field for each series. */
const TGI_FIELDS: Record<string, string> = {
  'lat.e2e': 'total_time',
  'lat.queue': 'queue_time',
  'lat.validation': 'validation_time',
  'lat.inference': 'inference_time',
  'lat.itl': 'time_per_token',
  'req.finished': 'request lines',
  'req.errors': 'request errors',
};
/**
 * Engine limits the diagnosis compares load against, from the startup args and the engine config line:
 * adapter slots (lora_thrash) and the largest batch CUDA graphs were captured for (cuda_graph_fallback).
 */
const LIMITS: { re: RegExp; name: string; metric: string }[] = [
  // SGLang's ServerArgs say `max_loras_per_batch=8`: the adapters one batch can hold, vLLM's max_loras.
  { re: /'max_loras': (\d+)|\bmax_loras=(\d+)|\bmax_loras_per_batch=(\d+)/, name: 'lora.max', metric: 'vllm-log:max_loras' },
  { re: /"max_capture_size":\s*(\d+)/, name: 'engine.cuda_graph_max', metric: 'vllm-log:max_capture_size' },
];
/**
 * The sizes captured: vLLM's compilation config, SGLang's "Capture cuda graph bs [1, 2, 4, …]" at start-up (its
 * decode graphs). SGLang's server_args `cuda_graph_max_bs=` is what was asked for (None where SGLang picks),
 * which the capture, bounded by max_running_requests too, may not be: only the capture line is read.
 */
const CAPTURE_SIZES: { re: RegExp; metric: string }[] = [
  { re: /"?cudagraph_capture_sizes"?['"]?:\s*\[([\d,\s]+)\]/, metric: 'vllm-log:cudagraph_capture_sizes' },
  { re: /\bCapture cuda graph bs \[([\d,\s]+)\]/, metric: 'sglang-log:capture_bs' },
];
const TB_CONT = /^(?:\s|Traceback \(most recent call last\)|During handling of the above exception|The above exception was the direct cause|$)/;
/** What may follow an exception line inside one chained traceback. */
const TB_CHAIN = /^(?:\s*$|During handling of the above exception|The above exception was the direct cause)/;
const MAX_TRACEBACK_LINES = 500;
/** An OOM message wrapped over at most this many lines (the longest, torch 2.4's, is ~600 characters). */
const MAX_OOM_LINES = 8;
/** Distinct collective timeouts remembered for their echoes (a job's ranks × the collectives that hung). */
const MAX_TIMEOUT_KEYS = 65_536;
/** Processes whose tracebacks are held open at once (a node's workers); past it the oldest is emitted as it stands. */
const MAX_PARKED = 64;
const MAX_UNTIMED = 10_000;

interface Prefix {
  ts: number;
  level: string | null;
  process: string | null;
  /** Its digits: made a number only for an event's attributes (most lines make none). */
  pid: string | null;
  rank: number | null;
  file: string | null;
  tp: string | null;
  body: string;
  known: boolean;
  /** A TGI --json-output line, parsed. */
  json: Record<string, unknown> | null;
  /** The time is the line's own (not the previous line's, nor a fallback). */
  own: boolean;
  /** The line's own time has whole seconds only. */
  coarse: boolean;
  /** accessLine(body) where the prefix found the body an access line; undefined: handle() asks. */
  access: RegExpExecArray | undefined;
}

interface Traceback {
  ts: number;
  line: number;
  lines: string[];
  ctx: Record<string, unknown>;
  frames: number;
  /** torchrun's `[rankN]:` of its lines: another rank's line ends it. */
  rank: number | null;
  /** The process that printed it (its prefix's pid): another process's line is that line, not part of it. */
  pid: string | null;
  /** Its exception line, once read: the traceback ends at the next line unless Python chains another to it. */
  closedBy: string | null;
}

/** Where a second log line starts inside a stats line's body (two glued without a newline), or -1. */
function gluedAt(body: string): number {
  const m = GLUED.exec(body);
  return m && m.index > 0 ? m.index : -1;
}

/**
 * The engine-log reader: lines in, events and series out (stats lines, crashes, tracebacks, NCCL, OOM, …), a
 * line's time from its own prefix. Used for engine-log files, and for engine lines that arrive inside log
 * shippers' records (engine-lines.ts).
 */
export class LogParser {
  private readonly clock: LogClock;
  private readonly guard: GarbageGuard;
  private readonly ids = new Map<string, number>();
  private lastTs = NaN;
  /** Lines before the first timestamp wait for it (or for the file's mtime at the end). */
  private readonly untimed: { no: number; line: string }[] = [];
  private tb: Traceback | null = null;
  /** The collective timeouts read (rank, group rank, op, seq): PyTorch's echoes of one are not more. */
  private readonly timeouts = new Set<string>();
  /** An OOM message cut before its figures, waiting for its wrapped lines (oom()). */
  private heldOom: { p: Prefix; no: number; lines: string[] } | null = null;
  /** Open tracebacks of processes other than the current line's, by pid (see handle()). */
  private readonly parked = new Map<string, Traceback>();
  /** A C++ stack trace being read (`frame #N:` lines). */
  private cpp: Traceback | null = null;
  private summedPreemptions = new Map<string, number>();
  /** Access lines so far by status class. */
  private readonly http: StatusCounts;
  private starts = 0;
  /** A start banner read, its attempt not yet ended by a crash or a failed start. */
  private bannerOpen = false;
  /** When a shard last failed to start (ms). */
  private failedAt = -Infinity;
  /** When the last engine_stop was written (STOP_SAME_MS). */
  private stoppedAt = -Infinity;
  private activity = false;
  /** A TGI `Args {` block being read, one field a line. */
  private args: { p: Prefix; no: number; lines: string[] } | null = null;
  private readonly reqs = new RequestSeries((name) => ({ metric: `vllm-log:${TGI_FIELDS[name] ?? name}` }));
  private readonly prefillSums = new Map<string, { queries: number; hits: number }>();
  /** Decode batch lines per engine that said `cuda graph: True` / `False`, summed, and their two series (engine.graph_passes). */
  private readonly graphLines = new Map<string, { graph: number; eager: number; ids: [number, number] }>();
  /** Series ids of the stats fields by source and base labels: id() would make its key (a JSON text) for each field of each line. */
  private readonly fieldIds = new Map<string, Map<Field, number>>();
  private readonly spread: StatsSpreader;
  /** The engine number of each process's last `Engine NNN:` stats line (its SpecDecoding line follows it). */
  private readonly lastEngine = new Map<string, string>();
  /** The last process prefix matched (see processPrefix). */
  private lastProcess: RegExpExecArray | null = null;

  constructor(private readonly sink: Sink, private readonly ctx: ImportContext) {
    this.clock = new LogClock(ctx);
    this.guard = new GarbageGuard(ctx, 'a log file');
    this.spread = new StatsSpreader(sink, ctx);
    this.http = new StatusCounts(sink, 'vllm-log:access');
  }

  line(line: string, no: number): void {
    line = unwrapContainerLine(line);
    if (line.includes('\x1b')) line = line.replace(ANSI, '');
    if (line.length === 0 || line.trim().length === 0) return;
    if (line.includes('\u0000') || line.includes('\uFFFD')) {
      this.guard.malformed(no, 'binary or undecodable bytes in a log line');
      return;
    }
    this.guard.ok();
    const p = this.prefix(line, no);
    if (!Number.isFinite(p.ts)) {
      this.untimed.push({ no, line });
      // A log with no times at all (a bare traceback dump) must not pile up: it takes the mtime.
      if (this.untimed.length >= MAX_UNTIMED) this.resolveUntimed();
      return;
    }
    this.handle(p, no);
  }

  private prefix(line: string, no: number): Prefix {
    let rest = line;
    let ts = NaN;
    let year: number | undefined;
    let bracketTs = NaN;
    let tp: string | null = null;
    let known = false;
    let coarse = false;
    let bracketCoarse = false;
    // Each prefix is tried only where its first character can start it: most lines have one or two.
    const c0 = rest.charCodeAt(0);
    let m = c0 >= 48 && c0 <= 57 ? RFC3339_PREFIX.exec(rest) : null;
    let pyLevel: string | null = null;
    let pyLogger: string | null = null;
    if (m) {
      ts = parseIsoZoned(m[1]);
      // The runtime's time is followed by one space and the line as printed: inside a traceback (or TGI's
      // arguments over many lines) its indentation is the line's own (TGI pads its levels, which LEVEL_WORD
      // takes anyway).
      const indented = this.tb !== null || this.args !== null;
      rest = rest.slice(indented && m[0].length > m[1].length + 1 ? m[1].length + 1 : m[0].length);
      known = true;
      // `kubectl logs --timestamps` (the runtime's time) before a program that prints its own RFC 3339 time (TGI's
      // tracing lines): the line as printed starts after the second, and its time is the program's, as it reads
      // where the log was saved without the runtime's (the runtime's comes a few ms later).
      const c1 = rest.charCodeAt(0);
      const own = c1 >= 48 && c1 <= 57 ? RFC3339_PREFIX.exec(rest) : null;
      const ownTs = own ? parseIsoZoned(own[1]) : NaN;
      if (own && Number.isFinite(ownTs)) {
        ts = ownTs;
        rest = rest.slice(indented && own[0].length > own[1].length + 1 ? own[1].length + 1 : own[0].length);
      }
    } else if (c0 >= 48 && c0 <= 57 && (m = LOGURU.exec(rest))) {
      ts = this.clock.local(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6], m[7] ? Number((m[7] + '00').slice(0, 3)) : 0, no);
      coarse = !m[7];
      pyLevel = m[8] === 'SUCCESS' ? 'INFO' : m[8];
      pyLogger = m[9];
      rest = rest.slice(m[0].length);
      known = true;
    } else if (c0 >= 48 && c0 <= 57 && (m = PY_LOGGING.exec(rest))) {
      ts = this.clock.local(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6], m[7] ? Number((m[7] + '00').slice(0, 3)) : 0, no);
      coarse = !m[7];
      pyLevel = m[9] ?? m[11] ?? m[12];
      pyLogger = m[8] ?? m[10] ?? m[13];
      rest = rest.slice(m[0].length);
      known = true;
    }
    const json = rest.startsWith('{"') ? tgiJson(rest) : null;
    if (json) return this.jsonPrefix(json, ts, rest);
    // A process prefix comes after the bracket, or (Ray actors: `(SGLangEngine pid=41820) [2026-03-22
    // 13:53:37 TP0] …`) before it.
    let pm = rest.charCodeAt(0) === 40 /* ( */ ? this.processPrefix(rest) : null;
    if (pm) rest = rest.slice(pm[0].length);
    // A worker's line relayed by its engine core: `(EngineCore_0 pid=4396) (VllmWorker rank=1 pid=4418) …` — the
    // inner process is the line's.
    if (pm && rest.charCodeAt(0) === 40 /* ( */) {
      const inner = PROCESS_PREFIX.exec(rest);
      if (inner) {
        pm = inner;
        rest = rest.slice(inner[0].length);
      }
    }
    if (rest.charCodeAt(0) === 91 /* [ */) {
      if ((m = BRACKET_PREFIX.exec(rest))) {
        year = +m[1];
        bracketTs = this.clock.local(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6], m[7] ? Number((m[7] + '00').slice(0, 3)) : 0, no);
        bracketCoarse = !m[7];
        tp = m[8] ?? null;
        rest = rest.slice(m[0].length);
        known = true;
      } else if ((m = BRACKET_TIME.exec(rest))) {
        bracketTs = this.clock.timeOfDay(+m[1], +m[2], +m[3], m[4] ? Number((m[4] + '00').slice(0, 3)) : 0, no);
        bracketCoarse = !m[4];
        tp = m[5] ?? null;
        rest = rest.slice(m[0].length);
        known = true;
      }
    }
    if (!pm && rest.charCodeAt(0) === 40 /* ( */ && (pm = this.processPrefix(rest))) rest = rest.slice(pm[0].length);
    const process = pm ? pm[1] : null;
    const pid = pm ? pm[3] : null;
    let rank = pm && pm[2] !== undefined ? Number(pm[2]) : null;
    if (pm) known = true;
    if (rest.charCodeAt(0) === 91 /* [ */ && (m = RANK_PREFIX.exec(rest))) {
      rank = Number(m[1]);
      rest = rest.slice(m[0].length);
      known = true;
    } else if (rest.charCodeAt(0) === 91 /* [ */ && (m = SGLANG_GPU.exec(rest))) {
      // SGLang 0.1–0.2's worker prefix: its GPU stands where later versions print TP0.
      tp = `TP${m[1]}`;
      rest = rest.slice(m[0].length);
      known = true;
    }
    let level: string | null = pyLevel;
    let file: string | null = pyLogger;
    let access: RegExpExecArray | undefined;
    const c = rest.charCodeAt(0);
    // (The bracket-less form is a level letter and a digit: `INFO …` lines never try its regex.)
    const c1 = rest.charCodeAt(1);
    if ((c === 91 /* [ */ && (m = C10_PREFIX.exec(rest))) || ((c === 69 || c === 73 || c === 70 || c === 87) /* E I F W */ && c1 >= 48 && c1 <= 57 && (m = GLOG_PREFIX.exec(rest)))) {
      level = C10_LEVEL[m[1]];
      file = `${m[8]}:${m[9]}`;
      if (!Number.isFinite(ts) && m[2] !== undefined) {
        const ms = m[7] ? Number((m[7] + '00').slice(0, 3)) : 0;
        ts = year !== undefined ? this.clock.local(year, +m[2], +m[3], +m[4], +m[5], +m[6], ms, no) : this.clock.yearless(+m[2], +m[3], +m[4], +m[5], +m[6], ms, no);
        coarse = !m[7];
      }
      rest = rest.slice(m[0].length);
      known = true;
    } else if (UVICORN_INFO.test(rest) && (m = accessLine(rest))) {
      // A uvicorn access line (most lines of a busy server's log): its `INFO:`, which LEVEL_WORD below would
      // read, stays in the body, and handle() gets the match. No other line that starts with a level word is an
      // access line: ACCESS allows white space before the address only after `INFO:`.
      level = 'INFO';
      access = m;
      known = true;
    } else if ((m = VLLM_PREFIX.exec(rest))) {
      level = m[1];
      file = `${m[8] ?? m[10]}:${m[9] ?? m[11]}`;
      if (!Number.isFinite(ts)) {
        const ms = m[7] ? Number((m[7] + '00').slice(0, 3)) : 0;
        ts = year !== undefined ? this.clock.local(year, +m[2], +m[3], +m[4], +m[5], +m[6], ms, no) : this.clock.yearless(+m[2], +m[3], +m[4], +m[5], +m[6], ms, no);
        coarse = !m[7];
      }
      rest = rest.slice(m[0].length);
      known = true;
    } else {
      const w = LEVEL_WORD.exec(rest);
      if (w && (known || /^\s*[A-Z]+:\s/.test(rest))) {
        level = w[1];
        rest = rest.slice(w[0].length);
        known = true;
      }
    }
    let own = true;
    if (!Number.isFinite(ts)) {
      if (Number.isFinite(bracketTs)) {
        ts = bracketTs;
        coarse = bracketCoarse;
      } else {
        ts = this.lastTs;
        own = false;
      }
    } else this.lastTs = ts;
    if (Number.isFinite(bracketTs) && ts === bracketTs) this.lastTs = ts;
    if (own) this.spread.sawTime = true;
    return { ts, level, process, pid, rank, file, tp, body: rest, known, json: null, own, coarse, access };
  }

  /**
   * PROCESS_PREFIX's match at the start of `s`. Most lines repeat the prefix of the line before: where `s`
   * starts with that match's text and a printable character follows (no white space for its `\s+` to take
   * too), the regex would match that same text, so the earlier match is the answer.
   */
  private processPrefix(s: string): RegExpExecArray | null {
    const last = this.lastProcess;
    // lastIndexOf from 0 compares at the start only, as startsWith does, at half its cost in V8.
    if (last !== null && s.lastIndexOf(last[0], 0) === 0) {
      const next = s.charCodeAt(last[0].length);
      if (next > 32 && next < 127) return last;
    }
    const m = PROCESS_PREFIX.exec(s);
    if (m) this.lastProcess = m;
    return m;
  }

  /** A TGI JSON line: its own time unless docker's came first, level, `file:line` and message. */
  private jsonPrefix(o: Record<string, unknown>, dockerTs: number, raw: string): Prefix {
    let ts = Number.isFinite(dockerTs) ? dockerTs : typeof o.timestamp === 'string' ? parseIsoZoned(o.timestamp) : NaN;
    if (Number.isFinite(ts)) this.lastTs = ts;
    else ts = this.lastTs;
    const lvl = typeof o.level === 'string' ? o.level.toUpperCase() : '';
    const file = typeof o.filename === 'string' ? `${o.filename}${typeof o.line_number === 'number' ? `:${o.line_number}` : ''}` : null;
    return { ts, level: SEVERITY[lvl] ? lvl : null, process: null, pid: null, rank: null, file, tp: null, body: messageOf(o) ?? raw, known: true, json: o, own: true, coarse: false, access: undefined };
  }

  private handle(p: Prefix, no: number): void {
    const body = p.body;
    if (this.heldOom) {
      // A message cut over lines (a terminal's hard wrap, a paste): its figures are on the bare lines after it.
      if (!p.known && this.heldOom.lines.length < MAX_OOM_LINES && body.trim() !== '' && OOM_CONTINUATION.test(body)) {
        this.heldOom.lines.push(body.trim());
        return;
      }
      this.flushOom();
    }
    if (this.args) {
      if (!p.json && (/^\s/.test(body) || body === '}') && this.args.lines.length < MAX_TRACEBACK_LINES) {
        this.args.lines.push(body);
        if (body === '}') this.endArgs();
        return;
      }
      this.endArgs();
    }
    if (this.cpp) {
      if (CPP_FRAME.test(body) && this.cpp.lines.length < MAX_TRACEBACK_LINES) {
        this.cpp.lines.push(body);
        this.cpp.frames++;
        return;
      }
      this.endCppTrace();
    }
    // Processes print over each other (the API server's access lines amid the engine core's traceback, every
    // tensor-parallel worker's traceback at once): a traceback belongs to its process, parked while another
    // process's lines go by and taken up again at its own process's next line.
    if (p.pid !== null && (this.tb === null || (this.tb.pid !== null && p.pid !== this.tb.pid))) {
      const own = this.parked.get(p.pid);
      if (this.tb !== null || own !== undefined) {
        if (this.tb !== null) this.park(this.tb);
        this.tb = own ?? null;
        this.parked.delete(p.pid);
      }
    }
    if (this.tb && p.rank !== this.tb.rank) this.endTraceback(this.tb.closedBy);
    // Another traceback announced (`[… TP7] Scheduler hit an exception: Traceback …` after TP3's): this one ends.
    if (this.tb && p.own && announcesTraceback(body)) this.endTraceback(this.tb.closedBy);
    if (this.tb && this.tb.closedBy !== null) {
      // After its exception line, a traceback goes on only where Python chains the next one to it
      // (a blank line, then "During handling of the above exception…" and the next "Traceback"): a blank
      // line keeps it on trial, the chaining sentence reopens it, anything else ends it.
      if (TB_CHAIN.test(body) && this.tb.lines.length < MAX_TRACEBACK_LINES) {
        this.tb.lines.push(body);
        if (body.trim() !== '') this.tb.closedBy = null;
        return;
      }
      this.endTraceback(this.tb.closedBy);
    }
    if (this.tb) {
      if (TB_CONT.test(body) && this.tb.lines.length < MAX_TRACEBACK_LINES) {
        this.tb.lines.push(body);
        if (body.startsWith('  File ')) this.tb.frames++;
        return;
      }
      const closing = !TB_CONT.test(body);
      if (closing) {
        this.tb.lines.push(body);
        this.tb.closedBy = body;
        if (isOomLine(body)) this.oom(p, no);
        return;
      }
      this.endTraceback(null);
    }
    // An access line that prefix() matched, with no more after its status than a reason phrase (the longest,
    // 511's, is 31 characters): none of the tests below can match it, and it is most lines of a busy server's
    // log. A longer tail may hold another line glued on (its newline lost), so it takes the whole path.
    if (p.access && body.length - p.access[0].length <= ACCESS_TAIL_MAX) {
      this.access(p, no, p.access[1], p.access[2], p.access[3]);
      return;
    }
    const req = p.json ? tgiJsonRequest(p.json) : tgiTextRequest(p.level, body);
    if (req) {
      this.request(p, no, req);
      return;
    }
    if (body.startsWith('Traceback (most recent call last)') || announcesTraceback(body)) {
      this.tb = { ts: p.ts, line: no, lines: [body], ctx: this.procAttrs(p), frames: 0, rank: p.rank, pid: p.pid, closedBy: null };
      return;
    }
    if ((body.charCodeAt(0) === 69 /* E */ || body.charCodeAt(0) === 102) /* f */ && CPP_TRACE_START.test(body)) {
      const from = /^Exception raised from (\S+)/.exec(body)?.[1] ?? null;
      this.cpp = { ts: p.ts, line: no, lines: [body], ctx: { ...this.procAttrs(p), raised_from: from }, frames: CPP_FRAME.test(body) ? 1 : 0, rank: p.rank, pid: p.pid, closedBy: null };
      return;
    }
    const thrown = CPP_THROW.exec(body);
    if (thrown) {
      this.event(p, no, 'engine_crash', 'critical', { exception: thrown[1] });
      this.activity = true;
      return;
    }
    if (isOomLine(body)) {
      this.oom(p, no);
      return;
    }
    if (body.includes('throughput: ') && (body.includes('Avg prompt throughput') || body.includes('Avg generation throughput'))) {
      if (this.unglue(p, no)) return;
      this.stats(p, VLLM_STATS, 'vllm-log');
      const pre = /Preemptions: (\d+)/.exec(body);
      if (pre) this.addPreemptions(p, Number(pre[1]));
      return;
    }
    if (body.startsWith('Prefix cache hit rate: GPU:')) {
      this.stats(p, V0_PREFIX_HIT, 'vllm-log');
      return;
    }
    if (body.includes('SpecDecoding metrics') || body.includes('Speculative metrics')) {
      this.stats(p, SPEC, 'vllm-log');
      return;
    }
    if (SGLANG_STATS.test(body)) {
      if (this.unglue(p, no)) return;
      this.stats(p, SGLANG_BATCH, 'sglang-log');
      return;
    }
    const access = p.access ?? accessLine(body);
    if (access) {
      this.access(p, no, access[1], access[2], access[3]);
      return;
    }
    this.http.flush();
    if (body.includes('preempted by PreemptionMode') || (body.includes('reempt') && preemptedOther(body))) {
      const m = V0_PREEMPT.exec(body);
      const count = m ? m[2] : PREEMPT_COUNT.exec(body)?.[1];
      const cumulative = count !== undefined ? Number(count) : null;
      if (cumulative !== null) this.sample('kv.preemptions', 'count', 'counter', { metric: 'vllm-log:total_cumulative_preemption_cnt' }, p.ts, cumulative);
      const mode = m?.[1] ?? PREEMPT_MODE.exec(body)?.slice(1).find((x) => x !== undefined)?.toUpperCase() ?? null;
      this.event(p, no, 'preemption', 'warning', { mode, cumulative });
      this.activity = true;
      return;
    }
    const retract = SGLANG_RETRACT.exec(body);
    if (retract) {
      this.event(p, no, 'preemption', 'warning', { mode: 'RETRACT', retracted: Number(retract[1]) });
      this.activity = true;
      return;
    }
    if (NCCL_TIMEOUT.test(body)) {
      const op = /OpType=(\w+)/.exec(body)?.[1] ?? null;
      const seq = num(/SeqNum=(\d+)/.exec(body)?.[1]);
      // The message's `[Rank N]` is the rank within its process group; torchrun's `[rankN]:` prefix the global one.
      const pgRank = num(/\[Rank (\d+)\]/.exec(body)?.[1]);
      const rank = p.rank ?? pgRank;
      // PyTorch repeats a timeout as it unwinds ("watchdog thread terminated with exception: …", "communicator was
      // aborted … Original reason …"): one collective's timeout is one event, its echoes error lines.
      const key = seq !== null ? `${rank}|${pgRank}|${op}|${seq}` : null;
      if (key !== null && this.timeouts.has(key)) {
        this.event(p, no, 'nccl_error', 'error', { error: 'timeout', seq });
        return;
      }
      if (key !== null && this.timeouts.size < MAX_TIMEOUT_KEYS) this.timeouts.add(key);
      this.event(p, no, 'nccl_timeout', 'critical', {
        op,
        seq,
        timeout_ms: num(/Timeout\(ms\)=(\d+)/.exec(body)?.[1]),
        ran_ms: num(/ran for (\d+) milliseconds/.exec(body)?.[1]),
        rank,
        ...(pgRank !== null && pgRank !== rank ? { pg_rank: pgRank } : {}),
      });
      this.activity = true;
      return;
    }
    const hang = WATCHDOG_HANG.exec(body);
    if (hang) {
      const stuck = hang[1] ?? hang[2];
      this.event(p, no, 'nccl_timeout', 'critical', {
        watchdog: hang[2] !== undefined ? 'scheduler' : hang[1] !== undefined ? 'stuck' : 'heartbeat',
        timeout_ms: stuck !== undefined ? Number(stuck) * 1000 : null,
        rank: p.rank ?? (p.tp !== null ? num(/\d+/.exec(p.tp)?.[0]) : null),
      });
      this.activity = true;
      return;
    }
    // (PyTorch's C++ lines name the file apart: an error from ProcessGroupNCCL.cpp is an NCCL error.)
    const netFailure = NCCL_WARN.test(body) && NCCL_NET_FAILURE.test(body);
    if (netFailure || ncclError(body) || (p.file !== null && p.file.startsWith('ProcessGroupNCCL') && (p.level === 'ERROR' || p.level === 'CRITICAL'))) {
      const kind = netFailure ? 'network' : NCCL_ERROR_KIND.find(([re]) => re.test(body))?.[1];
      this.event(p, no, 'nccl_error', 'error', kind ? { error: kind } : {});
      this.activity = true;
      return;
    }
    if (CRASH.test(body)) {
      if (FAILED_START.test(body)) this.failedStart(p, no);
      else this.bannerOpen = false;
      this.event(p, no, 'engine_crash', 'critical', {});
      this.activity = true;
      return;
    }
    if (STOP.test(body)) {
      if (!(Math.abs(p.ts - this.stoppedAt) <= STOP_SAME_MS)) {
        this.event(p, no, 'engine_stop', 'info', {});
        this.stoppedAt = p.ts;
      } else this.log(p, no);
      return;
    }
    this.limits(p, body);
    if (this.tgiArgs(p, no)) return;
    for (const { re, banner } of BANNERS) {
      const m = re.exec(body);
      if (!m) continue;
      const b = banner(m);
      if (b) this.event(p, no, 'version', 'info', { ...b });
      else this.log(p, no);
      this.start(p, no, b?.version ?? null);
      return;
    }
    this.log(p, no);
  }

  /**
   * A stats line with another glued to its end (the newline lost): this one is handled up to where the
   * next begins, then the rest as a line of its own (same line number). Answers whether it split.
   */
  private unglue(p: Prefix, no: number): boolean {
    const at = gluedAt(p.body);
    if (at < 0) return false;
    const rest = p.body.slice(at);
    this.handle({ ...p, body: p.body.slice(0, at), access: undefined }, no);
    this.line(rest, no);
    return true;
  }

  /** TGI's launcher `Args { model_id: … }`: a version event now, or once its block of lines has been read. */
  private tgiArgs(p: Prefix, no: number): boolean {
    const launcher = p.json ? p.json.target === 'text_generation_launcher' : p.body.startsWith('text_generation_launcher: ');
    if (!launcher) return false;
    const m = TGI_ARGS.exec(p.json ? p.body : p.body.slice('text_generation_launcher: '.length));
    if (!m) return false;
    if (m[1] === undefined && !p.json && /\{\s*$/.test(p.body)) {
      this.args = { p, no, lines: [p.body] };
      return true;
    }
    this.tgiVersion(p, no, m[1] ?? null, p.body);
    return true;
  }

  private endArgs(): void {
    const a = this.args!;
    this.args = null;
    let model: string | null = null;
    for (const l of a.lines) {
      const m = TGI_ARGS_MODEL.exec(l);
      if (m) {
        model = m[1];
        break;
      }
    }
    this.tgiVersion(a.p, a.no, model, a.lines.join('\n'));
  }

  private tgiVersion(p: Prefix, no: number, model: string | null, text: string): void {
    const m = model === null ? null : model.replace(/\\(.)/g, '$1');
    this.event(p, no, 'version', 'info', { engine: 'tgi', version: null, model: m, v1: null }, text);
    this.start(p, no, null);
  }

  /** One TGI request line: into the request series, and an event that keeps it searchable. */
  private request(p: Prefix, no: number, r: TgiRequest): void {
    for (const b of r.bad) this.ctx.warn(`TGI request line: ${b} is not a duration (digits and s, ms, µs, us or ns); left out of its series`, { line: no });
    this.reqs.add(r.facts, p.ts);
    this.activity = true;
    const attrs: Record<string, unknown> = { span: r.span };
    for (const [k, v] of Object.entries(r.facts)) if (typeof v !== 'number' || Number.isFinite(v)) attrs[k] = v;
    if (r.errorType !== null) attrs.error_type = r.errorType;
    if (isOomLine(p.body)) {
      this.event(p, no, 'oom', 'error', { ...parseOom(p.body), ...attrs });
      return;
    }
    this.log(p, no, attrs);
  }

  private limits(p: Prefix, body: string): void {
    const found = new Map<string, [string, number]>();
    for (const l of LIMITS) {
      const m = l.re.exec(body);
      const v = m ? Number(m[1] ?? m[2] ?? m[3]) : NaN;
      if (Number.isFinite(v)) found.set(l.name, [l.metric, v]);
    }
    for (const { re, metric } of found.has('engine.cuda_graph_max') ? [] : CAPTURE_SIZES) {
      const sizes = re.exec(body);
      const top = sizes ? Math.max(...sizes[1].split(',').map(Number).filter(Number.isFinite)) : NaN;
      if (Number.isFinite(top)) {
        found.set('engine.cuda_graph_max', [metric, top]);
        break;
      }
    }
    for (const [name, [metric, v]] of found) this.sample(name, 'count', 'gauge', { ...this.baseLabels(p), metric }, p.ts, v);
  }

  private start(p: Prefix, no: number, version: string | null): void {
    if (this.starts === 0 || this.activity) {
      this.countStart(p, no, version);
      this.activity = false;
    }
    this.bannerOpen = true;
  }

  private countStart(p: Prefix, no: number, version: string | null): void {
    this.starts++;
    if (this.starts === 1) this.event(p, no, 'engine_start', 'info', { version });
    else this.event(p, no, 'engine_restart', 'warning', { version, starts: this.starts });
  }

  /**
   * TGI's launcher giving up on a shard that did not come up: a start was attempted. Where its banner was read,
   * the failure ends that start; where none was (a collector that kept the errors, a launcher's restarts
   * concatenated into one file), the failure is the attempt's only mark and counts as a start — an OOM crash loop
   * whose nine failed starts were its only lines read as no restart at all. The launcher prints the line twice
   * around the shard's error output: one within FAILED_START_SAME_MS of the last is the same attempt.
   */
  private failedStart(p: Prefix, no: number): void {
    const same = p.ts - this.failedAt <= FAILED_START_SAME_MS;
    this.failedAt = p.ts;
    if (same) return;
    if (this.bannerOpen) this.bannerOpen = false;
    else this.countStart(p, no, null);
  }

  private procAttrs(p: Prefix): Record<string, unknown> {
    const a: Record<string, unknown> = {};
    if (p.process !== null) a.process = p.process;
    if (p.pid !== null) a.pid = Number(p.pid);
    if (p.rank !== null) a.rank = p.rank;
    return a;
  }

  private event(p: Prefix, no: number, kind: string, severity: Severity, attrs: Record<string, unknown>, text = p.body): void {
    this.sink.event({ ts_ms: p.ts, kind, severity, line: no, text, attrs: { ...this.procAttrs(p), ...attrs } });
  }

  private log(p: Prefix, no: number, extra: Record<string, unknown> = {}): void {
    // The keys in event()'s order (process ones first), built here at once: most events are these.
    const attrs = this.procAttrs(p);
    if (p.level) attrs.level = p.level;
    if (p.file) attrs.file = p.file;
    if (p.json) {
      if (typeof p.json.target === 'string') attrs.target = p.json.target;
      const spans = Array.isArray(p.json.spans) ? p.json.spans.map((s) => (s && typeof s === 'object' ? (s as { name?: unknown }).name : null)).filter((n) => typeof n === 'string') : [];
      if (spans.length) attrs.span = spans.join(':');
    }
    Object.assign(attrs, extra);
    // NCCL's own debug lines (`host:pid:tid [rank] NCCL WARN …`) carry their level in the text.
    const sev = p.level ? SEVERITY[p.level] : NCCL_WARN.test(p.body) ? 'warning' : 'info';
    if (sev === 'error' || sev === 'critical') this.activity = true;
    this.sink.event({ ts_ms: p.ts, kind: 'log', severity: sev, line: no, text: p.body, attrs });
  }

  private oom(p: Prefix, no: number): void {
    const info = parseOom(p.body)!;
    this.activity = true;
    // Cut before its figures (a wrap after "(GPU 0;" or "GPU 0 has a total"): held for the lines that finish it.
    if (info.capacity_bytes === null && oomIsCut(p.body)) {
      this.heldOom = { p, no, lines: [p.body] };
      return;
    }
    this.event(p, no, 'oom', 'error', { ...info });
  }

  /** The OOM message held for its wrapped lines, read whole. */
  private flushOom(): void {
    const h = this.heldOom!;
    this.heldOom = null;
    const whole = h.lines.join(' ').replace(/\s+/g, ' ');
    this.event({ ...h.p, body: whole }, h.no, 'oom', 'error', { ...parseOom(whole) });
  }

  private endCppTrace(): void {
    const t = this.cpp!;
    this.cpp = null;
    this.sink.event({
      ts_ms: t.ts,
      kind: 'traceback',
      severity: 'error',
      line: t.line,
      text: t.lines.join('\n'),
      attrs: { ...t.ctx, language: 'c++', exception: null, message: t.lines[0], frames: t.frames },
    });
    this.activity = true;
  }

  /** Sets a traceback aside for its process's next line; the longest-parked is emitted past MAX_PARKED processes. */
  private park(tb: Traceback): void {
    this.parked.set(tb.pid!, tb);
    if (this.parked.size > MAX_PARKED) {
      const [pid, oldest] = this.parked.entries().next().value as [string, Traceback];
      this.parked.delete(pid);
      this.emitTraceback(oldest, oldest.closedBy);
    }
  }

  private endTraceback(last: string | null): void {
    const tb = this.tb!;
    this.tb = null;
    this.emitTraceback(tb, last);
  }

  private emitTraceback(tb: Traceback, last: string | null): void {
    // Blank lines read on trial after the exception are not part of it.
    while (tb.lines.length > 1 && tb.lines[tb.lines.length - 1].trim() === '') tb.lines.pop();
    const exc = last !== null ? /^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)?)(?::\s?(.*))?$/.exec(last) : null;
    this.sink.event({
      ts_ms: tb.ts,
      kind: 'traceback',
      severity: 'error',
      line: tb.line,
      text: tb.lines.join('\n'),
      attrs: { ...tb.ctx, exception: exc?.[1] ?? null, message: last ?? null, frames: tb.frames },
    });
    this.activity = true;
    // A traceback that ends in the engine's death (vLLM's EngineDeadError / AsyncEngineDeadError as the
    // raised exception) is the crash itself, as the same words on a line of their own are; so is one announced
    // as a process's death (`Scheduler hit an exception: Traceback …`, `EngineCore hit an exception: …`).
    const announced = tb.lines[0].startsWith('Traceback') ? null : tb.lines[0];
    if ((last !== null && CRASH.test(last)) || (announced !== null && CRASH.test(announced))) {
      const text = announced !== null && last !== null ? `${announced.replace(/\s*Traceback \(most recent call last\):?\s*$/, '')} ${last}` : (last ?? announced!);
      this.sink.event({ ts_ms: tb.ts, kind: 'engine_crash', severity: 'critical', line: tb.line, text, attrs: { ...tb.ctx, exception: exc?.[1] ?? null } });
    }
  }

  private id(name: string, unit: string, kind: 'gauge' | 'counter', labels: Record<string, string>): number {
    const key = `${name}\u0000${JSON.stringify(labels)}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.sink.series({ name, labels, unit, kind });
      this.ids.set(key, id);
    }
    return id;
  }

  private sample(name: string, unit: string, kind: 'gauge' | 'counter', labels: Record<string, string>, ts: number, v: number): void {
    this.sink.sample(this.id(name, unit, kind, labels), ts, v);
  }

  private baseLabels(p: Prefix): Record<string, string> {
    const engine = /^Engine (\d+):/.exec(p.body);
    const l: Record<string, string> = {};
    if (engine) {
      l.engine = String(Number(engine[1]));
      this.lastEngine.set(p.pid ?? '', l.engine);
    } else if (p.body.startsWith('SpecDecoding metrics')) {
      // vLLM logs an engine's speculative-decoding line right after its stats line, without the engine's number.
      const e = this.lastEngine.get(p.pid ?? '');
      if (e !== undefined) l.engine = e;
    }
    if (p.tp) l.tp = p.tp;
    return l;
  }

  private stats(p: Prefix, fields: Field[], source: string): void {
    const base = this.baseLabels(p);
    const baseKey = JSON.stringify(base);
    const idsKey = `${source}\u0000${baseKey}`;
    let ids = this.fieldIds.get(idsKey);
    if (!ids) this.fieldIds.set(idsKey, (ids = new Map()));
    const out: number[] = [];
    for (const fd of fields) {
      const m = fd.re.exec(p.body);
      if (!m) continue;
      let id = ids.get(fd);
      if (id === undefined) ids.set(fd, (id = this.id(fd.name, fd.unit, 'gauge', { ...base, metric: `${source}:${fd.metric}` })));
      out.push(id, applyScale(Number(m[1]), fd.scale));
    }
    if (source === 'sglang-log' && p.coarse && p.own) p = finerTime(p);
    const pre = source === 'sglang-log' ? SGLANG_PREFILL_TOKENS.exec(p.body) : null;
    if (pre) {
      // Prefix-cache lookups and hits in tokens, summed into counters (as SGLang's own cached_tokens).
      const sums = this.prefillSums.get(baseKey) ?? { queries: 0, hits: 0 };
      sums.queries += Number(pre[1]) + Number(pre[2]);
      sums.hits += Number(pre[2]);
      this.prefillSums.set(baseKey, sums);
      out.push(this.id('kv.prefix_queries', 'tokens', 'counter', { ...base, metric: 'sglang-log:#new-token+#cached-token (summed)' }), sums.queries);
      out.push(this.id('kv.prefix_hits', 'tokens', 'counter', { ...base, metric: 'sglang-log:#cached-token (summed)' }), sums.hits);
    }
    const graph = source === 'sglang-log' ? SGLANG_CUDA_GRAPH.exec(p.body) : null;
    // A line that says it generated nothing since the last one (gen throughput 0.00) is no sample of decode
    // passes: SGLang prints it after decode_log_interval passes, each a token per running request, so a
    // zero there is an engine reporting without stepping — counted, it read a wedged engine as at work.
    if (graph && !SGLANG_NO_TOKENS.test(p.body)) {
      // Each decode batch line says whether that step replayed a CUDA graph: a sample of the decode passes (one
      // every decode_log_interval steps), counted per mode as SGLang's own cuda_graph_passes_total counts them all.
      let n = this.graphLines.get(baseKey);
      if (!n) {
        const passes = (mode: string) => this.id(SIG.engineGraphPasses, 'count', 'counter', { ...base, mode, metric: 'sglang-log:cuda graph (decode batch lines, summed)' });
        this.graphLines.set(baseKey, (n = { graph: 0, eager: 0, ids: [passes('decode_cuda_graph'), passes('decode_none')] }));
      }
      if (graph[1] === 'True') n.graph++;
      else n.eager++;
      out.push(n.ids[0], n.graph, n.ids[1], n.eager);
    }
    // Grouped by the kind of line too: a V0 stats line and its prefix-cache line share a time, rightly.
    this.spread.add(`${fields[0].metric}\u0000${baseKey}`, p, out);
    this.activity = true;
  }

  private addPreemptions(p: Prefix, n: number): void {
    const labels = { ...this.baseLabels(p), metric: 'vllm-log:Preemptions (summed)' };
    const key = JSON.stringify(labels);
    const total = (this.summedPreemptions.get(key) ?? 0) + n;
    this.summedPreemptions.set(key, total);
    this.sample('kv.preemptions', 'count', 'counter', labels, p.ts, total);
  }

  private access(p: Prefix, no: number, method: string, path: string, status: string): void {
    this.http.add(p.ts, status.charCodeAt(0) - 48);
    this.activity = true;
    if (status[0] === '5') this.event(p, no, 'http_error', 'error', { status: Number(status), method, path });
  }

  /** Lines still without a time when the file ends (or too many of them) take the file's mtime. */
  resolveUntimed(): void {
    if (!this.untimed.length) return;
    const first = this.untimed.splice(0);
    if (!Number.isFinite(this.lastTs)) this.lastTs = this.clock.fallback(first[0].no);
    for (const u of first) this.handle(this.prefix(u.line, u.no), u.no);
  }

  /** Called once the first timed line has been seen, so earlier untimed lines take its time. */
  drainUntimed(): void {
    if (!this.untimed.length || !Number.isFinite(this.lastTs)) return;
    const first = this.untimed.splice(0);
    for (const u of first) this.handle(this.prefix(u.line, u.no), u.no);
  }

  get waiting(): boolean {
    return this.untimed.length > 0;
  }

  finish(lastLine: number): void {
    this.resolveUntimed();
    if (this.args) this.endArgs();
    if (this.heldOom) this.flushOom();
    if (this.tb) this.endTraceback(this.tb.closedBy);
    for (const tb of this.parked.values()) this.emitTraceback(tb, tb.closedBy);
    this.parked.clear();
    if (this.cpp) this.endCppTrace();
    this.http.flush();
    this.reqs.flush(this.sink);
    this.spread.finish();
    this.guard.finish(lastLine);
  }
}

/**
 * Stats lines are written through here, so that several in one whole second are not one sample: SGLang
 * logs a decode batch every few dozen steps, many a second under load, with times in whole seconds, and
 * the store keeps one value per series and millisecond. Lines of one series group (labels engine/tp)
 * that share a second-resolution time are held until the time moves on, then spread evenly across
 * their second. Stats lines of a file with no times at all (placed at its mtime) go one second apart
 * from there. Both are guesses, each said once in a warning.
 */
class StatsSpreader {
  private readonly groups = new Map<string, { ts: number; lines: number[][] }>();
  private spreadLines = 0;
  private timelessLines = 0;
  private timelessStart = NaN;

  constructor(private readonly sink: Sink, private readonly ctx: ImportContext) {}

  /** `samples`: series id, value, series id, value, … */
  add(key: string, p: Prefix, samples: number[]): void {
    if (!p.own && !this.sawTime) {
      if (Number.isNaN(this.timelessStart)) this.timelessStart = p.ts;
      this.write(this.timelessStart + this.timelessLines++ * 1000, samples);
      return;
    }
    let g = this.groups.get(key);
    if (g && (g.ts !== p.ts || g.lines.length >= MAX_SAME_SECOND)) {
      this.flush(g);
      g = undefined;
    }
    if (!p.coarse && p.own) {
      // Its own time has milliseconds (or finer): written as it is.
      this.write(p.ts, samples);
      return;
    }
    if (!g) this.groups.set(key, (g = { ts: p.ts, lines: [] }));
    g.lines.push(samples);
  }

  /** Whether a line of the file had a time of its own (else a line without one has a fallback time). */
  sawTime = false;

  private flush(g: { ts: number; lines: number[][] }): void {
    const n = g.lines.length;
    if (n > 1) this.spreadLines += n;
    g.lines.forEach((samples, i) => this.write(g.ts + Math.floor((i * 1000) / n), samples));
    g.lines.length = 0;
  }

  private write(ts: number, samples: number[]): void {
    for (let i = 0; i < samples.length; i += 2) this.sink.sample(samples[i], ts, samples[i + 1]);
  }

  finish(): void {
    for (const g of this.groups.values()) this.flush(g);
    this.groups.clear();
    if (this.spreadLines > 0) this.ctx.warn(`${this.spreadLines} stats lines shared their second with another (the log's times are whole seconds): spread evenly across it`);
    if (this.timelessLines > 0) this.ctx.warn(`${this.timelessLines} stats lines have no time of their own: placed one second apart from ${isoOf(this.timelessStart)}`);
  }
}

const num = (s: string | undefined): number | null => (s === undefined ? null : Number(s));

const isTgiJson = (o: Record<string, unknown>): boolean => typeof o.target === 'string' && o.target.startsWith('text_generation');

/** A line that is one JSON object written by TGI (its `target` says so), else null. */
function tgiJson(s: string): Record<string, unknown> | null {
  if (!s.endsWith('}') || !s.includes('"target":"text_generation')) return null;
  // Its fields are stringified: a line nested deeper than any TGI writes is read as plain text.
  if (jsonTooDeep(s, MAX_VALUE_DEPTH) >= 0) return null;
  try {
    const o: unknown = JSON.parse(s);
    return o && typeof o === 'object' && !Array.isArray(o) && isTgiJson(o as Record<string, unknown>) ? (o as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export async function importVllmLog(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const p = new LogParser(sink, ctx);
  let no = 0;
  for await (const batch of lineBatches(input.stream(), ctx)) {
    for (const l of batch) {
      p.line(l, ++no);
      if (p.waiting) p.drainUntimed();
    }
  }
  p.finish(no);
}

/** The engine or tool that wrote a log; each has its own format id, all read by one parser. */
export type LogDialect = 'vllm' | 'sglang' | 'tgi' | 'torch';

/** A line in a dialect's own shape; the first that matches names the line's dialect. */
const DETECT_LINE: [LogDialect, RegExp][] = [
  ['vllm', /^(?:\S+\s+)?(?:\[[^\]]+\]\s*)?(?:\([\w-]+(?: rank=\d+)? pid=\d+(?:, ip=[^)]*)?\)\s+)?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d/],
  // Under another program's Python logging (PY_LOGGING), by the engine's own logger names.
  ['vllm', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:,\d+)? (?:- )?vllm[\w.]* (?:- |\d+ )(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) /],
  ['sglang', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:,\d+)? (?:- )?sglang[\w.]* (?:- |\d+ )(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) /],
  ['sglang', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:,\d+)? (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d+ \[[\w.-]+:\d+\] (?:Decode|Prefill) batch[.,] /],
  // SGLang: its batch lines and banner under a date-time, time-only or no bracket (and a Ray actor's prefix).
  ['sglang', /^(?:\S+Z\s+)?(?:\([\w-]+ pid=\d+\)\s+)?(?:\[(?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d(?:[.,]\d+)?(?: [A-Z]+\d+[^\]]*)?\]\s*)?(?:(?:Decode|Prefill) batch[.,] |server_args=ServerArgs\()/],
  ['sglang', /^(?:\([\w-]+ pid=\d+\)\s+)?\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?(?: (?:TP|DP|PP|EP)\d+[^\]]*)?\] (?:INFO|WARNING|ERROR|Load weight|Memory pool|Capture|KV Cache|max_total_num_tokens|The server is fired)/],
  ['sglang', /^\[\d\d:\d\d:\d\d(?:[.,]\d+)?(?: (?:TP|DP|PP|EP)\d+[^\]]*)?\] /],
  // Any line under SGLang's own bracket with its rank tag (`[2025-03-09 00:57:15 TP4] Watchdog timeout …`): no other
  // engine prints TPn there.
  ['sglang', /^(?:\([\w-]+ pid=\d+\)\s+)?\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)? (?:TP|DP|PP|EP)\d+[^\]]*\] /],
  ['sglang', /^\[gpu(?:_id)?=\d+\] (?:Decode|Prefill) batch[.,] /],
  // The launcher's lines, under its tracing spans (`shard-manager: `, `download{model_id=…}: `, TGI 0.9-1.x's
  // `HTTP request{…}:generate{…}: `).
  // Behind the runtime's stamp too (`docker logs -t`, `kubectl logs --timestamps`: the canonical form lines unwrap to).
  ['tgi', /^(?:\d{4}-\d\d-\d\dT\S+Z\s+)?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z\s+(?:INFO|WARN|ERROR|DEBUG)\s+(?:[\w-]+(?: [\w-]+)*[{:].*?: |[\w-]+: )?text_generation_\w*(?:::\w+)*: /],
  ['tgi', /^(?:\d{4}-\d\d-\d\dT\S+Z\s+)?\{"timestamp":"[^"]+",.*"target":"text_generation_/],
  // PyTorch / torchrun: `[rank0]:…`, the C++ (c10) prefix `[E1025 07:00:43.721857 File.cpp:632]`, a C++ trace.
  ['torch', /^(?:\[\d+\] )?\[rank\d+\]:/],
  ['torch', /^\[[IWEF](?:\d{3,4} \d\d:\d\d:\d\d(?:\.\d+)?)?(?: \d+)? ?[\w.-]+\.(?:cpp|cc|h|hpp|py):\d+\]/],
  ['torch', /^[IWEF]\d{3,4} \d\d:\d\d:\d\d(?:\.\d+)? +\d+ [\w./-]+\.py:\d+\] /],
  ['torch', /^(?:frame #\d+: |Exception raised from \S+ at |terminate called after throwing an instance of )/],
  // NCCL_DEBUG output: `node1:2606:2706 [3] NCCL INFO …`.
  ['torch', /^[\w.-]+:\d+:\d+ \[\d+\] NCCL (?:INFO|WARN|TRACE) /],
];
const DIALECT_ORDER: LogDialect[] = ['vllm', 'sglang', 'tgi', 'torch'];

/**
 * A line of a JSON document (a trace, a config), not of a log: an engine's name in it (`"service": "sglang"`)
 * says nothing of the file being the engine's log (a bare OTLP ScopeSpans mentioning sglang was read as one).
 */
const JSON_TEXT = /^\s*(?:[{[]\s*"|"[^"]*"\s*:|[\]}],?\s*$)/;

/**
 * A line of a collection manifest (`engine: sglang 0.4.9`, `model: …`): a lower-case key and a value. An
 * engine's name there says what was collected, not that the file is its log (a collect-info.txt was read
 * as an SGLang log of no timestamps, placed at its mtime).
 */
const MANIFEST_LINE = /^[a-z][a-z _-]{0,30}:[ \t]+\S/;

/** How sure the engine-log family is of a head, and whose dialect it is. */
export function detectEngineLog(head: Buffer): { score: number; dialect: LogDialect } {
  const cached = detected.get(head);
  if (cached) return cached;
  const lines = headLines(head)
    .map((l) => unwrapContainerLine(l.includes('\x1b') ? l.replace(ANSI, '') : l))
    .filter((l) => l.trim());
  const counts: Record<LogDialect, number> = { vllm: 0, sglang: 0, tgi: 0, torch: 0 };
  let hits = 0;
  let hints = 0;
  let torchHints = 0;
  for (const l of lines) {
    const d = DETECT_LINE.find(([, re]) => re.test(l));
    if (d) {
      counts[d[0]]++;
      hits++;
    } else if (isOomLine(l) || l.startsWith('Traceback (most recent call last)') || (/vLLM|sglang|text_generation/.test(l) && !JSON_TEXT.test(l) && !MANIFEST_LINE.test(l))) hints++;
    else if (/ProcessGroupNCCL|Watchdog caught collective operation timeout|c10::|torch\.distributed/.test(l)) torchHints++;
  }
  let dialect: LogDialect = torchHints > hints ? 'torch' : 'vllm';
  let best = 0;
  for (const d of DIALECT_ORDER) {
    if (counts[d] > best) {
      best = counts[d];
      dialect = d;
    }
  }
  let score = 0;
  if (hits >= 1 && hits / lines.length >= 0.3) score = 0.85;
  else if (hits >= 1) score = 0.6;
  else if (hints + torchHints > 0) score = 0.5;
  const out = { score, dialect };
  detected.set(head, out);
  return out;
}
/** Each importer of the family asks about the same head: its answer is worked out once. */
const detected = new WeakMap<Buffer, { score: number; dialect: LogDialect }>();

function engineLogImporter(format: 'vllm-log' | 'sglang-log' | 'tgi-log' | 'torch-log', dialect: LogDialect): Importer {
  return {
    format,
    detect: (head) => {
      const d = detectEngineLog(head);
      return d.dialect === dialect ? d.score : 0;
    },
    yearless: true,
    import: importVllmLog,
  };
}

/** vLLM V0/V1 logs (and, by their lines, any log of this family whose dialect is unclear). */
export const vllmLogImporter: Importer = engineLogImporter('vllm-log', 'vllm');
/** SGLang server logs (`[date TP0] Decode batch, …`). */
export const sglangLogImporter: Importer = engineLogImporter('sglang-log', 'sglang');
/** TGI router/launcher logs, text or --json-output. */
export const tgiLogImporter: Importer = engineLogImporter('tgi-log', 'tgi');
/** PyTorch / torchrun output: `[rank0]:` lines, c10 `[E1025 07:00:43.721857 File.cpp:632]` lines, C++ traces. */
export const torchLogImporter: Importer = engineLogImporter('torch-log', 'torch');
