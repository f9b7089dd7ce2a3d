// Registry endpoints (spec 4.2, 5.2): metadata of every project component and hot reload.
import { ProjectLoadError } from '../project/loader.ts';
import { ReloadBusyError, type Registry } from '../project/registry.ts';
import { ManagementError } from './envelope.ts';
import type { RegistryMetadata, ReloadFailure } from '../../../shared/runtime-contract.ts';

export class RegistryService {
  constructor(private readonly registry: Pick<Registry, 'loaded' | 'current' | 'componentVersion' | 'reload'>) {}

  metadata(): RegistryMetadata {
    const { registry } = this;
    if (!registry.loaded) throw new ManagementError('RUNTIME_UNAVAILABLE', 'The registry runtime is not available: the project is not loaded.');
    const gen = registry.current;
    return {
      agent: gen.project.manifest.name,
      generation: gen.number,
      loaded_at: gen.loadedAt,
      exit_node: gen.exitNode,
      components: gen.project.components.map((c) => ({ kind: c.kind, name: c.name, file: c.file, hash: c.hash, version: registry.componentVersion(c) })),
      // The contracts the loaded project declares, schemas resolved: the studio's composer
      // offers them without reading (or running) the project itself.
      input_contracts: [...gen.project.contracts.values()].map(({ decl, validate }) => ({
        schema: decl.schema,
        name: decl.name ?? decl.schema,
        ...(decl.description ? { description: decl.description } : {}),
        json_schema: (validate.schema as Record<string, unknown> | undefined) ?? decl.jsonSchema ?? null,
      })),
      // The run options it declares, in manifest order: the composer shows them as fields.
      run_options: Object.entries(gen.project.manifest.runOptions).map(([name, o]) => ({ name, ...o })),
    };
  }

  async reload() {
    const { registry } = this;
    if (!registry.loaded) throw new ManagementError('RUNTIME_UNAVAILABLE', 'The registry runtime is not available: the project is not loaded.');
    try {
      return await registry.reload();
    } catch (err) {
      if (err instanceof ReloadBusyError) throw new ManagementError('RUNTIME_UNAVAILABLE', 'A reload is already in progress; try again.');
      if (err instanceof ProjectLoadError) {
        const { code, message, ...extra }: ReloadFailure = {
          code: 'RELOAD_FAILED',
          message: 'The project did not validate; the previous generation keeps serving.',
          generation: registry.current.number,
          diagnostics: err.diagnostics,
        };
        throw new ManagementError(code, message, extra);
      }
      throw err;
    }
  }
}
