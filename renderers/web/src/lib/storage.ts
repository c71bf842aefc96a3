/** The page's few settings in localStorage, read and written without ever throwing. */

const PREFIX = "tiny-harness.";

export function load(key: string, fallback: string): string {
  try {
    return localStorage.getItem(PREFIX + key) ?? fallback;
  } catch {
    return fallback; // storage off (private mode, policy): the default for this visit
  }
}

export function save(key: string, value: string): void {
  try {
    if (value) localStorage.setItem(PREFIX + key, value);
    else localStorage.removeItem(PREFIX + key);
  } catch {
    // Not kept across visits; the page works the same.
  }
}

/** Task titles this browser knows (its first message), for tasks whose listing has no name. */
export function rememberTitle(taskId: string, title: string): void {
  const titles = knownTitles();
  if (titles[taskId] === title) return;
  titles[taskId] = title;
  const kept = Object.entries(titles).slice(-200);
  save("titles", JSON.stringify(Object.fromEntries(kept)));
}

export function knownTitles(): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(load("titles", "{}"));
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}
