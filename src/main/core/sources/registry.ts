import type { ProtocolHandler } from './handler.js';

/**
 * The one registry of protocol handlers, keyed by URL scheme. Handlers are registered explicitly by
 * the composition root (`engine.ts`); nothing registers itself on import.
 */
export class HandlerRegistry {
  private readonly byScheme = new Map<string, ProtocolHandler>();

  /** Register a handler for each of its schemes. Throws if a scheme is already taken. */
  register(handler: ProtocolHandler): this {
    for (const scheme of handler.schemes) {
      if (this.byScheme.has(scheme)) throw new Error(`a handler for ${scheme}: is already registered`);
      this.byScheme.set(scheme, handler);
    }
    return this;
  }

  /** The handler for a URL's scheme, or undefined. */
  forUrl(url: string): ProtocolHandler | undefined {
    const m = /^([a-z][a-z0-9+.-]*):/i.exec(url);
    return m ? this.byScheme.get(m[1].toLowerCase()) : undefined;
  }

  schemes(): string[] {
    return [...this.byScheme.keys()];
  }
}
