/**
 * The web UI as a person uses it: Debian's chromium opens the build the harness serves at
 * /ui and works with a real harness (e2e/harness.ts) on the scripted model (script.yaml).
 * Every test runs as its own participant, so it sees only its own tasks, and saves a
 * screenshot under e2e/artifacts/.
 */

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";

import { createHash, randomBytes } from "node:crypto";

import { launch, screenshot } from "./browser";
import { startHarness, type Harness } from "./harness";
import { startHeldModel, type HeldModel } from "./held-model";

const url = inject("harnessUrl");
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await launch();
});

afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  await browser.close();
});

/** The UI in a fresh browser profile, speaking as `participant`. */
async function openUi(participant: string, path = "/ui/", base = url): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  contexts.push(context);
  await context.addInitScript((who) => {
    if (!localStorage.getItem("tiny-harness.participant")) {
      localStorage.setItem("tiny-harness.participant", who);
    }
  }, participant);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(base + path);
  await page.locator('[aria-label="connected"]').waitFor();
  return page;
}

function unique(name: string): string {
  return `${name}-${Math.random().toString(36).slice(2, 8)}`;
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByLabel("Message").fill(text);
  await page.getByLabel("Message").press("Enter");
}

/** What the person's bubbles say, in order. */
async function userTexts(page: Page): Promise<string[]> {
  return (await page.locator("[data-entry=user]").allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
}

/** Whether the conversation shows its newest block (run in the page). */
function atTheBottom(): boolean {
  const log = document.querySelector('[role="log"]');
  return log !== null && log.scrollHeight - log.scrollTop - log.clientHeight < 2;
}

async function stateIs(page: Page, label: string): Promise<void> {
  await page.locator(`[data-state="${label}"]`).waitFor();
}

describe("the web UI", () => {
  it("sends a message and shows the streamed answer as Markdown, and lists the task", async () => {
    const page = await openUi(unique("hello"));
    await send(page, "Say hello");
    await stateIs(page, "completed");
    const answer = page.locator("[data-entry=artifact], [data-entry=final]").filter({ hasText: "Hello from the" });
    await expect(answer.locator("strong").textContent()).resolves.toBe("scripted");
    await page.locator("nav[aria-label=Tasks] [data-task]").filter({ hasText: "Say hello" }).waitFor();
    expect(await userTexts(page)).toEqual(["Say hello"]);
    await screenshot(page, "send-and-answer");
  });

  it("answers a question with an option button and shows the reply", async () => {
    const page = await openUi(unique("question"));
    await send(page, "Pick a colour");
    await stateIs(page, "needs input");
    await page.locator("[data-entry=question]").filter({ hasText: "Which colour?" }).waitFor();
    await screenshot(page, "question");
    await page.locator('[data-option="blue"]').click();
    await page.getByText("Blue it is.").waitFor();
    await stateIs(page, "completed");
    expect(await userTexts(page)).toEqual(["Pick a colour", "blue"]);
  });

  it("draws an A2UI surface and sends its button's action back to the task", async () => {
    const who = unique("a2ui");
    const page = await openUi(who);
    const headers: Record<string, string>[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") headers.push(request.headers());
    });
    await send(page, "Show a card");
    const surface = page.locator('[data-surface="sizes"]');
    await surface.getByText("Shirt size").waitFor();
    await screenshot(page, "a2ui-surface");
    await surface.getByRole("button", { name: "Medium" }).click();
    const reply = page.locator("[data-entry]").filter({ hasText: "Size M it is." });
    await reply.waitFor();
    await expect(reply.locator("strong").textContent()).resolves.toBe("M");
    expect(await userTexts(page)).toEqual(["Show a card", "choose size: M"]);
    // Every call asked for A2UI and named the participant.
    expect(headers.length).toBeGreaterThanOrEqual(2);
    for (const sent of headers) {
      expect(sent["a2a-extensions"]).toBe("https://a2ui.org/a2a-extension/a2ui/v0.9.1");
      expect(sent["x-participant-id"]).toBe(who);
      expect(sent["a2a-version"]).toBe("1.0");
    }
    await stateIs(page, "completed");
    await screenshot(page, "a2ui-action-answered");
  });

  it("shows an error card in place of a surface it cannot draw", async () => {
    const page = await openUi(unique("broken"));
    await send(page, "Show a broken card");
    const card = page.locator('[data-surface-error="odd"]');
    await card.waitFor();
    expect(await card.textContent()).toContain("Catalog not found");
    await stateIs(page, "completed");
    await page.getByText("Nothing else to show.").waitFor();
    await screenshot(page, "a2ui-error-card");
  });

  it("shows each tool call as a block that opens to its arguments and result, each model call as a line, and all on a timeline", async () => {
    const page = await openUi(unique("tools"));
    await send(page, "Use some tools");
    await stateIs(page, "completed");
    const plan = page.locator('[data-tool="create_plan"]');
    const missing = page.locator('[data-tool="no_such_tool"]');
    await expect(plan.getAttribute("data-call")).resolves.toBe("completed");
    await expect(missing.getAttribute("data-call")).resolves.toBe("failed");
    // Folded at first: the name and the state only.
    await expect(plan.locator("[data-call-part]").first().isVisible()).resolves.toBe(false);
    await plan.locator("summary").click();
    await expect(plan.locator('[data-call-part="arguments"]').innerText()).resolves.toContain("Find the blue shirt");
    await expect(plan.locator('[data-call-part="result"]').innerText()).resolves.toContain("Plan created");
    await missing.locator("summary").click();
    const why = missing.locator('[data-call-part="result"]');
    await expect(why.innerText()).resolves.toMatch(/^Why\s+tool_not_found/);
    // Two model calls: one asked for the tools, one answered.
    const models = page.locator("[data-model]");
    await expect(models.count()).resolves.toBe(2);
    await expect(models.first().innerText()).resolves.toMatch(/\d+ in · \d+ out · \d+ ms/);
    await screenshot(page, "tool-calls");
    // The timeline: every call in order, each with its time, and the totals.
    await page.getByRole("button", { name: "Timeline" }).click();
    const pane = page.getByRole("complementary", { name: "Timeline" });
    const rows = pane.locator("[data-timeline-call]");
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-timeline-call")))).toEqual([
      "script",
      "create_plan",
      "no_such_tool",
      "script",
    ]);
    for (const row of await rows.all()) await expect(row.innerText()).resolves.toMatch(/\d+(\.\d)? m?s$/);
    await expect(pane.locator('[data-total="model-calls"]').innerText()).resolves.toBe("2");
    await expect(pane.locator('[data-total="tool-calls"]').innerText()).resolves.toBe("2");
    await expect(pane.locator('[data-total="cost"]').innerText()).resolves.toBe("not priced");
    await screenshot(page, "call-timeline");
    // Scrolled up to read, the person gets a way back to the newest.
    await page.getByRole("log", { name: "Conversation" }).evaluate((el) => el.scrollTo({ top: 0 }));
    await page.getByRole("button", { name: "Scroll to the newest" }).click();
    await page.waitForFunction(atTheBottom);
  });

  it("cancels a running task after asking", async () => {
    const page = await openUi(unique("cancel"));
    await send(page, "Take your time");
    await page.getByText("Starting.").waitFor();
    await page.locator("[data-action=cancel]").click();
    await page.locator("[data-action=confirm-cancel]").click();
    await stateIs(page, "canceled");
    await expect(page.locator("[data-action=cancel]").count()).resolves.toBe(0);
    await screenshot(page, "canceled");
  });

  it("shows a sub-task's row with its agent and the state it reached", async () => {
    const page = await openUi(unique("sub"));
    await send(page, "Buy socks");
    const row = page.locator("[data-subtasks] [data-subtask]");
    await row.first().waitFor();
    await page.getByText("Bought.").waitFor();
    await stateIs(page, "completed");
    expect(await row.count()).toBe(1);
    expect(await row.first().innerText()).toContain("self");
    await row.first().getByText("completed").waitFor();
    await screenshot(page, "sub-task");
  });

  it("shows the open task's raw events in the inspector, each opening to its JSON", async () => {
    const page = await openUi(unique("inspect"));
    await send(page, "Say hello");
    await stateIs(page, "completed");
    await page.getByRole("button", { name: "Event inspector" }).click();
    const events = page.locator("[data-inspector] [data-event]");
    await events.first().waitFor();
    const kinds = await events.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-event")));
    expect(kinds[0]).toBe("task");
    expect(kinds).toContain("status-update");
    const taskId = (await page.locator("[data-task][aria-current=true]").getAttribute("data-task")) ?? "";
    await events.first().getByRole("button").click();
    expect(await page.locator("[data-inspector] pre").first().textContent()).toContain(taskId);
    await screenshot(page, "inspector");
  });

  it("shows a banner while the server does not answer and recovers when it does", async () => {
    const page = await openUi(unique("offline"));
    await send(page, "Say hello");
    await stateIs(page, "completed");
    // The network between the page and the harness goes down (every A2A call fails).
    await page.route(/\/(rest\/|\.well-known\/|$)/, (route) => route.abort("connectionrefused"));
    await page.getByRole("button", { name: "Refresh the task list" }).click();
    await page.locator("[data-banner=offline]").waitFor();
    await screenshot(page, "offline-banner");
    await page.unrouteAll();
    await page.getByRole("button", { name: "Refresh the task list" }).click();
    await page.locator("[data-banner=offline]").waitFor({ state: "detached" });
  });

  it("shows an A2A error with its message and code, and keeps the page usable", async () => {
    const page = await openUi(unique("error"), "/ui/#task=no-such-task");
    const failure = page.locator("[data-failure]");
    await failure.waitFor();
    expect(await failure.textContent()).toMatch(/GetTask: .*no-such-task/);
    expect(await failure.getAttribute("data-failure")).toBe("-32001");
    await screenshot(page, "a2a-error");
    await page.locator("[data-action=new-task]").click();
    await send(page, "Say hello");
    await stateIs(page, "completed");
  });

  it("keeps the participant in localStorage and lists only that participant's tasks", async () => {
    const page = await openUi(unique("alice"));
    await send(page, "Say hello");
    await stateIs(page, "completed");
    await page.locator("nav[aria-label=Tasks] [data-task]").first().waitFor();
    await page.getByLabel("Participant id").fill(unique("bob"));
    await page.getByLabel("Participant id").press("Enter");
    await page.getByText("No tasks yet.").waitFor();
    const bob = await page.getByLabel("Participant id").inputValue();
    await page.reload();
    expect(await page.getByLabel("Participant id").inputValue()).toBe(bob);
    await page.getByText("No tasks yet.").waitFor();
    await screenshot(page, "another-participant");
  });
});

describe("the web UI mid-task, its model held (e2e/held-model.ts)", () => {
  let model: HeldModel;
  let held: Harness;

  beforeAll(async () => {
    model = await startHeldModel();
    held = await startHarness({
      TINY_HARNESS_MODEL__PROVIDER: "openai-chat",
      TINY_HARNESS_MODEL__MODEL: "held",
      TINY_HARNESS_MODEL__BASE_URL: model.url,
    });
  });

  afterAll(async () => {
    await held.stop();
    await model.close();
  });

  it("reopens the task after a reload mid-task and sees it finish, nothing shown twice", async () => {
    const page = await openUi(unique("reload"), "/ui/", held.url);
    model.arm();
    await send(page, "Make a plan");
    await model.holding(); // the task waits on its model: mid-task by construction
    await page.locator('[data-step="done"]').filter({ hasText: "Look around" }).waitFor();
    await stateIs(page, "working");
    await page.reload();
    await page.locator("[data-entry]").filter({ hasText: "Planning." }).waitFor();
    await stateIs(page, "working");
    model.release();
    await page.getByText("The plan is done.").waitFor({ timeout: 30_000 });
    await stateIs(page, "completed");
    expect(await userTexts(page)).toEqual(["Make a plan"]);
    await expect(page.locator("[data-entry]").filter({ hasText: "Planning." }).count()).resolves.toBe(1);
    expect(await page.locator("[data-step]").evaluateAll((steps) => steps.map((s) => s.getAttribute("data-step")))).toEqual([
      "done",
      "done",
    ]);
    await expect(page.locator('[data-tool="complete_step"]').count()).resolves.toBe(2);
    await screenshot(page, "reloaded-and-finished");
  });

  it("resubscribes after the connection drops mid-task and misses nothing", async () => {
    const page = await openUi(unique("drop"), "/ui/", held.url);
    model.arm();
    await send(page, "Make a plan");
    await model.holding();
    await page.locator('[data-step="done"]').filter({ hasText: "Look around" }).waitFor();
    await page.context().setOffline(true); // the open stream breaks, and every call fails
    await page.locator("[data-banner=offline]").waitFor();
    await screenshot(page, "connection-dropped");
    model.release(); // the task finishes while the page cannot hear it
    await page.context().setOffline(false);
    await page.getByText("The plan is done.").waitFor({ timeout: 30_000 });
    await page.locator("[data-banner=offline]").waitFor({ state: "detached" });
    await stateIs(page, "completed");
    expect(await userTexts(page)).toEqual(["Make a plan"]);
    await expect(page.locator("[data-entry]").filter({ hasText: "Planning." }).count()).resolves.toBe(1);
    await expect(page.locator("[data-entry]").filter({ hasText: "Step look done" }).count()).resolves.toBe(1);
    await expect(page.locator('[data-tool="complete_step"]').count()).resolves.toBe(2);
  });
});

describe("the web UI of a harness that requires a key", () => {
  const key = `th_${randomBytes(32).toString("base64url")}`;
  let keyed: Harness;

  beforeAll(async () => {
    const digest = createHash("sha256").update(key).digest("hex");
    keyed = await startHarness({
      TINY_HARNESS_AUTH__MODE: "api_key",
      TINY_HARNESS_AUTH__API_KEYS: JSON.stringify([{ participant: "keyholder", sha256: digest }]),
    });
  });

  afterAll(async () => {
    await keyed.stop();
  });

  it("asks for the key, refuses to list without it, and works once it is given", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(keyed.url + "/ui/");
    await page.getByLabel("API key").waitFor();
    expect(await page.getByLabel("Participant id").count()).toBe(0);
    await page.getByText("a valid credential is required").first().waitFor();
    await screenshot(page, "key-asked");
    await page.getByLabel("API key").fill(key);
    await page.getByLabel("API key").press("Enter");
    await page.locator('[aria-label="connected"]').waitFor();
    await send(page, "Say hello");
    await stateIs(page, "completed");
    await page.locator("nav[aria-label=Tasks] [data-task]").first().waitFor();
    await page.reload();
    expect(await page.getByLabel("API key").inputValue()).toBe(key);
    await page.locator("nav[aria-label=Tasks] [data-task]").first().waitFor();
    await screenshot(page, "key-given");
  });
});

describe("the web UI's look", () => {
  it("draws light and dark, and fits a 360 px wide screen with the task list behind a menu", async () => {
    const page = await openUi(unique("looks"));
    await send(page, "Order a shirt");
    await page.locator('[data-surface="shirt"]').getByText("Oxford shirt, white").waitFor();
    await stateIs(page, "needs input");
    await page.waitForFunction(atTheBottom); // the question, drawn last, is in view
    const isDark = () => page.evaluate(() => document.documentElement.classList.contains("dark"));
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const text = () => page.evaluate(() => getComputedStyle(document.body).color);
    // Light first: its own class and colours, dark text on a light page.
    expect(await isDark()).toBe(false);
    const light = { background: await background(), text: await text() };
    expect(light.background).not.toBe(light.text);
    await screenshot(page, "web-light");

    await page.getByRole("button", { name: "Dark theme" }).click();
    expect(await isDark()).toBe(true);
    expect(await background()).not.toBe(light.background);
    expect(await text()).not.toBe(light.text);
    await page.waitForTimeout(400); // the controls' colour transition
    await screenshot(page, "web-dark");
    await page.reload();
    await page.locator('[data-surface="shirt"]').waitFor();
    expect(await isDark()).toBe(true);
    // And back: the light theme returns with the colours it had.
    await page.getByRole("button", { name: "Light theme" }).click();
    expect(await isDark()).toBe(false);
    expect({ background: await background(), text: await text() }).toEqual(light);
    await page.getByRole("button", { name: "Dark theme" }).click();
    expect(await isDark()).toBe(true);

    await page.setViewportSize({ width: 360, height: 740 });
    await expect(page.locator("nav[aria-label=Tasks]").isVisible()).resolves.toBe(false);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await expect(page.getByLabel("Message").isVisible()).resolves.toBe(true);
    await screenshot(page, "web-phone");
    await page.getByRole("button", { name: "Tasks" }).click();
    await page.locator("nav[aria-label=Tasks] [data-task]").first().waitFor();
    await screenshot(page, "web-phone-tasks");
  });

  it("is reachable from the keyboard: / to the message box, Tab to every control", async () => {
    const page = await openUi(unique("keys"));
    await page.locator("body").click({ position: { x: 5, y: 400 } });
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Message");
    await page.keyboard.type("Pick a colour");
    await page.keyboard.press("Enter");
    await stateIs(page, "needs input");
    const reached: string[] = [];
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press("Tab");
      reached.push(await page.evaluate(() => document.activeElement?.textContent.trim() ?? ""));
    }
    expect(reached).toContain("New task");
    expect(reached).toContain("blue");
    await page.locator('[data-option="red"]').focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-option"))).toBe("blue");
    await page.waitForTimeout(300); // the focus ring's transition
    await screenshot(page, "keyboard-focus");
    await page.keyboard.press("Enter");
    await page.getByText("Blue it is.").waitFor();
  });
});
