/**
 * A `train-mcp serve` in its own process with any `ServeOptions` (JSON in argv[2]), for benches
 * that must not share an event loop with the trainer: prints `url <base URL>` once serving, and
 * stops on SIGTERM.
 */
import { startServer, type ServeOptions } from "../src/serve/server.js";

const server = await startServer(JSON.parse(process.argv[2] ?? "{}") as ServeOptions);
process.stdout.write(`url ${server.url}\n`);
process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
