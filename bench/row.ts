/** One line of the bench's table: a scenario or a baseline, and its ratio to the baseline it is measured against. */
export interface Row {
  name: string;
  connections?: number;
  rps?: number;
  p50?: number;
  p99?: number;
  bad?: number;
  baseline?: string;
  ratio?: number;
  target?: string;
}
