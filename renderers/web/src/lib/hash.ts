/**
 * The open task's id in the page's address (`#task=<id>`), so a reload or a shared link
 * opens the same task.
 */

export function taskInHash(): string {
  return new URLSearchParams(location.hash.slice(1)).get("task") ?? "";
}

export function putTaskInHash(taskId: string): void {
  const hash = taskId ? `#task=${encodeURIComponent(taskId)}` : "";
  if (location.hash !== hash) history.replaceState(null, "", hash || location.pathname);
}
