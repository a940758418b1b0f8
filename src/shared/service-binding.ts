/**
 * Binds the engine's TrawlService to the contract: one handler per method plus the event hub.
 * Transports (Electron engine host, web shell, tests) differ only in the hooks they pass for what
 * the engine cannot do itself (opening files, native dialogs, window control).
 */
import type { Background } from '../main/core/live/background.js';
import type { ServiceEventName, TrawlService } from '../main/core/service.js';
import type { AppInfo, OpenResult } from './contract.js';
import { EventHub } from './event-hub.js';
import { TrawlError, toRpcError, type Handlers } from './rpc.js';

export interface BindingHooks {
  info: AppInfo;
  /** Opens a resolved item; resolves true when it did (default: never, the caller opens it). */
  openTarget?(kind: OpenResult['kind'], target: string, action: 'open' | 'reveal'): Promise<boolean>;
  pickFolder?(): Promise<string | null>;
  hideWindow?(): void;
  /** The watching and scheduling runner, when the transport started one (`liveStatus`, `live-status`). */
  background?: Background;
}

const desktopOnly = (): never => {
  throw new TrawlError('UNSUPPORTED', 'Desktop settings exist in the desktop app only');
};

export interface ServiceBinding {
  handlers: Handlers;
  events: EventHub;
  /** Unsubscribes from the service's events. Idempotent. */
  dispose(): void;
}

const serviceEvents: readonly ServiceEventName[] = ['progress', 'crawl-finished', 'sources-changed'];

export function bindService(service: TrawlService, hooks: BindingHooks): ServiceBinding {
  const events = new EventHub();
  const offs = serviceEvents.map((name) => service.on(name, (payload) => events.emit(name, payload)));
  if (hooks.background) offs.push(hooks.background.onStatus((st) => events.emit('live-status', st)));
  const ensureSource = (sourceId: number | undefined): void => {
    if (sourceId !== undefined && !service.listSources().some((s) => s.id === sourceId)) {
      throw new TrawlError('NOT_FOUND', `No source with id ${sourceId}`);
    }
  };

  const handlers: Handlers = {
    listSources: () => service.listSources(),
    addSource: (req) => service.addSource(req),
    updateSource: ({ id, patch }) => {
      ensureSource(id);
      return service.updateSource(id, patch);
    },
    removeSource: ({ id }) => {
      ensureSource(id);
      service.removeSource(id);
      return null;
    },
    testRules: ({ sourceId, target }) => {
      ensureSource(sourceId);
      return service.testRules(sourceId, target);
    },
    startCrawl: ({ sourceId, mode }) => {
      ensureSource(sourceId);
      service.crawl({ sourceId, mode }).catch((error: unknown) => {
        const { code, message } = toRpcError(error);
        events.emit('crawl-error', { sourceId: sourceId ?? null, code, message });
      });
      return null;
    },
    stopCrawl: ({ sourceId }) => {
      service.stopCrawl(sourceId);
      return null;
    },
    pause: ({ sourceId }) => {
      service.pause(sourceId);
      return null;
    },
    resume: ({ sourceId }) => {
      service.resume(sourceId);
      return null;
    },
    search: (req) => service.search(req),
    preview: ({ id, query }) => service.preview(id, query),
    suggest: ({ prefix }) => service.suggest(prefix),
    status: () => service.status(),
    liveStatus: () => hooks.background?.status() ?? null,
    log: (req) => service.log(req),
    whoami: () => service.whoami(),
    openItem: async ({ id, action }) => {
      const resolved = await (action === 'reveal' ? service.revealItem(id) : service.openItem(id));
      if (!resolved) return null;
      const opened = hooks.openTarget
        ? await hooks.openTarget(resolved.kind, resolved.target, action)
        : false;
      return { kind: resolved.kind, target: resolved.target, opened };
    },
    setCredential: async ({ id, secret }) => {
      await service.setCredential(id, secret);
      return null;
    },
    credentialIds: () => service.credentialIds(),
    pickFolder: async () => {
      if (!hooks.pickFolder)
        throw new TrawlError('UNSUPPORTED', 'No folder picker here: type the folder path');
      return hooks.pickFolder();
    },
    hideWindow: () => {
      hooks.hideWindow?.();
      return null;
    },
    appInfo: () => hooks.info,
    desktopSettings: desktopOnly,
    updateDesktopSettings: desktopOnly,
  };

  let disposed = false;
  return {
    handlers,
    events,
    dispose() {
      if (disposed) return;
      disposed = true;
      offs.forEach((off) => off());
    },
  };
}
