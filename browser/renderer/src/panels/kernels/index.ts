// GPU streams under the CPU threads that launched them, with CPU → GPU flows; a range for Perfetto.
import { definePanel } from '../panel';
import { Kernels } from './Kernels';

export default definePanel({ id: 'kernels', title: 'Kernels', component: Kernels });
