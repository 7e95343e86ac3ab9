/**
 * Programs the kubelet stand-in can run in a container. The reference has no container runtime: a pod whose
 * containers must really do something (an on-cluster image build's `image-build` and `create-digest-configmap`
 * containers) names, in PROGRAM_ANNOTATION, the program that plays its containers. Whoever creates such pods (the
 * build controller) registers the program; the kubelet runs the pod's init containers one after another, then its
 * containers, each through the program, and reports each exit code as a terminated container state.
 */
import type { V1Container, V1Pod } from '@kubernetes/client-node';

/** Annotation on a pod naming the registered program that runs its containers. */
export const PROGRAM_ANNOTATION = 'reference.ocp-e2e.io/program';

/** One container's run, as the kubelet hands it to a program. */
export interface ContainerRun {
  pod: V1Pod;
  container: V1Container;
  /** True for an init container. */
  init: boolean;
  /** The node the pod runs on. */
  node: string;
  /** Appends to the container's log (what `oc logs` shows); embedded newlines split lines. */
  write(text: string): void;
  /** Aborted when the pod is deleted or the cluster stops: the program should end promptly. */
  signal: AbortSignal;
}

/** Plays one container; resolves to the container's exit code. A throw is exit code 1 with the message logged. */
export type PodProgram = (run: ContainerRun) => Promise<number>;

export class PodPrograms {
  private readonly programs = new Map<string, PodProgram>();

  register(name: string, program: PodProgram): void {
    if (this.programs.has(name)) throw new Error(`pod program ${name} is already registered`);
    this.programs.set(name, program);
  }

  get(name: string): PodProgram | undefined {
    return this.programs.get(name);
  }

  names(): string[] {
    return [...this.programs.keys()];
  }
}
