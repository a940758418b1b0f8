/** Query suggestions for what is typed, debounced, with stale answers dropped. */
import { useEffect, useRef, useState } from 'react';
import type { TrawlApi } from '../../../shared/rpc.js';

export function useSuggestions(api: TrawlApi, typed: string, enabled: boolean, debounceMs = 90): string[] {
  const [suggestions, setSuggestions] = useState<{ for: string; list: string[] }>({ for: '', list: [] });
  const request = useRef(0);
  useEffect(() => {
    const n = ++request.current;
    const last = typed.trim().split(/\s+/).pop() ?? '';
    if (!enabled || last.length < 2 || /[:"()]/.test(last)) return;
    const timer = setTimeout(() => {
      api.suggest({ prefix: typed }).then(
        (list) => {
          if (n === request.current)
            setSuggestions({
              for: typed,
              list: list.filter((s) => s.toLowerCase() !== typed.trim().toLowerCase()),
            });
        },
        () => {},
      );
    }, debounceMs);
    return () => clearTimeout(timer);
  }, [api, typed, enabled, debounceMs]);
  return enabled && suggestions.for === typed ? suggestions.list.slice(0, 6) : [];
}
