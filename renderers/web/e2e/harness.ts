/**
 * A real harness for the browser tests: `tiny-harness serve` from the project's venv, on
 * 127.0.0.1 with a free port, its embedded Temporal dev server, a data folder of its own, the
 * scripted model (`script.yaml`) and this build (`dist/`) at /ui. `TINY_HARNESS_BIN` names
 * another `tiny-harness` executable.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const WEB = resolve(HERE, "..");
const REPO = resolve(WEB, "../..");
const STARTUP_MS = 60_000;

export interface Harness {
  readonly url: string;
  readonly log: () => string;
  readonly stop: () => Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => done(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

function binary(): string {
  const named = process.env.TINY_HARNESS_BIN ?? join(REPO, ".venv", "bin", "tiny-harness");
  if (!existsSync(named)) {
    throw new Error(`no tiny-harness at ${named}: run \`make test\` from the repository root first`);
  }
  return named;
}

async function healthy(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`tiny-harness serve exited:\n${log()}`);
    try {
      const answer = await fetch(`${url}/ui/`);
      if (answer.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`tiny-harness serve did not answer within ${STARTUP_MS} ms:\n${log()}`);
}

/** `extra`: more environment for the harness (its `[auth]` settings, say). */
export async function startHarness(extra: Record<string, string> = {}): Promise<Harness> {
  const dist = join(WEB, "dist");
  if (!existsSync(join(dist, "index.html"))) throw new Error("no build in dist/: run `npm run build` first");
  const port = await freePort();
  const data = mkdtempSync(join(tmpdir(), "tiny-harness-e2e-"));
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    TINY_HARNESS_DATA_DIR: data,
    TINY_HARNESS_SERVER__PORT: String(port),
    TINY_HARNESS_SERVER__WEB_UI_DIR: dist,
    TINY_HARNESS_SERVER__RATE_LIMIT_PER_SECOND: "0",
    TINY_HARNESS_TEMPORAL__EMBEDDED_PORT: "0",
    TINY_HARNESS_TEMPORAL__TASK_QUEUE: `web-e2e-${port}`,
    TINY_HARNESS_MODEL__SCRIPT: join(HERE, "script.yaml"),
    TINY_HARNESS_HEARTBEAT__ENABLED: "false",
    ...extra,
  };
  const child = spawn(binary(), ["serve"], { cwd: data, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const log = () => output;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(data, { recursive: true, force: true });
  };
  try {
    await healthy(url, child, log);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, log, stop };
}
