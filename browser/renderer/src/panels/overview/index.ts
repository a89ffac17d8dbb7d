// The incident at a glance: sources, span, the verdict, alerts.
import { definePanel } from '../panel';
import { Overview } from './Overview';

export default definePanel({ id: 'overview', title: 'Overview', component: Overview });
