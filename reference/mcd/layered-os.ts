/**
 * Image mode on the node (MCO release-4.20 pkg/daemon/ocl.go `embedOCLImageInMachineConfig`, update.go, writer.go; the
 * same at 4.19-4.22): a node whose desiredImage annotation is set boots that image instead of its rendered config's
 * osImageURL. The daemon puts the image into a copy of the config in memory, so the diff, the rebase and the booted
 * check all see it as the config's OS image; once done it records it as currentImage, and a node whose desiredImage
 * went (its pool's MachineOSConfig deleted) goes back to the rendered osImageURL and loses currentImage.
 */
import type { V1Node } from '@kubernetes/client-node';
import { ANN } from '../constants.js';
import type { MachineConfig } from '../mco/types.js';

/** The node's image annotations ('' when absent). */
export interface NodeImages {
  desired: string;
  current: string;
}

export function nodeImagesOf(node: V1Node | undefined): NodeImages {
  const annotations = node?.metadata?.annotations ?? {};
  return { desired: annotations[ANN.desiredImage] ?? '', current: annotations[ANN.currentImage] ?? '' };
}

/** What the daemon is asked for: a config and maybe an image; the same pair twice is the same update. */
export function updateKey(config: string, image: string): string {
  return `${config}\u0000${image}`;
}

/** embedOCLImageInMachineConfig: a copy of the config whose osImageURL is the image; the config itself without one. */
export function withImage<T extends MachineConfig>(config: T, image: string): T {
  if (!image) return config;
  return { ...config, spec: { ...config.spec, osImageURL: image } };
}

/**
 * The currentImage part of the daemon's Done write (writer.go): the image it booted, or the annotation removed (a
 * merge patch's null) when it booted none. Nothing for a node that never had one, so clusters without image mode
 * see the same writes as before.
 */
export function currentImagePatch(booted: string, node: V1Node | undefined): Record<string, string | null> {
  if (booted) return { [ANN.currentImage]: booted };
  return node?.metadata?.annotations?.[ANN.currentImage] !== undefined ? { [ANN.currentImage]: null } : {};
}
