/**
 * The browser the end-to-end tests drive: Debian's chromium (never a downloaded build),
 * headless, through playwright-core. `CHROMIUM` names another binary.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { chromium, type Browser, type Page } from "playwright-core";

export const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), "artifacts");

function chromiumPath(): string {
  const named = process.env.CHROMIUM;
  if (named) return named;
  try {
    return execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], {
      encoding: "utf8",
    }).trim();
  } catch {
    throw new Error(
      "chromium is not installed: `apt-get install -y chromium` (or set CHROMIUM to a Chromium binary)",
    );
  }
}

export function launch(): Promise<Browser> {
  const root = process.getuid?.() === 0;
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // As root (CI containers) Chromium's sandbox cannot start.
    args: root ? ["--no-sandbox"] : [],
  });
}

/** Saves what `page` shows as `artifacts/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}
