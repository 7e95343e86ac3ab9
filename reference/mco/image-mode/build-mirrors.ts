/**
 * The build pod pulls as the pool's nodes do: upstream mounts the rendered config's /etc/containers/registries.conf
 * into the build container (MCO release-4.20 pkg/controller/build/buildrequest/buildrequest.go, the `etc-registries`
 * volume), so on a disconnected cluster buildah takes the base, the extensions image and any image the user's
 * Containerfile names from the mirrors the cluster's ImageDigestMirrorSets, ImageTagMirrorSets and
 * ImageContentSourcePolicies give. The reference builds with the machine's engine, which knows no registries.conf:
 * each image a FROM or `--from=` names is resolved the way the nodes resolve a pull (reference/images.ts), and the
 * Containerfile the engine gets names the copy that serves it. Labels keep the names the MCO wrote.
 */

/** An image reference, not a stage name: stage names have no `/`. */
const isImageRef = (word: string): boolean => word.includes('/');

const FROM_LINE = /^(\s*FROM\s+)(?:--platform=\S+\s+)?(\S+)/gim;
const FROM_FLAG = /(--from=)(\S+)/g;

/** The images a Containerfile pulls (FROM lines and --from= flags), once each, in order. */
export function pulledImages(containerfile: string): string[] {
  const refs = new Set<string>();
  for (const m of containerfile.matchAll(FROM_LINE)) if (isImageRef(m[2]!)) refs.add(m[2]!);
  for (const m of containerfile.matchAll(FROM_FLAG)) if (isImageRef(m[2]!)) refs.add(m[2]!);
  return [...refs];
}

/**
 * The Containerfile with every pulled image replaced by the source `resolve` gives for it (the ref itself when nothing
 * maps it); `say` hears each replacement. A pull nothing serves throws resolve's error (the node's own words).
 */
export async function followMirrors(containerfile: string, resolve: (ref: string) => Promise<string>, say: (line: string) => void): Promise<string> {
  const sources = new Map<string, string>();
  for (const ref of pulledImages(containerfile)) {
    const source = await resolve(ref);
    if (source !== ref) {
      sources.set(ref, source);
      say(`${ref} is pulled from ${source} (the mirror sets in the rendered config's /etc/containers/registries.conf)`);
    }
  }
  if (!sources.size) return containerfile;
  // the image is the last thing either pattern matches: swap that tail, keep the rest (FROM, --platform, --from=)
  const swapTail = (whole: string, ref: string): string => whole.slice(0, whole.length - ref.length) + (sources.get(ref) ?? ref);
  return containerfile.replace(FROM_LINE, (whole, _prefix: string, ref: string) => swapTail(whole, ref)).replace(FROM_FLAG, (whole, _flag: string, ref: string) => swapTail(whole, ref));
}
