// A disconnected cluster's mirror sets and where a pull goes through them, as a node's /etc/containers/registries.conf
// sends it. The MCO renders every ImageDigestMirrorSet, ImageTagMirrorSet and ImageContentSourcePolicy into that file
// (one [[registry]] per source; IDMS and ICSP mirrors serve pulls by digest only, ITMS mirrors pulls by tag only;
// NeverContactSource blocks the source), and containers/image then tries, for a pull, the mirrors of the most specific
// source that matches the reference (a prefix ending at a path boundary), in order, then the source unless blocked
// (containers-registries.conf(5): "mirror", "pull-from-mirror", "blocked"; reference/README.md cites both).
// The suite follows the same mapping on its side: its registry client, `oc adm release info --icsp-file`, the build's base.
import { parseAllDocuments } from 'yaml';
import { ImageHelperError } from './errors.js';
import { parseImageRef } from './image-ref.js';

/** The mirror sets' kinds, as the API names them. */
export const MIRROR_KINDS = {
  digest: { kind: 'ImageDigestMirrorSet', apiVersion: 'config.openshift.io/v1' },
  tag: { kind: 'ImageTagMirrorSet', apiVersion: 'config.openshift.io/v1' },
  icsp: { kind: 'ImageContentSourcePolicy', apiVersion: 'operator.openshift.io/v1alpha1' },
} as const;

/** One source and its mirrors, from one object. */
export interface MirrorRule {
  /** `quay.io/openshift-release-dev/ocp-release`: a registry, optionally with a namespace or repository. */
  source: string;
  mirrors: string[];
  /** Which pulls the mirrors serve: IDMS and ICSP by digest, ITMS by tag. */
  pulls: 'digest' | 'tag';
  /** mirrorSourcePolicy NeverContactSource: the source is never tried. */
  neverContactSource: boolean;
  /** `ImageDigestMirrorSet/release-0`: where the rule came from, for messages. */
  from: string;
}

/** A file or object that is not a mirror set the suite can follow; the message names the file and what is wrong. */
export class MirrorSetError extends ImageHelperError {}

/** Where one pull is tried, in order: each mirror the rules give, then the source unless a rule blocks it. */
export interface PullCandidate {
  ref: string;
  /** The rule the candidate comes from; undefined for the source itself. */
  rule?: MirrorRule;
}

const SOURCE = /^(\*\.)?[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)*$/i;

export class MirrorSets {
  static readonly none = new MirrorSets([]);

  constructor(readonly rules: readonly MirrorRule[]) {}

  get empty(): boolean {
    return this.rules.length === 0;
  }

  /** The objects the rules come from: `ImageDigestMirrorSet/release-0, ImageTagMirrorSet/release-0`. */
  describe(): string {
    return [...new Set(this.rules.map((r) => r.from))].join(', ') || 'none';
  }

  /** The rules of the most specific source matching `ref` (one [[registry]] prefix beats a shorter one), any pull. */
  private mostSpecific(ref: string): MirrorRule[] {
    const parsed = parseImageRef(ref);
    const name = `${parsed.registry}/${parsed.repository}`;
    const matching = this.rules.filter((r) => matches(r.source, name));
    if (!matching.length) return [];
    const longest = Math.max(...matching.map((r) => r.source.length));
    return matching.filter((r) => r.source.length === longest);
  }

  /** The rules whose mirrors serve this pull of `ref`: the most specific source's, for a pull by digest or by tag. */
  rulesFor(ref: string): MirrorRule[] {
    const pulls = parseImageRef(ref).digest ? 'digest' : 'tag';
    return this.mostSpecific(ref).filter((r) => r.pulls === pulls);
  }

  /** The references a pull of `ref` tries, in order. A blocked source is left out (and then nothing may be left). */
  candidates(ref: string): PullCandidate[] {
    const parsed = parseImageRef(ref);
    const rules = this.rulesFor(ref);
    const name = `${parsed.registry}/${parsed.repository}`;
    const suffix = parsed.digest ? `@${parsed.digest}` : `:${parsed.tag ?? 'latest'}`;
    const out: PullCandidate[] = [];
    for (const rule of rules) for (const mirror of rule.mirrors) out.push({ ref: `${mirror}${name.slice(rule.source.length)}${suffix}`, rule });
    if (!this.blocks(ref)) out.push({ ref });
    return out;
  }

  /** Whether the most specific source of `ref` says never to contact it (registries.conf `blocked = true`). */
  blocks(ref: string): boolean {
    return this.mostSpecific(ref).some((r) => r.neverContactSource);
  }

  /**
   * The digest rules as one ImageContentSourcePolicy, what `oc --icsp-file` reads (oc 4.12 has no --idms-file): tag
   * rules cannot be said in one, so a tag pull through oc still goes to the source.
   */
  toIcspYaml(): string {
    const bySource = new Map<string, string[]>();
    for (const rule of this.rules.filter((r) => r.pulls === 'digest')) bySource.set(rule.source, [...(bySource.get(rule.source) ?? []), ...rule.mirrors]);
    const lines = ['apiVersion: operator.openshift.io/v1alpha1', 'kind: ImageContentSourcePolicy', 'metadata:', '  name: ocp-e2e-mirrors', 'spec:', '  repositoryDigestMirrors:'];
    for (const [source, mirrors] of bySource) {
      lines.push(`  - source: ${JSON.stringify(source)}`, '    mirrors:', ...mirrors.map((m) => `    - ${JSON.stringify(m)}`));
    }
    if (!bySource.size) lines[lines.length - 1] = '  repositoryDigestMirrors: []';
    return lines.join('\n') + '\n';
  }

  plus(other: MirrorSets): MirrorSets {
    return new MirrorSets([...this.rules, ...other.rules]);
  }
}

/** `quay.io/a` matches `quay.io/a` and `quay.io/a/b`, not `quay.io/ab`; `*.example.com` any host under example.com. */
function matches(source: string, name: string): boolean {
  if (source.startsWith('*.')) {
    const host = name.split('/')[0]!.replace(/:\d+$/, '');
    return host.endsWith(source.slice(1));
  }
  return name === source || name.startsWith(`${source}/`);
}

/**
 * The rules of mirror-set objects (IDMS, ITMS, ICSP) as the API serves them or a file holds them. `where` names the
 * origin for messages (a file, or `the cluster`). Anything else, or a malformed one, is a MirrorSetError.
 */
export function mirrorRulesOf(objects: unknown[], where: string, allowed: ReadonlyArray<keyof typeof MIRROR_KINDS> = ['digest', 'tag', 'icsp']): MirrorSets {
  const rules: MirrorRule[] = [];
  objects.forEach((object, index) => {
    const o = object as { kind?: unknown; apiVersion?: unknown; metadata?: { name?: unknown }; spec?: Record<string, unknown> } | null;
    const at = `${where}: document ${index + 1}`;
    const which = (Object.keys(MIRROR_KINDS) as Array<keyof typeof MIRROR_KINDS>).find((k) => MIRROR_KINDS[k].kind === o?.kind);
    if (!o || typeof o !== 'object' || !which || !allowed.includes(which)) {
      throw new MirrorSetError(`${at} is ${o && typeof o === 'object' && o.kind ? `kind ${String(o.kind)}` : 'not a Kubernetes object'}; expected ${allowed.map((k) => MIRROR_KINDS[k].kind).join(' or ')}`);
    }
    const { kind, apiVersion } = MIRROR_KINDS[which];
    if (o.apiVersion !== apiVersion) throw new MirrorSetError(`${at}: a ${kind} is ${apiVersion}, not ${String(o.apiVersion)}`);
    const name = typeof o.metadata?.name === 'string' ? o.metadata.name : '';
    if (!name) throw new MirrorSetError(`${at}: the ${kind} has no metadata.name`);
    const field = which === 'digest' ? 'imageDigestMirrors' : which === 'tag' ? 'imageTagMirrors' : 'repositoryDigestMirrors';
    const entries = o.spec?.[field] ?? [];
    if (!Array.isArray(entries)) throw new MirrorSetError(`${at}: ${kind}/${name} spec.${field} is not a list`);
    entries.forEach((entry: unknown, i: number) => rules.push(ruleOf(entry, `${kind}/${name}`, `${at}: ${kind}/${name} spec.${field}[${i}]`, which === 'tag' ? 'tag' : 'digest')));
  });
  return new MirrorSets(rules);
}

function ruleOf(entry: unknown, from: string, at: string, pulls: 'digest' | 'tag'): MirrorRule {
  const e = entry as { source?: unknown; mirrors?: unknown; mirrorSourcePolicy?: unknown } | null;
  if (!e || typeof e !== 'object') throw new MirrorSetError(`${at} is not an object with source and mirrors`);
  if (typeof e.source !== 'string' || !SOURCE.test(e.source)) throw new MirrorSetError(`${at}.source ${JSON.stringify(e.source)} is not a registry, namespace or repository (host[:port][/path])`);
  const mirrors = e.mirrors ?? [];
  if (!Array.isArray(mirrors) || !mirrors.every((m) => typeof m === 'string' && SOURCE.test(m) && !m.startsWith('*.'))) {
    throw new MirrorSetError(`${at}.mirrors must be a list of registries or repositories (host[:port][/path]), got ${JSON.stringify(e.mirrors)}`);
  }
  const policy = e.mirrorSourcePolicy;
  if (policy !== undefined && policy !== 'AllowContactingSource' && policy !== 'NeverContactSource') {
    throw new MirrorSetError(`${at}.mirrorSourcePolicy is ${JSON.stringify(policy)}: AllowContactingSource or NeverContactSource`);
  }
  return { source: e.source, mirrors: mirrors as string[], pulls, neverContactSource: policy === 'NeverContactSource', from };
}

/** Mirror sets from YAML text (one or more documents, or a List), as --idms-file and --icsp-file give them. */
export function mirrorRulesFromYaml(text: string, file: string, allowed: ReadonlyArray<keyof typeof MIRROR_KINDS>): MirrorSets {
  const objects: unknown[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new MirrorSetError(`${file} is not YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
    const value = doc.toJS() as { kind?: string; items?: unknown[] } | null;
    if (value === null || value === undefined) continue;
    if (value.kind === 'List' && Array.isArray(value.items)) objects.push(...value.items);
    else objects.push(value);
  }
  if (!objects.length) throw new MirrorSetError(`${file} holds no ${allowed.map((k) => MIRROR_KINDS[k].kind).join(' or ')}`);
  return mirrorRulesOf(objects, file, allowed);
}
