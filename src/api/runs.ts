// `curricula/runs`: read a run's store from a script or a notebook — config, metrics, samples,
// checkpoints, events — without its lock, so it is safe beside a training process (src/runs/run-reader.ts).
export {
  type MetricQuery,
  type MetricRow,
  openRun,
  type RunCheckpoint,
  type RunEvent,
  type RunReader,
  type RunSample,
  type SampleQuery,
} from '../runs/run-reader.ts';
