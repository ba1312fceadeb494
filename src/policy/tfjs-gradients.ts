/**
 * Registers tfjs's gradient functions. `@tensorflow/tfjs-core` registers none by itself (the
 * `@tensorflow/tfjs` umbrella does), and the only copy of them is its ESM build
 * (`dist/register_all_gradients.js`), whose relative imports have no file extension — fine for
 * bundlers and vitest, rejected by Node's own ESM loader. So under plain Node (tsx, the CLI) a
 * small resolve hook adds the missing `.js` for imports made from inside @tensorflow packages,
 * and nothing else. Both copies of tfjs-core (CJS main, ESM dist) share their registries through
 * the global namespace, so the gradients land where the engine looks.
 */
import { register } from "node:module";

const HOOK = `
export async function resolve(specifier, context, next) {
  const p = context.parentURL || "";
  if (p.includes("/node_modules/@tensorflow/") && specifier.startsWith(".") && !/\\.[cm]?js$/.test(specifier)) {
    try { return await next(specifier + ".js", context); } catch {}
  }
  return next(specifier, context);
}`;

let done: Promise<void> | undefined;
let ready = false;

/** True once the gradients are registered (initBackend does it). */
export function gradientsReady(): boolean {
  return ready;
}

export function registerGradients(): Promise<void> {
  done ??= (async () => {
    // vite's module runner (vitest) resolves extensionless imports itself and gives modules an
    // import.meta.env; under plain Node (tsx, the CLI) there is none, and Node needs the hook
    const underVite = (import.meta as { env?: unknown }).env !== undefined;
    if (!underVite) register(`data:text/javascript,${encodeURIComponent(HOOK)}`);
    await import("@tensorflow/tfjs-core/dist/register_all_gradients.js");
    ready = true;
  })();
  return done;
}
