// Request traces (OTLP, Jaeger, Zipkin) as span trees.
import { definePanel } from '../panel';
import { Traces } from './Traces';

export default definePanel({ id: 'traces', title: 'Traces', component: Traces });
