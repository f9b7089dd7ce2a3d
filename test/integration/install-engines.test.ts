// The supported Node versions and the dependency tree agree (docs/installers.md, "Node
// versions"): every package `npm ci` installs on the lowest supported Node accepts it, so
// the install prints no engine warning; the packages that ask for more are optional and are
// only the Electron toolchain.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string }; optionalDependencies: Record<string, string> };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; optional?: boolean; engines?: { node?: string } | string[] }>;
};
const lowest = semver.minVersion(pkg.engines.node)!.version;

function nodeRange(entry: { engines?: { node?: string } | string[] }): string | undefined {
  return Array.isArray(entry.engines) ? undefined : entry.engines?.node;
}

describe(`the install on Node ${lowest} (the lowest engines.node allows)`, () => {
  it('installs no package whose engines exclude that Node', () => {
    const refused = Object.entries(lock.packages)
      .filter(([name, entry]) => name !== '' && !entry.optional)
      .filter(([, entry]) => {
        const range = nodeRange(entry);
        return range !== undefined && !semver.satisfies(lowest, range, { includePrerelease: true });
      })
      .map(([name, entry]) => `${name.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${nodeRange(entry)}`);
    expect(refused).toEqual([]);
  });

  it('leaves out only the Electron toolchain, whose packages are optional', () => {
    expect(Object.keys(pkg.optionalDependencies).sort()).toEqual(['electron', 'electron-builder']);
    const optionalTops = Object.entries(lock.packages).filter(
      ([name, entry]) => entry.optional && /^node_modules\/[^/]+(\/[^/]+)?$/.test(name) && !name.includes('/node_modules/', 13),
    );
    expect(optionalTops.some(([name]) => name === 'node_modules/electron')).toBe(true);
    expect(optionalTops.some(([name]) => name === 'node_modules/electron-builder')).toBe(true);
  });
});
