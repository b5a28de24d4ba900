// The app's pages by address (History API). A page gets a context whose `signal` aborts when it
// is left, and `cleanup` callbacks for what it opened (rooms, sockets, timers).

export type PageContext = {
  params: Record<string, string>;
  query: URLSearchParams;
  root: HTMLElement;
  signal: AbortSignal;
  cleanup: (fn: () => void) => void;
};

export type PageDef = {
  path: string;
  title: string | ((params: Record<string, string>) => string);
  /** The label of its link in the navigation bar, when it has one. */
  nav?: string;
  /** Signed-in users only: others are sent to the login page first. */
  auth?: boolean;
  render: (ctx: PageContext) => void | Promise<void>;
};

type Compiled = PageDef & { pattern: RegExp; keys: string[] };

export class Router {
  private routes: Compiled[];
  private leave?: () => void;
  private listeners = new Set<() => void>();

  constructor(
    routes: PageDef[],
    private root: HTMLElement,
    private o: { notFound: PageDef; signedIn: () => boolean },
  ) {
    this.routes = routes.map((r) => {
      const keys: string[] = [];
      const source = r.path.replace(/:(\w+)/g, (_, k: string) => (keys.push(k), '([^/]+)'));
      return { ...r, keys, pattern: new RegExp(`^${source}/?$`) };
    });
    window.addEventListener('popstate', () => void this.render());
    // Links inside the app are followed without a page load.
    document.addEventListener('click', (event) => {
      const a = (event.target as Element | null)?.closest?.('a');
      if (!a || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      if (a.target || a.hasAttribute('download') || a.origin !== location.origin || !this.match(a.pathname)) return;
      event.preventDefault();
      this.go(a.pathname + a.search);
    });
  }

  /** Called after every page change (the navigation bar marks the current page). */
  onChange(fn: () => void): void {
    this.listeners.add(fn);
  }

  go(path: string, o: { replace?: boolean } = {}): void {
    if (path === location.pathname + location.search && !o.replace) return;
    if (o.replace) history.replaceState(null, '', path);
    else {
      history.pushState(null, '', path);
      // A new page opens at its top, as after a page load (a game opened from the Watch page's
      // list, scrolled down to it, showed its board below the top clock).
      window.scrollTo(0, 0);
    }
    void this.render();
  }

  /** Draws the current page again (after signing in or out). */
  refresh(): void {
    void this.render();
  }

  private match(pathname: string): { route: Compiled; params: Record<string, string> } | undefined {
    for (const route of this.routes) {
      const m = route.pattern.exec(pathname);
      if (m) return { route, params: Object.fromEntries(route.keys.map((k, i) => [k, decodeURIComponent(m[i + 1])])) };
    }
    return undefined;
  }

  private async render(): Promise<void> {
    this.leave?.();
    const found = this.match(location.pathname);
    if (found?.route.auth && !this.o.signedIn()) {
      return this.go(`/login?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
    }
    const route = found?.route ?? this.o.notFound;
    const params = found?.params ?? {};
    const controller = new AbortController();
    const cleanups: (() => void)[] = [];
    this.leave = () => {
      controller.abort();
      for (const fn of cleanups.splice(0)) {
        try {
          fn();
        } catch {
          // a page that failed to clean up must not keep the next from showing
        }
      }
    };
    const page = document.createElement('main');
    page.id = 'page';
    this.root.replaceChildren(page);
    document.title = `${typeof route.title === 'function' ? route.title(params) : route.title} · Chess`;
    for (const fn of this.listeners) fn();
    try {
      await route.render({ params, query: new URLSearchParams(location.search), root: page, signal: controller.signal, cleanup: (fn) => cleanups.push(fn) });
    } catch (error) {
      if (controller.signal.aborted) return;
      const p = document.createElement('p');
      p.className = 'error';
      p.setAttribute('role', 'alert');
      p.textContent = error instanceof Error ? error.message : 'Something went wrong.';
      page.append(p);
    }
    // Focus moves to the new page's heading, as a page load would (screen readers announce it).
    const heading = page.querySelector('h1');
    if (heading && !controller.signal.aborted) {
      heading.setAttribute('tabindex', '-1');
      heading.focus({ preventScroll: true });
    }
  }
}
