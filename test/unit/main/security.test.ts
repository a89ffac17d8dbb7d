// The window's security policy as data: asserted here so a change to it is a visible, failing test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { APP_ORIGIN, RENDERER_CSP, isTrustedSender, webPreferences } from '../../../electron-main/security';
import { bridgeCsp } from '../../../node/bridge/csp';

test('webPreferences: isolated, sandboxed, no Node anywhere', () => {
  const p = webPreferences('/app/out/preload/index.cjs');
  assert.equal(p.contextIsolation, true);
  assert.equal(p.sandbox, true);
  assert.equal(p.nodeIntegration, false);
  assert.equal(p.nodeIntegrationInWorker, false);
  assert.equal(p.nodeIntegrationInSubFrames, false);
  assert.equal(p.webSecurity, true);
  assert.equal(p.allowRunningInsecureContent, false);
  assert.equal(p.webviewTag, false);
  assert.equal(p.preload, '/app/out/preload/index.cjs');
});

for (const [name, csp] of [['renderer', RENDERER_CSP], ['bridge', bridgeCsp(43123)]] as const) {
  test(`${name} CSP: self only, no eval, no remote origins`, () => {
    const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
    assert.deepEqual(directives['default-src'], ["'self'"]);
    assert.deepEqual(directives['script-src'], ["'self'"]);
    assert.deepEqual(directives['object-src'], ["'none'"]);
    assert.deepEqual(directives['frame-ancestors'], ["'none'"]);
    assert.doesNotMatch(csp, /unsafe-eval|https?:|\*\.|(^|\s)\*(\s|;|$)/);
    // The bridge's own WebSocket only, on its own port: never a wildcard port.
    for (const src of directives['connect-src']) assert.match(src, /^('self'|ws:\/\/(127\.0\.0\.1|localhost|\[::1\]):43123)$/);
  });
}

test('IPC is trusted only from our own main frame', () => {
  assert.equal(isTrustedSender(`${APP_ORIGIN}/index.html`, true), true);
  assert.equal(isTrustedSender(`${APP_ORIGIN}/index.html`, false), false);
  assert.equal(isTrustedSender('https://evil.example/', true), false);
  assert.equal(isTrustedSender('file:///etc/passwd', true), false);
  assert.equal(isTrustedSender(undefined, true), false);
});
