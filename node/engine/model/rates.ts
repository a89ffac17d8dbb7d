// The model's counter arithmetic is common/counters.ts (shared with the charts and the report). This
// module only keeps frame.ts's import working until that file imports common/counters.ts itself.
export { bucketCounter, counterIncrease, type CounterBuckets } from '../../../common/counters';
