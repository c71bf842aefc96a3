/**
 * The JavaScript client of `examples/client/` (on `@a2a-js/sdk`), run as its README says
 * with node against the same real harness, so the example cannot rot: it starts a task,
 * follows the stream, answers the question from `--reply` and ends COMPLETED.
 */

import { describe, expect, inject, it } from "vitest";

import { execFile } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const url = inject("harnessUrl");
const CLIENT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../examples/client/client.mjs");

describe("the JavaScript client example", () => {
  it("follows a task, answers its question and exits 0 when it completes", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CLIENT, "--url", url, "--reply", "blue", "pick a colour"],
      { timeout: 45_000 },
    );

    const lines = stdout.trim().split("\n");
    expect(lines).toContain("  Which colour?");
    const asked = lines.indexOf("state: TASK_STATE_INPUT_REQUIRED");
    expect(asked).toBeGreaterThan(0);
    expect(lines.indexOf("you: blue")).toBeGreaterThan(asked);
    expect(lines.slice(-2)).toEqual(["answer: Blue it is.", "state: TASK_STATE_COMPLETED"]);
  });
});
