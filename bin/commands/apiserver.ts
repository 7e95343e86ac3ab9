/**
 * `ocp-e2e apiserver`: runs the mock Kubernetes API server on its own, with the project's OpenShift CRDs
 * installed, until SIGINT or SIGTERM. Prints the URL and the kubeconfig path once it serves.
 */
import { resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { addHelpExtras } from '../help.js';
import { startApiServer, type FaultConfig } from '../../mock/index.js';
import { loadCrdsFrom, OPENSHIFT_EXTRA_PRINTER_COLUMNS, openShiftCrds } from '../../reference/crds/index.js';

function parseListen(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(value);
  if (!m) throw new InvalidArgumentError('expected HOST:PORT, for example 127.0.0.1:6443 (port 0 picks a free one)');
  const port = Number(m[3]);
  if (port > 65535) throw new InvalidArgumentError('port must be between 0 and 65535');
  return { host: m[1] ?? m[2]!, port };
}

function share(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('expected a share between 0 and 1');
  return n;
}

function nonNegative(value: string): number {
  const n = Number(value);
  if (!(n >= 0)) throw new InvalidArgumentError('expected a non-negative number');
  return n;
}

export function register(program: Command): void {
  const command = program
    .command('apiserver')
    .description('Run the mock Kubernetes API server (with the OpenShift CRDs) until interrupted')
    .addOption(new Option('--listen <host:port>', 'address to listen on; port 0 picks a free port').argParser(parseListen).default({ host: '127.0.0.1', port: 0 }, '127.0.0.1:0'))
    .option('--kubeconfig-out <file>', 'write a kubeconfig for the server here', 'kubeconfig')
    .option('--insecure-http', 'serve plain HTTP instead of HTTPS with a generated CA')
    .option('--token <token>', 'bearer token clients must send (default: random)')
    .option('--data-dir <dir>', 'persist objects here; acknowledged writes survive kill -9')
    .option('--no-openshift-crds', 'do not install the OpenShift CRDs from reference/crds')
    .option('--crds <dir>', 'also install the CRDs found in the YAML files of this directory')
    .option('--fault-latency-ms <ms>', 'added latency per request', nonNegative)
    .option('--fault-429-rate <share>', 'share of requests answered 429 with Retry-After', share)
    .option('--fault-500-rate <share>', 'share of requests answered 500', share)
    .option('--fault-reset-rate <share>', 'share of connections reset without an answer', share)
    .option('--fault-watch-cut-seconds <s>', 'end watch streams after this many seconds', nonNegative)
    .action(async (opts) => {
      const crds = [...(opts.openshiftCrds ? openShiftCrds() : []), ...(opts.crds ? loadCrdsFrom(resolve(opts.crds)) : [])];
      const faults: FaultConfig = {
        latencyMs: opts.faultLatencyMs, rate429: opts.fault429Rate, rate500: opts.fault500Rate,
        resetRate: opts.faultResetRate, watchCutSeconds: opts.faultWatchCutSeconds,
      };
      const server = await startApiServer({
        host: opts.listen.host, port: opts.listen.port, tls: !opts.insecureHttp, token: opts.token,
        dataDir: opts.dataDir ? resolve(opts.dataDir) : undefined, crds, faults,
        extraPrinterColumns: opts.openshiftCrds ? OPENSHIFT_EXTRA_PRINTER_COLUMNS : undefined,
      });
      const kubeconfigPath = resolve(opts.kubeconfigOut);
      await server.writeKubeconfig(kubeconfigPath);
      console.log(`API server ready at ${server.url}`);
      console.log(`kubeconfig: ${kubeconfigPath}`);
      console.log(`try: KUBECONFIG=${kubeconfigPath} kubectl get co,mcp`);
      await new Promise<void>((done) => {
        const stop = (signal: string) => {
          console.log(`${signal}: stopping the API server`);
          server.close().then(done, done);
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
      });
    });
  addHelpExtras(command, {
    examples: [
      'ocp-e2e apiserver --kubeconfig-out /tmp/mock.kubeconfig                 # HTTPS on a free loopback port',
      'ocp-e2e apiserver --listen 127.0.0.1:6443 --data-dir /tmp/mock-data --kubeconfig-out /tmp/mock.kubeconfig',
      'ocp-e2e apiserver --fault-429-rate 0.1 --fault-watch-cut-seconds 30 --kubeconfig-out /tmp/mock.kubeconfig',
      'KUBECONFIG=/tmp/mock.kubeconfig kubectl get co,mcp                       # in another shell',
    ],
    exitCodes: ['0  stopped by SIGINT/SIGTERM', '2  usage problem (bad option value, port taken), said in one message'],
  });
}
