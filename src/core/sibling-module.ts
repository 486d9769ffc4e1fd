// The URL of a module next to the calling one, for the modules loaded by URL rather than by an import
// statement (worker threads, a tokenizer factory a worker imports). Sources name them with `.ts`, as the
// static imports do; from the compiled package (dist/, built by scripts/build.mjs with tsc's
// rewriteRelativeImportExtensions, which rewrites import specifiers but not URL strings) the caller is a
// `.js` file and so is its sibling. Workers started from a `.ts` URL boot through tsx (worker-pool.ts);
// from a `.js` URL, Node loads them directly.

/** `new URL(relative, base)`, with `.ts` → `.js` when `base` (the caller's import.meta.url) is compiled. */
export function siblingModule(relative: string, base: string): URL {
  if (!/^\.\.?\/.*\.ts$/.test(relative)) {
    throw new Error(`siblingModule takes a relative path to a .ts module, not '${relative}'`);
  }
  const compiled = /\.[cm]?js$/.test(new URL(base).pathname);
  return new URL(compiled ? relative.replace(/\.ts$/, '.js') : relative, base);
}

/** True for a module URL that Node cannot load without a TypeScript loader (tsx). */
export function isTypeScriptModule(url: URL): boolean {
  return /\.[mc]?ts$/.test(url.pathname);
}
