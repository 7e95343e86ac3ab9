/**
 * What every node of a pool must show, turned into the probes one debug pod runs and the facts that judge their
 * answers. The booted image comes first: when a node booted the wrong image, that is the failure a person reads.
 */
import type { Fact } from './facts/fact.js';
import {
  nodeBootedImage,
  nodeHasFile,
  nodeHasKernelArguments,
  nodeHasPackage,
  nodeLacksFile,
  nodeLacksPackage,
  nodeRunsKernelType,
  nodeUnitEnabled,
  type ExpectedFile,
} from './facts/node.js';
import type { ProbeReadings } from './node-os.js';
import {
  bootedImageProbe,
  fileProbe,
  kernelArgumentsProbe,
  kernelTypeProbe,
  packageProbe,
  unitProbe,
  type KernelType,
  type NodeProbe,
} from './node-probes.js';

export interface NodeExpectation {
  /** The pullspec every node must have booted. */
  image: string;
  /** Why this image (and the rest) is expected, for failure messages ("custom image of tc-54183-..."). */
  why: string;
  /** A package the image must contain: the layered image adds it (zsh). */
  package?: string;
  /** Packages every node must have installed (extensions, or what the image layers). */
  packages?: string[];
  /** Arguments every node's kernel command line must carry. */
  kernelArguments?: string[];
  /** Files every node must hold (mode and content when given). */
  files?: ExpectedFile[];
  /** Units every node must have enabled (`enabled: true`) or not enabled. */
  units?: Array<{ name: string; enabled: boolean }>;
  kernelType?: KernelType;
  /** Packages no node may have (what an image that is no longer booted layered). */
  absentPackages?: string[];
  /** Files no node may hold (what an image that is no longer booted added). */
  absentFiles?: string[];
  /**
   * The image's per-architecture images (LayeredImage.platforms): each node must boot its own architecture's, told by
   * `architectureOf` (its kubernetes.io/arch).
   */
  platforms?: ReadonlyArray<{ architecture: string; digest: string }>;
  architectureOf?: (node: string) => string;
}

/** One probe and the fact its answer must satisfy; `judge` may read other answers of the same read. */
export interface NodeCheck {
  probe: NodeProbe<unknown>;
  judge(node: string, readings: ProbeReadings): Fact;
}

/** The checks of an expectation, booted image first. */
export function nodeChecks(e: NodeExpectation): NodeCheck[] {
  const bootedImage = (readings: ProbeReadings): string => readings.get(bootedImageProbe).image;
  const platformsOf = (node: string) => (e.platforms?.length && e.architectureOf ? { architecture: e.architectureOf(node), images: e.platforms } : undefined);
  const checks: NodeCheck[] = [{ probe: bootedImageProbe, judge: (node, r) => nodeBootedImage(node, r.get(bootedImageProbe), e.image, e.why, platformsOf(node)) }];
  if (e.package) {
    const probe = packageProbe(e.package);
    checks.push({ probe, judge: (node, r) => nodeHasPackage(node, e.package!, r.get(probe), bootedImage(r), 'the layered image adds it') });
  }
  for (const name of e.packages ?? []) {
    if (name === e.package) continue;
    const probe = packageProbe(name);
    checks.push({ probe, judge: (node, r) => nodeHasPackage(node, name, r.get(probe), bootedImage(r), e.why) });
  }
  if (e.kernelArguments?.length) {
    checks.push({ probe: kernelArgumentsProbe, judge: (node, r) => nodeHasKernelArguments(node, r.get(kernelArgumentsProbe), e.kernelArguments!, e.why) });
  }
  if (e.kernelType) checks.push({ probe: kernelTypeProbe, judge: (node, r) => nodeRunsKernelType(node, r.get(kernelTypeProbe), e.kernelType!, e.why) });
  for (const file of e.files ?? []) {
    const probe = fileProbe(file.path);
    checks.push({ probe, judge: (node, r) => nodeHasFile(node, r.get(probe), file, e.why) });
  }
  for (const unit of e.units ?? []) {
    const probe = unitProbe(unit.name);
    checks.push({ probe, judge: (node, r) => nodeUnitEnabled(node, unit.name, r.get(probe), unit.enabled, e.why) });
  }
  for (const name of e.absentPackages ?? []) {
    const probe = packageProbe(name);
    checks.push({ probe, judge: (node, r) => nodeLacksPackage(node, name, r.get(probe), e.why) });
  }
  for (const file of e.absentFiles ?? []) {
    const probe = fileProbe(file);
    checks.push({ probe, judge: (node, r) => nodeLacksFile(node, file, r.get(probe), e.why) });
  }
  return checks;
}

/** The step title's tail after "booted <image>": what else each node is checked for. */
export function describeNodeExpectation(e: NodeExpectation): string {
  const parts: string[] = [];
  const packages = [...(e.package ? [e.package] : []), ...(e.packages ?? []).filter((p) => p !== e.package)];
  if (packages.length) parts.push(packages.join(', '));
  if (e.kernelArguments?.length) parts.push(`kernel arguments ${e.kernelArguments.join(' ')}`);
  if (e.kernelType) parts.push(`the ${e.kernelType} kernel`);
  if (e.files?.length) parts.push(`file${e.files.length > 1 ? 's' : ''} ${e.files.map((f) => f.path).join(', ')}`);
  if (e.units?.length) parts.push(e.units.map((u) => `${u.name} ${u.enabled ? 'enabled' : 'not enabled'}`).join(', '));
  if (e.absentPackages?.length) parts.push(`no package ${e.absentPackages.join(', ')}`);
  if (e.absentFiles?.length) parts.push(`no file ${e.absentFiles.join(', ')}`);
  return parts.length ? ` with ${parts.join('; ')}` : '';
}
