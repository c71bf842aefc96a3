/** Vitest's global setup for the browser tests: one harness for the whole run. */

import type { TestProject } from "vitest/node";

import { startHarness } from "./harness";

declare module "vitest" {
  export interface ProvidedContext {
    harnessUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const harness = await startHarness();
  project.provide("harnessUrl", harness.url);
  return harness.stop;
}
