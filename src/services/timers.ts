/** Named timers of one owner: setting a name replaces its timer; all go at once on close. */
export class Timers<Name extends string> {
  private handles = new Map<Name, NodeJS.Timeout>();

  once(name: Name, delayMs: number, run: () => void): void {
    this.clear(name);
    this.handles.set(name, setTimeout(run, Math.max(0, delayMs)));
  }

  every(name: Name, periodMs: number, run: () => void): void {
    this.clear(name);
    this.handles.set(name, setInterval(run, periodMs));
  }

  clear(name: Name): void {
    // clearTimeout also clears an interval in Node.
    clearTimeout(this.handles.get(name));
    this.handles.delete(name);
  }

  clearAll(): void {
    for (const handle of this.handles.values()) clearTimeout(handle);
    this.handles.clear();
  }
}
