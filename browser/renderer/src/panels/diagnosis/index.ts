// The ranked root causes with their conditions and evidence, and every cause checked.
import { definePanel } from '../panel';
import { DiagnosisPanel } from './Diagnosis';

export default definePanel({ id: 'diagnosis', title: 'Diagnosis', component: DiagnosisPanel });
