import type { ExtraFilter } from './filter-execution.js';
import type { FilterError, FilterInput, FilterOutput } from './filter.js';
import type { FilterSpec } from './filter-table.js';

/** Messages between the filter runner and its worker threads. */

/** `workerData` of a filter worker. */
export interface FilterWorkerData {
  /** URL of the worker module the bootstrap imports. */
  entry: string;
  extraFilters: ExtraFilter[];
}

/** Runner → worker: filter one item. */
export interface FilterJobMessage {
  type: 'job';
  id: number;
  spec: FilterSpec;
  input: FilterInput;
}

/** Worker → runner. */
export type FilterWorkerMessage =
  | { type: 'ready' }
  | { type: 'done'; id: number; output: FilterOutput }
  | { type: 'failed'; id: number; code: FilterError['code']; message: string };
