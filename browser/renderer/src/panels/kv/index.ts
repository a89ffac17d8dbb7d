// KV-cache usage, preemptions and the KV causes the diagnosis checked.
import { definePanel } from '../panel';
import { KvCache } from './KvCache';

export default definePanel({ id: 'kv', title: 'KV cache', component: KvCache });
