/**
 * jsdom gaps the UI relies on: element sizes (so the virtualizer renders rows), scrolling,
 * animation frames, matchMedia and ResizeObserver. Call once per test file, before rendering.
 */
import { vi } from 'vitest';

export function setupDom(): void {
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 800 });
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 900 });
  Object.defineProperty(HTMLElement.prototype, 'offsetHeight', { configurable: true, get: () => 86 });
  Object.defineProperty(HTMLElement.prototype, 'offsetWidth', { configurable: true, get: () => 900 });
  Object.defineProperty(HTMLElement.prototype, 'scrollHeight', { configurable: true, get: () => 10_000_000 });
  const scrollTops = new WeakMap<Element, number>();
  Object.defineProperty(Element.prototype, 'scrollTop', {
    configurable: true,
    get(this: Element) {
      return scrollTops.get(this) ?? 0;
    },
    set(this: Element, v: number) {
      scrollTops.set(this, v);
    },
  });
  Element.prototype.scrollTo = function scrollTo(this: Element, arg?: ScrollToOptions | number, y?: number) {
    this.scrollTop = typeof arg === 'object' ? (arg.top ?? this.scrollTop) : (y ?? 0);
    this.dispatchEvent(new Event('scroll'));
  } as typeof Element.prototype.scrollTo;
  Element.prototype.scrollIntoView = function scrollIntoView() {};
  window.requestAnimationFrame ??= ((cb: FrameRequestCallback) =>
    setTimeout(() => cb(performance.now()), 16)) as unknown as typeof requestAnimationFrame;
  window.cancelAnimationFrame ??= ((id: number) => clearTimeout(id)) as typeof cancelAnimationFrame;
  window.matchMedia ??= ((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addEventListener: () => {},
    removeEventListener: () => {},
    addListener: () => {},
    removeListener: () => {},
    dispatchEvent: () => false,
  })) as typeof window.matchMedia;
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
  vi.spyOn(window, 'confirm').mockImplementation(() => true);
}
