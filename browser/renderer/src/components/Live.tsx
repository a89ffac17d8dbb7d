// Live recording: endpoints to scrape, NVML sampling, start/stop, and each endpoint's health.
import { useEffect, useState } from 'react';
import { formatTime, groupDigits } from '../../../../common/format';
import { useLive } from '../state/live';
import { useNavigation } from '../state/navigation';

export function Live() {
  const { status, busy, error, refresh, start, stop } = useLive();
  const go = useNavigation((s) => s.go);
  const [urls, setUrls] = useState('http://127.0.0.1:8000/metrics');
  const [interval, setInterval] = useState(5);
  const [nvml, setNvml] = useState(true);
  const [name, setName] = useState('');
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const recording = status?.recording ?? false;
  const endpoints = urls
    .split(/\s+/)
    .map((u) => u.trim())
    .filter(Boolean);
  return (
    <div className="panel live" data-state={status ? 'ready' : 'loading'} data-testid="live-panel">
      <h1>Live recording</h1>
      <p className="muted">Scrape Prometheus endpoints (vLLM, SGLang, TGI, DCGM exporter) and sample GPUs through NVML into a new incident.</p>
      {error ? (
        <div className="error-text" role="alert">
          {error}
        </div>
      ) : null}
      <form
        className="live-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (recording) void stop();
          else void start({ name: name.trim() || undefined, nvml, endpoints: endpoints.map((url) => ({ url, interval_s: interval })) });
        }}
      >
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="live recording" disabled={recording} />
        </label>
        <label>
          Endpoints (one per line)
          <textarea rows={3} value={urls} onChange={(e) => setUrls(e.target.value)} disabled={recording} className="mono" />
        </label>
        <label>
          Scrape every (s)
          <input type="number" min={0.5} max={3600} step={0.5} value={interval} onChange={(e) => setInterval(Number(e.target.value))} disabled={recording} />
        </label>
        <label className="row">
          <input type="checkbox" checked={nvml} onChange={(e) => setNvml(e.target.checked)} disabled={recording || !status?.nvml.available} />
          Sample GPUs through NVML
          <span className="muted small">{status ? (status.nvml.available ? `${status.nvml.devices.length} device(s)` : `unavailable: ${status.nvml.reason ?? 'unknown'}`) : ''}</span>
        </label>
        <div className="row">
          <button type="submit" className="primary" disabled={busy || (!recording && !endpoints.length && !nvml)}>
            {recording ? 'Stop recording' : 'Start recording'}
          </button>
          {status?.incident_id !== null && status?.incident_id !== undefined ? (
            <button type="button" onClick={() => go('incident', status.incident_id)}>
              Open the recording
            </button>
          ) : null}
        </div>
      </form>
      {status ? (
        <>
          <p className="small">
            {recording ? `Recording since ${formatTime(status.started_ms)}` : 'Not recording'} · {groupDigits(status.samples)} samples
          </p>
          {status.nvml.devices.length ? (
            <ul className="small">
              {status.nvml.devices.map((d) => (
                <li key={d.uuid}>
                  GPU {d.index}: {d.name} <span className="muted">{d.uuid}</span>
                </li>
              ))}
            </ul>
          ) : null}
          <table data-testid="live-endpoints">
            <thead>
              <tr>
                <th>endpoint</th>
                <th>health</th>
                <th>last scrape</th>
                <th className="num">scrapes</th>
                <th className="num">failures</th>
                <th>last error</th>
              </tr>
            </thead>
            <tbody>
              {status.endpoints.map((e) => (
                <tr key={e.url}>
                  <td className="mono">{e.url}</td>
                  <td className={e.ok ? 'ok' : 'bad'}>{e.ok ? 'up' : 'down'}</td>
                  <td>{formatTime(e.last_scrape_ms)}</td>
                  <td className="num">{e.scrapes}</td>
                  <td className="num">{e.failures}</td>
                  <td className="error-text small">{e.last_error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </div>
  );
}
