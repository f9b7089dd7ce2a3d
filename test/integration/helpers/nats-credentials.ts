// Credentials for a private nats-server (helpers/nats.ts): NKey pairs, an operator / account /
// user JWT chain with the user's creds file as `nsc generate creds` writes it, and a
// self-signed CA with server and client certificates made by openssl.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { nkeys } from '@nats-io/nats-core';

type KeyPair = ReturnType<typeof nkeys.createUser>;

const b64url = (b: Uint8Array | string) => Buffer.from(b).toString('base64url');
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** A NATS JWT (alg ed25519-nkey) for `subject`, signed by `issuer`. */
function natsJwt(issuer: KeyPair, subject: string, name: string, nats: Record<string, unknown>): string {
  const header = b64url(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' }));
  const claims = {
    jti: crypto.randomBytes(16).toString('hex').toUpperCase(),
    iat: Math.floor(Date.now() / 1000),
    iss: issuer.getPublicKey(),
    name,
    sub: subject,
    nats: { ...nats, version: 2 },
  };
  const payload = b64url(JSON.stringify(claims));
  return `${header}.${payload}.${b64url(issuer.sign(new TextEncoder().encode(`${header}.${payload}`)))}`;
}

export interface OperatorSetup {
  /** The server's config lines: operator, in-memory resolver with the account preloaded. */
  config: string;
  /** A user's creds file. */
  credsFile: string;
}

/** Operator mode: an operator, a system account, one account (JetStream allowed), one user whose creds file is written in `dir`. */
export function operatorSetup(dir: string): OperatorSetup {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  const system = nkeys.createAccount();
  const user = nkeys.createUser();
  const operatorJwt = natsJwt(operator, operator.getPublicKey(), 'test-operator', { type: 'operator' });
  const unlimited = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };
  const jetstream = { mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 };
  const accountJwt = natsJwt(operator, account.getPublicKey(), 'test-account', { type: 'account', limits: { ...unlimited, ...jetstream } });
  const systemJwt = natsJwt(operator, system.getPublicKey(), 'SYS', { type: 'account', limits: unlimited });
  const userJwt = natsJwt(account, user.getPublicKey(), 'test-user', { type: 'user', pub: {}, sub: {}, subs: -1, data: -1, payload: -1 });
  const operatorFile = path.join(dir, 'operator.jwt');
  fs.writeFileSync(operatorFile, operatorJwt);
  const credsFile = path.join(dir, 'user.creds');
  fs.writeFileSync(
    credsFile,
    [
      '-----BEGIN NATS USER JWT-----',
      userJwt,
      '------END NATS USER JWT------',
      '',
      '************************* IMPORTANT *************************',
      'NKEY Seed printed below can be used to sign and prove identity.',
      '',
      '-----BEGIN USER NKEY SEED-----',
      text(user.getSeed()),
      '------END USER NKEY SEED------',
      '',
    ].join('\n'),
  );
  const preload = [`${account.getPublicKey()}: "${accountJwt}"`, `${system.getPublicKey()}: "${systemJwt}"`].join('\n  ');
  return {
    config: `operator: "${operatorFile}"\nsystem_account: ${system.getPublicKey()}\nresolver: MEMORY\nresolver_preload: {\n  ${preload}\n}\n`,
    credsFile,
  };
}

/** A user NKey pair: the public key for the server's config, the seed for the runtime. */
export function nkeyUser(): { publicKey: string; seed: string } {
  const kp = nkeys.createUser();
  return { publicKey: kp.getPublicKey(), seed: text(kp.getSeed()) };
}

export interface TestCertificates {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/** A CA and server (127.0.0.1) and client certificates signed by it, or null without openssl. */
export function certificates(dir: string): TestCertificates | null {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  try {
    run('version');
  } catch {
    return null;
  }
  const p = (f: string) => path.join(dir, f);
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=test-ca', '-keyout', p('ca.key'), '-out', p('ca.pem'));
  fs.writeFileSync(p('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  for (const [name, ext] of [
    ['server', ['-extfile', p('server.ext')]],
    ['client', []],
  ] as const) {
    run('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', p(`${name}.key`), '-out', p(`${name}.csr`));
    run('x509', '-req', '-in', p(`${name}.csr`), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial', '-days', '1', '-out', p(`${name}.pem`), ...ext);
  }
  return { ca: p('ca.pem'), serverCert: p('server.pem'), serverKey: p('server.key'), clientCert: p('client.pem'), clientKey: p('client.key') };
}
