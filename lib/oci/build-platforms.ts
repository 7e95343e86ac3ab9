// Which CPU architectures the container engine can build images for. An engine builds its host's architecture
// natively; another one only through emulation (qemu-user-static registered with binfmt_misc) or a builder of that
// architecture behind DOCKER_HOST. Whether emulation works is a property of the machine the engine runs on, which
// the suite cannot see from here: it is asked with a real build, once per architecture and process.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildImage, removeImage } from './build.js';
import type { Engine } from './engine.js';

/** `OCP_E2E_BUILD_PLATFORMS=linux/amd64,linux/arm64`: what the engine can build, declared instead of probed. */
export const BUILD_PLATFORMS_ENV = 'OCP_E2E_BUILD_PLATFORMS';

/** Node's `process.arch` as OCI and Kubernetes name architectures. */
const OCI_ARCH_OF_NODE: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' };

/** The architecture this process runs on, as OCI names it (what the engine builds natively when it is local). */
export function hostArchitecture(): string {
  return OCI_ARCH_OF_NODE[process.arch] ?? process.arch;
}

export class BuildPlatformsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BuildPlatformsError';
  }
}

/** `linux/amd64,linux/arm64` → [amd64, arm64]; anything else (another OS, an empty item, a variant) is refused by name. */
export function parseBuildPlatforms(value: string): string[] {
  const out: string[] = [];
  for (const item of value.split(',').map((s) => s.trim())) {
    const m = /^linux\/([a-z0-9_]+)$/.exec(item);
    if (!m) throw new BuildPlatformsError(`${BUILD_PLATFORMS_ENV}=${value}: "${item}" is not a platform; give a comma list of linux/<arch>, e.g. linux/amd64,linux/arm64`);
    if (!out.includes(m[1]!)) out.push(m[1]!);
  }
  return out;
}

/**
 * A static ELF executable of `architecture` that only calls exit(0): the smallest program whose run proves the engine
 * executes that architecture's code. The local busybox base cannot serve: it holds the host's own binaries, which run
 * natively whatever platform the build names.
 */
export function exitZeroElf(architecture: string): Buffer | undefined {
  const code: Record<string, { machine: number; text: Buffer }> = {
    // mov eax, 60 (exit); xor edi, edi; syscall
    amd64: { machine: 0x3e, text: Buffer.from([0xb8, 0x3c, 0, 0, 0, 0x31, 0xff, 0x0f, 0x05]) },
    // mov x0, #0; mov x8, #93 (exit); svc #0
    arm64: { machine: 0xb7, text: words([0xd2800000, 0xd2800ba8, 0xd4000001]) },
  };
  const program = code[architecture];
  if (!program) return undefined;
  const base = 0x400000;
  const header = Buffer.alloc(64 + 56);
  header.write('\x7fELF', 0, 'latin1');
  header.set([2, 1, 1], 4); // 64-bit, little-endian, ELF version 1
  header.writeUInt16LE(2, 16); // ET_EXEC
  header.writeUInt16LE(program.machine, 18);
  header.writeUInt32LE(1, 20);
  header.writeBigUInt64LE(BigInt(base + header.length), 24); // entry: right after the headers
  header.writeBigUInt64LE(64n, 32); // program headers at 64
  header.writeUInt16LE(64, 52);
  header.writeUInt16LE(56, 54);
  header.writeUInt16LE(1, 56); // one program header
  const size = BigInt(header.length + program.text.length);
  header.writeUInt32LE(1, 64); // PT_LOAD
  header.writeUInt32LE(5, 68); // read + execute
  header.writeBigUInt64LE(BigInt(base), 80);
  header.writeBigUInt64LE(BigInt(base), 88);
  header.writeBigUInt64LE(size, 96);
  header.writeBigUInt64LE(size, 104);
  header.writeBigUInt64LE(0x1000n, 112);
  return Buffer.concat([header, program.text] as Uint8Array[]);
}

function words(values: number[]): Buffer {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeUInt32LE(v, i * 4));
  return b;
}

export interface BuildPlatformAnswer {
  architecture: string;
  canBuild: boolean;
  /** How that is known: the environment variable, the host, or the probe (with its error when it failed). */
  how: string;
}

/**
 * Asks the engine to build for linux/`architecture` an image whose one RUN step executes a program of that
 * architecture (exitZeroElf), FROM scratch so no base image is pulled or needs to exist for that platform.
 */
async function probe(engine: Engine, architecture: string): Promise<BuildPlatformAnswer> {
  const elf = exitZeroElf(architecture);
  if (!elf) return { architecture, canBuild: false, how: `the suite has no probe program for ${architecture}; declare it in ${BUILD_PLATFORMS_ENV} if the engine builds it` };
  const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-platform-probe-'));
  // a tag of this process's own: runs on one engine probe at once without removing each other's image
  const tag = `localhost/ocp-e2e/platform-probe:${architecture}-${process.pid}`;
  try {
    await writeFile(path.join(dir, 'probe'), elf as Uint8Array);
    await chmod(path.join(dir, 'probe'), 0o755); // the classic builder has no COPY --chmod: the mode comes from the context
    await writeFile(path.join(dir, 'Containerfile'), 'FROM scratch\nCOPY probe /probe\nRUN ["/probe"]\n');
    await buildImage(engine, { contextDir: dir, tag, platform: `linux/${architecture}`, noCache: true, timeoutMs: 120_000 });
    return { architecture, canBuild: true, how: `a build for linux/${architecture} ran a program of that architecture` };
  } catch (error) {
    const said = (error as Error).message.split('\n')[0]!.replace(ANSI, '').trim();
    return { architecture, canBuild: false, how: `a build for linux/${architecture} that runs a program of that architecture failed: ${said}` };
  } finally {
    await removeImage(engine, tag, { force: true }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * What the engine can build, asked once per architecture (a probe build costs a second or two; a run asks for the
 * same architectures at each spec). The environment variable, when set, is the answer for every architecture.
 */
export class EngineBuildPlatforms {
  private readonly answers = new Map<string, Promise<BuildPlatformAnswer>>();
  private readonly declared: string[] | undefined;

  constructor(
    private readonly engine: () => Promise<Engine>,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const value = env[BUILD_PLATFORMS_ENV];
    this.declared = value === undefined || value.trim() === '' ? undefined : parseBuildPlatforms(value);
  }

  canBuild(architecture: string): Promise<BuildPlatformAnswer> {
    let answer = this.answers.get(architecture);
    if (!answer) {
      answer = this.answer(architecture);
      this.answers.set(architecture, answer);
    }
    return answer;
  }

  private async answer(architecture: string): Promise<BuildPlatformAnswer> {
    if (this.declared) {
      const canBuild = this.declared.includes(architecture);
      return { architecture, canBuild, how: `${BUILD_PLATFORMS_ENV}=${this.declared.map((a) => `linux/${a}`).join(',')} ${canBuild ? 'lists' : 'does not list'} linux/${architecture}` };
    }
    if (architecture === hostArchitecture()) return { architecture, canBuild: true, how: `the host's own architecture` };
    return probe(await this.engine(), architecture);
  }
}
