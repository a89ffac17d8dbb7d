// Instances × time by quadrant: offered where the incident holds several serving instances.
import { definePanel } from '../panel';
import { Fleet } from './Fleet';

export default definePanel({ id: 'fleet', title: 'Fleet', component: Fleet, available: ({ diagnosis }) => (diagnosis?.instances?.length ?? 0) >= 2 });
