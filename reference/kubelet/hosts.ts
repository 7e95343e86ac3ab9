/**
 * What each simulated machine booted: the OS image of its booted deployment and of the rollback deployment, as
 * rpm-ostree keeps them on a real host. The machine-config daemon changes it when it rebases and reboots a node;
 * the kubelet stand-in reads it when a debug pod runs a command on the host. It lives in memory, next to the
 * simulated machines, and is not published through the API: a real cluster has no such object either.
 */
import type { BootedImage } from '../mcd/os-status.js';

export interface HostOs {
  booted: BootedImage;
  /** The rollback deployment, when the host was ever rebased. */
  previous?: BootedImage;
}

export class NodeHosts {
  private readonly hosts = new Map<string, HostOs>();

  /** `installed`: what every machine booted when the cluster was installed. */
  constructor(private readonly installed: BootedImage) {}

  get(node: string): HostOs {
    return this.hosts.get(node) ?? { booted: this.installed };
  }

  /** The daemon rebased and rebooted `node` into `image`; the deployment it left becomes the rollback one. */
  boot(node: string, image: BootedImage): void {
    const before = this.get(node);
    if (before.booted.pullspec === image.pullspec && before.booted.content.digest === image.content.digest) return;
    this.hosts.set(node, { booted: image, previous: before.booted });
  }

  forget(node: string): void {
    this.hosts.delete(node);
  }
}
