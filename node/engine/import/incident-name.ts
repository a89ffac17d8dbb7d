// Incidents named from what they hold when the file name says nothing: every generated bundle is
// "bundle.tar.gz", a collector writes "export.zip", a drop of loose files is "3 files (…)". Such a name is
// replaced, once the import is done, by the engine, model, where it ran and when: "vLLM
// Llama-3.3-70B-Instruct on 4 instances · 2026-06-04 17:40–18:02 UTC". A name that says something (the
// user's, or a folder called "vllm-prod-a-oom") is kept.
import type { FormatId } from '../../../common/contract/types';
import { formatMinuteSpan } from '../../../common/format';
import type { Store } from '../store/store';

/** Stems that name no incident: what archivers, collectors and browsers call things. */
const GENERIC =
  /^(bundle|incident|incidents|export|exports|exported|archive|data|dump|logs?|metrics|files?|downloads?|uploads?|collect(ed|ion)?|snapshot|debug|support|support[-_ ]?bundle|diag|diagnostics?|output|out|tmp|temp|untitled|new[-_ ]?folder|capture|traces?|report|quadscope|results?|artifacts?|test)$/i;

/** The name without archive extensions, a copy's " (2)" and trailing numbers or dates ("bundle-3", "export_2026-03-14"). */
function stem(name: string): string {
  let s = name.trim();
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s.replace(/\.(tar\.gz|tgz|tar|zip|gz)$/i, '').replace(/\s*\(\d+\)$/, '');
  }
  return s.replace(/[-_ .]*[\d][\d\-_:.T]*$/, '');
}

export function saysNothing(name: string): boolean {
  const n = name.trim();
  if (!n) return true;
  // What the workstation calls a drop of loose files, and what an upload folder is named.
  if (/^\d+ files( \(.*\))?$/.test(n) || /^[0-9a-f]{16,}$/i.test(n)) return true;
  return GENERIC.test(stem(n));
}

/** Serving engines as their metric names and log formats tell them. */
const ENGINE_BY_METRIC: [RegExp, string][] = [
  [/^ray_vllm:/, 'Ray Serve vLLM'],
  [/^vllm(:|-log:)/, 'vLLM'],
  [/^sglang(:|-log:)/, 'SGLang'],
  [/^(tgi_|tgi-log:)/, 'TGI'],
];
const ENGINE_BY_FORMAT: Record<string, string> = { 'vllm-log': 'vLLM', 'sglang-log': 'SGLang', 'tgi-log': 'TGI' };
/** What an incident with no engine holds, by its sources' formats, most telling first. */
const KIND_BY_FORMAT: [FormatId, string][] = [
  ['kineto-json', 'PyTorch profile'],
  ['nsys-sqlite', 'Nsight Systems profile'],
  ['torch-memory-snapshot', 'CUDA memory snapshot'],
  ['torch-memory-timeline', 'PyTorch memory timeline'],
  ['ncu-csv', 'Nsight Compute kernels'],
  ['nsys-stats-csv', 'Nsight Systems trace'],
  ['nvprof-csv', 'nvprof trace'],
  ['torch-log', 'PyTorch log'],
  ['otlp-json', 'traces'],
  ['jaeger-json', 'traces'],
  ['zipkin-json', 'traces'],
  ['nvidia-smi-csv', 'GPU telemetry'],
  ['nvidia-smi-dmon', 'GPU telemetry'],
  ['nvidia-smi-text', 'GPU telemetry'],
  ['nvidia-smi-xml', 'GPU telemetry'],
  ['dcgmi-dmon', 'GPU telemetry'],
  ['prometheus-text', 'metrics'],
  ['prometheus-json', 'metrics'],
  ['victoriametrics-jsonl', 'metrics'],
  ['grafana-csv', 'metrics'],
  ['kernel-log', 'kernel log'],
  ['jsonl-log', 'logs'],
  ['kubernetes', 'Kubernetes events'],
  ['access-log', 'gateway access log'],
];

const mostCommon = (m: Map<string, number>): string | null => [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null;
const bump = (m: Map<string, number>, k: string | undefined) => {
  if (k) m.set(k, (m.get(k) ?? 0) + 1);
};

/** The name an incident's content gives it, or null when it holds no time span to name. */
export function contentName(store: Store, incidentId: number): string | null {
  const span = store.incidentSpan(incidentId);
  if (!span || span.start_ms === null || span.end_ms === null) return null;
  const engines = new Map<string, number>();
  const models = new Map<string, number>();
  const instances = new Set<string>();
  const hosts = new Set<string>();
  for (const s of store.seriesCatalog(incidentId)) {
    const metric = s.labels.metric ?? '';
    bump(engines, ENGINE_BY_METRIC.find(([re]) => re.test(metric))?.[1]);
    const engine = ENGINE_BY_METRIC.some(([re]) => re.test(metric));
    if (engine) bump(models, s.labels.model ?? s.labels.model_name ?? s.labels.model_id);
    // Instances are the engines' own identities; hosts are where anything (a GPU, a node) was measured.
    if (engine) {
      const id = s.labels.instance ?? s.labels.pod;
      if (id) instances.add(id);
    }
    const host = s.labels.host ?? s.labels.Hostname ?? s.labels.hostname ?? s.labels.node;
    if (host) hosts.add(host);
  }
  const sources = store.listSources(incidentId).filter((x) => x.status === 'ok');
  for (const x of sources) bump(engines, ENGINE_BY_FORMAT[x.format]);
  const engine = mostCommon(engines);
  const model = mostCommon(models)?.split('/').pop() ?? null;
  let what: string;
  if (engine) what = model ? `${engine} ${model}` : engine;
  else {
    const formats = new Set(sources.map((x) => x.format));
    const kinds = [...new Set(KIND_BY_FORMAT.filter(([f]) => formats.has(f)).map(([, k]) => k))].slice(0, 2);
    what = kinds.length ? kinds.join(' and ') : 'Incident';
  }
  const where = instances.size > 1 ? ` on ${instances.size} instances` : hosts.size === 1 ? ` on ${[...hosts][0]}` : instances.size === 1 ? ` on ${[...instances][0]}` : hosts.size > 1 ? ` on ${hosts.size} hosts` : '';
  return `${what}${where} · ${formatMinuteSpan(span.start_ms, span.end_ms)}`.slice(0, 200);
}

/** Renames a just-imported incident from its content when its name says nothing; answers the name it has. */
export function nameFromContent(store: Store, incidentId: number, name: string): string {
  if (!saysNothing(name)) return name;
  const better = contentName(store, incidentId);
  if (!better) return name;
  store.renameIncident(incidentId, better);
  return better;
}
