/**
 * What went wrong on a call, in words a person can act on: an A2A error with its message and
 * code, the server not answering (the page retries), or a stream that was stopped on purpose.
 */

import { A2AError, isJsonRpcError, isRestError } from "@a2a-js/sdk/errors";

export interface CallFailure {
  /** What the agent or the browser said. */
  readonly message: string;
  /** The A2A error code (JSON-RPC) or HTTP status (HTTP+JSON), when there is one. */
  readonly code: string;
  /** The server could not be reached: retrying may help. */
  readonly unreachable: boolean;
}

/** Whether `error` is the abort of a stream this page stopped itself. */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

/** `error`, thrown by an SDK call named `operation`, as a `CallFailure`. */
export function failureOf(error: unknown, operation: string): CallFailure {
  const cause = error instanceof Error && error.cause instanceof A2AError ? error.cause : error;
  if (isJsonRpcError(cause)) {
    return { message: `${operation}: ${cause.message}`, code: String(cause.envelopeCode), unreachable: false };
  }
  if (isRestError(cause)) {
    return { message: `${operation}: ${cause.message}`, code: String(cause.statusCode), unreachable: false };
  }
  if (cause instanceof A2AError) {
    return { message: `${operation}: ${cause.message}`, code: cause.reason, unreachable: false };
  }
  if (cause instanceof TypeError) {
    // fetch's own failure: nothing answered (refused, reset, offline).
    return { message: `${operation}: the server is not answering`, code: "", unreachable: true };
  }
  const said = cause instanceof Error ? cause.message : String(cause);
  // A card fetch or an SSE stream that the server cut answers with a 5xx or a broken stream.
  const unreachable = /Failed to fetch|NetworkError|network|terminated|: 50[234]\b/i.test(said);
  return { message: `${operation}: ${said}`, code: "", unreachable };
}
