/**
 * Help a newcomer can act on: `help <command>` is `<command> --help` (exit 0), every option of run says its default,
 * the fault names are listed with what each breaks, each command has examples, the exit codes and the environment
 * variables read are said, and `--version` answers.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAULTS } from '../../reference/faults.js';
import { DEFAULT_PROFILE, PROFILE_NAMES, PROFILES } from '../../reference/profiles/index.js';
import { ocpE2e, ROOT } from '../support/cli.js';

describe('ocp-e2e help', function () {
  this.timeout(60_000);

  for (const command of [['run'], ['report'], ['merge-reports'], ['apiserver'], ['cluster', 'up']]) {
    it(`help ${command.join(' ')} is ${command.join(' ')} --help, exits 0, and shows examples and exit codes`, async () => {
      const [viaHelp, viaFlag] = await Promise.all([ocpE2e(['help', ...command]), ocpE2e([...command, '--help'])]);
      expect(viaHelp.exitCode, viaHelp.output).to.equal(0);
      expect(viaFlag.exitCode, viaFlag.output).to.equal(0);
      expect(viaHelp.output).to.equal(viaFlag.output);
      expect(viaFlag.output).to.match(/\nExamples:\n {2}ocp-e2e /);
      expect(viaFlag.output).to.match(/\nExit codes:\n {2}0 /);
    });
  }

  it('run --help gives every option\'s default (or says when there is none), the faults and the environment variables', async () => {
    const { output } = await ocpE2e(['run', '--help']);
    // One entry per option: from its flag to the next flag line.
    const entries = output.split('\nExamples:')[0]!.split(/\n(?= {2}-)/).slice(1).map((e) => e.replace(/\s+/g, ' ').trim());
    const options = entries.filter((e) => !e.startsWith('-h, --help'));
    expect(options.length).to.be.at.least(12);
    for (const entry of options) expect(entry, entry).to.match(/default|required/);
    expect(output.replace(/\s+/g, ' ')).to.include(`(default: ${DEFAULT_PROFILE})`);
    const specCount = readdirSync(join(ROOT, 'specs')).filter((n) => n.endsWith('.spec.ts')).length;
    expect(output.replace(/\s+/g, ' ')).to.include(`(default: all ${specCount} specs)`);
    expect(output.replace(/\s+/g, ' ')).to.include('(default: 600, ten cluster minutes per wall second)');
    for (const [name, fault] of Object.entries(FAULTS)) expect(output.replace(/\s+/g, ' ')).to.include(`${name} ${fault.what}`);
    for (const variable of ['KUBECONFIG', 'DOCKER_HOST', 'REGISTRY_AUTH_FILE']) expect(output).to.match(new RegExp(`\\n {2}${variable} +\\S`));
  });

  it('run and cluster up list every profile of the registry, with what it models, and take exactly those', async () => {
    for (const command of [['run'], ['cluster', 'up']]) {
      const { output } = await ocpE2e([...command, '--help']);
      const profiles = output.split('\nProfiles (--profile, reference only):\n')[1]?.split('\n\n')[0] ?? '';
      expect(profiles.trim().split('\n'), output).to.have.length(PROFILE_NAMES.length);
      for (const name of PROFILE_NAMES) {
        const { description, upstream } = PROFILES[name];
        expect(profiles.replace(/\s+/g, ' '), name).to.include(`${name} ${description}; models ${upstream.label} ${upstream.commit.slice(0, 9)}`);
        expect(output.replace(/\s+/g, ' ')).to.include(`"${name}"`);
      }
    }
    const refused = await ocpE2e(['run', '--profile', '4.13-nope']);
    expect(refused.exitCode).to.equal(2);
    expect(refused.output).to.include(`Allowed choices are ${PROFILE_NAMES.join(', ')}`);
  });

  it('cluster up lists the faults in its help rather than pointing elsewhere, and apiserver shows its listen default plainly', async () => {
    const up = await ocpE2e(['cluster', 'up', '--help']);
    expect(up.output).to.include('Faults (--fault');
    expect(up.output).not.to.include('see reference/README.md');
    const api = await ocpE2e(['apiserver', '--help']);
    expect(api.output).to.include('(default: 127.0.0.1:0)');
    expect(api.output).not.to.include('{"host"');
  });

  it('--version prints the suite\'s version', async () => {
    const r = await ocpE2e(['--version']);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(r.exitCode).to.equal(0);
    expect(r.output.trim()).to.equal(`ocp-e2e ${pkg.version} (node ${process.version})`);
  });

  it('an unknown option is still a usage error (exit 2)', async () => {
    const r = await ocpE2e(['run', '--no-such-option']);
    expect(r.exitCode).to.equal(2);
    expect(r.output).to.include("unknown option '--no-such-option'");
  });
});
