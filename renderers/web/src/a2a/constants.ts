/** Names the harness and its extensions use on the wire. */

export const A2UI_EXTENSION_URI = "https://a2ui.org/a2a-extension/a2ui/v0.9.1";
export const A2UI_MEDIA_TYPE = "application/a2ui+json";
/** The A2UI version the harness speaks; actions go back in the envelope this names. */
export const A2UI_VERSION = "v0.9.1";
export const TASK_MEDIA_TYPE = "application/vnd.tiny-harness.task+json";
export const PLAN_MEDIA_TYPE = "application/vnd.tiny-harness.plan+json";
/** How a new plan's message begins its text: the plan, for clients that read text only. */
export const PLAN_TEXT_PREFIX = "Plan:\n";
/** A model or tool call, told as it starts and as it ends (docs/a2a/ext/call.schema.json). */
export const CALL_MEDIA_TYPE = "application/vnd.tiny-harness.call+json";
export const CHANNEL_MEDIA_TYPE = "application/vnd.tiny-harness.channel+json";
/** Where `Task.metadata` keeps the harness's task extension. */
export const TASK_EXT_KEY = "io.github.madarauchiha-314.tiny-harness/task";
export const PARTICIPANT_HEADER = "X-Participant-Id";
