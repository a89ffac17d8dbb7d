// Engine, kernel and application log lines with full-text search.
import { definePanel } from '../panel';
import { Logs } from './Logs';

export default definePanel({ id: 'logs', title: 'Logs', component: Logs });
