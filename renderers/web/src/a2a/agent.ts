/**
 * `Agent`: the harness as this page talks to it, through `@a2a-js/sdk`'s `ClientFactory`.
 *
 * The factory reads the agent card and picks the transport the card offers (JSON-RPC
 * first, HTTP+JSON otherwise); every call carries the participant id (`X-Participant-Id`),
 * the person's key as a bearer token when they gave one, and asks for the A2UI extension
 * (`A2A-Extensions`) when the card offers it. Nothing here writes an A2A request by hand.
 */

import "@/a2a/buffer-shim";

import { ListTasksRequest, SendMessageRequest, TaskState } from "@a2a-js/sdk";
import type { AgentCard, Message, StreamResponse, Task } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  ServiceParameters,
  withA2AExtensions,
  type Client,
  type RequestOptions,
} from "@a2a-js/sdk/client";

import { A2UI_EXTENSION_URI, PARTICIPANT_HEADER } from "@/a2a/constants";

/** How many tasks the list asks for: one page, newest change first. */
export const TASK_PAGE_SIZE = 50;

// The SDK calls its fetch as a method; the browser's fetch must be called unbound.
const fetchImpl: typeof fetch = (input, init) => fetch(input, init);

export class Agent {
  readonly card: AgentCard;
  readonly participant: string;
  private readonly client: Client;
  private readonly extensions: string[];

  private readonly key: string;

  private constructor(client: Client, card: AgentCard, participant: string, key: string) {
    this.client = client;
    this.card = card;
    this.participant = participant;
    this.key = key;
    const offered = (card.capabilities?.extensions ?? []).map((e) => e.uri);
    this.extensions = offered.includes(A2UI_EXTENSION_URI) ? [A2UI_EXTENSION_URI] : [];
  }

  /**
   * The agent whose card is at `baseUrl`, spoken to as `participant` ("" for nobody), every
   * call presenting `key` as a bearer token when one is given (an agent whose card declares
   * security schemes answers nothing else; the card itself is public).
   */
  static async open(baseUrl: string, participant: string, key = ""): Promise<Agent> {
    // The SDK types the factories' options as classes; plain objects are what it reads.
    /* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment */
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      preferredTransports: ["JSONRPC", "HTTP+JSON"],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    });
    /* eslint-enable @typescript-eslint/no-unsafe-class-instance-assignment */
    const client = await new ClientFactory(options).createFromUrl(baseUrl);
    const card = await client.getAgentCard();
    return new Agent(client, card, participant, key);
  }

  /** Whether the card says a call must present a credential (an API key or a token). */
  get requiresCredential(): boolean {
    // Typed as always there, but a card that declares none has no map at all.
    const schemes = this.card.securitySchemes as Record<string, unknown> | undefined;
    return schemes !== undefined && Object.keys(schemes).length > 0;
  }

  /** Whether the card offers A2UI, so the page asks for it and draws surfaces. */
  get offersA2ui(): boolean {
    return this.extensions.length > 0;
  }

  /** The caller's tasks, newest change first, without their histories. */
  async listTasks(): Promise<Task[]> {
    const request = ListTasksRequest.fromJSON({ pageSize: TASK_PAGE_SIZE, historyLength: 0 });
    request.status = TaskState.TASK_STATE_UNSPECIFIED;
    const page = await this.client.listTasks(request, this.options());
    return page.tasks;
  }

  /** GetTask: the task as it stands, with its history. */
  getTask(taskId: string): Promise<Task> {
    return this.client.getTask({ tenant: "", id: taskId }, this.options());
  }

  /** CancelTask: the task as the agent answers. */
  cancel(taskId: string): Promise<Task> {
    return this.client.cancelTask({ tenant: "", id: taskId, metadata: undefined }, this.options());
  }

  /** SendStreamingMessage: the task it starts or continues, then its events. */
  send(message: Message, signal: AbortSignal): AsyncGenerator<StreamResponse> {
    const request = SendMessageRequest.fromJSON({});
    request.message = { ...message, extensions: this.extensions };
    return this.client.sendMessageStream(request, this.options(signal));
  }

  /** SubscribeToTask: the task as it stands, then every event. */
  subscribe(taskId: string, signal: AbortSignal): AsyncGenerator<StreamResponse> {
    return this.client.resubscribeTask({ tenant: "", id: taskId }, this.options(signal));
  }

  private options(signal?: AbortSignal): RequestOptions {
    const updates = this.extensions.length > 0 ? [withA2AExtensions(...this.extensions)] : [];
    const serviceParameters = ServiceParameters.create(...updates);
    if (this.participant) serviceParameters[PARTICIPANT_HEADER] = this.participant;
    if (this.key) serviceParameters.Authorization = `Bearer ${this.key}`;
    return signal === undefined ? { serviceParameters } : { serviceParameters, signal };
  }
}
