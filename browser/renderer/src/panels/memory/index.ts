// Memory by allocation site, reserved vs allocated, the leak slope and the stacks holding memory.
import { definePanel } from '../panel';
import { Memory } from './Memory';

export default definePanel({ id: 'memory', title: 'Memory', component: Memory });
