/**
 * The commands a debug pod runs on a simulated host (`oc debug node/N -- chroot /host CMD`). The host's file system
 * is the booted OS image itself, read from the registry, under what the machine-config daemon wrote (hosts.ts):
 * `cat` and `stat -c` show the daemon's files first, then the image's with the modes its layers record;
 * `/proc/cmdline` is the booted deployment's kernel command line; `rpm` answers from the image's package database, as
 * the image's own `rpm` does, with the booted deployment's extensions and realtime kernel swapped in (their packages
 * read from the extensions image); `systemctl is-enabled` from the daemon's units, else from the image's unit file and
 * the links `systemctl enable` left in it; `uname -r` names the booted kernel package. `rpm-ostree status` describes
 * the host's booted and rollback deployments. A small `sh -c` runs lists of these (`;`, `&&`, `||`).
 * Anything else is refused in words rather than imitated: an unknown program fails as a missing one does, a program
 * the image has but the reference does not simulate says so (exit 126).
 */
import { RPMDB_PATH, parseRpmDb, type InstalledRpm } from '../releases/os-content.js';
import { DEFAULT_KERNEL_PACKAGES, REALTIME_KERNEL_PACKAGES, SUPPORTED_EXTENSIONS } from '../mcd/node-config.js';
import { rpmOstreeStatusJson } from '../mcd/os-status.js';
import { kernelCommandLine, kernelRelease } from '../node-fs/kernel.js';
import { installTargets } from '../node-fs/unit-links.js';
import type { HostOs } from './hosts.js';

export interface HostFiles {
  /** A file of an image, or undefined when the image has none at that path. */
  readFile(imageRef: string, path: string): Promise<Buffer | undefined>;
  /** The same with its permission bits as the image's layer records them; without it, modes are a package's usual ones. */
  readFileEntry?(imageRef: string, path: string): Promise<{ data: Buffer; mode: number } | undefined>;
}

export interface HostContext {
  node: string;
  os: HostOs;
  files: HostFiles;
}

export interface CommandResult {
  /** stdout and stderr interleaved, as a container log holds them. */
  output: string;
  exitCode: number;
}

const PROGRAM_DIRS = ['/usr/bin', '/usr/sbin', '/bin', '/sbin'];
const SIMULATED = 'cat, echo, exit, false, hostname, rpm, rpm-ostree, sh -c, stat -c, systemctl is-enabled, true, uname';
/** Where a package of the extensions image is described (images/rhcos-like/Containerfile.extensions). */
const EXTENSIONS_IMAGE_DIR = '/usr/share/rpm-ostree/extensions';
/** Where machine-os-content carries them (the OS image is the extensions' source before 4.12 FIX). */
const OS_IMAGE_EXTENSIONS_DIR = '/extensions';

/** Runs a container's command line (command + args) in a debug pod on `host`. */
export async function runDebugCommand(argv: string[], host: HostContext): Promise<CommandResult> {
  if (argv.length === 0) return { output: '', exitCode: 0 }; // the debug image's shell, with no terminal: ends at once
  if (argv[0] !== 'chroot' || argv[1] !== '/host') {
    return {
      output: `${argv[0]}: the reference's debug container holds no tools of its own; run host commands as \`chroot /host ${argv.join(' ')}\`\n`,
      exitCode: 127,
    };
  }
  const rest = argv.slice(2);
  if (rest.length === 0) return { output: '', exitCode: 0 }; // chroot runs the host's shell, which ends without a terminal
  return new HostShell(host).run(rest, 'chroot');
}

class HostShell {
  private out = '';
  private rpmDb?: Promise<InstalledRpm[] | undefined>;

  constructor(private readonly host: HostContext) {}

  async run(argv: string[], via: 'chroot' | 'sh'): Promise<CommandResult> {
    const exitCode = await this.exec(argv, via);
    return { output: this.out, exitCode };
  }

  private print(text: string): void {
    this.out += text.endsWith('\n') || text === '' ? text : `${text}\n`;
  }

  private async exec(argv: string[], via: 'chroot' | 'sh'): Promise<number> {
    const [program = '', ...args] = argv;
    const name = program.replace(/^\/(usr\/)?s?bin\//, '');
    switch (name) {
      case 'sh':
      case 'bash':
        if (args[0] === '-c' && args[1] !== undefined) return this.script(args[1]);
        this.print(`${name}: the reference's host shell runs only \`${name} -c 'LIST'\``);
        return 2;
      case 'true':
        return 0;
      case 'false':
        return 1;
      case 'echo':
        this.out += `${args.join(' ')}\n`;
        return 0;
      case 'stat':
        return this.stat(args);
      case 'systemctl':
        return this.systemctl(args);
      case 'uname':
        return this.uname(args);
      case 'hostname':
        this.print(this.host.node);
        return 0;
      case 'cat':
        return this.cat(args);
      case 'rpm':
        return this.rpm(args);
      case 'rpm-ostree':
        return this.rpmOstree(args);
      default:
        return this.unknown(program, via);
    }
  }

  private async unknown(program: string, via: 'chroot' | 'sh'): Promise<number> {
    const candidates = program.startsWith('/') ? [program] : PROGRAM_DIRS.map((d) => `${d}/${program}`);
    for (const path of candidates) {
      if (await this.host.files.readFile(this.host.os.booted.pullspec, path)) {
        this.print(`${program}: present in the booted image but not simulated by the reference's host (simulated: ${SIMULATED})`);
        return 126;
      }
    }
    this.print(via === 'chroot' ? `chroot: failed to run command '${program}': No such file or directory` : `sh: ${program}: not found`);
    return 127;
  }

  /** `;`, `&&` and `||` lists of simple commands with quoting; `exit N` ends the list. */
  private async script(text: string): Promise<number> {
    let parsed: Array<{ argv: string[]; op: ';' | '&&' | '||' }>;
    try {
      parsed = parseList(text);
    } catch (error) {
      this.print(`sh: ${(error as Error).message}`);
      return 2;
    }
    let status = 0;
    let previousOp: ';' | '&&' | '||' = ';';
    for (const { argv, op } of parsed) {
      const skip = (previousOp === '&&' && status !== 0) || (previousOp === '||' && status === 0);
      previousOp = op;
      if (skip || argv.length === 0) continue;
      if (argv[0] === 'exit') return argv[1] === undefined ? status : Number(argv[1]) & 255;
      status = await this.exec(argv, 'sh');
    }
    return status;
  }

  /** A file as the host's disk has it: the kernel's, the daemon's, else the booted image's. */
  private async file(path: string): Promise<{ data: Buffer; mode: number } | undefined> {
    const absolute = path.startsWith('/') ? path : `/${path}`;
    if (absolute === '/proc/cmdline') return { data: Buffer.from(`${await this.cmdline()}\n`), mode: 0o444 };
    const written = this.host.os.files.get(absolute);
    if (written) return { data: written.contents, mode: written.mode };
    const { files, os } = this.host;
    if (files.readFileEntry) return files.readFileEntry(os.booted.pullspec, absolute);
    const data = await files.readFile(os.booted.pullspec, absolute);
    // a source that keeps no modes: programs are executable, the rest as a package installs it
    return data === undefined ? undefined : { data, mode: /^\/(usr\/)?(s?bin|libexec)\//.test(absolute) ? 0o755 : 0o644 };
  }

  private async cmdline(): Promise<string> {
    return kernelCommandLine(this.host.node, this.host.os, await this.kernelRelease());
  }

  private async cat(paths: string[]): Promise<number> {
    let status = 0;
    for (const path of paths) {
      const data = (await this.file(path))?.data;
      if (data === undefined) {
        this.print(`cat: can't open '${path}': No such file or directory`);
        status = 1;
      } else this.out += data.toString('utf8');
    }
    return status;
  }

  /** `stat -c FORMAT FILE…` / `--format=FORMAT`: %a (octal mode), %s (size), %n (name). */
  private async stat(args: string[]): Promise<number> {
    let format: string | undefined;
    const paths: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '-c' || a === '--format') format = args[++i];
      else if (a.startsWith('--format=')) format = a.slice('--format='.length);
      else paths.push(a);
    }
    if (format === undefined) {
      this.print(`stat: the reference's host simulates only \`stat -c FORMAT FILE\` (%a, %s, %n)`);
      return 1;
    }
    if (!paths.length) {
      this.print("stat: missing operand\nTry 'stat --help' for more information.");
      return 1;
    }
    let status = 0;
    for (const path of paths) {
      const found = await this.file(path);
      if (!found) {
        this.print(`stat: cannot stat '${path}': No such file or directory`);
        status = 1;
        continue;
      }
      this.print(format.replace(/%([asn%])/g, (_m, c: string) => (c === 'a' ? found.mode.toString(8) : c === 's' ? String(found.data.length) : c === 'n' ? path : '%')));
    }
    return status;
  }

  /** `systemctl is-enabled UNIT…`: the daemon's units; a unit file that only the image has is reported disabled. */
  private async systemctl(args: string[]): Promise<number> {
    if (args[0] !== 'is-enabled' || args.length < 2) {
      this.print(`systemctl: the reference's host simulates only \`systemctl is-enabled UNIT...\`; got \`systemctl ${args.join(' ')}\``);
      return 1;
    }
    let status = 0;
    for (const name of args.slice(1)) {
      const state = this.daemonUnitState(name) ?? (await this.imageUnitState(name));
      if (state === undefined) {
        this.print(`Failed to get unit file state for ${name}: No such file or directory`);
        status = 1;
        continue;
      }
      this.print(state);
      if (state !== 'enabled' && state !== 'static') status = 1;
    }
    return status;
  }

  /** A unit the daemon wrote (a MachineConfig's): its mask and enabled fields, else its [Install] section. */
  private daemonUnitState(name: string): string | undefined {
    const unit = this.host.os.units.get(name);
    if (!unit) return undefined;
    if (unit.mask) return 'masked';
    if (unit.enabled !== undefined) return unit.enabled ? 'enabled' : 'disabled';
    return unit.contents !== undefined && !/^\[Install\]/m.test(unit.contents) ? 'static' : 'disabled';
  }

  /**
   * A unit the booted image carries, as systemctl judges it from the unit file and the links `systemctl enable` makes:
   * `enabled` when a `<target>.wants/` (or `.requires/`) folder of its [Install] section links it, `static` without an
   * [Install] section, else `disabled`; undefined when the image has no such unit.
   */
  private async imageUnitState(name: string): Promise<string | undefined> {
    const dirs = ['/etc/systemd/system', '/usr/lib/systemd/system'];
    let unit: Buffer | undefined;
    for (const dir of dirs) unit ??= (await this.file(`${dir}/${name}`))?.data;
    if (!unit) return undefined;
    const targets = installTargets(unit.toString('utf8'));
    if (!targets) return 'static';
    for (const { target, kind } of targets) {
      for (const dir of dirs) if (await this.file(`${dir}/${target}.${kind}/${name}`)) return 'enabled';
    }
    return 'disabled';
  }

  private async kernelRelease(): Promise<string> {
    return kernelRelease((await this.packages()) ?? [], this.host.os.deployment.kernelType);
  }

  private async uname(args: string[]): Promise<number> {
    const release = await this.kernelRelease();
    const words: Record<string, string> = { '-s': 'Linux', '-n': this.host.node, '-r': release, '-m': 'x86_64' };
    if (args.length === 0) this.print('Linux');
    else if (args.every((a) => a in words)) this.print(args.map((a) => words[a]).join(' '));
    else if (args.length === 1 && args[0] === '-a') this.print(`Linux ${this.host.node} ${release} #1 SMP${this.host.os.deployment.kernelType === 'realtime' ? ' PREEMPT_RT' : ''} x86_64 x86_64 x86_64 GNU/Linux`);
    else {
      this.print(`uname: the reference's host simulates only -s, -n, -r, -m and -a; got ${args.join(' ')}`);
      return 1;
    }
    return 0;
  }

  /**
   * The booted deployment's packages: the image's database, the realtime kernel instead of the default one when the
   * deployment has kernelType realtime, and each extension's packages (update.go getSupportedExtensions), as the
   * extensions image describes them. A package the extensions image lacks is not installed.
   */
  private packages(): Promise<InstalledRpm[] | undefined> {
    this.rpmDb ??= (async () => {
      const { booted, deployment } = this.host.os;
      const image = await this.host.files.readFile(booted.pullspec, RPMDB_PATH);
      if (!image) return undefined;
      let db = parseRpmDb(image.toString('utf8'));
      const wanted = deployment.extensions.flatMap((e) => SUPPORTED_EXTENSIONS[e] ?? []);
      if (deployment.kernelType === 'realtime') {
        db = db.filter((r) => !DEFAULT_KERNEL_PACKAGES.includes(r.name));
        wanted.push(...REALTIME_KERNEL_PACKAGES);
      }
      for (const name of wanted) {
        if (db.some((r) => r.name === name)) continue;
        const found = await this.extensionPackage(name);
        if (found) db.push(found);
      }
      return db;
    })();
    return this.rpmDb;
  }

  private async extensionPackage(name: string): Promise<InstalledRpm | undefined> {
    const { booted, deployment } = this.host.os;
    const described = deployment.extensionsImage
      ? await this.host.files.readFile(deployment.extensionsImage, `${EXTENSIONS_IMAGE_DIR}/${name}/package`)
      : await this.host.files.readFile(booted.pullspec, `${OS_IMAGE_EXTENSIONS_DIR}/${name}/package`);
    return described ? parseRpmDb(described.toString('utf8'))[0] : undefined;
  }

  /** What the image's own rpm (images/rhcos-like/rootfs/usr/bin/rpm) answers, from the same database file. */
  private async rpm(args: string[]): Promise<number> {
    const nevra = (r: InstalledRpm): string => `${r.name}-${r.version}-${r.release}.${r.arch}`;
    if (args[0] === '--version') {
      this.print('RPM version 4.14.3');
      return 0;
    }
    const db = await this.packages();
    if (!db) {
      this.print(`error: cannot open Packages database in /var/lib/rpm`);
      return 1;
    }
    if (args[0] === '-qa' || ((args[0] === '-q' || args[0] === '--query') && (args[1] === '-a' || args[1] === '--all'))) {
      for (const r of db) this.print(nevra(r));
      return 0;
    }
    if (args[0] === '-q' || args[0] === '--query') {
      const names = args.slice(1);
      if (names.length === 0) {
        this.print('rpm: no arguments given for query');
        return 1;
      }
      let missing = 0;
      for (const name of names) {
        const found = db.filter((r) => r.name === name);
        if (found.length) for (const r of found) this.print(nevra(r));
        else {
          this.print(`package ${name} is not installed`);
          missing++;
        }
      }
      return Math.min(missing, 255);
    }
    this.print('rpm: the reference simulates only -q NAME..., -qa and --version');
    return 1;
  }

  private rpmOstree(args: string[]): number {
    if (args[0] === '--version') {
      this.print('rpm-ostree:\n Version: \'2022.10\'\n Features:\n  - rust\n  - compose\n  - container\n  - fedora-integration');
      return 0;
    }
    if (args[0] !== 'status') {
      this.print(`error: the reference's host simulates only \`rpm-ostree status [--json] [--booted]\`; got \`rpm-ostree ${args.join(' ')}\``);
      return 1;
    }
    const { booted, previous } = this.host.os;
    const bootedOnly = args.includes('--booted') || args.includes('-b');
    const json = rpmOstreeStatusJson(booted, bootedOnly ? undefined : previous);
    if (args.includes('--json')) {
      this.print(JSON.stringify(JSON.parse(json), null, 2));
      return 0;
    }
    const status = JSON.parse(json) as { deployments: Array<Record<string, unknown>> };
    this.print('State: idle\nDeployments:');
    status.deployments.forEach((d, i) => {
      const when = new Date(Number(d.timestamp) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
      if (i > 0) this.print('');
      this.print(`${d.booted ? '*' : ' '} ${d['container-image-reference']}`);
      this.print(`                   Digest: ${d['container-image-reference-digest']}`);
      this.print(`                  Version: ${d.version} (${when})`);
    });
    return 0;
  }
}

/** Splits `a 'b c' && d; e || f` into simple commands and the operators after them. */
export function parseList(text: string): Array<{ argv: string[]; op: ';' | '&&' | '||' }> {
  const out: Array<{ argv: string[]; op: ';' | '&&' | '||' }> = [];
  let argv: string[] = [];
  let word: string | undefined;
  const endWord = (): void => {
    if (word !== undefined) argv.push(word);
    word = undefined;
  };
  const endCommand = (op: ';' | '&&' | '||'): void => {
    endWord();
    out.push({ argv, op });
    argv = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error('unterminated quoted string');
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let value = '';
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '$' || text[j] === '`') throw new Error(`syntax not supported by the reference's host shell: ${text[j]}`);
        if (text[j] === '\\' && j + 1 < text.length) j++;
        value += text[j];
      }
      if (j >= text.length) throw new Error('unterminated quoted string');
      word = (word ?? '') + value;
      i = j;
    } else if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[++i];
    } else if (c === ' ' || c === '\t') endWord();
    else if (c === ';' || c === '\n') endCommand(';');
    else if ((c === '&' || c === '|') && text[i + 1] === c) {
      endCommand(c === '&' ? '&&' : '||');
      i++;
    } else if ('|&<>$`(){}*?'.includes(c)) throw new Error(`syntax not supported by the reference's host shell: ${c}`);
    else word = (word ?? '') + c;
  }
  endCommand(';');
  return out;
}
