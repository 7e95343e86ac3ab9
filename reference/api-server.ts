/**
 * The reference's API server: the mock with the OpenShift CRDs on the cluster clock. With a data directory it can be
 * restarted as a real kube-apiserver rolls: same address, serving certificate and token, every watch cut, the objects
 * and their resource versions going on from the data directory. Clients reconnect on their own.
 */
import { startApiServer, type ApiServerOptions, type AuthorizationHook, type FaultConfig, type RunningApiServer, type ServingCertificates } from '../mock/index.js';
import type { Duplex } from 'node:stream';
import type { ClusterClock } from './clock.js';
import type { ClusterTraffic } from './cluster-traffic.js';
import { OPENSHIFT_EXTRA_PRINTER_COLUMNS, openShiftCrds } from './crds/index.js';

export interface ReferenceApiServerOptions {
  clock: ClusterClock;
  /** What its requests and streams mean for the clock; the cluster's own clients use the same one. */
  traffic: ClusterTraffic;
  faults?: FaultConfig;
  /** Keeps every write; needed to restart. */
  dataDir?: string;
  /** The serving certificate (the cluster's CA signs it). */
  certificates?: ServingCertificates;
  /** Told every request of a user other than the admin (ServiceAccounts), with its RBAC decision. */
  onAuthorize?: AuthorizationHook;
  /** The version the cluster is installed at: its release's CRD set is installed (crds/index.ts crdSetOf). */
  releaseVersion?: string;
}

export class ReferenceApiServer {
  private constructor(
    private server: RunningApiServer,
    private readonly options: ReferenceApiServerOptions,
    private faults: FaultConfig | undefined,
  ) {}

  static async start(options: ReferenceApiServerOptions): Promise<ReferenceApiServer> {
    const server = await startApiServer({ ...serverOptions(options), crds: openShiftCrds(options.releaseVersion), certificates: options.certificates, faults: options.faults });
    return new ReferenceApiServer(server, options, options.faults);
  }

  get url(): string {
    return this.server.url;
  }

  writeKubeconfig(path: string): Promise<void> {
    return this.server.writeKubeconfig(path);
  }

  /**
   * A connection of the cluster's own components, which run in this process: to the server running now, refused
   * while a restart has it down (as their TCP connections would be).
   */
  connect(): Duplex {
    return this.server.connect();
  }

  setFaults(faults: FaultConfig): void {
    this.faults = faults;
    this.server.setFaults(faults);
  }

  dropWatches(): void {
    this.server.dropWatches();
  }

  /** Stops the server, waits `downWallMs` (requests meanwhile are refused), and starts it again as the same server. */
  async restart(downWallMs: number): Promise<void> {
    if (!this.options.dataDir) throw new Error('restarting the API server needs a data directory (apiDataDir): without one it would come back empty');
    const { port } = new URL(this.server.url);
    const { token, certificates } = this.server;
    await this.server.close();
    await new Promise((resolve) => setTimeout(resolve, downWallMs));
    // no CRDs passed: the data directory holds the ones served, the CVO's newer set after an upgrade among them
    this.server = await startApiServer({ ...serverOptions(this.options), port: Number(port), token, certificates, faults: this.faults });
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

/** What the server is at every start, the first and each restart (the CRDs are installed at the first only). */
function serverOptions(options: ReferenceApiServerOptions): ApiServerOptions {
  return {
    // The extra columns keep `oc get co`'s MESSAGE even after someone applies the upstream CRDs over ours.
    extraPrinterColumns: OPENSHIFT_EXTRA_PRINTER_COLUMNS,
    now: () => options.clock.now(),
    dataDir: options.dataDir,
    // one process plays every node's kubelet, on this machine
    kubeletHost: '127.0.0.1',
    // RBAC as on every real cluster: the reference's own controllers use the admin kubeconfig (system:masters), so
    // only other users (ServiceAccounts given to the suite) are held to their roles.
    rbac: true,
    onAuthorize: options.onAuthorize,
    activity: options.traffic,
  };
}
