// Kubernetes events and container states (kubernetes.ts): the shapes kubectl prints — events and pods as
// JSON, `describe pod`, `get events` tables old and new, rows pasted without their header — each read at the
// time it says, and only the kernel's OOM kills, error exits and restarts after them given the model's
// kinds. The samples in test/samples/variants are the project's own, in those shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ageMs, kubernetesImporter } from '../../../node/engine/importers/kubernetes';
import { detectImporter, HEAD_BYTES } from '../../../node/engine/importers/registry';
import { events, runImporter } from './run-importer';

const sample = (name: string) => fileURLToPath(new URL(`../../samples/variants/${name}`, import.meta.url));
const at = (iso: string) => Date.parse(iso);
const detected = (text: string) => detectImporter(Buffer.from(text).subarray(0, HEAD_BYTES), 'x.txt')?.format ?? null;

test('kubectl ages', () => {
  assert.equal(ageMs('5m31s'), 331_000);
  assert.equal(ageMs('104s'), 104_000);
  assert.equal(ageMs('3h43m'), (3 * 60 + 43) * 60_000);
  assert.equal(ageMs('2d3h'), (2 * 24 + 3) * 3_600_000);
  assert.equal(ageMs('<unknown>'), null);
  assert.equal(ageMs('5 m'), null);
  // Older than any cluster: a broken number, no time.
  assert.equal(ageMs('9999999999d'), null);
  assert.equal(ageMs('11y'), null);
});

test('events as JSON (a List of core/v1 and events.k8s.io/v1): each at its first time, counts kept, the node OOM kill a host_oom_kill', async () => {
  const r = await runImporter(kubernetesImporter, { file: sample('kubectl-get-events.json') });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, []);
    const ev = events(r);
    assert.equal(ev.length, 8);
    const unhealthy = ev.find((e) => e.attrs.reason === 'Unhealthy')!;
    assert.equal(unhealthy.ts_ms, at('2026-03-14T09:00:15Z'));
    assert.equal(unhealthy.kind, 'log');
    assert.equal(unhealthy.severity, 'warning');
    assert.equal(unhealthy.attrs.count, 41);
    assert.equal(unhealthy.attrs.last_ms, at('2026-03-14T09:22:30Z'));
    assert.equal(unhealthy.attrs.container, 'vllm');
    assert.equal(unhealthy.attrs.namespace, 'inference');
    assert.match(unhealthy.text, /^pod\/vllm-llama-7f9c6d5b8d-x2k4q Unhealthy: Readiness probe failed: .* \(×41, last 2026-03-14T09:22:30\.000Z\)$/);
    const oom = ev.filter((e) => e.kind === 'host_oom_kill');
    assert.deepEqual(
      oom.map((e) => [e.ts_ms, e.attrs.object, e.attrs.host]),
      [[at('2026-03-14T09:13:58Z'), 'node/gpu-node-3', true]],
    );
    // events.k8s.io/v1: `regarding`, `note`, only eventTime.
    const killing = ev.find((e) => e.attrs.reason === 'Killing')!;
    assert.equal(killing.ts_ms, at('2026-03-14T09:22:31.118Z'));
    assert.equal(killing.text, 'pod/vllm-llama-7f9c6d5b8d-x2k4q Killing: Container vllm failed liveness probe, will be restarted');
    // An image pull is not a deploy, nor a scale-up: only the kernel's kill has a model kind here.
    assert.deepEqual([...new Set(ev.map((e) => e.kind))].sort(), ['host_oom_kill', 'log']);
  } finally {
    r.dispose();
  }
});

test("a pod's container statuses: OOMKilled at its finish, the restart after it, an init container's clean exit", async () => {
  const r = await runImporter(kubernetesImporter, { file: sample('kubectl-get-pod.json') });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(
      events(r).map((e) => [e.kind, e.ts_ms, e.attrs.container, e.attrs.exit_code ?? null, e.attrs.restart_count]),
      [
        ['log', at('2026-03-14T09:00:04Z'), 'model-download', 0, 0],
        ['host_oom_kill', at('2026-03-14T09:21:05Z'), 'vllm', 137, 3],
        ['engine_restart', at('2026-03-14T09:21:41Z'), 'vllm', null, 3],
      ],
    );
    const oom = events(r, 'host_oom_kill')[0];
    assert.equal(oom.attrs.image, 'vllm/vllm-openai:v0.8.5');
    assert.equal(oom.attrs.node, 'gpu-node-3');
    assert.equal(oom.attrs.from, 'kubernetes');
  } finally {
    r.dispose();
  }
});

test('describe pod: absolute container states in its zone; event ages counted back from its start time plus the Scheduled age', async () => {
  const r = await runImporter(kubernetesImporter, { file: sample('kubectl-describe-pod.txt'), mtimeMs: at('2030-01-01T00:00:00Z') });
  try {
    assert.equal(r.error, null);
    // The file says when kubectl ran (Start Time 09:00:02Z, Scheduled 25m ago): no guess, no warning.
    assert.deepEqual(r.warnings, []);
    const ev = events(r);
    const by = (reason: string) => ev.find((e) => e.attrs.reason === reason)!;
    assert.equal(by('Scheduled').ts_ms, at('2026-03-14T09:00:02Z'));
    assert.equal(by('Unhealthy').ts_ms, at('2026-03-14T09:05:02Z'), '20m before 09:25:02 (x6 over 20m)');
    assert.equal(by('Unhealthy').attrs.last_ms, at('2026-03-14T09:11:02Z'));
    assert.equal(by('Killing').ts_ms, at('2026-03-14T09:12:02Z'));
    assert.equal(by('Killing').attrs.container, 'sglang');
    const crash = events(r, 'engine_crash');
    assert.deepEqual(
      crash.map((e) => [e.ts_ms, e.attrs.container, e.attrs.exit_code, e.attrs.started_ms, e.attrs.image]),
      [[at('2026-03-14T09:18:57Z'), 'sglang', 1, at('2026-03-14T09:12:03Z'), 'lmsysorg/sglang:v0.4.6.post1-cu124']],
    );
    assert.deepEqual(
      events(r, 'engine_restart').map((e) => [e.ts_ms, e.attrs.restart_count]),
      [[at('2026-03-14T09:19:30Z'), 2]],
    );
    assert.match(ev.find((e) => e.attrs.reason === 'PodStart')!.text, /^pod\/sglang-qwen-0 started on gpu-node-5; status when described: Running$/);
  } finally {
    r.dispose();
  }
});

test('get events -o wide: columns by the header, FIRST SEEN and COUNT read; the ages count back from the mtime, warned', async () => {
  const mtime = at('2026-03-14T10:00:00Z');
  const r = await runImporter(kubernetesImporter, { file: sample('kubectl-get-events-wide.txt'), mtimeMs: mtime });
  try {
    assert.equal(r.error, null);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /ages and states count back from when kubectl ran, which the file does not say: placed at the file's modification time, 2026-03-14T10:00:00\.000Z/);
    const backoff = events(r).find((e) => e.attrs.reason === 'BackOff')!;
    assert.equal(backoff.ts_ms, mtime - 20 * 60_000);
    assert.equal(backoff.attrs.last_ms, mtime - 122_000);
    assert.equal(backoff.attrs.count, 9);
    assert.equal(backoff.attrs.container, 'tgi');
    assert.equal(backoff.attrs.source, 'kubelet, gpu-node-2');
    assert.equal(events(r).find((e) => e.attrs.reason === 'Scheduled')!.attrs.container, undefined);
  } finally {
    r.dispose();
  }
});

test('older and looser shapes: the legacy table, the 2015 tab-separated describe, rows pasted without a header, kubectl events -A', async () => {
  const mtime = at('2026-03-14T10:00:00Z');
  const legacy = [
    'LASTSEEN   FIRSTSEEN   COUNT     NAME            KIND      SUBOBJECT               TYPE      REASON      SOURCE                     MESSAGE',
    '13m        20m         4         vllm-0          Pod       spec.containers{vllm}   Warning   BackOff     {kubelet gpu-node-1}       Back-off restarting failed container',
    '',
  ].join('\n');
  const describe2015 = [
    'Name:\t\t\t\tvllm-0',
    'Namespace:\t\t\tdefault',
    'Containers:',
    '  vllm:',
    '    State:\t\tRunning',
    '      Started:\t\tTue, 07 Jul 2015 12:54:41 -0700',
    '    Restart Count:\t5',
    'Events:',
    '  FirstSeen\t\t\t\tLastSeen\t\t\tCount\tFrom\t\t\t\t\tSubobjectPath\t\t\t\tReason\t\tMessage',
    '  Tue, 07 Jul 2015 12:53:51 -0700\tTue, 07 Jul 2015 12:53:51 -0700\t1\t{scheduler }\t\t\t\t\t\tscheduled\tSuccessfully assigned vllm-0 to node-a',
    '',
  ].join('\n');
  const loose = [
    'luding waiting). Image size: 119461385 bytes.',
    '  Warning  Unhealthy  25m (x3 over 26m)  kubelet  Liveness probe failed: HTTP probe failed with statuscode: 404',
    '  Normal   Killing    25m                kubelet  Container vllm failed liveness probe, will be restarted',
    '7m45s       Normal    Killing      pod/vllm-1     Stopping container vllm',
    '',
  ].join('\n');
  const dashA = [
    'NAMESPACE   LAST SEEN           TYPE      REASON      OBJECT       MESSAGE',
    'llm         20m (x3 over 30m)   Warning   BackOff     pod/vllm-2   Back-off restarting failed container vllm in pod vllm-2',
    '',
  ].join('\n');
  for (const [text, want] of [
    [legacy, [['BackOff', mtime - 20 * 60_000, 4, 'pod/vllm-0', 'vllm']]],
    [
      describe2015,
      [
        ['scheduled', at('2015-07-07T19:53:51Z'), 1, 'pod/vllm-0', undefined],
        ['restart', at('2015-07-07T19:54:41Z'), undefined, undefined, 'vllm'],
      ],
    ],
    [
      loose,
      [
        ['Unhealthy', mtime - 26 * 60_000, 3, '', undefined],
        ['Killing', mtime - 25 * 60_000, 1, '', 'vllm'],
        ['Killing', mtime - 465_000, 1, 'pod/vllm-1', 'vllm'],
      ],
    ],
    [dashA, [['BackOff', mtime - 30 * 60_000, 3, 'pod/vllm-2', 'vllm']]],
  ] as const) {
    assert.equal(detected(text), 'kubernetes', text);
    const r = await runImporter(kubernetesImporter, { text, mtimeMs: mtime });
    try {
      assert.equal(r.error, null, text);
      assert.deepEqual(
        events(r).map((e) => [e.kind === 'engine_restart' ? 'restart' : e.attrs.reason, e.ts_ms, e.attrs.count, e.attrs.object ?? undefined, e.attrs.container]),
        want,
        text,
      );
      if (text === dashA) assert.equal(events(r)[0].attrs.namespace, 'llm');
    } finally {
      r.dispose();
    }
  }
});

test('JSON after a shell prompt and objects one after another (--watch -o json); YAML kubectl never writes and a truncated JSON name their line', async () => {
  const one = (reason: string, t: string) =>
    JSON.stringify({ kind: 'Event', apiVersion: 'v1', involvedObject: { kind: 'Pod', name: 'vllm-0', namespace: 'llm' }, reason, message: reason, type: 'Warning', count: 1, firstTimestamp: t, lastTimestamp: t }, null, 2);
  const watch = `$ kubectl get events -w -o json\n${one('Unhealthy', '2026-03-14T09:00:00Z')}\n${one('BackOff', '2026-03-14T09:01:00Z')}\n`;
  assert.equal(detected(watch), 'kubernetes');
  const r = await runImporter(kubernetesImporter, { text: watch });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(
      events(r).map((e) => [e.attrs.reason, e.ts_ms, e.line]),
      [
        ['Unhealthy', at('2026-03-14T09:00:00Z'), 2],
        ['BackOff', at('2026-03-14T09:01:00Z'), 17],
      ],
    );
  } finally {
    r.dispose();
  }
  // YAML kubectl never writes fails naming its line.
  const anchored = 'apiVersion: v1\nitems:\n- kind: Event\n  reason: &r BackOff\n  involvedObject:\n    kind: Pod\n';
  assert.equal(detected(anchored), 'kubernetes');
  const y = await runImporter(kubernetesImporter, { text: anchored, name: 'events.yaml' });
  try {
    assert.match(String(y.error?.message), /events\.yaml \(line 4\): not the YAML kubectl writes: anchors, aliases and tags are not read/);
  } finally {
    y.dispose();
  }
  const cut = await runImporter(kubernetesImporter, { text: watch.slice(0, watch.lastIndexOf('"reason"')), name: 'events.json' });
  try {
    assert.match(String(cut.error?.message), /events\.json \(line 17\): the JSON ends early — the file is truncated/);
    assert.equal(events(cut).length, 0, 'nothing of a failed file is kept');
  } finally {
    cut.dispose();
  }
});

test('detection leaves other text and JSON alone', () => {
  assert.equal(detected('INFO 03-14 09:00:00 engine.py:267] Added request cmpl-1.\n'), 'vllm-log');
  assert.notEqual(detected('{"ts": "2026-03-14T09:00:00Z", "level": "warning", "reason": "x", "msg": "y"}\n'), 'kubernetes');
  assert.notEqual(detected('Name: my report\nSome text\n'), 'kubernetes');
  assert.equal(detected(readFileSync(sample('kubectl-get-pod.json'), 'utf8')), 'kubernetes');
});

test("kubectl get pods -o yaml after its prompt: the error exit at its finish (its termination message's CUDA OOM an oom), the restart; a yq cut of one lastState.terminated", async () => {
  const r = await runImporter(kubernetesImporter, { file: sample('kubectl-get-pods.yaml') });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(
      events(r).map((e) => [e.kind, e.ts_ms, e.attrs.container, e.attrs.restart_count]),
      [
        ['engine_crash', at('2026-03-14T09:31:07Z'), 'vllm', 2],
        ['oom', at('2026-03-14T09:31:07Z'), 'vllm', 2],
        ['engine_restart', at('2026-03-14T09:31:39Z'), 'vllm', 2],
      ],
    );
    const oom = events(r, 'oom')[0];
    assert.equal(oom.attrs.tried_bytes, Math.round(1.96 * 2 ** 30));
    assert.equal(oom.attrs.from, 'kubernetes');
  } finally {
    r.dispose();
  }
  const yq = "$ kubectl get pod vllm-0 -o yaml | yq '.status.containerStatuses[0].lastState.terminated'\ncontainerID: containerd://0f30\nexitCode: 137\nfinishedAt: \"2026-03-14T10:56:44Z\"\nreason: OOMKilled\nstartedAt: \"2026-03-14T10:56:35Z\"\n";
  assert.equal(detected(yq), 'kubernetes');
  const c = await runImporter(kubernetesImporter, { text: yq, name: 'terminated.txt' });
  try {
    assert.equal(c.error, null);
    assert.deepEqual(events(c).map((e) => [e.kind, e.ts_ms, e.attrs.exit_code]), [['host_oom_kill', at('2026-03-14T10:56:44Z'), 137]]);
  } finally {
    c.dispose();
  }
});

test('kubectl get pods -A -o wide: each pod its state when listed, the last restart at its age, OOMKilled a host OOM kill; old counts without an age get no time', async () => {
  const mtime = at('2026-03-14T10:00:00Z');
  const text = [
    '$ kubectl get pods -A -o wide',
    'NAMESPACE   NAME                         READY   STATUS             RESTARTS        AGE   IP            NODE         NOMINATED NODE   READINESS GATES',
    'serving     vllm-llama-7b9c5d-x2k4p      0/1     CrashLoopBackOff   5 (2m30s ago)   13m   10.244.0.13   gpu-node-1   <none>           <none>',
    'serving     vllm-llama-7b9c5d-q8r7t      1/1     Running            0               13m   10.244.0.14   gpu-node-2   <none>           <none>',
    'serving     sglang-qwen-5f6d7-m2n3b      0/1     OOMKilled          3 (40s ago)     9m    10.244.1.7    gpu-node-2   <none>           <none>',
    'kube-system coredns-5d78c9869d-abcde     1/1     Running            7               30d   10.244.0.2    gpu-node-1   <none>           <none>',
    '$ ',
  ].join('\n');
  const r = await runImporter(kubernetesImporter, { text, name: 'pods.txt', mtimeMs: mtime });
  try {
    assert.equal(r.error, null);
    assert.match(r.warnings.join('\n'), /ages and states count back from when kubectl ran/);
    const restarts = events(r, 'engine_restart');
    assert.deepEqual(restarts.map((e) => [e.attrs.pod, e.ts_ms, e.attrs.restart_count]), [
      ['vllm-llama-7b9c5d-x2k4p', mtime - 150_000, 5],
      ['sglang-qwen-5f6d7-m2n3b', mtime - 40_000, 3],
    ]);
    assert.equal(restarts[0].severity, 'warning');
    const oom = events(r, 'host_oom_kill');
    assert.deepEqual(oom.map((e) => [e.attrs.pod, e.ts_ms, e.attrs.node, e.attrs.host]), [['sglang-qwen-5f6d7-m2n3b', mtime, 'gpu-node-2', true]]);
    const states = events(r, 'log');
    assert.deepEqual(states.map((e) => [e.attrs.namespace, e.attrs.pod, e.attrs.status, e.severity]), [
      ['serving', 'vllm-llama-7b9c5d-x2k4p', 'CrashLoopBackOff', 'warning'],
      ['serving', 'vllm-llama-7b9c5d-q8r7t', 'Running', 'info'],
      ['kube-system', 'coredns-5d78c9869d-abcde', 'Running', 'info'],
    ]);
    assert.ok(states.every((e) => e.ts_ms === mtime));
    // 7 restarts without an age (kubectl before 1.22): kept in its state's text, not dated.
    assert.match(states[2].text, /7 restarts, age 30d/);
  } finally {
    r.dispose();
  }
});

test("kubectl get pods: a --watch row again is the pod's later state; get all names pods pod/…, its next table ends the pods; a listed and described pod dates the listing and its restarts come from the describe", async () => {
  const watch = [
    'NAME                      READY   STATUS             RESTARTS      AGE',
    'tgi-mistral-6c8f9-abcde   1/1     Running            1 (5m ago)    20m',
    'tgi-mistral-6c8f9-abcde   0/1     Error              1 (6m ago)    21m',
    'tgi-mistral-6c8f9-abcde   0/1     CrashLoopBackOff   2 (1s ago)    21m',
  ].join('\n');
  const mtime = at('2026-03-14T10:00:00Z');
  let r = await runImporter(kubernetesImporter, { text: watch, name: 'watch.txt', mtimeMs: mtime });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(events(r).map((e) => [e.kind, e.attrs.status, e.attrs.restart_count]), [
      ['log', 'CrashLoopBackOff', 2],
      ['engine_restart', 'CrashLoopBackOff', 2],
    ]);
  } finally {
    r.dispose();
  }
  const all = [
    'NAME                                 READY   STATUS    RESTARTS       AGE',
    'pod/vllm-3b-57c8d4996c-qtr8b         0/1     Running   6 (118s ago)   20m',
    '',
    'NAME                 TYPE        CLUSTER-IP     EXTERNAL-IP   PORT(S)    AGE',
    'service/vllm-3b      ClusterIP   10.96.12.34    <none>        8000/TCP   20m',
  ].join('\n');
  r = await runImporter(kubernetesImporter, { text: all, name: 'all.txt', mtimeMs: mtime });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(events(r).map((e) => [e.kind, e.attrs.pod, e.ts_ms]), [
      ['log', 'vllm-3b-57c8d4996c-qtr8b', mtime],
      ['engine_restart', 'vllm-3b-57c8d4996c-qtr8b', mtime - 118_000],
    ]);
  } finally {
    r.dispose();
  }
  const both = [
    '$ kubectl get pods',
    'NAME                         READY   STATUS             RESTARTS        AGE',
    'vllm-qwen-5cc594fd46-hg5rw   0/1     CrashLoopBackOff   5 (2m30s ago)   13m',
    '$ kubectl describe pod vllm-qwen-5cc594fd46-hg5rw',
    'Name:             vllm-qwen-5cc594fd46-hg5rw',
    'Namespace:        default',
    'Node:             gpu-1/192.168.49.2',
    'Start Time:       Tue, 06 May 2025 17:37:06 +0000',
    'Status:           Running',
    'Containers:',
    '  vllm-openai:',
    '    State:          Waiting',
    '      Reason:       CrashLoopBackOff',
    '    Last State:     Terminated',
    '      Reason:       Error',
    '      Exit Code:    1',
    '      Started:      Tue, 06 May 2025 17:47:36 +0000',
    '      Finished:     Tue, 06 May 2025 17:48:20 +0000',
    '    Restart Count:  5',
  ].join('\n');
  r = await runImporter(kubernetesImporter, { text: both, name: 'both.txt', mtimeMs: mtime });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, [], 'the listing is dated by the describe: Start Time + the listed age');
    const listed = events(r).find((e) => e.attrs.reason === 'PodStatus')!;
    assert.equal(listed.ts_ms, at('2025-05-06T17:50:06Z'));
    assert.deepEqual(events(r, 'engine_restart'), [], 'the describe shows no run after the exit: no restart from the table either');
    assert.deepEqual(events(r, 'engine_crash').map((e) => e.ts_ms), [at('2025-05-06T17:48:20Z')]);
  } finally {
    r.dispose();
  }
  assert.equal(detected(all), 'kubernetes');
});

test("review: a pods table that opens an engine log's paste leaves the file to the log's reader; --watch rows that no longer line up are still read; a coarse age defers to an mtime inside it; a described OOM kill is not counted twice", async () => {
  const paste = [
    '$ kubectl get pods',
    'NAME                         READY   STATUS             RESTARTS       AGE',
    'vllm-qwen-5cc594fd46-hg5rw   0/1     CrashLoopBackOff   5 (2m30s ago)   13m',
    '$ kubectl logs vllm-qwen-5cc594fd46-hg5rw --previous',
    readFileSync(sample('vllm-rocm-hip-oom.log'), 'utf8'),
  ].join('\n');
  assert.equal(detected(paste), 'vllm-log');

  const watch = [
    'NAME                      READY   STATUS    RESTARTS   AGE',
    'tgi-mistral-6c8f9-abcde   1/1     Running   0          20m',
    'tgi-mistral-6c8f9-abcde   0/1   OOMKilled   0     21m',
    'tgi-mistral-6c8f9-abcde   0/1   CrashLoopBackOff   1 (1s ago)   21m',
  ].join('\n');
  const mtime = at('2026-03-14T10:00:00Z');
  let r = await runImporter(kubernetesImporter, { text: watch, name: 'watch.txt', mtimeMs: mtime });
  try {
    assert.deepEqual(events(r).map((e) => [e.kind, e.attrs.status]), [
      ['log', 'CrashLoopBackOff'],
      ['engine_restart', 'CrashLoopBackOff'],
    ]);
  } finally {
    r.dispose();
  }

  const describe = (age: string, terminated: string) => [
    'NAME                         READY   STATUS      RESTARTS      AGE',
    `vllm-qwen-5cc594fd46-hg5rw   0/1     OOMKilled   3 (5m ago)    ${age}`,
    'Name:             vllm-qwen-5cc594fd46-hg5rw',
    'Namespace:        default',
    'Start Time:       Wed, 18 Feb 2026 14:00:00 +0000',
    'Containers:',
    '  vllm-openai:',
    '    State:          Terminated',
    '      Reason:       OOMKilled',
    '      Exit Code:    137',
    `      Started:      ${terminated}`,
    `      Finished:     ${terminated}`,
    '    Restart Count:  3',
  ].join('\n');
  // 23d after Feb 18 14:00 is some time on Mar 13 14:00 … Mar 14 14:00: the mtime, inside it, is when kubectl ran.
  r = await runImporter(kubernetesImporter, { text: describe('23d', 'Sat, 14 Mar 2026 09:59:00 +0000'), name: 'd.txt', mtimeMs: mtime });
  try {
    assert.deepEqual(r.warnings, []);
    assert.equal(events(r).find((e) => e.attrs.reason === 'PodStatus')!.ts_ms, mtime);
    assert.deepEqual(events(r, 'host_oom_kill').map((e) => e.ts_ms), [at('2026-03-14T09:59:00Z')], 'the describe dates the kill; the row does not add one');
  } finally {
    r.dispose();
  }
  // An mtime outside the age's day (a copy made later): the day's start, warned.
  r = await runImporter(kubernetesImporter, { text: describe('23d', 'Sat, 14 Mar 2026 09:59:00 +0000'), name: 'd.txt', mtimeMs: at('2026-04-01T00:00:00Z') });
  try {
    assert.match(r.warnings.join('\n'), /known to within 1440 min/);
    assert.equal(events(r).find((e) => e.attrs.reason === 'PodStatus')!.ts_ms, at('2026-03-13T14:00:00Z'));
  } finally {
    r.dispose();
  }
});

test('re-read: a pods table beside a describe is the describe\'s file even where the image names an engine; a describe cut before its container states does not hide the table\'s restart', async () => {
  const text = [
    '$ kubectl get pods',
    'NAME                           READY   STATUS             RESTARTS        AGE',
    'sglang-qwen-5cc594fd46-hg5rw   0/1     CrashLoopBackOff   5 (2m30s ago)   13m',
    '$ kubectl describe pod sglang-qwen-5cc594fd46-hg5rw',
    'Name:             sglang-qwen-5cc594fd46-hg5rw',
    'Namespace:        default',
    'Start Time:       Tue, 06 May 2025 17:37:06 +0000',
    'Status:           Running',
    'Containers:',
    '  sglang:',
    '    Image:          lmsysorg/sglang:v0.4.6',
  ].join('\n');
  assert.equal(detected(text), 'kubernetes');
  const r = await runImporter(kubernetesImporter, { text, name: 'both.txt', mtimeMs: at('2026-03-14T10:00:00Z') });
  try {
    assert.deepEqual(events(r, 'engine_restart').map((e) => e.ts_ms), [at('2025-05-06T17:50:06Z') - 150_000]);
  } finally {
    r.dispose();
  }
});

test('an events table printed with custom columns (LAST_SEEN:.lastTimestamp, …): absolute RFC 3339 times, read as written', async () => {
  const text = [
    'LAST_SEEN              TYPE      REASON      OBJECT                  MESSAGE',
    '2025-09-30T08:01:23Z   Warning   BackOff     pod/sglang-0            Back-off restarting failed container sglang in pod sglang-0_genai',
    '2025-09-30T08:02:17Z   Normal    Killing     pod/sglang-1            Stopping container sglang',
    '',
  ].join('\n');
  const camel = ['FirstSeen              LastSeen               Count   Type      Reason      Message', '2025-09-30T07:00:00Z   2025-09-30T08:00:00Z   5       Warning   Unhealthy   Readiness probe failed', ''].join('\n');
  for (const [doc, want] of [
    [
      text,
      [
        ['BackOff', at('2025-09-30T08:01:23Z'), 'pod/sglang-0', 'sglang'],
        ['Killing', at('2025-09-30T08:02:17Z'), 'pod/sglang-1', 'sglang'],
      ],
    ],
    [camel, [['Unhealthy', at('2025-09-30T07:00:00Z'), '', '']]],
  ] as const) {
    assert.equal(detected(doc), 'kubernetes', doc);
    const r = await runImporter(kubernetesImporter, { text: doc, mtimeMs: at('2026-03-14T10:00:00Z') });
    try {
      assert.equal(r.error, null);
      assert.deepEqual(
        events(r).map((e) => [e.attrs.reason, e.ts_ms, e.attrs.object ?? '', e.attrs.container ?? '']),
        want,
      );
    } finally {
      r.dispose();
    }
  }
});
