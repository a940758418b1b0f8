/** Makes the contract client available to every component (the real transport or a test fake). */
import { createContext, useContext, type ReactNode } from 'react';
import type { TrawlApi } from '../../../shared/rpc.js';

const ApiContext = createContext<TrawlApi | null>(null);

export function ApiProvider({ api, children }: { api: TrawlApi; children: ReactNode }) {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): TrawlApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiProvider');
  return api;
}
