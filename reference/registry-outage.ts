/**
 * The registry as the cluster reaches it, with a switch that cuts it off for a while: what the nodes and the CVO see
 * when a registry goes down or the network to it fails mid-rollout. While it is cut off, every pull and payload read
 * fails the way a refused connection fails; the registry itself and its images are untouched.
 */
import type { ImageReader } from './context.js';
import { ImagePullError } from './images.js';

export class RegistryOutage {
  private down = false;

  constructor(private readonly registry: string) {}

  set reachable(reachable: boolean) {
    this.down = !reachable;
  }

  get reachable(): boolean {
    return !this.down;
  }

  /** `reader`, failing while the registry is cut off. */
  wrap(reader: ImageReader): ImageReader {
    const check = (): void => {
      if (!this.down) return;
      throw new ImagePullError(
        `Creating importer: failed to invoke method OpenImage: pinging container registry ${this.registry}: Get "https://${this.registry}/v2/": dial tcp ${this.registry}: connect: connection refused`,
      );
    };
    return {
      readRelease: async (ref) => (check(), reader.readRelease(ref)),
      readOsImage: async (ref) => (check(), reader.readOsImage(ref)),
      resolveOsImage: async (ref) => (check(), reader.resolveOsImage(ref)),
      readImageLabels: async (ref) => (check(), reader.readImageLabels(ref)),
      imageArchitecture: async (ref, architecture) => (check(), reader.imageArchitecture(ref, architecture)),
    };
  }
}
