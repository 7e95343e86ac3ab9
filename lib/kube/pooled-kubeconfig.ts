/**
 * A KubeConfig whose API calls share one keep-alive connection pool. client-node 1.x makes a new https.Agent for
 * every call, so every call opens a new TLS connection: a handshake, and a secure context built from the CA again.
 * Measured on the reference cluster's controllers (bench/RESULTS.md, "connection reuse"), that was about a third of
 * the CPU of a spec. The pool's agent is made from the options of the first agent client-node makes (CA, client
 * certificate, server name, verification), which come from the kubeconfig and do not change; a proxy agent (a
 * subclass) is left as it is. Watches (and the other streams client-node opens with fetch) get a keep-alive pool of
 * their own, for the same reason: a new agent per watch built a secure context from the CA for each (in a profile of
 * spec 1 on a 30-node reference cluster, making secure contexts took 0.36 of its 37 CPU seconds).
 *
 * A client in the API server's own process (the reference cluster's components) is given `connect`, the server's
 * in-process connections: then every call and watch goes over those, with neither TCP nor TLS.
 */
import { Agent } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { KubeConfig, type User } from '@kubernetes/client-node';

type RequestContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];

/** An https agent whose connections come from `connect` (HTTP over them as over TLS: the scheme stays https). */
class InProcessAgent extends Agent {
  constructor(private readonly connectTo: () => Duplex) {
    super({ keepAlive: true });
  }

  // Node's http.Agent method that opens a connection (typed in neither @types/node's Agent nor its https one)
  createConnection(): Socket {
    return this.connectTo() as Socket; // Node's HTTP client uses only what a Duplex has and no-op socket options
  }
}

export class PooledKubeConfig extends KubeConfig {
  private pooled?: Agent;
  private streamPool?: Agent;
  private readonly inProcess?: Agent;

  /**
   * `headers` go with every request, API calls and watches alike (the reference's components name themselves);
   * `connect` makes connections to an API server in this process.
   */
  constructor(
    private readonly headers: Readonly<Record<string, string>> = {},
    connect?: () => Duplex,
  ) {
    super();
    if (connect) this.inProcess = new InProcessAgent(connect);
  }

  override async applyToFetchOptions(opts: Parameters<KubeConfig['applyToFetchOptions']>[0]): ReturnType<KubeConfig['applyToFetchOptions']> {
    const init = await super.applyToFetchOptions(opts);
    // client-node builds the headers as a WHATWG Headers (config.js), whatever node-fetch's type says
    const headers = init.headers as unknown as Headers;
    for (const [name, value] of Object.entries(this.headers)) headers.set(name, value);
    const made = init.agent;
    if (this.inProcess) {
      init.agent = this.inProcess;
    } else if (made && typeof made === 'object' && made.constructor === Agent) {
      this.streamPool ??= new Agent({ ...(made as Agent).options, keepAlive: true });
      init.agent = this.streamPool;
    }
    return init;
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    const token = this.inProcess && staticToken(this.getCurrentUser());
    if (token) {
      // client-node's own work per call (decoding the CA and the client certificate, an https.Agent made and thrown
      // away) buys nothing over in-memory connections: ~60 µs a call, ~600 calls in a spec-1 run (profiled)
      context.setHeaderParam('Authorization', `Bearer ${token}`);
    } else {
      await super.applySecurityAuthentication(context);
    }
    for (const [name, value] of Object.entries(this.headers)) context.setHeaderParam(name, value);
    if (this.inProcess) {
      context.setAgent(this.inProcess);
      return;
    }
    const made = context.getAgent();
    if (!made || made.constructor !== Agent) return;
    this.pooled ??= new Agent({ ...(made as Agent).options, keepAlive: true });
    context.setAgent(this.pooled);
  }
}

/** The user's bearer token when it is all the user authenticates with (no exec plugin, auth provider, basic auth or impersonation). */
function staticToken(user: User | null): string | undefined {
  if (!user?.token || user.exec || user.authProvider || user.username || user.impersonateUser) return undefined;
  return user.token;
}
