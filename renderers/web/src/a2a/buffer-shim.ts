/**
 * The two `Buffer` calls `@a2a-js/sdk` makes when it decodes or encodes a `raw` part.
 *
 * The SDK's generated protobuf code reaches for Node's `Buffer` (`Buffer.from(base64,
 * "base64")`, `Buffer.from(bytes).toString("base64")`), which a browser lacks: without this a
 * task holding a file part as raw bytes would end the stream with a ReferenceError instead
 * of showing the file. Only what those two calls need is provided, and only when `Buffer`
 * is missing.
 */

type Bytes = Uint8Array & { toString(encoding?: string): string };

function withBase64(bytes: Uint8Array): Bytes {
  const out = bytes as Bytes;
  out.toString = (encoding?: string) =>
    encoding === "base64" ? btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join("")) : "";
  return out;
}

function from(input: string | ArrayLike<number>, encoding?: string): Bytes {
  if (typeof input === "string") {
    if (encoding !== "base64") return withBase64(new TextEncoder().encode(input));
    return withBase64(Uint8Array.from(atob(input), (c) => c.charCodeAt(0)));
  }
  return withBase64(Uint8Array.from(input));
}

const scope = globalThis as { Buffer?: unknown };
scope.Buffer ??= { from };

export {};
