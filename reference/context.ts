/** What every reference controller is given: the API client and caches, the clock, the profile and the deviations of the active faults. */
import type { ClusterClock } from './clock.js';
import type { InformerFactory } from '../lib/kube/informer.js';
import type { KubeClient } from '../lib/kube/client.js';
import type { Deviations } from './faults.js';
import type { Profile } from './profiles/profile.js';
import type { ReleaseInfo } from './releases/release-info.js';

/** What the reference learns from images, by asking the registry (see reference/images.ts). */
export interface OsImageContent {
  digest: string;
  /** Parsed /etc/os-release. */
  osRelease: Record<string, string>;
  /** name-version-release of every installed package. */
  packages: string[];
}

export interface ImageReader {
  /** The release a payload image describes (release metadata + image-references). */
  readRelease(payloadRef: string): Promise<ReleaseInfo>;
  /** Pull an OS image: digest, os-release and packages. Throws with a pull error a person can act on. */
  readOsImage(ref: string): Promise<OsImageContent>;
  /**
   * What every node's pull does even when the reference already holds the content another node read: reach the
   * registry and resolve the image's manifest. Throws like readOsImage.
   */
  resolveOsImage(ref: string): Promise<void>;
  /** The labels of the image's config (how the daemon tells a bootable image from another). Throws like readOsImage. */
  readImageLabels(ref: string): Promise<Record<string, string>>;
  /**
   * The architecture of the image a linux/`architecture` machine's pull of `ref` gets: an index followed to that
   * platform's entry (a pull error in containers/image's words without one), a plain image's config as it says.
   */
  imageArchitecture(ref: string, architecture: string): Promise<string>;
}

export type Logger = (component: string, line: string) => void;

export interface ControllerContext {
  client: KubeClient;
  informers: InformerFactory;
  clock: ClusterClock;
  profile: Profile;
  /** Where the active faults make the controllers misbehave; all false without faults. */
  deviations: Readonly<Deviations>;
  seed: number;
  images: ImageReader;
  log: Logger;
  signal: AbortSignal;
}

export interface Controller {
  /** Register informers and handlers; called before the informers start. */
  setup(): void;
  /** Begin work once the caches are synced. */
  start(): void;
  /** Finish in-flight work; the abort signal has already fired. */
  stop(): Promise<void>;
}
