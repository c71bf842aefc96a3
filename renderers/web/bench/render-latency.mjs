// How long an A2A event takes from its arrival in the browser to its appearance on screen.
//
// Opens the web UI at the URL given (bench/web_stream.py serves it beside a streaming agent),
// sends one message, waits for the task to end, and reads the page's Performance marks: the
// app marks `th:event` (detail: the event's number) when an event reaches its reducer, and
// `th:shown` (detail: the newest event drawn) in the first frame after React committed it.
// Prints one JSON object: the delay of every event, in ms.
//
//     node bench/render-latency.mjs URL [TIMEOUT_SECONDS]

import { execFileSync } from "node:child_process";

import { chromium } from "playwright-core";

const [url, timeout = "300"] = process.argv.slice(2);
if (!url) throw new Error("usage: node bench/render-latency.mjs URL [TIMEOUT_SECONDS]");
const executablePath =
  process.env.CHROMIUM ?? execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${url}/ui/`);
  await page.locator('[aria-label="connected"]').waitFor({ timeout: 30_000 });
  const started = Date.now();
  await page.getByLabel("Message").fill("stream");
  await page.getByLabel("Message").press("Enter");
  await page.locator('[data-state="completed"]').waitFor({ timeout: Number(timeout) * 1000 });
  await page.waitForTimeout(500);
  const wall = (Date.now() - started) / 1000;
  const delays = await page.evaluate(() => {
    const arrived = performance.getEntriesByName("th:event");
    const shown = performance.getEntriesByName("th:shown");
    return arrived.map((mark) => {
      const n = mark.detail;
      const drawn = shown.find((s) => s.detail >= n && s.startTime >= mark.startTime);
      return drawn ? drawn.startTime - mark.startTime : null;
    });
  });
  const entries = await page.locator("[data-entry]").count();
  console.log(JSON.stringify({ delays, wall, entries }));
} finally {
  await browser.close();
}
