// Exports the incident report. In the browser the engine answers the whole file (Markdown with its charts
// embedded, PDF as base64) and the page saves it under the incident's name.
import { useState } from 'react';
import type { ReportFormat } from '../../../../common/contract/types';
import { api, errorText } from '../api';
import { saveFile } from '../app/download';

const MIME: Record<ReportFormat, string> = { html: 'text/html', md: 'text/markdown', pdf: 'application/pdf' };

function bytesOf(content: string, encoding: 'utf8' | 'base64' | undefined): BlobPart {
  if (encoding !== 'base64') return content;
  const bin = atob(content);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function ReportExport({ incidentId, name }: { incidentId: number; name: string }) {
  const [format, setFormat] = useState<ReportFormat>('html');
  const [state, setState] = useState<'idle' | 'loading' | 'ready' | 'error'>('idle');
  const [message, setMessage] = useState<string | null>(null);
  const run = async () => {
    setState('loading');
    setMessage(null);
    try {
      const res = await api.exportReport({ incident_id: incidentId, format });
      const fileName = res.file_name ?? `${name.replace(/[^\w.-]+/g, '_') || 'incident'}.${format}`;
      const browser = api.host === 'browser' && res.content !== undefined;
      if (browser) saveFile(fileName, bytesOf(res.content!, res.encoding), MIME[format]);
      setMessage(browser ? `Downloaded ${fileName}` : `Written to ${res.path}`);
      setState('ready');
    } catch (e) {
      setMessage(errorText(e));
      setState('error');
    }
  };
  return (
    <div className="report-export row" data-state={state} aria-busy={state === 'loading'}>
      <select value={format} onChange={(e) => setFormat(e.target.value as ReportFormat)} aria-label="Report format" disabled={state === 'loading'} data-testid="export-format">
        <option value="html">HTML</option>
        <option value="md">Markdown</option>
        <option value="pdf">PDF</option>
      </select>
      <button type="button" onClick={() => void run()} disabled={state === 'loading'} data-testid="export-report">
        {state === 'loading' ? 'Exporting…' : 'Export report'}
      </button>
      {state === 'loading' ? (
        <span className="small muted" role="status">
          writing the {format.toUpperCase()} report…
        </span>
      ) : null}
      {message ? (
        <span className={`small ${state === 'error' ? 'error-text' : 'muted'}`} role="status" title={message} data-testid="export-message">
          {message}
        </span>
      ) : null}
    </div>
  );
}
