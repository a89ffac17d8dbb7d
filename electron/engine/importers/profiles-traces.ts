// The profiler and trace importers (Kineto, memory snapshots, Nsight Systems/Compute, OTLP, Jaeger).
import type { Importer } from './types';

export const PROFILE_TRACE_IMPORTERS: readonly Importer[] = [];
