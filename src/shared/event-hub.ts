/**
 * A typed fan-out of the contract's events. Transports subscribe to one hub; listeners that throw
 * do not stop the others.
 */
import type { EventName, EventPayload } from './contract.js';

type Listener = (payload: unknown) => void;

export class EventHub {
  private readonly listeners = new Map<EventName, Set<Listener>>();

  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    const l = listener as Listener;
    set.add(l);
    return () => {
      set.delete(l);
    };
  }

  /** Subscribes to every event; the listener receives the name and payload. */
  onAny(listener: (event: EventName, payload: unknown) => void, names: readonly EventName[]): () => void {
    const offs = names.map((name) => this.on(name, (payload) => listener(name, payload)));
    return () => offs.forEach((off) => off());
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        listener(payload);
      } catch {}
    }
  }

  listenerCount(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
