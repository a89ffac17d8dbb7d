// "Connect to Prometheus": pull an incident from a Prometheus-compatible server (Prometheus, Thanos,
// Mimir, Cortex, VictoriaMetrics) — its URL, a time range (a preset such as "last 2 h", a window around
// an alert, or from/to), optional selectors, and where the engine finds a credential (an environment
// variable or a file on the engine's machine: the secret itself never passes through the page). Progress
// comes as 'pull-progress' events; Cancel stops the pull and keeps nothing. A partial answer is shown
// with what is missing before the incident is opened.
import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import type { PullAuth, PullProgress, PullRequest, PullResult } from '../../../../common/contract/types';
import { formatBytes, groupDigits } from '../../../../common/format';
import { api, errorText } from '../api';
import { useIncidents } from '../state/incidents';
import { useNavigation } from '../state/navigation';

const MIN = 60_000;
const HOUR = 60 * MIN;
const PRESETS: [string, number][] = [
  ['last 15 min', 15 * MIN],
  ['last 1 h', HOUR],
  ['last 2 h', 2 * HOUR],
  ['last 6 h', 6 * HOUR],
  ['last 24 h', 24 * HOUR],
];
type RangeMode = 'preset' | 'alert' | 'custom';
type AuthMode = 'none' | 'bearer-env' | 'bearer-file' | 'basic-env' | 'basic-file';
const URL_KEY = 'quadscope.pull.url';

/** `datetime-local` text (local time, minutes) of a time, and back. */
const toLocalInput = (ms: number) => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * MIN);
  return d.toISOString().slice(0, 16);
};
const fromLocalInput = (s: string) => (s ? new Date(s).getTime() : NaN);

/** The range a form describes, or a message saying what is missing. */
export function rangeOf(mode: RangeMode, presetMs: number, alertAt: string, aroundMin: number, from: string, to: string, now: number): { start_ms: number; end_ms: number } | string {
  if (mode === 'preset') return { start_ms: now - presetMs, end_ms: now };
  if (mode === 'alert') {
    const at = fromLocalInput(alertAt);
    if (!Number.isFinite(at)) return 'give the time the alert fired';
    if (!(aroundMin > 0)) return 'give how many minutes around the alert';
    return { start_ms: at - aroundMin * MIN, end_ms: Math.min(now, at + aroundMin * MIN) };
  }
  const s = fromLocalInput(from);
  const e = fromLocalInput(to);
  if (!Number.isFinite(s) || !Number.isFinite(e)) return 'give both ends of the range';
  return e > s ? { start_ms: s, end_ms: e } : 'the range must end after it starts';
}

export function ConnectPrometheus() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)} data-testid="connect-prometheus">
        Connect to Prometheus…
      </button>
      {/* On the body, not in the drop zone: its styles and drop handling stay its own. */}
      {open ? createPortal(<PullDialog onClose={() => setOpen(false)} />, document.body) : null}
    </>
  );
}

function PullDialog({ onClose }: { onClose: () => void }) {
  const now = Date.now();
  const [url, setUrl] = useState(() => localStorage.getItem(URL_KEY) ?? 'http://127.0.0.1:9090');
  const [mode, setMode] = useState<RangeMode>('preset');
  const [presetMs, setPresetMs] = useState(2 * HOUR);
  const [alertAt, setAlertAt] = useState(() => toLocalInput(now - 30 * MIN));
  const [aroundMin, setAroundMin] = useState(30);
  const [from, setFrom] = useState(() => toLocalInput(now - 2 * HOUR));
  const [to, setTo] = useState(() => toLocalInput(now));
  const [selectors, setSelectors] = useState('');
  const [step, setStep] = useState('');
  const [name, setName] = useState('');
  const [authMode, setAuthMode] = useState<AuthMode>('none');
  const [authWhere, setAuthWhere] = useState('');
  const [caFile, setCaFile] = useState('');
  const [tenant, setTenant] = useState('');
  const [jobId, setJobId] = useState<string | null>(null);
  const [progress, setProgress] = useState<PullProgress | null>(null);
  const [result, setResult] = useState<PullResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const jobRef = useRef<string | null>(null);
  const early = useRef<PullProgress[]>([]);
  const go = useNavigation((s) => s.go);

  const finish = (r: PullResult) => {
    setResult(r);
    if (r.incident_id === null) return;
    void useIncidents.getState().refresh();
    if (!r.partial) {
      go('incident', r.incident_id);
      onClose();
    }
  };
  const apply = (p: PullProgress) => {
    setProgress(p);
    if (p.state === 'failed') setError(p.error ?? 'the pull failed');
    if (p.result) finish(p.result);
  };

  useEffect(
    () =>
      api.onEvent((e) => {
        if (e.type !== 'pull-progress') return;
        // Events can arrive before startPull answers with the job id ('' meanwhile): keep them until it does.
        if (jobRef.current === '') early.current.push(e.progress);
        else if (e.progress.job_id === jobRef.current) apply(e.progress);
      }),
    [],
  );

  const running = jobId !== null && !result && !error;
  const range = rangeOf(mode, presetMs, alertAt, aroundMin, from, to, now);
  const selectorList = selectors
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
  const stepS = step.trim() === '' ? undefined : Number(step);
  const stepBad = stepS !== undefined && !(stepS > 0);
  const authNeedsWhere = authMode !== 'none' && !authWhere.trim();

  const start = async () => {
    if (typeof range === 'string') return;
    setError(null);
    setResult(null);
    setProgress(null);
    early.current = [];
    let auth: PullAuth | undefined;
    if (authMode !== 'none') {
      const [kind, from] = authMode.split('-') as ['bearer' | 'basic', 'env' | 'file'];
      auth = { kind, ...(from === 'env' ? { env: authWhere.trim() } : { file: authWhere.trim() }) };
    }
    const req: PullRequest = {
      url: url.trim(),
      ...range,
      ...(selectorList.length ? { match: selectorList } : {}),
      ...(stepS !== undefined ? { step_s: stepS } : {}),
      ...(name.trim() ? { name: name.trim() } : {}),
      ...(auth ? { auth } : {}),
      ...(caFile.trim() ? { ca_file: caFile.trim() } : {}),
      ...(tenant.trim() ? { tenant: tenant.trim() } : {}),
    };
    try {
      localStorage.setItem(URL_KEY, req.url);
      jobRef.current = '';
      const { job_id } = await api.startPull(req);
      jobRef.current = job_id;
      setJobId(job_id);
      for (const p of early.current) if (p.job_id === job_id) apply(p);
      early.current = [];
    } catch (e) {
      jobRef.current = null;
      setError(errorText(e));
    }
  };

  const cancel = () => {
    if (jobId) void api.cancelPull({ job_id: jobId });
  };
  const close = () => {
    cancel();
    onClose();
  };

  return (
    <div className="modal-backdrop" onClick={running ? undefined : close}>
      <div className="modal pull-dialog" style={{ width: 'min(760px, 92vw)' }} role="dialog" aria-modal="true" aria-label="Connect to Prometheus" onClick={(e) => e.stopPropagation()} onKeyDown={(e) => e.key === 'Escape' && !running && close()} data-testid="pull-dialog">
        <h2>Connect to Prometheus</h2>
        <p className="muted small">Prometheus, Thanos, Mimir, Cortex or VictoriaMetrics: the series Quadscope understands (vLLM, SGLang, TGI, DCGM exporter) are read with query_range and stored as an incident.</p>
        <form
          className="live-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (!running) void start();
          }}
        >
          <label>
            Server URL
            <input className="mono" value={url} onChange={(e) => setUrl(e.target.value)} disabled={running} placeholder="http://prometheus:9090" data-testid="pull-url" autoFocus />
          </label>
          <fieldset disabled={running}>
            <legend>Time range</legend>
            <div className="row wrap">
              <label className="row">
                <input type="radio" name="range" checked={mode === 'preset'} onChange={() => setMode('preset')} />
                <select value={presetMs} onChange={(e) => (setPresetMs(Number(e.target.value)), setMode('preset'))} aria-label="preset" data-testid="pull-preset">
                  {PRESETS.map(([label, ms]) => (
                    <option key={ms} value={ms}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
              <label className="row">
                <input type="radio" name="range" checked={mode === 'alert'} onChange={() => setMode('alert')} />
                around the alert at
                <input type="datetime-local" value={alertAt} onChange={(e) => (setAlertAt(e.target.value), setMode('alert'))} aria-label="alert time" />±
                <input type="number" min={1} max={1440} value={aroundMin} onChange={(e) => setAroundMin(Number(e.target.value))} aria-label="minutes around the alert" style={{ width: '5em' }} />
                min
              </label>
              <label className="row">
                <input type="radio" name="range" checked={mode === 'custom'} onChange={() => setMode('custom')} />
                from
                <input type="datetime-local" value={from} onChange={(e) => (setFrom(e.target.value), setMode('custom'))} aria-label="from" />
                to
                <input type="datetime-local" value={to} onChange={(e) => (setTo(e.target.value), setMode('custom'))} aria-label="to" />
              </label>
            </div>
          </fieldset>
          <label>
            Selectors (optional, one per line; several are OR-ed)
            <textarea rows={2} className="mono" value={selectors} onChange={(e) => setSelectors(e.target.value)} disabled={running} placeholder={'{namespace="llm", pod=~"vllm-.*"}'} data-testid="pull-selectors" />
          </label>
          <details>
            <summary>Step, credentials, CA, tenant</summary>
            <label>
              Step in seconds (empty: the scrape interval)
              <input value={step} onChange={(e) => setStep(e.target.value)} disabled={running} inputMode="decimal" style={{ width: '6em' }} />
            </label>
            <label>
              Credential
              <select value={authMode} onChange={(e) => setAuthMode(e.target.value as AuthMode)} disabled={running}>
                <option value="none">none</option>
                <option value="bearer-env">bearer token from an environment variable</option>
                <option value="bearer-file">bearer token from a file</option>
                <option value="basic-env">user:password from an environment variable</option>
                <option value="basic-file">user:password from a file</option>
              </select>
            </label>
            {authMode !== 'none' ? (
              <label>
                {authMode.endsWith('env') ? 'Variable name (in the engine’s environment)' : 'File path (on the engine’s machine)'}
                <input className="mono" value={authWhere} onChange={(e) => setAuthWhere(e.target.value)} disabled={running} />
              </label>
            ) : null}
            <label>
              CA certificate file (PEM, for https with a private CA)
              <input className="mono" value={caFile} onChange={(e) => setCaFile(e.target.value)} disabled={running} />
            </label>
            <label>
              Tenant (X-Scope-OrgID, Mimir and Cortex)
              <input value={tenant} onChange={(e) => setTenant(e.target.value)} disabled={running} />
            </label>
          </details>
          <label>
            Incident name (optional)
            <input value={name} onChange={(e) => setName(e.target.value)} disabled={running} />
          </label>
          {typeof range === 'string' ? <div className="muted small">{range}</div> : null}
          {progress && !error ? <PullProgressView progress={progress} /> : null}
          {error ? (
            <div className="error-text" role="alert" data-testid="pull-error">
              {error}
            </div>
          ) : null}
          {result?.cancelled ? <div className="muted">Cancelled: nothing was kept.</div> : null}
          {result && result.partial && result.incident_id !== null ? (
            <div className="error-text" role="alert" data-testid="pull-partial">
              Partial answer: {result.failures.length} request(s) failed and their ranges are empty.
              <ul className="small">
                {[...result.failures.map((f) => `${f.query}: ${f.error}`), ...result.warnings].slice(0, 8).map((w, i) => (
                  <li key={i}>{w}</li>
                ))}
              </ul>
            </div>
          ) : null}
          <div className="row">
            {running ? (
              <button type="button" onClick={cancel} data-testid="pull-cancel">
                Cancel pull
              </button>
            ) : result && result.incident_id !== null ? (
              <button
                type="button"
                className="primary"
                onClick={() => {
                  go('incident', result.incident_id);
                  onClose();
                }}
              >
                Open the incident
              </button>
            ) : (
              <button type="submit" className="primary" disabled={!url.trim() || typeof range === 'string' || stepBad || authNeedsWhere} data-testid="pull-start">
                Pull
              </button>
            )}
            <button type="button" onClick={close} disabled={running}>
              Close
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}

function PullProgressView({ progress: p }: { progress: PullProgress }) {
  if (p.state === 'discovering') return <div className="muted" data-testid="pull-progress">Finding the series…</div>;
  return (
    <div data-testid="pull-progress" data-state={p.state}>
      {p.requests_total ? <progress max={p.requests_total} value={p.requests_done} aria-label="requests answered" /> : null}
      <div className="small muted">
        {p.requests_done}/{p.requests_total ?? '?'} requests · {groupDigits(p.series)} series · {groupDigits(p.samples)} samples · {formatBytes(p.bytes)}
      </div>
    </div>
  );
}
