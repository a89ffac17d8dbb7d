// GPU hardware fault: an Xid of the hardware class, double-bit ECC, a row remap or the driver's call for a
// reset (its recovery action) near the symptoms.
import { SIG } from '../../../../common/names';
import { cond, defineCause, eventEvidence, medB, medE, missingInputs, notAssessable, type CauseContext, type RuleResult } from './context';
import { hardwareFaults } from './shared';

export const gpuHardwareFault = defineCause({
  id: 'gpu_hardware_fault',
  level: 0,
  rule,
});

function rule(c: CauseContext): RuleResult {
  const missing = missingInputs(c.f, [['events', SIG.gpuXid, SIG.gpuEccDbe, SIG.gpuRecoveryAction, SIG.gpuRowRemapPending]]);
  if (missing.length) return notAssessable('gpu_hardware_fault', missing);
  const { hw, soft } = hardwareFaults(c);
  const codes = [...new Set(hw.map((x) => x.code ?? 'HW text'))].join(', ');
  return {
    id: 'gpu_hardware_fault',
    missing: [],
    require: [cond('HW-class Xid (79/48/94/95/74/119/120…), double-bit ECC, a row remap, the driver asking for a reset or HW CUDA error in the window', hw.length ? codes : 'none', hw.length > 0)],
    support: [cond('GPU stopped producing tokens after the fault', medE(c, c.f.gtok), hw.length > 0 && medE(c, c.f.gtok) < 0.5 * medB(c, c.f.gtok))],
    veto: [cond('only Xid 13/31/43/45 (software bug or secondary cleanup)', soft.map((x) => x.code).join(', ') || 'none', soft.length > 0 && hw.length === 0)],
    evidence: hw.slice(0, 5).map((x) => (x.event ? eventEvidence(x.event) : { kind: 'series' as const, ref: x.ref ?? SIG.gpuXid, start_ms: x.t, end_ms: x.t, text: x.text })),
    onset_ms: hw[0]?.t ?? null,
  };
}
