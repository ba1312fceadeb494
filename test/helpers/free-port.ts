import { createServer } from "node:net";

/** A port free on 127.0.0.1 now, for a server the test starts itself (one that cannot take port 0). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}
