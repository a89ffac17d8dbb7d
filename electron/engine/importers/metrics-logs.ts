// The metric and log importers (Prometheus text/JSON, nvidia-smi, engine logs, kernel logs, JSON lines).
import type { Importer } from './types';
import { prometheusTextImporter } from './prometheus-text';

export const METRIC_LOG_IMPORTERS: readonly Importer[] = [prometheusTextImporter];
