// The profiler and trace importers (Kineto, memory snapshots, Nsight Systems/Compute and their CSV reports, nvprof, OTLP, Jaeger, Zipkin).
import type { Importer } from './types';
import { kinetoImporter } from './kineto';
import { memorySnapshotImporter } from './memory-snapshot';
import { memoryTimelineImporter } from './memory-timeline';
import { nsysRepImporter, nsysSqliteImporter } from './nsys-sqlite';
import { ncuCsvImporter } from './ncu-csv';
import { nsysStatsCsvImporter, nvprofCsvImporter } from './gpu-trace-csv';
import { otlpImporter } from './otlp';
import { jaegerImporter } from './jaeger';
import { zipkinImporter } from './zipkin';

export const PROFILE_TRACE_IMPORTERS: readonly Importer[] = [
  kinetoImporter,
  memorySnapshotImporter,
  memoryTimelineImporter,
  nsysSqliteImporter,
  nsysRepImporter,
  ncuCsvImporter,
  nsysStatsCsvImporter,
  nvprofCsvImporter,
  otlpImporter,
  jaegerImporter,
  zipkinImporter,
];
