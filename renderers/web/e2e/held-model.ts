/**
 * A model for the browser tests that holds a task mid-work until the test lets it go: an
 * OpenAI Chat Completions endpoint on 127.0.0.1 (the harness's `openai-chat` provider) that
 * plays one plan, turn by turn, and holds the plan's third model call until `release()`.
 * "Mid-task" then means what it says: the task cannot finish early, whatever the machine's
 * speed.
 *
 *     turn 0  "Planning." + create_plan(look, write)
 *     turn 1  complete_step(look)
 *     turn 2  held until release(), then complete_step(write)
 *     turn 3  "The plan is **done**."
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export interface HeldModel {
  /** The base URL the harness's provider is given (`.../v1`). */
  readonly url: string;
  /** Hold the next task's third call: call before sending the task's first message. */
  arm(): void;
  /** Resolves once the armed call has arrived and is held. */
  holding(): Promise<void>;
  /** Let the held call answer. */
  release(): void;
  close(): Promise<void>;
}

interface ChatMessage {
  role: string;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function call(turn: number, name: string, args: unknown): Record<string, unknown> {
  return { id: `call-${turn}`, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

const PLAN = {
  steps: [
    { id: "look", name: "Look around" },
    { id: "write", name: "Write it up", depends_on: ["look"] },
  ],
};

/** The assistant's message for a turn of the plan. */
function answer(turn: number): Record<string, unknown> {
  if (turn === 0) return { role: "assistant", content: "Planning.", tool_calls: [call(turn, "create_plan", PLAN)] };
  if (turn === 1) {
    return { role: "assistant", content: null, tool_calls: [call(turn, "complete_step", { step_id: "look", output: "looked" })] };
  }
  if (turn === 2) {
    return { role: "assistant", content: null, tool_calls: [call(turn, "complete_step", { step_id: "write", output: "written" })] };
  }
  return { role: "assistant", content: "The plan is **done**." };
}

async function body(request: IncomingMessage): Promise<{ messages?: ChatMessage[] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messages?: ChatMessage[] };
}

export async function startHeldModel(): Promise<HeldModel> {
  let gate = deferred();
  let arrived = deferred();
  gate.resolve(); // nothing held until armed

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { messages = [] } = await body(request);
    const turn = messages.filter((m) => m.role === "assistant").length;
    if (turn === 2) {
      arrived.resolve();
      await gate.promise;
    }
    const message = answer(turn);
    const completion = {
      id: `chatcmpl-${turn}`,
      object: "chat.completion",
      created: 0,
      model: "held",
      choices: [{ index: 0, message, finish_reason: "tool_calls" in message ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 },
    };
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(completion));
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { "content-type": "text/plain" });
      response.end(String(error));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    arm() {
      gate = deferred();
      arrived = deferred();
    },
    holding: () => arrived.promise,
    release: () => gate.resolve(),
    async close() {
      gate.resolve();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}
