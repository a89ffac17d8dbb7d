// The app:// protocol handler's path mapping, under hostile URLs: nothing outside the renderer folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { appUrlToFile } from '../../../electron-main/app-url';
import { fileUnder } from '../../../node/bridge/static-path';
import { PDF_PARTITION, pdfRequestAllowed, pdfWebPreferences } from '../../../electron-main/security';

const root = resolve('/opt/quadscope/out/renderer');

test('app:// paths inside the renderer map to their files', () => {
  assert.equal(appUrlToFile(root, 'app://quadscope/'), join(root, 'index.html'));
  assert.equal(appUrlToFile(root, 'app://quadscope/index.html'), join(root, 'index.html'));
  assert.equal(appUrlToFile(root, 'app://quadscope/assets/index-abc.js?v=1#x'), join(root, 'assets', 'index-abc.js'));
  assert.equal(appUrlToFile(root, 'app://quadscope/assets/a%20b.css'), join(root, 'assets', 'a b.css'));
});

test('app:// traversal is refused however it is spelled', () => {
  const hostile = [
    'app://quadscope/%2E%2E%2Fetc%2Fpasswd',
    'app://quadscope/assets/..%2f..%2f..%2fetc/passwd',
    'app://quadscope/..%5c..%5cwindows%5cwin.ini',
    'app://quadscope/assets\\..\\..\\x',
    'app://quadscope/index.html%00.png',
    'app://quadscope/%E0%A4%A',
    'app://evil/index.html',
    'app://user:pw@quadscope/index.html',
    'file:///etc/passwd',
    'not a url',
  ];
  for (const url of hostile) assert.equal(appUrlToFile(root, url), null, url);
});

test('literal dot-dots are resolved by the URL parser itself and stay inside', () => {
  assert.equal(appUrlToFile(root, 'app://quadscope/../../etc/passwd'), join(root, 'etc', 'passwd'));
  assert.equal(appUrlToFile(root, 'app://quadscope/%2e%2e/%2e%2e/etc/passwd'), join(root, 'etc', 'passwd'));
});

test('a double-encoded dot-dot stays a literal name inside the folder', () => {
  assert.equal(appUrlToFile(root, 'app://quadscope/%252e%252e/x'), join(root, '%2e%2e', 'x'));
});

test('fileUnder refuses the folder itself and a sibling that shares its prefix', () => {
  assert.equal(fileUnder(root, '/.'), null);
  assert.equal(fileUnder(root, '/../renderer-evil/x.js'), null);
});

test('the PDF window: its own partition, no script, and only its report may load', () => {
  const p = pdfWebPreferences();
  assert.equal(p.partition, PDF_PARTITION);
  assert.doesNotMatch(PDF_PARTITION, /^persist:/);
  assert.equal(p.javascript, false);
  assert.equal(p.sandbox, true);
  assert.equal(p.contextIsolation, true);
  assert.equal(p.nodeIntegration, false);
  assert.equal(p.preload, undefined);
  const report = 'file:///tmp/quadscope-report-x/report.html';
  assert.equal(pdfRequestAllowed(report, report), true);
  assert.equal(pdfRequestAllowed('data:image/png;base64,AAAA', report), true);
  assert.equal(pdfRequestAllowed('file:///etc/passwd', report), false);
  assert.equal(pdfRequestAllowed('https://evil.example/x.png', report), false);
});
