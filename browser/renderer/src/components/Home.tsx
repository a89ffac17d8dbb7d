// The empty state: what a bundle can hold, and where to drop it.
import { DropZone } from './ImportZone';

// (docs/formats.md lists each shape; this is the summary a first-time user reads.)
const FORMATS: [string, string][] = [
  ['Prometheus metrics', 'vLLM, SGLang, TGI, TensorRT-LLM / Triton, NIM, llama.cpp and DCGM scrapes (exposition text), query_range JSON, VictoriaMetrics exports, Grafana panel CSVs'],
  ['nvidia-smi and DCGM', '--query-gpu CSV, dmon / pmon, the table, -q text and XML, dcgmi dmon'],
  ['Engine and kernel logs', 'vLLM / SGLang / TGI / PyTorch logs (docker, kubectl, stern prefixes), JSON-lines logs, dmesg / journalctl with NVRM Xid and SXid lines'],
  ['Kubernetes', 'kubectl get events / pods (tables, JSON, YAML), kubectl describe pod'],
  ['PyTorch profiler traces', 'Kineto / Chrome trace JSON, including [memory] events'],
  ['CUDA memory snapshots', 'torch.cuda.memory._snapshot() pickles and memory timelines'],
  ['Nsight Systems and Nsight Compute', 'nsys SQLite exports and nsys stats trace CSVs, ncu CSV; nvprof traces'],
  ['Traces', 'OTLP JSON (and the Collector debug exporter), Jaeger JSON, Zipkin v2 JSON'],
];

export function Home() {
  return (
    <div className="home" data-testid="home">
      <h1>Open an incident</h1>
      <p className="lede">
        An incident bundle is a folder or archive of what the serving stack left behind. Quadscope reads it locally, lines the signals up on one clock and
        tells you which quadrant the service was in — and why.
      </p>
      <DropZone large />
      <h2>A bundle can hold</h2>
      <dl className="formats">
        {FORMATS.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">Formats are recognised from their content, not their names. Files that cannot be read are listed with the reason; the rest still import.</p>
    </div>
  );
}
