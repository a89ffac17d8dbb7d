// The read-only SQL console over the documented tables, on the open incident.
import { definePanel } from '../panel';
import { SqlConsole } from './SqlConsole';

export default definePanel({ id: 'sql', title: 'SQL', component: SqlConsole });
