/**
 * The one contract between the UI and the engine: method name → zod request schema → response type,
 * plus the pushed events and the error codes. Electron IPC (main + preload), the web shell (HTTP)
 * and the renderer's clients are all typed from this map; there is no second copy of the API.
 *
 * Requests are single JSON objects (never positional arguments) so every transport validates them
 * the same way. Responses are plain serialisable values; `void` methods answer `null`.
 */
import { z } from 'zod';
import type { DocumentPreview, IndexStatus, SearchResponse } from '../main/core/api-types.js';
import type { RuleDecision } from '../main/core/crawl/crawl-rules.js';
import type { BackgroundStatus } from '../main/core/live/background.js';
import type { ContentSource, CrawlLogEntry } from '../main/core/model.js';
import type { CurrentUser } from '../main/core/security/security-provider.js';
import type { ServiceEvents } from '../main/core/service.js';
import { addressProblem } from './addresses.js';

/** Phantom marker carrying a response or payload type; it has no runtime value. */
function type<T>(): T {
  return undefined as T;
}

const id = z.number().int().positive();
const ext = z
  .string()
  .max(32)
  .regex(/^[a-z0-9_+-]+$/, 'lowercase extension without the dot');
const shortText = z.string().max(500);

const ruleSchema = z.strictObject({
  action: z.enum(['include', 'exclude']),
  syntax: z.enum(['glob', 'regex', 'prefix']),
  pattern: z.string().min(1).max(4096),
  credentialId: z.string().max(200).nullable().optional(),
  principals: z.array(shortText).max(100).optional(),
});

const weightsSchema = z.strictObject({
  title: z.number().min(0).max(1000),
  keywords: z.number().min(0).max(1000),
  description: z.number().min(0).max(1000),
  url: z.number().min(0).max(1000),
  body: z.number().min(0).max(1000),
});

const settingsSchema = z
  .strictObject({
    maxFileSize: z.number().int().min(0),
    followSymlinks: z.boolean(),
    includeHidden: z.boolean(),
    allowTypes: z.array(ext).max(500),
    denyTypes: z.array(ext).max(500),
    defaultExcludes: z.boolean(),
    parallelism: z.number().int().min(0).max(256),
    weights: weightsSchema,
    schedule: z.strictObject({
      incrementalMinutes: z.number().int().min(1).max(525_600).nullable().optional(),
      fullDays: z.number().int().min(1).max(3650).nullable().optional(),
    }),
    http: z.record(z.string(), z.unknown()).optional(),
    smb: z.record(z.string(), z.unknown()).optional(),
  })
  .partial();

const sourceKind = z.enum(['file', 'smb', 'http']);
const sourceFields = {
  name: z.string().trim().min(1).max(200).optional(),
  kind: sourceKind.optional(),
  startAddresses: z.array(z.string().trim().min(1).max(4096)).min(1).max(100),
  rules: z.array(ruleSchema).max(1000).optional(),
  settings: settingsSchema.optional(),
};

/** Every start address must be valid for the source's kind (or for some kind when none is given). */
function checkAddresses(
  value: { kind?: z.infer<typeof sourceKind>; startAddresses?: string[] },
  ctx: z.core.$RefinementCtx<unknown>,
): void {
  value.startAddresses?.forEach((address, i) => {
    const problem = addressProblem(address, value.kind);
    if (problem)
      ctx.addIssue({ code: 'custom', message: `${problem}: ${address}`, path: ['startAddresses', i] });
  });
}

const newSourceSchema = z.strictObject(sourceFields).superRefine(checkAddresses);
const sourcePatchSchema = z
  .strictObject({
    ...sourceFields,
    startAddresses: sourceFields.startAddresses.optional(),
    paused: z.boolean().optional(),
  })
  .superRefine(checkAddresses);

const noArgs = z.strictObject({});
const optionalSource = z.strictObject({ sourceId: id.optional() });

/** Result of testing one path or URL against a source's saved crawl rules. */
export type RuleTestResult = RuleDecision;

/** The identity queries are trimmed for. */
export type Whoami = CurrentUser;

/** What `openItem` resolved and whether the transport opened it itself. */
export interface OpenResult {
  kind: 'file' | 'url';
  target: string;
  /** False when the caller must open `target` (web shell: http(s) links open in the browser). */
  opened: boolean;
}

/** Which transport serves the UI and what it can do. */
export interface AppInfo {
  transport: 'electron' | 'web';
  version: string;
  platform: string;
  /** A native folder picker exists (`pickFolder`). */
  canPickFolder: boolean;
  /** `openItem` opens files with the OS default app. */
  canOpenFiles: boolean;
  /**
   * Set when results come from a system-wide `trawl daemon` (trimmed to the OS user running this
   * shell): sources, crawls and the crawl log are its administrator's, so the UI does not offer them.
   */
  daemon?: { socket: string };
}

/** Desktop-only preferences (Electron). */
export interface DesktopSettings {
  /** Electron accelerator that shows the search window from anywhere. */
  shortcut: string;
  startAtLogin: boolean;
  /** False when the shortcut is taken by another application. */
  shortcutActive: boolean;
}

/** The method map. Keys are the method names every transport serves. */
export const contract = {
  listSources: { request: noArgs, response: type<ContentSource[]>() },
  addSource: { request: newSourceSchema, response: type<ContentSource>() },
  updateSource: {
    request: z.strictObject({ id, patch: sourcePatchSchema }),
    response: type<ContentSource>(),
  },
  removeSource: { request: z.strictObject({ id }), response: type<null>() },
  testRules: {
    request: z.strictObject({ sourceId: id, target: z.string().min(1).max(4096) }),
    response: type<RuleTestResult>(),
  },
  /** Starts a crawl and answers at once; progress and the outcome arrive as events. */
  startCrawl: {
    request: z.strictObject({ sourceId: id.optional(), mode: z.enum(['full', 'incremental']).optional() }),
    response: type<null>(),
  },
  stopCrawl: { request: optionalSource, response: type<null>() },
  pause: { request: optionalSource, response: type<null>() },
  resume: { request: optionalSource, response: type<null>() },
  search: {
    request: z.strictObject({
      query: z.string().max(2000),
      limit: z.number().int().min(1).max(1000).optional(),
      offset: z.number().int().min(0).max(1_000_000).optional(),
      sort: z.enum(['relevance', 'date', 'name']).optional(),
      sourceIds: z.array(id).max(1000).optional(),
      types: z.array(ext).max(200).optional(),
      modifiedFrom: z.number().int().optional(),
      modifiedTo: z.number().int().optional(),
    }),
    response: type<SearchResponse>(),
  },
  preview: {
    request: z.strictObject({ id, query: z.string().max(2000).optional() }),
    response: type<DocumentPreview | null>(),
  },
  suggest: { request: z.strictObject({ prefix: z.string().max(200) }), response: type<string[]>() },
  status: { request: noArgs, response: type<IndexStatus>() },
  /** Watching and schedules per source; null when no background runner is attached. */
  liveStatus: { request: noArgs, response: type<BackgroundStatus | null>() },
  log: {
    request: z.strictObject({
      sourceId: id.optional(),
      crawlId: id.optional(),
      failedOnly: z.boolean().optional(),
      limit: z.number().int().min(1).max(10_000).optional(),
    }),
    response: type<CrawlLogEntry[]>(),
  },
  whoami: { request: noArgs, response: type<Whoami>() },
  /** Opens (or reveals in its folder) an item after re-checking that the caller may see it. */
  openItem: {
    request: z.strictObject({ id, action: z.enum(['open', 'reveal']) }),
    response: type<OpenResult | null>(),
  },
  setCredential: {
    request: z.strictObject({
      id: z.string().trim().min(1).max(200),
      secret: z.strictObject({
        user: z.string().min(1).max(500),
        password: z.string().max(4096),
        domain: z.string().max(500).optional(),
      }),
    }),
    response: type<null>(),
  },
  /** Ids of stored credentials (never the secrets). */
  credentialIds: { request: noArgs, response: type<string[]>() },
  /** Native folder picker (Electron only; the web shell answers UNSUPPORTED). */
  pickFolder: { request: noArgs, response: type<string | null>() },
  /** Hides the search window (Electron; a no-op in the web shell). */
  hideWindow: { request: noArgs, response: type<null>() },
  appInfo: { request: noArgs, response: type<AppInfo>() },
  /** Desktop preferences (Electron only; the web shell answers UNSUPPORTED). */
  desktopSettings: { request: noArgs, response: type<DesktopSettings>() },
  updateDesktopSettings: {
    request: z.strictObject({
      shortcut: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .regex(/^[A-Za-z0-9+ ]+$/, 'an accelerator such as CommandOrControl+Alt+Space')
        .optional(),
      startAtLogin: z.boolean().optional(),
    }),
    response: type<DesktopSettings>(),
  },
} as const;

/** Events pushed from the engine to every UI. */
export const events = {
  progress: type<ServiceEvents['progress']>(),
  'crawl-finished': type<ServiceEvents['crawl-finished']>(),
  'sources-changed': type<ServiceEvents['sources-changed']>(),
  /** A started crawl failed before producing a record (e.g. the source vanished). */
  'crawl-error': type<{ sourceId: number | null; code: ErrorCode; message: string }>(),
  /** The background runner's status, whenever a source's watch state changes. */
  'live-status': type<BackgroundStatus>(),
} as const;

export const errorCodes = [
  'BAD_REQUEST',
  'UNKNOWN_METHOD',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'QUERY_SYNTAX',
  'UNSUPPORTED',
  'CONFLICT',
  'ENGINE_UNAVAILABLE',
  'INTERNAL',
] as const;

export type Contract = typeof contract;
export type MethodName = keyof Contract;
export type EventName = keyof typeof events;
export type ErrorCode = (typeof errorCodes)[number];

/** What a caller sends (before defaults/trimming are applied). */
export type RequestOf<M extends MethodName> = z.input<Contract[M]['request']>;
/** What a handler receives (validated and normalised). */
export type ParsedRequestOf<M extends MethodName> = z.output<Contract[M]['request']>;
export type ResponseOf<M extends MethodName> = Contract[M]['response'];
export type EventPayload<E extends EventName> = (typeof events)[E];

export const methodNames = Object.keys(contract) as MethodName[];
export const eventNames = Object.keys(events) as EventName[];

export function isMethodName(value: unknown): value is MethodName {
  return typeof value === 'string' && Object.hasOwn(contract, value);
}

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && Object.hasOwn(events, value);
}

/** The engine's data shapes, re-exported so UI code depends on the contract only. */
export type {
  DocumentPreview,
  IndexStatus,
  SearchHit,
  SearchResponse,
  SortOrder,
  SourceStats,
} from '../main/core/api-types.js';
export type { BackgroundStatus, LiveSourceStatus } from '../main/core/live/background.js';
export type { LiveState } from '../main/core/live/source-monitor.js';
export type {
  ContentSource,
  CrawlLogEntry,
  CrawlMode,
  CrawlProgress,
  CrawlRecord,
  CrawlRule,
  FieldWeights,
  NewContentSource,
  SourceKind,
  SourceSettings,
} from '../main/core/model.js';
