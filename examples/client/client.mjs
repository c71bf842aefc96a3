// A short A2A client on the official `@a2a-js/sdk`: send a task, follow its stream, print
// each event; with --reply, answer the task's questions.
//
//   npm ci && node client.mjs --url http://127.0.0.1:8080 "say hello"
//   node client.mjs --url http://127.0.0.1:8080 --reply blue "pick a colour"
//
// The factory reads the agent card and picks the transport it offers (JSON-RPC first).
// It works against any A2A 1.0 agent, not only tiny-harness.

import { Role, SendMessageRequest, TaskState, taskStateToJSON } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: "string", default: "http://127.0.0.1:8080" },
    reply: { type: "string", multiple: true, default: [] },
  },
});
if (positionals.length !== 1) {
  console.error('usage: node client.mjs [--url URL] [--reply TEXT]... "message"');
  process.exit(2);
}

/** The text of each text part. */
function texts(parts) {
  return parts.filter((p) => p.content?.$case === "text").map((p) => p.content.value);
}

/**
 * Print one event (a state only when it changes from `last`); the task's state when the
 * event says it, else undefined.
 */
function show(event, last) {
  const payload = event.payload;
  switch (payload?.$case) {
    case "task":
      console.log(`task ${payload.value.id}: ${taskStateToJSON(payload.value.status.state)}`);
      return payload.value.status.state;
    case "statusUpdate": {
      const status = payload.value.status;
      for (const text of texts(status.message?.parts ?? [])) console.log(`  ${text}`);
      if (status.state !== last) console.log(`state: ${taskStateToJSON(status.state)}`);
      return status.state;
    }
    case "artifactUpdate":
      for (const text of texts(payload.value.artifact?.parts ?? [])) console.log(`answer: ${text}`);
      return undefined;
    default:
      return undefined;
  }
}

/** A user's text message, continuing `taskId` when one is given. */
function message(text, taskId = "") {
  const request = SendMessageRequest.fromJSON({
    message: { messageId: randomUUID(), role: "ROLE_USER", taskId, parts: [{ text }] },
  });
  request.message.role = Role.ROLE_USER;
  return request;
}

const client = await new ClientFactory().createFromUrl(values.url);
const replies = [...values.reply];
let request = message(positionals[0]);
for (;;) {
  let state;
  let taskId = "";
  for await (const event of client.sendMessageStream(request)) {
    if (event.payload?.$case === "task") taskId = event.payload.value.id;
    state = show(event, state) ?? state;
  }
  if (state !== TaskState.TASK_STATE_INPUT_REQUIRED || replies.length === 0) {
    process.exit(state === TaskState.TASK_STATE_COMPLETED ? 0 : 1);
  }
  const answer = replies.shift();
  console.log(`you: ${answer}`);
  request = message(answer, taskId);
}
