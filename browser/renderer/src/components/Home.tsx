// The empty state: what a bundle can hold, and where to drop it.
import { DropZone } from './ImportZone';

const FORMATS: [string, string][] = [
  ['Prometheus metrics', 'vLLM, TGI, SGLang and DCGM exporter scrapes: exposition text with timestamps, or query_range JSON'],
  ['nvidia-smi', '--query-gpu CSV, dmon / pmon output'],
  ['Engine and kernel logs', 'vLLM / SGLang / TGI logs, JSON-lines logs, dmesg with NVRM Xid lines'],
  ['PyTorch profiler traces', 'Kineto / Chrome trace JSON, including [memory] events'],
  ['CUDA memory snapshots', 'torch.cuda.memory._snapshot() pickles and memory timelines'],
  ['Nsight Systems', 'SQLite exports (nsys export --type sqlite)'],
  ['Nsight Compute', 'CSV exports (ncu --csv)'],
  ['Traces', 'OTLP JSON and Jaeger JSON'],
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
