// Use cases are exported functions over explicit dependencies, `verb(d, ...args)`, so each says
// what it needs and a test can call it with just that. The routes, the realtime side and the rooms
// call them as one object per area (`services.clubs.create(userId, body)`): `bind` makes it once,
// with the area's dependencies given to every function, and repeats no signature.

/** A use case of an area whose dependencies are `D`. */
type UseCase<D> = (d: D, ...args: never[]) => unknown;

/** The use cases `F` with their dependencies given: what the callers of the area see. */
export type Bound<D, F extends Record<string, UseCase<D>>> = {
  [K in keyof F]: F[K] extends (d: D, ...args: infer A) => infer R ? (...args: A) => R : never;
};

export function bind<D, F extends Record<string, UseCase<D>>>(d: D, useCases: F): Bound<D, F> {
  const bound: Record<string, (...args: never[]) => unknown> = {};
  for (const [name, useCase] of Object.entries(useCases)) bound[name] = (...args) => useCase(d, ...args);
  return bound as Bound<D, F>;
}
