/** App-wide UI services: switching screens and transient notices (toasts). */
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { AlertIcon, CheckIcon } from './components/icons.js';

export type View = 'search' | 'sources' | 'activity' | 'stats';

export interface NavigateOptions {
  /** Open the "add source" form on the sources screen. */
  addSource?: boolean;
  sourceId?: number;
}

interface Toast {
  id: number;
  message: string;
  tone: 'info' | 'error';
}

interface Ui {
  view: View;
  navOptions: NavigateOptions;
  navigate(view: View, options?: NavigateOptions): void;
  toast(message: string, tone?: Toast['tone']): void;
}

const UiContext = createContext<Ui | null>(null);

export function UiProvider({
  children,
  initialView = 'search',
}: {
  children: ReactNode;
  initialView?: View;
}) {
  const [view, setView] = useState<View>(initialView);
  const [navOptions, setNavOptions] = useState<NavigateOptions>({});
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const navigate = useCallback((v: View, options: NavigateOptions = {}) => {
    setView(v);
    setNavOptions(options);
  }, []);
  const toast = useCallback((message: string, tone: Toast['tone'] = 'info') => {
    const id = nextId.current++;
    setToasts((prev) => [...prev.slice(-2), { id, message, tone }]);
    setTimeout(() => setToasts((prev) => prev.filter((x) => x.id !== id)), tone === 'error' ? 6000 : 2800);
  }, []);
  const value = useMemo(() => ({ view, navOptions, navigate, toast }), [view, navOptions, navigate, toast]);
  return (
    <UiContext.Provider value={value}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((x) => (
          <div key={x.id} className={`toast toast--${x.tone}`}>
            {x.tone === 'error' ? <AlertIcon size={15} /> : <CheckIcon size={15} />}
            <span>{x.message}</span>
          </div>
        ))}
      </div>
    </UiContext.Provider>
  );
}

export function useUi(): Ui {
  const ctx = useContext(UiContext);
  if (!ctx) throw new Error('useUi outside UiProvider');
  return ctx;
}
