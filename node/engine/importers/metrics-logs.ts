// The metric and log importers (Prometheus text/JSON, VictoriaMetrics' export, Grafana's CSV, nvidia-smi, engine logs, kernel logs, JSON lines, Kubernetes, gateway access logs).
import type { Importer } from './types';
import { accessLogImporter } from './access-log';
import { jsonlLogImporter } from './jsonl-log';
import { kernelLogImporter } from './kernel-log';
import { kubernetesImporter } from './kubernetes';
import { nvidiaSmiAppsCsvImporter, nvidiaSmiCsvImporter, nvidiaSmiDmonImporter, nvidiaSmiPmonImporter } from './nvidia-smi';
import { nvidiaSmiTextImporter } from './nvidia-smi-text';
import { nvidiaSmiXmlImporter } from './nvidia-smi-xml';
import { dcgmiDmonImporter } from './dcgmi-dmon';
import { grafanaCsvImporter } from './grafana-csv';
import { prometheusJsonImporter } from './prometheus-json';
import { prometheusTextImporter } from './prometheus-text';
import { victoriaExportImporter } from './victoria-export';
import { sglangLogImporter, tgiLogImporter, torchLogImporter, vllmLogImporter } from './vllm-log';

export const METRIC_LOG_IMPORTERS: readonly Importer[] = [
  prometheusTextImporter,
  prometheusJsonImporter,
  victoriaExportImporter,
  grafanaCsvImporter,
  nvidiaSmiCsvImporter,
  nvidiaSmiAppsCsvImporter,
  nvidiaSmiDmonImporter,
  nvidiaSmiPmonImporter,
  nvidiaSmiTextImporter,
  nvidiaSmiXmlImporter,
  dcgmiDmonImporter,
  vllmLogImporter,
  sglangLogImporter,
  tgiLogImporter,
  torchLogImporter,
  kernelLogImporter,
  jsonlLogImporter,
  kubernetesImporter,
  accessLogImporter,
];
