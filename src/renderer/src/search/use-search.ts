/**
 * Search-as-you-type: debounces the request, drops responses that are no longer current (a
 * generation counter), and loads result pages lazily as the list scrolls.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RequestOf, SearchHit, SearchResponse } from '../../../shared/contract.js';
import { TrawlError, type TrawlApi } from '../../../shared/rpc.js';

export const PAGE_SIZE = 100;
/** The list never grows beyond this many rows (refine the query instead). */
export const MAX_ROWS = 10_000;

export type SearchParams = Omit<RequestOf<'search'>, 'limit' | 'offset'>;

export interface SearchState {
  status: 'idle' | 'loading' | 'ready' | 'error';
  /** The query the shown results belong to. */
  query: string;
  total: number;
  tookMs: number;
  terms: string[];
  relaxed: boolean;
  /** Sparse: index → hit for the pages loaded so far. */
  hits: Map<number, SearchHit>;
  error: TrawlError | null;
  /** Bumped whenever a new result set replaces the old one (also when the same query is re-run). */
  generation: number;
  /** Identifies the request (query, filters, sort) the results answer; a re-run keeps it. */
  key: string;
}

const initial: SearchState = {
  status: 'idle',
  query: '',
  total: 0,
  tookMs: 0,
  terms: [],
  relaxed: false,
  hits: new Map(),
  error: null,
  generation: 0,
  key: '',
};

function asTrawlError(error: unknown): TrawlError {
  return error instanceof TrawlError
    ? error
    : new TrawlError('INTERNAL', (error as Error)?.message ?? String(error));
}

export function useSearch(api: TrawlApi, params: SearchParams, debounceMs = 120) {
  const [state, setState] = useState<SearchState>(initial);
  const generation = useRef(0);
  const pending = useRef(new Set<number>());
  const current = useRef<SearchParams>(params);
  /** The generation whose results are on screen; pages are only fetched for it. */
  const shown = useRef(0);
  const key = JSON.stringify(params);
  const [reloadTick, setReloadTick] = useState(0);

  useEffect(() => {
    const gen = ++generation.current;
    pending.current = new Set();
    current.current = params;
    if (params.query.trim() === '') {
      setState({ ...initial, generation: gen, key });
      return;
    }
    setState((s) => ({ ...s, status: 'loading' }));
    const timer = setTimeout(() => {
      api.search({ ...params, limit: PAGE_SIZE, offset: 0 }).then(
        (res: SearchResponse) => {
          if (gen !== generation.current) return;
          const hits = new Map<number, SearchHit>();
          res.hits.forEach((h, i) => hits.set(i, h));
          pending.current.add(0);
          shown.current = gen;
          setState({
            status: 'ready',
            query: params.query,
            total: res.total,
            tookMs: res.tookMs,
            terms: res.terms,
            relaxed: res.relaxed === true,
            hits,
            error: null,
            generation: gen,
            key,
          });
        },
        (error: unknown) => {
          if (gen !== generation.current) return;
          setState({
            ...initial,
            status: 'error',
            query: params.query,
            error: asTrawlError(error),
            generation: gen,
          });
        },
      );
    }, debounceMs);
    return () => clearTimeout(timer);
  }, [api, key, debounceMs, reloadTick]); // `key` stands for every field of params

  /** Makes sure the page holding row `index` is loaded (or loading). */
  const ensureRow = useCallback(
    (index: number) => {
      const page = Math.floor(index / PAGE_SIZE);
      const gen = generation.current;
      if (shown.current !== gen || pending.current.has(page) || index >= MAX_ROWS) return;
      pending.current.add(page);
      api.search({ ...current.current, limit: PAGE_SIZE, offset: page * PAGE_SIZE }).then(
        (res) => {
          if (gen !== generation.current) return;
          setState((s) => {
            const hits = new Map(s.hits);
            res.hits.forEach((h, i) => hits.set(page * PAGE_SIZE + i, h));
            return { ...s, hits, total: res.total };
          });
        },
        () => {
          if (gen === generation.current) pending.current.delete(page);
        },
      );
    },
    [api],
  );

  const reload = useCallback(() => setReloadTick((n) => n + 1), []);
  return { state, ensureRow, reload };
}
