/** What every handler of the HTTP face gets: the server's parts (context) and the request being served (call). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Api } from '../api.js';
import type { Discovery } from '../discovery.js';
import type { Faults } from '../faults.js';
import type { OpenApi } from '../openapi.js';
import type { AccessControl, UserInfo } from '../rbac/index.js';
import type { ResourceRegistry } from '../resources.js';

export interface HttpContext {
  api: Api;
  registry: ResourceRegistry;
  discovery: Discovery;
  openapi: OpenApi;
  faults: Faults;
  token: string;
  now: () => Date;
  bodyLimit?: number;
  /** How often watches that asked for bookmarks get one. */
  bookmarkIntervalMs: number;
  /** Open watch responses, ended when the server closes. */
  watches: Set<ServerResponse>;
  serverAddress: () => string;
  /** Where `pods/log` reaches every node's kubelet (a loopback host), instead of the node's InternalIP. */
  kubeletHost?: string;
  /** ServiceAccount tokens and, when it is on, RBAC (../rbac/); absent: the one admin token, allowed everything. */
  access?: AccessControl;
}

/** One request, its URL split once. */
export interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  /** The path without the query. */
  path: string;
  /** Decoded non-empty path segments: `/apis/g/v` is `['apis', 'g', 'v']`. */
  segs: string[];
  query: URLSearchParams;
  /** Who made the call, once its bearer token is checked (access reviews answer for this user). */
  user?: UserInfo;
}

/** A route of the server: which calls it takes, and how it answers them. */
export interface Route {
  name: string;
  /** Served without a bearer token and without injected faults (health probes). */
  public?: boolean;
  matches(call: Call): boolean;
  handle(ctx: HttpContext, call: Call): void | Promise<void>;
}
