/**
 * onnxruntime-node's Linux and macOS builds (1.30) carry Microsoft's 1DS telemetry, on by
 * default: a persistent device id and an event queue under ~/.cache/Microsoft/DeveloperTools/
 * .onnxruntime, a `.ses` and a `mat-debug-<pid>.log` file in the temp folder, and uploads to
 * mobile.events.data.microsoft.com whenever the network is there. A trainer that is offline by
 * default turns it off. ORT_DISABLE_TELEMETRY=1 is onnxruntime's full opt-out, read once as it
 * initialises, so this module is imported before onnxruntime-node; a value the user set (0) is kept.
 */
// an empty value is replaced too: it says nothing either way
if (!process.env.ORT_DISABLE_TELEMETRY) process.env.ORT_DISABLE_TELEMETRY = "1";

export {};
